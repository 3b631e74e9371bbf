/**
 * The live side of the server: a channel per watched shell (made on first join, kept while
 * the shell is listed) and the dashboard stream of every shell's state. It subscribes to
 * the registry's events; nothing in the engine depends on it.
 */
import type { WebSocket } from 'ws';
import type { SessionInfo } from '../../../shared/src/api.ts';
import { type DashboardMessage, LIVE_CLOSE } from '../../../shared/src/live.ts';
import { DEFAULT_LIVE_PER_SHELL, DEFAULT_LIVE_PER_TOKEN } from '../config/connection-limits.ts';
import { DisposableStore, type Emitter } from '../pty/disposable.ts';
import type { Shell } from '../session/shell.ts';
import type { ShellRegistry } from '../session/shell-registry.ts';
import {
  type ChannelSettings,
  type JoinRequest,
  type LiveObserver,
  ShellChannel,
} from './shell-channel.ts';
import type { ViewerConnection, ViewerSocket } from './viewer-connection.ts';
import { closeIfStalled, closeWithReason, VIEWER_MAX_BUFFERED_BYTES } from './viewer-connection.ts';

/** A shell nobody watches keeps its recent output this long, for viewers reconnecting. */
const UNWATCHED_CHANNEL_GRACE_MS = 60_000;
/**
 * Dashboard updates are sent at most this often: a change after a quiet spell goes out at once
 * (in the next turn, with whatever else changed in this one), those close behind it wait for
 * the rest of the interval and go together. A browser draws once a frame (~16 ms) anyway.
 */
const DASHBOARD_UPDATE_MS = 16;

/** How many live connections are let in (`--live-per-token`, `--live-per-shell`). */
export interface LiveLimits {
  /** Open live sockets (shell streams and dashboards) one token may hold at once. */
  readonly perToken: number;
  /** Viewers one shell may have at once. */
  readonly perShell: number;
}

export const DEFAULT_LIVE_LIMITS: LiveLimits = {
  perToken: DEFAULT_LIVE_PER_TOKEN,
  perShell: DEFAULT_LIVE_PER_SHELL,
};

/** Who watches a dashboard: their token, and which shells they may see. */
export interface DashboardViewer {
  readonly tokenId: string;
  readonly canSee: (session: SessionInfo) => boolean;
}

/** Shells that live elsewhere (on joined hosts), listed on the dashboards with ours. */
export interface RemoteSessions {
  sessions(): SessionInfo[];
  /** A shell appeared, changed or ended. */
  readonly onSession: Emitter<SessionInfo>;
}

export class LiveHub {
  private readonly channels = new Map<string, ShellChannel>();
  private readonly dashboards = new Map<WebSocket, DashboardViewer>();
  private readonly disposables = new DisposableStore();
  private readonly shellSubscriptions = new Map<string, DisposableStore>();
  private readonly dirty = new Set<Shell>();
  private readonly dirtyRemote = new Map<string, SessionInfo>();
  private remote: RemoteSessions | undefined;
  private dashboardTimer: NodeJS.Timeout | undefined;
  /** When the dashboards were last sent their changes (performance.now(), ms). */
  private lastDashboardFlush = Number.NEGATIVE_INFINITY;
  private readonly idleTimers = new Map<string, NodeJS.Timeout>();
  /** Open live sockets per token id, and the shell viewers counted in it (each once). */
  private readonly perToken = new Map<string, number>();
  private readonly counted = new Set<ViewerConnection>();

  constructor(
    private readonly registry: ShellRegistry,
    private readonly observer?: LiveObserver,
    private readonly settings?: ChannelSettings,
    private readonly limits: LiveLimits = DEFAULT_LIVE_LIMITS,
  ) {
    for (const shell of registry.shells()) this.watchShell(shell);
    this.disposables.add(registry.onShellAdded.on((shell) => this.watchShell(shell)));
    this.disposables.add(registry.onShellRemoved.on((shell) => this.forgetShell(shell)));
  }

  knows(shellId: string): boolean {
    return this.registry.find(shellId) !== undefined;
  }

  /** The token id of the person whose own shell this is; undefined for agents' shells. */
  ownerOf(shellId: string): string | undefined {
    const shell = this.registry.find(shellId);
    return shell?.agent === null ? shell.owner?.tokenId : undefined;
  }

