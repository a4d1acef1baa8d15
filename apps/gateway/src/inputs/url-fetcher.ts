import ipaddr from 'ipaddr.js';
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { createFifoSemaphore, type FifoSemaphore } from '@loupe/queue';

export interface DownloadLimits {
  /** Wall-clock limit of one URL input: waiting for a download place, DNS, connecting, every redirect and the body. */
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  allowPrivate: boolean;
  /** Downloads one account may run at once (DOWNLOAD_CONCURRENCY_PER_ACCOUNT); 0 = no limit. */
  concurrencyPerAccount: number;
}

/**
 * A URL input that could not be turned into image bytes. Every refused or unreachable URL gets the same message
 * (`Failed to download file.`): naming the HTTP status, a refused connection, a timeout or a private address would let
 * a caller map hosts and ports behind the gateway. Only reasons that reveal nothing about the network get a `reason`.
 */
export class DownloadError extends Error {
  constructor(readonly reason?: string) {
    super(reason ? `Failed to download file: ${reason}.` : 'Failed to download file.');
    this.name = 'DownloadError';
  }
}

const unreachable = () => new DownloadError();

/** Who a download is for (its account, for the concurrency limit) and what ends it besides the configured limit. */
export interface DownloadScope {
  owner: string;
  /** The caller's own deadline (epoch ms, from its `timeout`), when it has one. */
  deadline?: number;
  /** Aborted when the caller disconnects. */
  signal?: AbortSignal;
}

/** How names are resolved and which addresses may be reached; replaced only by tests, which have no public hosts. */
export interface DownloadNetwork {
  lookup?: (hostname: string) => Promise<string[]>;
  allows?: (address: string) => boolean;
}

/** The IPv4 address inside the IPv6 forms that carry one in their last 32 bits. */
const TRAILING_IPV4: ReadonlySet<string> = new Set(['ipv4Mapped', 'rfc6145']);
/** The well-known NAT64 prefix; the local-use one (64:ff9b:1::/48) is by definition not public. */
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');
/** IANA allocates global unicast IPv6 only from 2000::/3; anything else ipaddr calls `unicast` is unallocated. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

function ipv4From(high: number, low: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
}

function isPublic(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  if (address.kind() === 'ipv4') return address.range() === 'unicast';
  const v6 = address as ipaddr.IPv6;
  const range = v6.range();
  // Forms that carry an IPv4 address reach that address, so they are judged by it: ::ffff:10.0.0.1 is 10.0.0.1.
  if (TRAILING_IPV4.has(range) || v6.match(NAT64_WELL_KNOWN)) return isPublic(ipv4From(v6.parts[6], v6.parts[7]));
  if (range === '6to4') return isPublic(ipv4From(v6.parts[1], v6.parts[2]));
  // Teredo, IPv4-compatible (::a.b.c.d, deprecated), local NAT64 and every other special range are refused outright.
  return range === 'unicast' && v6.match(GLOBAL_UNICAST_V6);
}

/**
 * Whether a server-side request must not reach this address (unless ALLOW_PRIVATE_URLS is set): everything that the
 * IANA special-purpose registries, as maintained in ipaddr.js, do not call public unicast: loopback, private,
 * link-local (cloud metadata endpoints such as 169.254.169.254), carrier-grade NAT, documentation, benchmarking,
 * multicast, reserved, and IPv6 forms carrying one of those.
 */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !isPublic(ipaddr.IPv4.parse(address));
  if (family !== 6) return true;
  let canonical: string;
  try {
    // ipaddr.js reads every dotted tail as IPv4-mapped (::8.8.8.8 as ::ffff:8.8.8.8); the URL parser writes the
    // address in hex groups first, so the form it really has is judged. Zone ids (fe80::1%eth0) do not parse.
    canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return true;
  }
  return !isPublic(ipaddr.IPv6.parse(canonical));
}

