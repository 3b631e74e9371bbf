/**
 * The silence check of a link's accepting side (a host's link, a replica's): it pings every
 * LINK_PING_MS and drops a link it heard nothing on for LINK_SILENCE_MS, since a cut cable
 * sends no FIN. Returns the stop function (call it when the socket closes).
 */
import type { WebSocket } from 'ws';
import { LINK_PING_MS, LINK_SILENCE_MS } from '../../../shared/src/link.ts';

export function keepAlive(socket: WebSocket): () => void {
  let lastHeard = Date.now();
  const heard = (): void => {
    lastHeard = Date.now();
  };
  const heartbeat = setInterval(() => {
    if (Date.now() - lastHeard > LINK_SILENCE_MS) {
      // Timers run before sockets are read: after a stall of this process, what the other
      // side sent meanwhile is read first, and only then is silence silence.
      setImmediate(() => {
        if (Date.now() - lastHeard > LINK_SILENCE_MS) socket.terminate();
      });
      return;
    }
    socket.ping();
  }, LINK_PING_MS);
  socket.on('pong', heard);
  socket.on('message', heard);
  return () => clearInterval(heartbeat);
}
