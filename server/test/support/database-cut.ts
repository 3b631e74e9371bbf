/**
 * PostgreSQL that goes away and comes back, for one test only: a TCP relay on loopback in front
 * of the test's own database. `cut()` drops every connection through it and refuses new ones
 * (as a database restart or a lost network does); `restore()` relays again on the same port.
 * `hold()` only refuses new connections, keeping those open: a test can then end one of them
 * from the database's side (`pg_terminate_backend` of a backend found by `clientPorts`) and keep
 * it from coming back until `restore()`. The shared cluster itself is never touched.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export class DatabaseCut {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  /** The relay's own ends towards PostgreSQL: what pg_stat_activity sees as client ports. */
  private readonly upstreams = new Set<Socket>();
  private holding = false;
  private port = 0;

  private constructor(
    private readonly target: { host: string; port: number },
    /** The test database's URL. */
    private readonly url: URL,
  ) {}

  /** A relay for `databaseUrl`; `url` is the same database through it. */
  static async open(databaseUrl: string): Promise<DatabaseCut> {
    const url = new URL(databaseUrl);
    const cut = new DatabaseCut({ host: url.hostname, port: Number(url.port || 5432) }, url);
    await cut.restore();
    return cut;
  }

  get relayedUrl(): string {
    const through = new URL(this.url);
    through.hostname = '127.0.0.1';
    through.port = String(this.port);
    return through.toString();
  }

  /** Drops every connection and refuses new ones (ECONNREFUSED) until `restore`. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  }

  /** Refuses new connections (closed at once) and keeps those open, until `restore`. */
  hold(): void {
    this.holding = true;
  }

  /** `client_port` in pg_stat_activity of each connection through the relay now. */
  clientPorts(): number[] {
    return [...this.upstreams].flatMap((socket) =>
      socket.localPort === undefined ? [] : [socket.localPort],
    );
  }

  /** Relays again, on the port it had (a free one the first time). */
  async restore(): Promise<void> {
    this.holding = false;
    if (this.server !== undefined) return;
    const server = createServer((client) => {
      if (this.holding) {
        client.destroy();
        return;
      }
      const upstream = connect(this.target.port, this.target.host);
      this.upstreams.add(upstream);
      upstream.on('close', () => this.upstreams.delete(upstream));
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('error', () => undefined);
        socket.on('close', () => {
          this.sockets.delete(socket);
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (typeof address === 'object' && address !== null) this.port = address.port;
    this.server = server;
  }

  async close(): Promise<void> {
    await this.cut();
  }
}
