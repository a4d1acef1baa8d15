import type { IncomingMessage } from 'node:http';

/**
 * A signal that aborts when the client's connection closes before its answer is sent, so that work done only for it
 * (URL downloads) stops instead of holding sockets for a caller that is gone. The request's own `close` cannot tell:
 * since Node 16 it fires as soon as the body has been read. A client that only half-closes (ends its side after
 * sending) still waits for the answer and is not treated as gone. `release` must be called once the answer is ready,
 * since a keep-alive connection outlives the request.
 */
export function watchClientGone(req: IncomingMessage): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const socket = req.socket;
  const gone = () => controller.abort(new Error('The client closed the connection.'));
  if (socket.destroyed) gone();
  else socket.once('close', gone);
  return { signal: controller.signal, release: () => socket.off('close', gone) };
}
