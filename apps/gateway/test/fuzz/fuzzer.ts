import { XMLParser, XMLValidator } from 'fast-xml-parser';
import http, { IncomingHttpHeaders } from 'node:http';
import net from 'node:net';
import type { GatewayProcess } from './gateway-process';

/** Which answer a request must get: a collection-service envelope, a public API envelope, or just no fault. */
export type Expect = 'collection' | 'api' | 'any';

export interface FuzzRequest {
  method: string;
  /** Path and query, sent exactly as given (no encoding is added). */
  path: string;
  headers?: Record<string, string>;
  body?: Buffer;
  /** Send the body with Transfer-Encoding: chunked instead of Content-Length. */
  chunked?: boolean;
  expect: Expect;
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The parsed JSON body, or the parsed XML document for XML answers. */
  body: any;
  ms: number;
}

export type FindingKind = 'exit' | 'hang' | 'slow' | '5xx' | 'reset' | 'malformed' | 'imprecise' | 'inconsistent';

export interface Finding {
  kind: FindingKind;
  property: string;
  detail: string;
  request: string;
}

export class FuzzFinding extends Error {
  constructor(readonly finding: Finding) {
    super(`[${finding.kind}] ${finding.detail}\n  request: ${finding.request}`);
    this.name = 'FuzzFinding';
  }
}

/** The figures docs/reliability.md reports for a run. */
export interface Figures {
  requests: number;
  rawConnections: number;
  exits: number;
  fiveXX: number;
  hangs: number;
  restarts: number;
  maxMs: number;
  rssBefore?: number;
  rssAfter?: number;
  /** Answers by HTTP status, to see how deep the cases got (a run answered 401 throughout tested little). */
  statuses: Record<number, number>;
}

// Values exactly as written: no trimming, no numbers made of error texts, character references decoded (as every
// conforming XML parser does: the gateway writes a carriage return as `&#13;`, which a raw CR would lose).
const xml = new XMLParser({ ignoreAttributes: false, trimValues: false, parseTagValue: false, htmlEntities: true, isArray: (name) => name === 'item' });

/** A request as a reader can replay it: method, target, headers and the start of the body, escaped. */
export function describeRequest(req: FuzzRequest): string {
  const target = req.path.length > 400 ? `${req.path.slice(0, 400)}… (${req.path.length} chars)` : req.path;
  const headers = Object.entries(req.headers ?? {}).map(([k, v]) => `${k}: ${v.length > 200 ? `${v.slice(0, 200)}… (${v.length} chars)` : v}`);
  const body = req.body ? ` body (${req.body.length} bytes${req.chunked ? ', chunked' : ''}): ${JSON.stringify(req.body.subarray(0, 600).toString('latin1'))}${req.body.length > 600 ? '…' : ''}` : '';
  return `${req.method} ${target} [${headers.join(' | ')}]${body}`;
}

/** Node's default limit on a request's line and headers together. */
const MAX_HEAD_BYTES = 16 * 1024;

function headBytes(req: FuzzRequest): number {
  return Buffer.byteLength(req.path) + Object.entries(req.headers ?? {}).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v) + 4, 0);
}

function isErrorList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((e) => typeof e === 'string' && e.trim().length > 0);
}

/** Longest error text accepted: a precise message names the input; it does not echo a 100 kB value back. */
const MAX_MESSAGE_CHARS = 2_000;

/** XML lists of one entry parse as a string; `<error/>` parses as an empty string. */
function xmlList(value: unknown): unknown[] {
  if (value === '' || value === undefined) return [];
  if (value && typeof value === 'object' && 'item' in (value as object)) return (value as { item: unknown[] }).item;
  return [value];
}

/**
 * What is wrong with an answer, or null when it is what a client may get: no 5xx; the body the protocol promises,
 * parseable; and for a refusal, a precise message (not an internal error, not a stack, not a wall of echoed input).
 */
