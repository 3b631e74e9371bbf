/**
 * A loopback TCP forwarder a test can cut: every connection to it is piped to its target, and
 * `cut(ms)` drops the connections it carries and refuses new ones for `ms`, as a network
 * between two machines that fails and comes back. `retarget(port)` sends new connections
 * elsewhere, as a load balancer does when a backend dies; `strand()` stops carrying the
 * connections it has without closing them, as a path that dies silently.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export class TcpForwarder {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  /** Connections stranded by `strand()`: open, carrying nothing. */
  private readonly stranded = new Set<Socket>();
  private refusingUntil = 0;
  /** Connections it carried so far. */
  accepted = 0;

  private constructor(private targetPort: number) {
    this.server = createServer((client) => {
      if (Date.now() < this.refusingUntil) {
        client.destroy();
        return;
      }
      this.accepted++;
      const upstream = connect(this.targetPort, '127.0.0.1');
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream);
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
  }

  static async start(port: number, targetPort: number): Promise<TcpForwarder> {
    const forwarder = new TcpForwarder(targetPort);
    await new Promise<void>((resolve, reject) => {
      forwarder.server.once('error', reject);
      forwarder.server.listen(port, '127.0.0.1', resolve);
    });
    return forwarder;
  }

  /** Drops every connection at once (no FIN is waited for) and refuses new ones for `ms`. */
  cut(ms: number): void {
    this.refusingUntil = Date.now() + ms;
    for (const socket of this.sockets) socket.destroy();
  }

  /**
   * Stops carrying bytes on every connection it carries now, without closing either side (no
   * FIN, no RST): as a network path that silently dies, each end learns it only from silence.
   * New connections are carried as usual (to the target of the moment, see `retarget`).
   */
  strand(): void {
    for (const socket of this.sockets) {
      socket.unpipe();
      socket.pause();
      socket.removeAllListeners('close');
      socket.on('close', () => undefined);
      this.stranded.add(socket);
    }
    this.sockets.clear();
  }

  /** Takes new connections again at once (ends a `cut` early). */
  restore(): void {
    this.refusingUntil = 0;
  }

  /** Where it listens. */
  get port(): number {
    const address = this.server.address();
    return typeof address === 'object' && address !== null ? address.port : 0;
  }

  retarget(port: number): void {
    this.targetPort = port;
  }

  get open(): number {
    return this.sockets.size;
  }

  close(): Promise<void> {
    for (const socket of [...this.sockets, ...this.stranded]) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