/** Rejects as soon as the signal aborts, without waiting for work that cannot be cancelled (DNS lookups). */
function unlessAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(unreachable());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(unreachable());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

const systemLookup = async (hostname: string) => (await dnsLookup(hostname, { all: true })).map((a) => a.address);

async function resolveSafely(hostname: string, network: Required<DownloadNetwork>, signal: AbortSignal): Promise<string> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(bare) ? [bare] : await unlessAborted(network.lookup(bare), signal);
  } catch {
    throw unreachable();
  }
  // Every answer is checked, since the connection could go to any of them.
  if (addresses.length === 0 || !addresses.every(network.allows)) throw unreachable();
  // Connect to the address we checked, not to a second resolution that could answer differently (DNS rebinding).
  return addresses[0];
}

function sizeText(bytes: number): string {
  return bytes >= 1048576 ? `${Math.round(bytes / 1048576)} MB` : `${bytes} bytes`;
}

function fetchOnce(url: URL, address: string, limits: DownloadLimits, signal: AbortSignal): Promise<{ location?: string; body?: Buffer }> {
  return new Promise((resolve, reject) => {
    let settled = false;
    // Whatever the outcome, the socket is destroyed: a server must not be able to hold it open after the answer.
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      req.destroy();
      outcome();
    };
    const fail = (error: DownloadError) => settle(() => reject(error));
    const onAbort = () => fail(unreachable());
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      {
        protocol: url.protocol,
        hostname: address,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        servername: isIP(url.hostname) ? undefined : url.hostname,
        headers: { host: url.host, 'user-agent': 'Loupe/0.1 (+image fetch)', accept: 'image/*', connection: 'close' },
        // A fresh connection per download: a pooled keep-alive socket would outlive the download.
        agent: false,
      },
      (res: IncomingMessage) => {
        res.on('error', () => fail(unreachable()));
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && res.headers.location) {
          settle(() => resolve({ location: res.headers.location }));
          return;
        }
        if (status !== 200) {
          fail(unreachable());
          return;
        }
        const tooLarge = () => new DownloadError(`it is larger than ${sizeText(limits.maxBytes)}`);
        if (Number(res.headers['content-length'] ?? 0) > limits.maxBytes) {
          fail(tooLarge());
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > limits.maxBytes) fail(tooLarge());
          else chunks.push(chunk);
        });
        res.on('end', () => settle(() => resolve({ body: Buffer.concat(chunks) })));
        res.on('close', () => {
          if (!res.complete) fail(unreachable());
        });
      },
    );
    req.on('error', () => fail(unreachable()));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    req.end();
  });
}