  /**
   * Adds a viewer to a shell's live stream; null when the shell is unknown, `refused` (the
   * reason) past a cap: the caller closes the socket with it.
   */
  async join(
    shellId: string,
    socket: ViewerSocket,
    request: JoinRequest,
  ): Promise<{ channel: ShellChannel; connection: ViewerConnection } | { refused: string } | null> {
    const shell = this.registry.find(shellId);
    if (!shell) return null;
    const viewers = this.channels.get(shellId)?.viewerCount ?? 0;
    if (viewers >= this.limits.perShell) {
      return {
        refused: `this shell has ${viewers} viewers, the most it takes (--live-per-shell)`,
      };
    }
    const tooMany = this.tokenRefusal(request.tokenId);
    if (tooMany !== null) return { refused: tooMany };
    this.count(request.tokenId, 1);
    let channel = this.channels.get(shellId);
    if (!channel) {
      channel = new ShellChannel(shell, this.observer, this.settings);
      this.channels.set(shellId, channel);
    }
    clearTimeout(this.idleTimers.get(shellId));
    this.idleTimers.delete(shellId);
    let connection: ViewerConnection;
    try {
      connection = await channel.join(socket, request);
    } catch (error) {
      this.count(request.tokenId, -1);
      throw error;
    }
    this.counted.add(connection);
    return { channel, connection };
  }

  /** Removes a viewer; a channel nobody watches is let go after a grace for reconnects. */
  leave(channel: ShellChannel, connection: ViewerConnection): void {
    if (this.counted.delete(connection)) this.count(connection.tokenId, -1);
    channel.leave(connection);
    this.leaveEmpty(channel);
  }

  /** Lists the shells of joined hosts on every dashboard, kept up to date. */
  showRemote(remote: RemoteSessions): void {
    this.remote = remote;
    this.disposables.add(
      remote.onSession.on((session) => {
        this.dirtyRemote.set(session.id, session);
        this.scheduleDashboards();
      }),
    );
  }

  /**
   * Counts a live socket served elsewhere (a viewer relayed to a shell's host) toward its
   * token's cap; the refusal past it, else null (then `releaseRelayed` when it closes).
   */
  admitRelayed(tokenId: string): string | null {
    const tooMany = this.tokenRefusal(tokenId);
    if (tooMany !== null) return tooMany;
    this.count(tokenId, 1);
    return null;
  }

  releaseRelayed(tokenId: string): void {
    this.count(tokenId, -1);
  }

  /** Open live sockets of this token (shell streams and dashboards). */
  connectionsOf(tokenId: string): number {
    return this.perToken.get(tokenId) ?? 0;
  }

  private tokenRefusal(tokenId: string): string | null {
    const open = this.connectionsOf(tokenId);
    if (open < this.limits.perToken) return null;
    return `this token has ${open} live connections open, the most it may (--live-per-token); close a tab`;
  }

  private count(tokenId: string, change: 1 | -1): void {
    const open = this.connectionsOf(tokenId) + change;
    if (open > 0) this.perToken.set(tokenId, open);
    else this.perToken.delete(tokenId);
  }

  private leaveEmpty(channel: ShellChannel): void {
    const id = channel.shell.id;
    if (channel.viewerCount > 0 || this.channels.get(id) !== channel) return;
    clearTimeout(this.idleTimers.get(id));
    const timer = setTimeout(() => {
      this.idleTimers.delete(id);
      if (channel.viewerCount > 0 || this.channels.get(id) !== channel) return;
      channel.dispose();
      this.channels.delete(id);
    }, UNWATCHED_CHANNEL_GRACE_MS);
    timer.unref();
    this.idleTimers.set(id, timer);
  }

  /** Disconnects everyone watching with this token, at once (it was revoked or expired). */
  disconnectToken(tokenId: string, reason: string): void {
    for (const [socket, viewer] of this.dashboards) {
      if (viewer.tokenId !== tokenId) continue;
      this.forgetDashboard(socket);
      socket.close(LIVE_CLOSE.revoked, reason);
    }
    for (const channel of [...this.channels.values()]) {
      const before = channel.viewerCount;
      channel.disconnectToken(tokenId, reason);
      if (channel.viewerCount < before && channel.viewerCount === 0) this.leaveEmpty(channel);
    }
  }

