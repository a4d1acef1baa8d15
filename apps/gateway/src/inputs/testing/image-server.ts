import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the server saw: its path, its `tag` and `n` query values, and when its connection closed. */
export interface SeenRequest {
  path: string;
  tag: string;
  n: string;
  openedAt: number;
  closedAt?: number;
}

/**
 * A local HTTP server that behaves as image hosts do, good and bad, for download tests: `/img` answers at once,
 * `/trickle` sends one byte every `trickleMs` (an idle timeout never fires), `/silent` never answers, `/hold` answers
 * when the test calls `release()`, `/redirect?to=<url>` redirects, anything else is a 404. It records every request
 * and when its connection closed, so tests can see that the gateway really let go of a socket, and how many
 * requests of one tag were open at the same time.
 */
export class ImageServer {
  readonly seen: SeenRequest[] = [];
  private readonly server: http.Server;
  private readonly held = new Set<() => void>();
  private readonly open = new Map<string, number>();
  private readonly peak = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  base = '';

  constructor(private readonly body: Buffer = Buffer.from('not really an image'), private readonly trickleMs = 200) {
    this.server = http.createServer((req, res) => this.answer(req, res));
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Most requests with this tag that were open at once. */
  peakOpen(tag: string): number {
    return this.peak.get(tag) ?? 0;
  }

  openNow(tag: string): number {
    return this.open.get(tag) ?? 0;
  }

  /** Requests on a path (and tag, when given). */
  requests(path: string, tag?: string): SeenRequest[] {
    return this.seen.filter((r) => r.path === path && (tag === undefined || r.tag === tag));
  }

  /** Lets every `/hold` request that is waiting answer. */
  release(): void {
    for (const answer of [...this.held]) answer();
    this.held.clear();
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private answer(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const tag = url.searchParams.get('tag') ?? '';
    const seen: SeenRequest = { path: url.pathname, tag, n: url.searchParams.get('n') ?? '', openedAt: Date.now() };
    this.seen.push(seen);
    const count = (this.open.get(tag) ?? 0) + 1;
    this.open.set(tag, count);
    this.peak.set(tag, Math.max(count, this.peak.get(tag) ?? 0));
    req.socket.once('close', () => {
      seen.closedAt = Date.now();
      this.open.set(tag, (this.open.get(tag) ?? 1) - 1);
    });
    switch (url.pathname) {
      case '/img':
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': this.body.length }).end(this.body);
        return;
      case '/trickle': {
        res.writeHead(200, { 'content-type': 'image/png' });
        // A minute at most, so that a test that fails does not leave the server writing for ever.
        const until = Date.now() + 60_000;
        const timer = setInterval(() => {
          if (Date.now() > until || res.destroyed) {
            clearInterval(timer);
            this.timers.delete(timer);
            res.end();
          } else {
            res.write('x');
          }
        }, this.trickleMs);
        this.timers.add(timer);
        res.on('close', () => {
          clearInterval(timer);
          this.timers.delete(timer);
        });
        return;
      }
      case '/silent':
        return;
      case '/hold': {
        const answer = () => {
          if (!res.destroyed) res.writeHead(200, { 'content-type': 'image/png', 'content-length': this.body.length }).end(this.body);
        };
        this.held.add(answer);
        res.on('close', () => this.held.delete(answer));
        return;
      }
      case '/redirect':
        res.writeHead(302, { location: url.searchParams.get('to') ?? '/img' }).end();
        return;
      default:
        res.writeHead(404, { 'content-type': 'text/plain' }).end('no such image');
    }
  }
}

/** Polls until `condition` holds, for at most `ms` (generous: CI machines are slow); false when it never did. */
export async function eventually(condition: () => boolean, ms = 10_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return condition();
}