/** Reads a URL as given by the caller; only its own form can be wrong in ways worth a precise message. */
function parseUrl(rawUrl: string): URL {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new DownloadError('this is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new DownloadError('only http and https URLs are accepted');
  if (url.username || url.password) throw new DownloadError('URLs with credentials are not accepted');
  return url;
}

async function fetchUrl(url: URL, limits: DownloadLimits, network: Required<DownloadNetwork>, signal: AbortSignal): Promise<Buffer> {
  for (let hop = 0; hop <= limits.maxRedirects; hop++) {
    const address = await resolveSafely(url.hostname, network, signal);
    const answer = await fetchOnce(url, address, limits, signal);
    if (answer.body) return answer.body;
    try {
      url = parseUrl(new URL(answer.location!, url).href);
    } catch {
      // Where a server redirects is a fact about that server: the caller gets the common message.
      throw unreachable();
    }
  }
  throw unreachable();
}

function networkOf(limits: DownloadLimits, network: DownloadNetwork): Required<DownloadNetwork> {
  return {
    lookup: network.lookup ?? systemLookup,
    allows: network.allows ?? (limits.allowPrivate ? () => true : (address) => !isForbiddenAddress(address)),
  };
}

/** A signal that aborts when the time is up or when `signal` does, and a function that stops the clock. */
function withDeadline(ms: number, signal?: AbortSignal): { signal: AbortSignal; stop(): void } {
  const clock = new AbortController();
  const timer = setTimeout(() => clock.abort(), ms);
  return { signal: signal ? AbortSignal.any([clock.signal, signal]) : clock.signal, stop: () => clearTimeout(timer) };
}

/**
 * Downloads an image URL before its job is queued (docs/protocol.md §4): http(s) only, every hop's address checked
 * against the SSRF rules, redirects bounded, size limited, and everything (DNS, connecting, redirects, the body) within
 * one wall-clock limit, so that a server trickling bytes cannot hold the download open. Content is checked by the
 * caller's format sniffing, not by the Content-Type header, which servers often get wrong.
 */
export async function downloadUrl(rawUrl: string, limits: DownloadLimits, options: DownloadNetwork & { signal?: AbortSignal } = {}): Promise<Buffer> {
  const url = parseUrl(rawUrl);
  const deadline = withDeadline(limits.timeoutMs, options.signal);
  try {
    return await fetchUrl(url, limits, networkOf(limits, options), deadline.signal);
  } finally {
    deadline.stop();
  }
}

/**
 * Places for running downloads, one FIFO semaphore per owner (account), created on first use and dropped once idle so
 * that the map holds only accounts with downloads running or waiting.
 */
class DownloadPlaces {
  private readonly byOwner = new Map<string, FifoSemaphore>();

  constructor(private readonly perOwner: number) {}

  /** Resolves with a release function once a place is free; rejects (and leaves the queue) if the signal aborts first. */
  async take(owner: string, signal: AbortSignal): Promise<() => void> {
    if (this.perOwner === 0) return () => undefined;
    let places = this.byOwner.get(owner);
    if (!places) {
      places = createFifoSemaphore(this.perOwner);
      this.byOwner.set(owner, places);
    }
    const semaphore = places;
    try {
      const release = await semaphore.acquire(signal);
      return () => {
        release();
        this.forgetIfIdle(owner, semaphore);
      };
    } catch (reason) {
      this.forgetIfIdle(owner, semaphore);
      throw reason;
    }
  }

  private forgetIfIdle(owner: string, semaphore: FifoSemaphore): void {
    if (semaphore.active === 0 && semaphore.waiting === 0 && this.byOwner.get(owner) === semaphore) this.byOwner.delete(owner);
  }
}

/** A URL download's time limit: the configured one, shortened to what the caller's deadline (epoch ms) leaves. */
function downloadBudget(deadline: number | undefined, limitMs: number): number {
  return deadline ? Math.min(limitMs, Math.max(1, deadline - Date.now())) : limitMs;
}

/**
 * The gateway's downloads, shared by every service: downloads happen before the per-account job queue, so without a
 * limit of their own one account could hold any number of sockets and buffers. Each URL input gets one deadline
 * (the configured limit, or the caller's `timeout` when sooner) that covers waiting for a place and the download.
 */
export class UrlDownloader {
  private readonly places: DownloadPlaces;

  constructor(
    readonly limits: DownloadLimits,
    private readonly network: DownloadNetwork = {},
  ) {
    this.places = new DownloadPlaces(limits.concurrencyPerAccount);
  }

  async download(rawUrl: string, scope: DownloadScope): Promise<Buffer> {
    const url = parseUrl(rawUrl);
    const deadline = withDeadline(downloadBudget(scope.deadline, this.limits.timeoutMs), scope.signal);
    try {
      let release: () => void;
      try {
        release = await this.places.take(scope.owner, deadline.signal);
      } catch {
        if (scope.signal?.aborted) throw unreachable();
        const n = this.limits.concurrencyPerAccount;
        throw new DownloadError(`this account already had ${n} download${n === 1 ? '' : 's'} running until the time limit; retry later`);
      }
      try {
        return await fetchUrl(url, this.limits, networkOf(this.limits, this.network), deadline.signal);
      } finally {
        release();
      }
    } finally {
      deadline.stop();
    }
  }
}