  /**
   * Adds a dashboard: every shell it may see now, then each change. Past the token's cap it
   * is refused: the socket is closed with the reason, which is returned.
   */
  addDashboard(socket: WebSocket, viewer: DashboardViewer): string | null {
    const tooMany = this.tokenRefusal(viewer.tokenId);
    if (tooMany !== null) {
      closeWithReason(socket, LIVE_CLOSE.tooMany, tooMany);
      return tooMany;
    }
    this.dashboards.set(socket, viewer);
    this.count(viewer.tokenId, 1);
    socket.on('close', () => this.forgetDashboard(socket));
    const sessions = [...this.registry.sessions(), ...(this.remote?.sessions() ?? [])];
    sendTo(socket, { type: 'sessions', sessions: sessions.filter(viewer.canSee) });
    return null;
  }

  private forgetDashboard(socket: WebSocket): void {
    const viewer = this.dashboards.get(socket);
    if (viewer === undefined) return;
    this.dashboards.delete(socket);
    this.count(viewer.tokenId, -1);
  }

  close(): void {
    clearTimeout(this.dashboardTimer);
    for (const timer of this.idleTimers.values()) clearTimeout(timer);
    this.idleTimers.clear();
    this.disposables.dispose();
    for (const subscriptions of this.shellSubscriptions.values()) subscriptions.dispose();
    this.shellSubscriptions.clear();
    for (const channel of this.channels.values()) channel.dispose();
    this.channels.clear();
    for (const socket of this.dashboards.keys()) {
      socket.close(LIVE_CLOSE.gone, 'the server is closing');
    }
    this.dashboards.clear();
    this.perToken.clear();
    this.counted.clear();
  }

  private watchShell(shell: Shell): void {
    const subscriptions = new DisposableStore();
    subscriptions.add(shell.onChange.on(() => this.markDirty(shell)));
    this.shellSubscriptions.set(shell.id, subscriptions);
    this.markDirty(shell);
  }

  private forgetShell(shell: Shell): void {
    this.shellSubscriptions.get(shell.id)?.dispose();
    this.shellSubscriptions.delete(shell.id);
    this.dirty.delete(shell);
    this.channels.get(shell.id)?.dispose();
    this.channels.delete(shell.id);
    const info = shell.info();
    this.broadcast({ type: 'session_removed', id: shell.id }, info);
  }

  private markDirty(shell: Shell): void {
    this.dirty.add(shell);
    this.scheduleDashboards();
  }

  private scheduleDashboards(): void {
    if (this.dashboardTimer !== undefined) return;
    // Due at once after a quiet spell: a fixed wait delayed every lone state change.
    const wait = Math.max(0, this.lastDashboardFlush + DASHBOARD_UPDATE_MS - performance.now());
    this.dashboardTimer = setTimeout(() => this.flushDashboards(), wait);
  }

  private flushDashboards(): void {
    this.dashboardTimer = undefined;
    this.lastDashboardFlush = performance.now();
    const shells = [...this.dirty];
    this.dirty.clear();
    for (const changed of shells) {
      const session = changed.info();
      this.broadcast({ type: 'session', session }, session);
    }
    const remote = [...this.dirtyRemote.values()];
    this.dirtyRemote.clear();
    for (const session of remote) this.broadcast({ type: 'session', session }, session);
  }

  /** Sends to every dashboard that may see `about` (people's own shells are private). */
  private broadcast(message: DashboardMessage, about: SessionInfo): void {
    for (const [socket, viewer] of this.dashboards) {
      if (viewer.canSee(about)) sendTo(socket, message);
    }
  }
}

/**
 * Dashboard messages are small; a dashboard that stops reading is closed with the reason once
 * its send buffer passes the viewers' bound, not buffered further (it reconnects and gets the
 * whole list again).
 */
function sendTo(socket: WebSocket, message: DashboardMessage): void {
  if (socket.readyState !== socket.OPEN) return;
  if (closeIfStalled(socket, VIEWER_MAX_BUFFERED_BYTES, 'dashboard')) return;
  socket.send(JSON.stringify(message));
}
