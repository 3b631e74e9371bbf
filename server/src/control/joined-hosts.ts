/**
 * The hosts that joined this control plane and the shells they run, as their links report
 * them. A host whose link drops is `unreachable` for the grace period: its shells and the
 * calls running on them wait. Back in time, it resumes where it was; past the grace period,
 * every shell of it ends `host_lost` and every call waiting there is answered so. A host that
 * joins a control plane that just restarted is adopted with its shells as they are.
 */
import type { Dialect, HostInfo, SessionInfo } from '../../../shared/src/api.ts';
import {
  chooseLinkVersion,
  type HostMessage,
  incompatibleMessage,
  LINK_CLOSE,
  type LinkOutput,
  type LinkShell,
} from '../../../shared/src/link.ts';
import { type Disposable, Emitter } from '../pty/disposable.ts';
import { type HostDrains, MemoryHostDrains } from './host-drains.ts';
import type { HostPlacements } from './host-placements.ts';
import { JoinedHost, type LinkConnection, placementKey, RemoteShell } from './joined-host.ts';

export { JoinedHost, type LinkConnection, placementKey, RemoteShell };

/** Ended shells of hosts kept for the supervisor API before the oldest is forgotten. */
const MAX_ENDED_SHELLS_KEPT = 200;
/** Credit for a shell's last bytes goes back after this much quiet (ms). */
const CREDIT_FLUSH_MS = 10;

/** What a host's shell id may be (the engine's are UUIDs). */
const SHELL_ID = /^[A-Za-z0-9-]{1,100}$/;

/** `moved`: the host is reached through another replica than before (its link moved). */
export type JoinAnswer = { host: JoinedHost; moved: boolean } | { refusal: string; code: number };

export class HostDirectory {
  readonly hosts = new Map<string, JoinedHost>();
  /** A host stayed away past the grace period: its shells ended `host_lost`. */
  readonly onHostLost = new Emitter<JoinedHost>();
  /** A shell of a host appeared, changed or ended (for the dashboards). */
  readonly onSession = new Emitter<SessionInfo>();
  /** A live shell of a host is known here for the first time (history follows it). */
  readonly onShellAdopted = new Emitter<RemoteShell>();
  /**
   * A live shell whose host's link is held by this replica, known as such for the first time
   * (adopted, or its host, once reached through another replica, linked here). History follows
   * these only: a shell is recorded by the one replica that holds its host's link, never twice
   * into the database the replicas share.
   */
  readonly onShellHeld = new Emitter<RemoteShell>();
  /**
   * A host whose link this replica held is reached through another replica now: its newer
   * link went there (the load balancer chose it) while this one lives. Its shells are that
   * replica's to record from now on.
   */
  readonly onLetGo = new Emitter<JoinedHost>();
  /** A host's link ended (dropped, replaced by a newer one, or the control plane stops):
   *  what streamed over it (a saved output) cannot go on. */
  readonly onLinkDown = new Emitter<JoinedHost>();
  private ended: SessionInfo[] = [];
  private readonly creditTimers = new Map<JoinedHost, NodeJS.Timeout>();

  private readonly startedAt = Date.now();
  /** This replica's id (`replicas` table) once replicas run; hosts' info names their holder. */
  replicaId: string | undefined;

  private readonly forgets: Disposable;

  /**
   * `drains`: the admin's drains and forgets, this process's own unless kept (host-drains.ts);
   * `placements`: where agents' shells were placed last, when kept (host-placements.ts).
   */
  constructor(
    readonly graceMs: number,
    readonly drains: HostDrains = new MemoryHostDrains(),
    readonly placements: HostPlacements | null = null,
  ) {
    // Forgotten on another replica (or here): a host still linked would only join again.
    this.forgets = drains.onForget((name) => {
      const host = this.hosts.get(name);
      if (host !== undefined && !host.connected) this.forget(host);
    });
  }

