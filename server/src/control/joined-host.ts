/**
 * One host as the control plane knows it, and its shells: what its link reported (labels,
 * capacity, versions, workspaces), the link itself while it is up, and each shell's output
 * stream and story. A host is reached either directly (it linked to this replica) or through
 * another replica that holds its link (`via`, see replica-relay.ts); the rest of the control
 * plane treats both alike.
 */
import type { Dialect, HostInfo, SessionInfo } from '../../../shared/src/api.ts';
import type { Labels } from '../../../shared/src/labels.ts';
import type { ControlMessage } from '../../../shared/src/link.ts';
import { ShellInbox } from '../link/output-inbox.ts';
import { Emitter } from '../pty/disposable.ts';
import { RemoteStory } from './remote-story.ts';

/** One host's link as the directory uses it. */
export interface LinkConnection {
  send(message: ControlMessage): void;
  /** A message nobody waits for (an acknowledgement): it may go with the next one, soon. */
  sendLater(message: ControlMessage): void;
  close(code: number, reason: string): void;
}

export class RemoteShell {
  readonly inbox: ShellInbox;
  /** Output bytes new to the control plane, in order (a resend's repeats already dropped). */
  readonly onOutput = new Emitter<{ offset: number; data: Uint8Array }>();
  /** The shell as the control plane's history follows it. */
  readonly story: RemoteStory;
  /** Output the host no longer had when the link came back (bytes). */
  gapBytes = 0;
  private current: SessionInfo;

  constructor(
    info: SessionInfo,
    offset: number,
    readonly host: JoinedHost,
  ) {
    this.current = info;
    this.inbox = new ShellInbox(offset);
    this.story = new RemoteStory(() => this.current);
  }

  get info(): SessionInfo {
    return this.current;
  }

  set info(info: SessionInfo) {
    const before = this.current;
    this.current = info;
    this.story.changed(before);
  }

  get id(): string {
    return this.info.id;
  }

  get alive(): boolean {
    return this.info.endedAt === null && this.info.state !== 'exited';
  }
}

export class JoinedHost {
  readonly shells = new Map<string, RemoteShell>();
  /** Shells this control plane declared lost; the host is told to end them when it returns. */
  readonly lost = new Set<string>();
  connection: LinkConnection | null = null;
  lastSeen = new Date();
  graceTimer: NodeJS.Timeout | undefined;
  /** Resolves the waits of calls for this host's shells when it returns or is lost. */
  readonly onBackOrLost = new Emitter<boolean>();
  labels: Labels = {};
  capacity = 1;
  dialects: Dialect[] = [];
  engineVersion = '';
  protocol = 0;
  /** The newest story (`seq`) read from the host's process: a repeat of one before it is dropped. */
  storySeq = 0;
  /** That process (the hello's `instance`). */
  instance: string | undefined;
  workspaces = new Set<string>();
  /** The agents (and dialects) whose calls this control plane sent here (`placementKey`). */
  readonly placed = new Set<string>();
  /** The replica whose link to the host this one reaches it through; null: linked here. */
  via: string | null = null;
  /** The replica that holds the host's link (this one's id when direct), once replicas run. */
  replica: string | undefined;
  /** The number of the host's link as its hello last said (undefined: a host that predates
   *  link numbers); relayed with the host, so replicas tell its newer link from an older. */
  link: number | undefined;

  constructor(
    readonly name: string,
    public tokenId: string,
    /** The control plane's drains: an admin's, kept across the host's links (host-drains.ts). */
    private readonly drains: { has(name: string): boolean },
  ) {}

  get connected(): boolean {
    return this.connection !== null;
  }

  /** No new shell goes here; the ones it runs go on. */
  get draining(): boolean {
    return this.drains.has(this.name);
  }

  liveShells(): number {
    let live = 0;
    for (const shell of this.shells.values()) if (shell.alive) live++;
    return live;
  }

  info(): HostInfo {
    const shells = this.liveShells();
    return {
      name: this.name,
      labels: { ...this.labels },
      state: !this.connected ? 'unreachable' : this.draining ? 'draining' : 'connected',
      shells,
      capacity: this.capacity,
      load: this.capacity > 0 ? shells / this.capacity : 1,
      dialects: [...this.dialects],
      protocol: this.protocol,
      engineVersion: this.engineVersion,
      lastSeen: this.lastSeen.toISOString(),
      ...(this.replica === undefined ? {} : { replica: this.via ?? this.replica }),
    };
  }
}

/** An agent's shell of one dialect: what a host may hold once the control plane placed it. */
export function placementKey(agent: string, dialect: Dialect): string {
  return `${agent}\u0000${dialect}`;
}
