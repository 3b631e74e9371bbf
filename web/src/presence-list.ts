/**
 * Who is on a shell's page right now, and who of them types: one line per connection, the
 * controller marked, this page's own connection marked "(you)".
 */
import type { Viewer } from '../../shared/src/live.ts';
import { h, replaceChildren } from './dom.ts';

export class PresenceList {
  readonly element = h('ul', { class: 'viewers', 'data-testid': 'viewers' });
  private viewers: readonly Viewer[] = [];
  private you: string | null = null;
  private controller: string | null = null;

  setViewers(viewers: readonly Viewer[]): void {
    this.viewers = viewers;
    this.render();
  }

  setYou(id: string | null): void {
    this.you = id;
    this.render();
  }

  setController(id: string | null): void {
    this.controller = id;
    this.render();
  }

  private render(): void {
    // The one typing first: the list answers "who has the keyboard" at a glance.
    const ordered = [...this.viewers].sort(
      (a, b) => Number(b.id === this.controller) - Number(a.id === this.controller),
    );
    replaceChildren(
      this.element,
      ...ordered.map((viewer) => {
        const typing = viewer.id === this.controller;
        return h(
          'li',
          {
            'data-viewer-id': viewer.id,
            'data-name': viewer.name,
            'data-role': viewer.role,
            'data-typing': typing ? 'true' : 'false',
            class: typing ? 'typing' : null,
          },
          h('span', { class: 'viewer-name' }, viewer.name),
          h('span', { class: 'muted' }, ` ${viewer.role}`),
          viewer.id === this.you && h('span', { class: 'you' }, ' (you)'),
          typing && h('span', { class: 'has-control' }, ' ⌨ typing'),
        );
      }),
    );
  }
}