export function problemWith(req: FuzzRequest, answer: Answer): { kind: FindingKind; detail: string } | null {
  const { status, text } = answer;
  const snippet = JSON.stringify(text.slice(0, 500));
  if (status >= 500) return { kind: '5xx', detail: `HTTP ${status}: ${snippet}` };
  // Node's own refusal of an oversized request head comes before any application code, so it cannot be an envelope.
  if (status === 431 && headBytes(req) > MAX_HEAD_BYTES) return null;
  const type = String(answer.headers['content-type'] ?? '');
  if (req.expect === 'any') return null;
  if (req.expect === 'api') {
    const body = answer.body;
    if (!body || typeof body !== 'object') return { kind: 'malformed', detail: `HTTP ${status} (${type}) is not a JSON envelope: ${snippet}` };
    if (body.code !== status || !Array.isArray(body.messages) || !body.stats) return { kind: 'malformed', detail: `HTTP ${status}: not a public API envelope: ${snippet}` };
    if (status !== 200 && (body.messages.length !== 2 || !isErrorList(body.messages))) {
      return { kind: 'imprecise', detail: `HTTP ${status}: a refusal needs an error name and a description: ${snippet}` };
    }
    if (body.messages.some((m: string) => /internal error|\n\s+at /i.test(m))) return { kind: 'imprecise', detail: `HTTP ${status}: ${snippet}` };
    return null;
  }
  // Collection services: every answer the gateway itself gives is an envelope (docs/protocol.md §3).
  let envelope = answer.body;
  if (type.includes('xml')) envelope = envelope?.data && typeof envelope.data === 'object' ? { ...envelope.data, error: xmlList(envelope.data.error), result: xmlList(envelope.data.result) } : undefined;
  if (!envelope || typeof envelope !== 'object') return { kind: 'malformed', detail: `HTTP ${status} (${type}) is not an envelope: ${snippet}` };
  // 429: sign-ins throttled for the address (README "Authentication"). The suite's own credentials are right, but
  // raw-socket cases send wrong ones from the same address; the refusal must still say when to come back. 408 is not
  // accepted: Node sends it (without an envelope) only for a request trickled too slowly, and every request here is
  // sent at once, so a 408 would mean the gateway did not read a prompt body in time.
  if (![200, 401, 404, 413, 429].includes(status)) return { kind: 'malformed', detail: `HTTP ${status} is not a status the protocol uses: ${snippet}` };
  if (status === 429 && !/^\d+$/.test(String(answer.headers['retry-after'] ?? ''))) return { kind: 'imprecise', detail: `HTTP 429 without a Retry-After in seconds: ${snippet}` };
  if (!['ok', 'warn', 'fail'].includes(envelope.status) || !Array.isArray(envelope.error) || !Array.isArray(envelope.result)) {
    return { kind: 'malformed', detail: `HTTP ${status}: envelope without status/error/result: ${snippet}` };
  }
  if (status !== 200 && envelope.status !== 'fail') return { kind: 'malformed', detail: `HTTP ${status} with status ${envelope.status}: ${snippet}` };
  if (envelope.status === 'fail' && (envelope.error.length === 0 || !isErrorList(envelope.error))) {
    return { kind: 'imprecise', detail: `fail without an error message: ${snippet}` };
  }
  for (const message of envelope.error as string[]) {
    if (/internal error|\n\s+at |node_modules/i.test(message)) return { kind: 'imprecise', detail: `a fault reported as an error: ${snippet}` };
    if (message.length > MAX_MESSAGE_CHARS) return { kind: 'imprecise', detail: `an error message of ${message.length} characters: ${JSON.stringify(message.slice(0, 300))}…` };
  }
  return null;
}

function parseBody(type: string, text: string): any {
  if (type.includes('application/json')) {
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  }
  if (type.includes('javascript')) {
    const call = /^[A-Za-z_$][\w$.]*\(([\s\S]*)\);$/.exec(text);
    try {
      return call ? JSON.parse(call[1]) : undefined;
    } catch {
      return undefined;
    }
  }
  if (type.includes('xml')) return XMLValidator.validate(text) === true ? xml.parse(text) : undefined;
  return undefined;
}

