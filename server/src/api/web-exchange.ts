/**
 * Fastify ↔ web-standard exchange, for handlers written against `Request`/`Response` (the MCP
 * SDK's transports): the request as a `Request` whose signal aborts when the client goes away,
 * and a `Response` streamed back on the raw socket (SSE included) as it is produced.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Headers that describe the raw body; the parsed body is handed over separately. */
const BODY_HEADERS = new Set(['content-length', 'transfer-encoding']);

/** The request without its body (already parsed by Fastify; pass `request.body` beside it). */
export function toWebRequest(request: FastifyRequest, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || BODY_HEADERS.has(name)) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const url = new URL(request.url, `http://${request.headers.host ?? 'localhost'}`);
  return new Request(url, { method: request.method, headers, signal });
}

/** Writes `response` to the client; resolves once it is sent or the client went away. */
export async function sendWebResponse(reply: FastifyReply, response: Response): Promise<void> {
  reply.hijack();
  const raw = reply.raw;
  const socket = raw.socket;
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  raw.writeHead(response.status, headers);
  if (response.body === null) {
    raw.end();
    return;
  }
  try {
    await pipeline(Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>), raw);
  } catch {
    // The client went away mid-stream: nothing is left to send it, and a half-sent response
    // leaves its connection unusable, so it ends here (else the server's close waits on it).
    socket?.destroy();
  }
}
