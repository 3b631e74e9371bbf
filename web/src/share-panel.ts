/**
 * Sharing one shell by link (its owner or an admin): pick what the holder may do and how
 * long the link lives, get a link to copy, see the links given out — who opened each — and
 * revoke any of them, which disconnects its holder at once.
 */
import type { ShareInfo } from '../../shared/src/api.ts';
import { createShare, fetchShares, problemText, revokeShare } from './api-client.ts';
import { h, replaceChildren } from './dom.ts';
import { expiryLabel } from './sharing-rules.ts';

const HOUR_S = 3600;
const DAY_S = 24 * HOUR_S;
/** How long a new link may live; '' is "until revoked". */
const EXPIRY_CHOICES: readonly (readonly [string, string])[] = [
  ['', 'Never expires'],
  [String(HOUR_S), 'Expires in 1 hour'],
  [String(DAY_S), 'Expires in 1 day'],
  [String(7 * DAY_S), 'Expires in 7 days'],
];
const ROLE_LABELS: Record<ShareInfo['role'], string> = {
  viewer: 'Watch only',
  operator: 'Watch and type',
};
/** How long "Copied" shows on the copy button. */
const COPIED_MS = 2000;

export class SharePanel {
  readonly element: HTMLElement;
  private readonly list = h('ul', { class: 'shares', 'data-testid': 'shares' });
  private readonly created = h('div', { class: 'share-created', hidden: true });
  /** The link shown to copy, until it is revoked. */
  private createdId: string | null = null;
  private readonly error = h('p', { class: 'form-error', role: 'alert' });
  private readonly role = h(
    'select',
    { 'aria-label': 'What the link allows', name: 'share-role' },
    h('option', { value: 'viewer' }, ROLE_LABELS.viewer),
    h('option', { value: 'operator' }, ROLE_LABELS.operator),
  );
  private readonly expiry = h(
    'select',
    { 'aria-label': 'When the link expires', name: 'share-expiry' },
    ...EXPIRY_CHOICES.map(([value, label]) => h('option', { value }, label)),
  );
  private readonly createButton = h('button', { type: 'submit', class: 'primary' }, 'Create link');

  constructor(private readonly sessionId: string) {
    const form = h(
      'form',
      { class: 'share-form' },
      h('div', { class: 'form-row' }, this.role, this.expiry),
      this.createButton,
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.create();
    });
    this.element = h(
      'section',
      { class: 'share-panel', 'data-testid': 'share-panel', 'aria-labelledby': 'share-title' },
      h('h2', { id: 'share-title' }, 'Share'),
      h(
        'p',
        { class: 'muted small' },
        'A link lets whoever opens it watch this shell — only this one — or also type in it.',
      ),
      form,
      this.error,
      this.created,
      this.list,
    );
  }

  /** Re-reads the links (a holder may just have given their name). */
  async refresh(): Promise<void> {
    const shares = await fetchShares(this.sessionId);
    if (shares.ok) this.renderList(shares.value);
  }

  private async create(): Promise<void> {
    this.error.textContent = '';
    this.createButton.disabled = true;
    const seconds = this.expiry.value === '' ? undefined : Number(this.expiry.value);
    const reply = await createShare(this.sessionId, {
      role: this.role.value === 'operator' ? 'operator' : 'viewer',
      ...(seconds === undefined ? {} : { expiresInSeconds: seconds }),
    });
    this.createButton.disabled = false;
    if (!reply.ok) {
      this.error.textContent = `Could not create the link: ${problemText(reply.problem)}`;
      return;
    }
    this.createdId = reply.value.share.id;
    this.showCreated(reply.value.url, reply.value.share.role);
    await this.refresh();
  }

  private showCreated(url: string, role: ShareInfo['role']): void {
    const field = h('input', {
      type: 'text',
      readonly: true,
      value: url,
      'aria-label': 'Share link',
      'data-testid': 'share-link',
      class: 'share-url',
    });
    field.addEventListener('focus', () => field.select());
    const copy = h('button', { type: 'button' }, 'Copy');
    copy.addEventListener('click', () => {
      void copyText(field).then((done) => {
        copy.textContent = done ? 'Copied' : 'Select and copy';
        setTimeout(() => {
          copy.textContent = 'Copy';
        }, COPIED_MS);
      });
    });
    replaceChildren(
      this.created,
      h('div', { class: 'form-row' }, field, copy),
      h(
        'p',
        { class: 'muted small' },
        `${ROLE_LABELS[role]}. Send it to one person; it is shown only now. They are asked for their name when they open it.`,
      ),
    );
    this.created.hidden = false;
  }

  private renderList(shares: readonly ShareInfo[]): void {
    replaceChildren(
      this.list,
      ...shares.map((share) => {
        const revoke = h('button', { type: 'button', class: 'quiet danger' }, 'Revoke');
        revoke.addEventListener('click', () => void this.revoke(share, revoke));
        return h(
          'li',
          {
            'data-testid': 'share',
            'data-share-id': share.id,
            'data-role': share.role,
            'data-holder': share.name ?? '',
          },
          h(
            'span',
            { class: 'share-what' },
            h('strong', {}, share.name ?? 'not opened yet'),
            h(
              'span',
              { class: 'muted' },
              ` · ${ROLE_LABELS[share.role]} · ${expiryLabel(share, new Date())}`,
            ),
          ),
          revoke,
        );
      }),
    );
  }

  private async revoke(share: ShareInfo, button: HTMLButtonElement): Promise<void> {
    button.disabled = true;
    const reply = await revokeShare(this.sessionId, share.id);
    if (!reply.ok) {
      button.disabled = false;
      this.error.textContent = `Could not revoke the link: ${problemText(reply.problem)}`;
      return;
    }
    // A revoked link is no longer worth copying.
    if (share.id === this.createdId) this.created.hidden = true;
    await this.refresh();
  }
}

/** The clipboard API where the page may use it; else the selection and the old command. */
async function copyText(field: HTMLInputElement): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(field.value);
    return true;
  } catch {
    field.select();
    return document.execCommand('copy');
  }
}