/**
 * Sends fuzzed requests to a gateway process and turns everything a client must never see into a FuzzFinding,
 * recorded once per kind and property. A dead or frozen gateway is restarted before the next request, so the request
 * that caused it is the one reported, and so shrinking replays each smaller case on a live gateway.
 */
export class Fuzzer {
  readonly findings: Finding[] = [];
  readonly figures: Figures = { requests: 0, rawConnections: 0, exits: 0, fiveXX: 0, hangs: 0, restarts: 0, maxMs: 0, statuses: {} };
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  property = '';

  constructor(
    readonly gateway: GatewayProcess,
    /** Longest a request may take before it counts as a hang (generous: a loaded 2-core CI machine). */
    readonly boundMs: number,
  ) {}

  private record(kind: FindingKind, detail: string, request: string): FuzzFinding {
    const finding = { kind, property: this.property, detail, request };
    if (!this.findings.some((f) => f.kind === kind && f.property === finding.property)) this.findings.push(finding);
    return new FuzzFinding(finding);
  }

  /** Before each case: a gateway that died since the last one is counted and replaced. */
  private async ready(): Promise<void> {
    if (this.gateway.alive) return;
    await this.gateway.restart();
    this.figures.restarts++;
  }

  private async afterFailure(described: string, error: Error, ms: number): Promise<FuzzFinding> {
    if (!(await this.gateway.settle())) {
      this.figures.exits++;
      const exit = this.gateway.exits.at(-1);
      return this.record('exit', `the gateway process exited (code ${exit?.code}, signal ${exit?.signal}) after: ${error.message}\n${exit?.output ?? ''}`, described);
    }
    if (ms >= this.boundMs) {
      if (!(await this.gateway.answers(10_000))) {
        this.figures.hangs++;
        await this.gateway.restart();
        this.figures.restarts++;
        return this.record('hang', `no answer within ${this.boundMs} ms, and ping of the account did not answer either (event loop blocked); gateway restarted`, described);
      }
      return this.record('slow', `no answer within ${this.boundMs} ms (the gateway still answers other calls)`, described);
    }
    return this.record('reset', `the connection failed without an answer: ${error.message}`, described);
  }

  /** Sends one request and checks its answer; throws a FuzzFinding for anything a client must never see. */
  async send(req: FuzzRequest): Promise<Answer> {
    await this.ready();
    const described = describeRequest(req);
    const started = Date.now();
    this.figures.requests++;
    let answer: Answer;
    try {
      answer = await this.exchange(req);
    } catch (error) {
      if ((error as { suite?: boolean }).suite) throw error;
      // Node refuses a request head over its 16 kB limit with 431 and closes at once, so a client still writing a
      // long URL sees a reset instead: that refusal is the server's own, not a fault.
      const code = (error as NodeJS.ErrnoException).code;
      if ((code === 'ECONNRESET' || code === 'EPIPE') && headBytes(req) > MAX_HEAD_BYTES && (await this.gateway.settle())) {
        return { status: 431, headers: {}, text: '', body: undefined, ms: Date.now() - started };
      }
      throw await this.afterFailure(described, error as Error, Date.now() - started);
    }
    this.figures.maxMs = Math.max(this.figures.maxMs, answer.ms);
    this.figures.statuses[answer.status] = (this.figures.statuses[answer.status] ?? 0) + 1;
    if (!(await this.gateway.settle(0))) throw await this.afterFailure(described, new Error('answered, then exited'), answer.ms);
    const problem = problemWith(req, answer);
    if (problem?.kind === '5xx') this.figures.fiveXX++;
    if (problem) throw this.record(problem.kind, problem.detail, described);
    return answer;
  }

