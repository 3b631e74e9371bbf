import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WriteBatch } from './write-batch.ts';

const servers: Server[] = [];
const sockets: Socket[] = [];

afterEach(() => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) server.close();
});

/** A loopback pair: what the client writes, and every chunk the server's side read. */
async function pair(): Promise<{ client: Socket; chunks: Buffer[] }> {
  const chunks: Buffer[] = [];
  let server: Server | undefined;
  const accepted = new Promise<void>((resolve) => {
    server = createServer((socket) => {
      sockets.push(socket);
      socket.on('data', (chunk) => chunks.push(chunk));
      resolve();
    });
  });
  if (server === undefined) throw new Error('no server');
  servers.push(server);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const client = connect(port, '127.0.0.1');
  sockets.push(client);
  await new Promise((resolve) => client.once('connect', resolve));
  await accepted;
  return { client, chunks };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('WriteBatch', () => {
  it('holds a turn’s writes, promise continuations included, and lets them go in order at its end', async () => {
    const { client, chunks } = await pair();
    const batch = new WriteBatch();
    batch.attach(client);
    batch.hold();
    client.write('one,');
    batch.hold();
    client.write('two,');
    await Promise.resolve();
    batch.hold();
    client.write('three');
    expect(client.writableCorked).toBe(1);
    expect(client.writableLength).toBe('one,two,three'.length);
    await nextTurn();
    expect(client.writableCorked).toBe(0);
    await expect.poll(() => Buffer.concat(chunks).toString()).toBe('one,two,three');
    // The next turn holds again, once.
    batch.hold();
    batch.hold();
    expect(client.writableCorked).toBe(1);
    await nextTurn();
    expect(client.writableCorked).toBe(0);
  });

  it('holds nothing before a socket is attached, or once it is destroyed', async () => {
    const batch = new WriteBatch();
    expect(() => batch.hold()).not.toThrow();
    const { client } = await pair();
    batch.attach(client);
    client.destroy();
    batch.hold();
    expect(client.writableCorked).toBe(0);
  });

  it('ends an old socket’s batch by itself when a new socket is attached mid-turn', async () => {
    const [first, second] = [(await pair()).client, (await pair()).client];
    const batch = new WriteBatch();
    batch.attach(first);
    batch.hold();
    batch.attach(second);
    batch.hold();
    expect([first.writableCorked, second.writableCorked]).toEqual([1, 1]);
    await nextTurn();
    expect([first.writableCorked, second.writableCorked]).toEqual([0, 0]);
  });
});