  /** A hello on a new link: the host joins (or returns), or is refused with why. */
  join(
    connection: LinkConnection,
    token: { id: string; name: string },
    hello: Extract<HostMessage, { type: 'hello' }>,
    via: string | null = null,
  ): JoinAnswer {
    const version = chooseLinkVersion(hello.versions);
    if (version === null) {
      return { refusal: incompatibleMessage(hello.versions), code: LINK_CLOSE.incompatible };
    }
    if (hello.name !== undefined && hello.name !== token.name) {
      return {
        refusal: `this host token is bound to the name "${token.name}"; start the host with --name ${token.name} or without --name`,
        code: LINK_CLOSE.replaced,
      };
    }
    let host = this.hosts.get(token.name);
    const refusal = host === undefined ? undefined : relayRefusal(host, token.id, via, hello.link);
    if (refusal !== undefined) return { refusal, code: LINK_CLOSE.replaced };
    if (host === undefined) {
      host = new JoinedHost(token.name, token.id, this.drains);
      this.hosts.set(host.name, host);
    }
    const nowHeld = via === null && host.via !== null;
    // Known before (a host new here has no link number yet): this replica held its link and
    // lets it go, or reached it through another replica and reaches it through this one now.
    // Either way the replica relaying it now does not know this one's calls in flight there.
    const known = host.link !== undefined;
    const letGo = via !== null && host.via === null && known;
    const moved = via !== null && host.via !== via && known;
    host.via = via;
    host.link = hello.link;
    host.tokenId = token.id;
    host.replica = this.replicaId;
    // The newer link wins: the old one is a dead socket the silence check has not caught yet.
    if (host.connection !== null) {
      host.connection.close(LINK_CLOSE.replaced, 'a newer link of this host took over');
      this.onLinkDown.fire(host);
    }
    host.connection = connection;
    clearTimeout(host.graceTimer);
    host.graceTimer = undefined;
    host.lastSeen = new Date();
    host.labels = { ...hello.labels };
    host.capacity = hello.maxShells;
    host.dialects = [...hello.dialects];
    host.engineVersion = hello.engineVersion;
    host.protocol = version;
    // Another host process (restarted): its stories count from 1 again.
    if (hello.instance === undefined || hello.instance !== host.instance) host.storySeq = 0;
    host.instance = hello.instance;
    host.workspaces = new Set(hello.workspaces);
    // A replica relaying the host never ends a shell because this one gave up on it (its
    // replica link stayed down past the grace period): the shells it lists live, and are
    // taken back here, not refused as lost.
    if (via !== null) host.lost.clear();
    this.adopt(host, hello.shells, true);
    if (nowHeld)
      for (const shell of host.shells.values()) if (shell.alive) this.onShellHeld.fire(shell);
    if (letGo) this.onLetGo.fire(host);
    connection.send({
      type: 'welcome',
      version,
      graceMs: this.graceMs,
      resume: [...host.shells.values()]
        .filter((shell) => shell.alive)
        .map((shell) => ({ shellId: shell.id, offset: shell.inbox.offset })),
      lost: [...host.lost],
    });
    host.onBackOrLost.fire(true);
    return { host, moved };
  }

  /** The host's link closed: its shells wait for it for the grace period. */
  disconnected(host: JoinedHost, connection: LinkConnection): void {
    if (host.connection !== connection) return;
    host.connection = null;
    this.onLinkDown.fire(host);
    clearTimeout(host.graceTimer);
    host.graceTimer = setTimeout(() => this.loseHost(host), this.graceMs);
  }

  /** A message from a joined host. */
  received(host: JoinedHost, message: HostMessage): void {
    host.lastSeen = new Date();
    switch (message.type) {
      case 'shell_opened':
        if (message.shell.info.agent !== null) host.workspaces.add(message.shell.info.agent);
        this.adopt(host, [message.shell], false);
        break;
      case 'shell_info':
        this.update(host, message.info);
        break;
      case 'shell_story':
        // Sent again on a new link, unacknowledged when the last one died: told once.
        if (message.seq !== undefined) {
          if (message.seq <= host.storySeq) break;
          host.storySeq = message.seq;
        }
        host.shells.get(message.shellId)?.story.tell(message.story);
        break;
      case 'shell_closed': {
        this.update(host, message.info);
        const shell = host.shells.get(message.info.id);
        if (shell !== undefined) this.retire(host, shell);
        break;
      }
      default:
        break;
    }
  }

