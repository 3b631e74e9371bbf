/**
 * One HTTP exchange for the client, over node:http / node:https rather than fetch: a tool call
 * lasts as long as its command (the server's own deadline ends it), and fetch's built-in
 * timeouts (undici's 300 s `headersTimeout` and `bodyTimeout`) would cut every call longer
 * than that and reset the shell. Here nothing but the caller's signal ends a request.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface HttpReply {
  readonly status: number;
  readonly text: string;
}

export interface HttpRequestInit {
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly signal?: AbortSignal;
}

/** Sends one request and resolves with the status and the whole body as text. */
export function sendRequest(url: URL, init: HttpRequestInit): Promise<HttpReply> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<HttpReply>((resolve, reject) => {
    const { signal } = init;
    if (signal?.aborted) {
      reject(abortError(signal));
      return;
    }
    const headers: Record<string, string | number> = { ...init.headers };
    if (init.body !== undefined) headers['content-length'] = Buffer.byteLength(init.body);
    const request = send(url, {
      method: init.method,
      headers,
      // The call's own length decides; no socket idle timeout of ours.
      timeout: 0,
    });
    const onAbort = (): void => {
      // destroy() ends the socket (the server then cancels the call); the promise rejects
      // with the signal's reason, as fetch's does.
      reject(abortError(signal));
      request.destroy();
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = (): void => signal?.removeEventListener('abort', onAbort);
    request.on('error', (error) => {
      done();
      reject(error);
    });
    request.on('response', (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', (error) => {
        done();
        reject(error);
      });
      response.on('end', () => {
        done();
        resolve({
          status: response.statusCode ?? 0,
          text: Buffer.concat(chunks).toString('utf8'),
        });
      });
    });
    request.end(init.body);
  });
}

/** The error a fetch rejects with when its signal aborts, so callers see one shape. */
function abortError(signal: AbortSignal | undefined): unknown {
  const reason: unknown = signal?.reason;
  if (reason !== undefined) return reason;
  return new DOMException('This operation was aborted', 'AbortError');
}
