/**
 * Tool calls for a load generator that shares the server's machine: `node:http` over pooled
 * keep-alive sockets. A figure of calls per second on two cores counts the caller's CPU
 * against the server's; Node's `fetch` spends about 0.3 ms of it per call here, `node:http`
 * about 0.05 ms (measured in the same run, 100 agents), so the figure is the server's and
 * its shells', not the load generator's.
 */
import { Agent, request } from 'node:http';
import type { Server } from './bench-server.ts';

export interface LightCaller {
  call(agent: string, command: string): Promise<string>;
  close(): void;
}

export function lightCaller(server: Server, sockets: number): LightCaller {
  const pool = new Agent({ keepAlive: true, maxSockets: sockets });
  const { hostname, port } = new URL(server.url);
  const call = (agent: string, command: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({ command });
      const sent = request(
        {
          host: hostname,
          port,
          path: `/api/agents/${encodeURIComponent(agent)}/bash`,
          method: 'POST',
          agent: pool,
          headers: {
            authorization: `Bearer ${server.token}`,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (response.statusCode !== 200) {
              reject(new Error(`HTTP ${response.statusCode}: ${text}`));
              return;
            }
            resolve((JSON.parse(text) as { output: string }).output);
          });
        },
      );
      sent.on('error', reject);
      sent.end(body);
    });
  return { call, close: () => pool.destroy() };
}
