/**
 * A small HTTP CONNECT proxy on loopback, as a corporate proxy serves a WebSocket: each
 * CONNECT is a TCP tunnel to the host:port it names. It keeps what it was asked (the target
 * and the Proxy-Authorization header of each CONNECT), may require basic credentials (407
 * otherwise), and answers any other request 405.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';

export interface ConnectRequest {
  /** `host:port` as the CONNECT line named it. */
  readonly target: string;
  /** The Proxy-Authorization header as sent, or undefined. */
  readonly authorization: string | undefined;
  /** What the proxy answered (200 for a tunnel opened). */
  readonly status: number;
}

export class ConnectProxy {
  readonly requests: ConnectRequest[] = [];
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private port = 0;

  private readonly credentials: string | undefined;
  private readonly refuseWith: number | undefined;

  /**
   * `credentials` (`user:password`): a CONNECT without them is answered 407. `refuseWith`: every
   * CONNECT is answered this status (403: a proxy whose policy forbids the target).
   */
  constructor(options: { credentials?: string; refuseWith?: 403 } = {}) {
    this.credentials = options.credentials;
    this.refuseWith = options.refuseWith;
    this.server = createServer((_request, response) => {
      response.writeHead(405, { 'content-type': 'text/plain' }).end('CONNECT only\n');
    });
    this.server.on('connect', (request: IncomingMessage, client: Socket, head: Buffer) =>
      this.tunnel(request, client, head),
    );
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = this.server.address();
    this.port = typeof address === 'object' && address !== null ? address.port : 0;
    return this;
  }

  /** `http://127.0.0.1:PORT`, with `user:password@` when given. */
  url(userinfo?: string): string {
    return `http://${userinfo === undefined ? '' : `${userinfo}@`}127.0.0.1:${this.port}`;
  }

  /** The tunnels it opened to `target` (`host:port`). */
  tunnelsTo(target: string): number {
    return this.requests.filter((r) => r.target === target && r.status === 200).length;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private tunnel(request: IncomingMessage, client: Socket, head: Buffer): void {
    const target = request.url ?? '';
    const authorization = request.headers['proxy-authorization'];
    this.track(client);
    client.on('error', () => undefined);
    const expected =
      this.credentials === undefined
        ? undefined
        : `Basic ${Buffer.from(this.credentials).toString('base64')}`;
    if (this.refuseWith !== undefined) {
      this.requests.push({ target, authorization, status: this.refuseWith });
      client.end(
        `HTTP/1.1 ${this.refuseWith} Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
      );
      return;
    }
    if (expected !== undefined && authorization !== expected) {
      this.requests.push({ target, authorization, status: 407 });
      client.end(
        'HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="test"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n',
      );
      return;
    }
    const [, host = '', port = ''] = /^(.*):(\d+)$/.exec(target) ?? [];
    const upstream = connect(Number(port), host.replace(/^\[|\]$/g, ''));
    this.track(upstream);
    let opened = false;
    upstream.once('connect', () => {
      opened = true;
      this.requests.push({ target, authorization, status: 200 });
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', () => {
      // Once the tunnel is open, its bytes are the client's: an error only closes it.
      if (opened || !client.writable) return;
      this.requests.push({ target, authorization, status: 502 });
      client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    });
    upstream.on('close', () => client.destroy());
    client.on('close', () => upstream.destroy());
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
  }
}
