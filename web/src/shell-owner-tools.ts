/**
 * What the owner of a shell (or an admin) has on its page beyond the controls: the share
 * panel, and for a person's own shell "Hand to agent…" and "Close shell". Shown only to
 * them, and only while the shell lives; the server checks again on every request.
 */
import type { SessionInfo, WhoAmI } from '../../shared/src/api.ts';
import { CloseShellButton } from './close-shell.ts';
import { h } from './dom.ts';
import { HandOffPanel } from './hand-off.ts';
import { isOver } from './session-labels.ts';
import { SharePanel } from './share-panel.ts';
import { managesShell } from './sharing-rules.ts';

export class ShellOwnerTools {
  private readonly share: SharePanel;
  private readonly shellSection = h(
    'section',
    { class: 'shell-tools', 'aria-labelledby': 'shell-tools-title', hidden: true },
    h('h2', { id: 'shell-tools-title' }, 'Your shell'),
  );
  private handOff: HandOffPanel | null = null;
  private sharing = false;

  constructor(
    private readonly sessionId: string,
    private readonly who: WhoAmI | null,
    private readonly handedOff: (session: SessionInfo) => void,
  ) {
    this.share = new SharePanel(sessionId);
    this.share.element.hidden = true;
  }

  get elements(): HTMLElement[] {
    return [this.share.element, this.shellSection];
  }

  update(session: SessionInfo): void {
    const live = !isOver(session.state);
    const manages = live && managesShell(this.who, session);
    this.share.element.hidden = !manages;
    if (manages && !this.sharing) void this.share.refresh();
    this.sharing = manages;
    const personal = manages && session.agent === null;
    this.shellSection.hidden = !personal;
    if (personal && this.handOff === null) {
      this.handOff = new HandOffPanel(this.sessionId, session.dialect, this.handedOff);
      this.shellSection.append(
        h(
          'div',
          { class: 'shell-tool-buttons' },
          this.handOff.element,
          new CloseShellButton(this.sessionId).element,
        ),
      );
    }
  }

  /** The share list again (someone may have opened a link and given their name). */
  refresh(): void {
    if (this.sharing) void this.share.refresh();
  }
}