  /** An output frame from a joined host. */
  output(host: JoinedHost, frame: LinkOutput): void {
    host.lastSeen = new Date();
    const shell = host.shells.get(frame.shellId);
    if (shell === undefined) return;
    const delivery = shell.inbox.receive(frame.offset, frame.data);
    if (delivery === null) return;
    shell.gapBytes += delivery.gapBytes;
    shell.onOutput.fire({ offset: delivery.offset, data: delivery.data });
    shell.story.output(delivery.data);
    if (delivery.credit !== null) {
      host.connection?.send({ type: 'credit', shellId: shell.id, offset: delivery.credit });
    }
    if (!this.creditTimers.has(host)) {
      this.creditTimers.set(
        host,
        setTimeout(() => {
          this.creditTimers.delete(host);
          for (const each of host.shells.values()) {
            const offset = each.inbox.flushCredit();
            if (offset !== null)
              host.connection?.send({ type: 'credit', shellId: each.id, offset });
          }
        }, CREDIT_FLUSH_MS),
      );
    }
  }

  /** The live shell of an agent's dialect on any host, if one runs (or waits for its host). */
  liveShell(agent: string, dialect: Dialect): RemoteShell | undefined {
    for (const host of this.hosts.values()) {
      for (const shell of host.shells.values()) {
        if (shell.alive && shell.info.agent === agent && shell.info.dialect === dialect) {
          return shell;
        }
      }
    }
    return undefined;
  }

  findShell(id: string): RemoteShell | undefined {
    for (const host of this.hosts.values()) {
      const shell = host.shells.get(id);
      if (shell !== undefined) return shell;
    }
    return undefined;
  }

  /** Every shell of every host, live ones and those ended lately. */
  sessions(): SessionInfo[] {
    const live: SessionInfo[] = [];
    for (const host of this.hosts.values()) {
      for (const shell of host.shells.values()) live.push(shell.info);
    }
    return [...live, ...this.ended];
  }

