/**
 * PostgreSQL that goes away and comes back, for one test only: a TCP relay on loopback in front
 * of the test's own database. `cut()` drops every connection through it and refuses new ones
 * (as a database restart or a lost network does); `restore()` relays again on the same port.
 * The shared cluster itself is never touched.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export class DatabaseCut {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
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

  /** Relays again, on the port it had (a free one the first time). */
  async restore(): Promise<void> {
    if (this.server !== undefined) return;
    const server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
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
