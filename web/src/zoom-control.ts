/**
 * The terminal's zoom: smaller, larger, or back to scaled to the page. On a phone the shell's
 * 120 columns do not fit a readable font, so the viewer picks one and scrolls sideways.
 */
import { h } from './dom.ts';
import type { TerminalView } from './terminal-view.ts';

export function zoomControl(view: TerminalView): HTMLElement {
  const size = h('span', { class: 'zoom-size muted', 'data-testid': 'zoom-size' });
  const show = (px: number): void => {
    size.textContent = `${Math.round(px)} px`;
  };
  const button = (label: string, text: string, step: -1 | 0 | 1): HTMLButtonElement =>
    h(
      'button',
      {
        type: 'button',
        class: 'quiet',
        'aria-label': label,
        title: label,
        onclick: () => view.zoom(step),
      },
      text,
    );
  const element = h(
    'div',
    { class: 'zoom', role: 'group', 'aria-label': 'Text size', 'data-testid': 'zoom' },
    button('Smaller text', 'A−', -1),
    size,
    button('Larger text', 'A+', 1),
    button('Fit the page', 'Fit', 0),
  );
  // The font follows the page's width too: the label follows the font.
  view.onFontSize(show);
  return element;
}