  list(): HostInfo[] {
    return [...this.hosts.values()]
      .map((host) => host.info())
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * The hosts whose link this replica holds, or held last (unreachable here, not reached
   * through another replica since): what its metrics count, so that a sum over the replicas
   * counts each host once (docs/high-availability.md).
   */
  heldList(): HostInfo[] {
    return this.list().filter((info) => this.hosts.get(info.name)?.via === null);
  }

  /** Ends every link (the control plane stops; the hosts and their shells live on). */
  close(): void {
    for (const host of this.hosts.values()) {
      clearTimeout(host.graceTimer);
      host.connection?.close(1001, 'the control plane is stopping');
      host.connection = null;
      this.onLinkDown.fire(host);
    }
    for (const timer of this.creditTimers.values()) clearTimeout(timer);
    this.forgets.dispose();
    this.drains.close();
    this.placements?.close();
  }

  /** Forgets a host that is gone: shells still waiting for it are lost now. */
  forget(host: JoinedHost): void {
    if (host.graceTimer !== undefined) {
      clearTimeout(host.graceTimer);
      this.loseHost(host);
    }
    this.hosts.delete(host.name);
  }

  /** A revoked token's host is cut off at once. */
  disconnectToken(tokenId: string): void {
    for (const host of this.hosts.values()) {
      if (host.tokenId === tokenId)
        host.connection?.close(LINK_CLOSE.forgotten, 'access was revoked');
    }
  }

  private adopt(host: JoinedHost, shells: readonly LinkShell[], inHello: boolean): void {
    for (const { info, offset } of shells) {
      if (host.lost.has(info.id)) continue;
      const known = host.shells.get(info.id);
      if (known === undefined && !this.mayHold(host, info, inHello)) {
        // Not a shell this control plane gave the host: it is not believed, and it ends.
        if (info.endedAt === null) host.connection?.send({ type: 'shell_close', shellId: info.id });
        continue;
      }
      if (info.agent !== null) host.placed.add(placementKey(info.agent, info.dialect));
      const tagged = { ...info, host: host.name };
      if (known !== undefined) {
        known.info = this.reported(known, info);
        if (!known.alive) this.retire(host, known);
        this.onSession.fire(known.info);
        continue;
      }
      const shell = new RemoteShell(tagged, offset, host);
      if (shell.alive) {
        // Taken back after it was given up here: listed once, live.
        this.ended = this.ended.filter((ended) => ended.id !== info.id);
        host.shells.set(info.id, shell);
        this.onShellAdopted.fire(shell);
        if (host.via === null) this.onShellHeld.fire(shell);
      } else if (!this.ended.some((ended) => ended.id === info.id)) this.keepEnded(tagged);
      else continue;
      this.onSession.fire(tagged);
    }
  }

  /**
   * Whether a host may announce this shell: its id is no other host's, no other host runs the
   * agent's shell of that dialect, and this control plane sent the agent's calls there. Right
   * after a restart (within the grace period) a returning host's hello is believed as it is:
   * the control plane no longer knows where it placed what.
   */
  private mayHold(host: JoinedHost, info: SessionInfo, inHello: boolean): boolean {
    // The engine's ids are UUIDs; an id is a file name in the history's recordings.
    if (!SHELL_ID.test(info.id)) return false;
    for (const other of this.hosts.values()) {
      if (other === host) continue;
      if (other.shells.has(info.id)) return false;
    }
    // The replica that holds the host's link vetted its shells already.
    if (host.via !== null) return info.agent !== null;
    // People's own shells never run on hosts: an agentless shell is nobody's to announce.
    if (info.agent === null) return false;
    if (info.endedAt !== null) return true;
    const holder = this.liveShell(info.agent, info.dialect);
    if (holder !== undefined && holder.host !== host) return false;
    if (host.placed.has(placementKey(info.agent, info.dialect))) return true;
    return inHello && Date.now() - this.startedAt < this.graceMs;
  }

  private update(host: JoinedHost, info: SessionInfo): void {
    const shell = host.shells.get(info.id);
    if (shell === undefined) return;
    shell.info = this.reported(shell, info);
    this.onSession.fire(shell.info);
  }

  /** A host's new report of a shell: whose it is, and where, stay as first adopted. */
  private reported(shell: RemoteShell, info: SessionInfo): SessionInfo {
    const { id, agent, owner, ownerId, dialect, startedAt } = shell.info;
    // Two spreads per call and shell; a rest pattern (to drop the report's ownerId) cost
    // several times a plain copy, so the rare report with one takes the slow way.
    const next: SessionInfo = {
      ...info,
      id,
      agent,
      owner,
      dialect,
      startedAt,
      host: shell.host.name,
    };
    if (ownerId !== undefined) next.ownerId = ownerId;
    else if (next.ownerId !== undefined) {
      const { ownerId: _reported, ...rest } = next;
      return rest;
    }
    return next;
  }

  private retire(host: JoinedHost, shell: RemoteShell): void {
    host.shells.delete(shell.id);
    this.keepEnded(shell.info);
    shell.onOutput.clear();
  }

  private keepEnded(info: SessionInfo): void {
    this.ended.push(info);
    if (this.ended.length > MAX_ENDED_SHELLS_KEPT)
      this.ended = this.ended.slice(-MAX_ENDED_SHELLS_KEPT);
  }

  /** Past the grace period: every shell of the host ends `host_lost`, at once and loudly. */
  private loseHost(host: JoinedHost): void {
    host.graceTimer = undefined;
    const now = new Date().toISOString();
    for (const shell of [...host.shells.values()]) {
      // A relayed host is not told to end them: the replica holding its link keeps them.
      if (shell.alive && host.via === null) host.lost.add(shell.id);
      shell.info = {
        ...shell.info,
        state: 'exited',
        pid: null,
        command: null,
        since: null,
        endedAt: shell.info.endedAt ?? now,
        ending: shell.info.ending ?? { kind: 'host_lost', exitCode: null, signal: null },
      };
      this.retire(host, shell);
      this.onSession.fire(shell.info);
    }
    this.onHostLost.fire(host);
    host.onBackOrLost.fire(false);
  }
}

/**
 * Why a (re)join of a known host is refused: a host linked here directly is not taken over by
 * another replica's relay of it, unless the relay carries a newer link of the host (the host
 * re-linked there; the link held here is a dead socket the silence check has not caught yet),
 * and a direct join must come with the host's token. Relays come from replicas that checked
 * the host's token themselves.
 */
function relayRefusal(
  host: JoinedHost,
  tokenId: string,
  via: string | null,
  link: number | undefined,
): string | undefined {
  const newer = link !== undefined && host.link !== undefined && link > host.link;
  if (via !== null && host.via === null && host.connected && !newer) {
    return `host ${host.name} is linked to this replica itself`;
  }
  if (via === null && host.via === null && host.tokenId !== tokenId) {
    return `host name "${host.name}" belongs to another token`;
  }
  return undefined;
}
