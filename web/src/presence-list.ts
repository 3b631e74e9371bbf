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
  /** Set for the shell's owner and the admin: link holders get a Disconnect button. */
  private disconnect: ((viewer: Viewer) => void) | null = null;

  /** Offers "Disconnect" next to each link holder (the owner's and admin's page). */
  allowDisconnect(disconnect: ((viewer: Viewer) => void) | null): void {
    this.disconnect = disconnect;
    this.render();
  }

  setViewers(viewers: readonly Viewer[]): void {
    this.viewers = viewers;
    this.render();
  }

  /** Someone came: added once (a repeat of a known connection replaces it). */
  joined(viewer: Viewer): void {
    this.viewers = [...this.viewers.filter((known) => known.id !== viewer.id), viewer];
    this.render();
  }

  left(id: string): void {
    this.viewers = this.viewers.filter((known) => known.id !== id);
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

  private disconnectButton(viewer: Viewer): HTMLElement | null {
    const disconnect = this.disconnect;
    if (disconnect === null) return null;
    const button = h(
      'button',
      {
        type: 'button',
        class: 'quiet',
        title: `End ${viewer.name}'s connection; their link keeps working`,
        'aria-label': `Disconnect ${viewer.name}`,
      },
      'Disconnect',
    );
    button.addEventListener('click', () => disconnect(viewer));
    return button;
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
          // A link holder chose their own name: never shown as if an admin had set it.
          viewer.link === true && h('span', { class: 'link-holder' }, ' (link)'),
          h('span', { class: 'muted' }, ` ${viewer.role}`),
          viewer.id === this.you && h('span', { class: 'you' }, ' (you)'),
          typing && h('span', { class: 'has-control' }, ' ⌨ typing'),
          viewer.link === true && viewer.id !== this.you && this.disconnectButton(viewer),
        );
      }),
    );
  }
}