  private exchange(req: FuzzRequest): Promise<Answer> {
    const url = new URL(this.gateway.url);
    const started = Date.now();
    return new Promise((resolve, reject) => {
      // A request Node's client refuses to send (a control character in a header) is a bug of the suite, not a finding.
      const clientRefusal = (error: NodeJS.ErrnoException) => ['ERR_INVALID_CHAR', 'ERR_UNESCAPED_CHARACTERS', 'ERR_INVALID_HTTP_TOKEN'].includes(error.code ?? '');
      const fail = (error: NodeJS.ErrnoException) => (clientRefusal(error) ? reject(Object.assign(new Error(`the suite built an unsendable request: ${error.message}`), { suite: true })) : reject(error));
      const headers: Record<string, string> = { ...req.headers };
      if (req.body && !req.chunked) headers['content-length'] = String(req.body.length);
      // Node's client sends a DELETE or GET body unframed unless told: the server would read it as a next request.
      if (req.body && req.chunked) headers['transfer-encoding'] = 'chunked';
      let request: http.ClientRequest;
      try {
        request = http.request(
          { host: url.hostname, port: url.port, method: req.method, path: req.path, headers, agent: this.agent, timeout: this.boundMs },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('error', reject);
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8');
              resolve({ status: res.statusCode!, headers: res.headers, text, body: parseBody(String(res.headers['content-type'] ?? ''), text), ms: Date.now() - started });
            });
          },
        );
      } catch (error) {
        fail(error as NodeJS.ErrnoException);
        return;
      }
      request.on('timeout', () => request.destroy(new Error(`no answer within ${this.boundMs} ms`)));
      request.on('error', fail);
      if (req.body && req.chunked) {
        // Several chunks, as streaming clients send them.
        for (let at = 0; at < req.body.length; at += 4096) request.write(req.body.subarray(at, at + 4096));
      } else if (req.body) {
        request.write(req.body);
      }
      request.end();
    });
  }

  /**
   * Raw bytes on a new connection (malformed request lines, absurd headers, bodies cut off by a disconnect): whatever
   * comes back must not be a 5xx, and the gateway must still be alive and answering afterwards.
   */
  async raw(bytes: Buffer, options: { hangUp?: boolean } = {}): Promise<{ status: number | null; ms: number }> {
    await this.ready();
    const described = `raw connection: ${JSON.stringify(bytes.subarray(0, 600).toString('latin1'))}${bytes.length > 600 ? `… (${bytes.length} bytes)` : ''}${options.hangUp ? ', then hung up' : ''}`;
    const started = Date.now();
    this.figures.rawConnections++;
    const reply = await new Promise<string>((resolve) => {
      const socket = net.connect(Number(new URL(this.gateway.url).port), '127.0.0.1');
      let received = '';
      const done = () => {
        socket.destroy();
        resolve(received);
      };
      // A request the server still waits on (an incomplete one) is left after a short wait: its own timeouts are
      // another suite's subject; here only crashes and faults count.
      const timer = setTimeout(done, 3_000);
      socket.on('data', (d) => {
        received += d.toString('latin1');
        if (received.length > 64 * 1024) done();
      });
      socket.on('error', () => done());
      socket.on('close', () => {
        clearTimeout(timer);
        resolve(received);
      });
      socket.on('connect', () => {
        socket.write(bytes);
        if (options.hangUp) socket.destroy();
        else socket.end();
      });
    });
    const status = /^HTTP\/1\.[01] (\d{3})/.exec(reply);
    const code = status ? Number(status[1]) : null;
    if (!(await this.gateway.settle())) throw await this.afterFailure(described, new Error('raw connection'), Date.now() - started);
    if (code !== null && code >= 500) {
      this.figures.fiveXX++;
      throw this.record('5xx', `HTTP ${code}: ${JSON.stringify(reply.slice(0, 500))}`, described);
    }
    return { status: code, ms: Date.now() - started };
  }

  close(): void {
    this.agent.destroy();
  }
}
