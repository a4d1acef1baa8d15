import { lookup } from 'node:dns/promises';
import { request as httpRequest, IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP } from 'node:net';

export interface DownloadLimits {
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  allowPrivate: boolean;
}

/** A URL input that could not be turned into image bytes; the message is for the user and names no internals. */
export class DownloadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DownloadError';
  }
}

/**
 * Addresses a server-side request must never reach unless ALLOW_PRIVATE_URLS is set: loopback, private ranges,
 * link-local (which holds cloud metadata endpoints such as 169.254.169.254), carrier-grade NAT, multicast and reserved.
 */
const FORBIDDEN = (() => {
  const list = new BlockList();
  for (const [net, prefix] of [
    ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
    ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
  ] as const) list.addSubnet(net, prefix, 'ipv4');
  for (const [net, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) {
    list.addSubnet(net, prefix, 'ipv6');
  }
  return list;
})();

export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 6) {
    // IPv4-mapped IPv6 (::ffff:10.0.0.1) must be judged as the IPv4 address it carries.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return FORBIDDEN.check(mapped[1], 'ipv4');
    return FORBIDDEN.check(address, 'ipv6');
  }
  return FORBIDDEN.check(address, 'ipv4');
}

async function resolveSafely(hostname: string, allowPrivate: boolean): Promise<string> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  let addresses: Array<{ address: string }>;
  try {
    addresses = isIP(bare) ? [{ address: bare }] : await lookup(bare, { all: true });
  } catch {
    throw new DownloadError('Failed to download file: the host name could not be resolved.');
  }
  if (addresses.length === 0) throw new DownloadError('Failed to download file: the host name could not be resolved.');
  if (!allowPrivate && addresses.some((a) => isForbiddenAddress(a.address))) {
    throw new DownloadError('Failed to download file: the address is private or local, which is not allowed.');
  }
  // Connect to the address we checked, not to a second resolution that could answer differently (DNS rebinding).
  return addresses[0].address;
}

function fetchOnce(url: URL, address: string, limits: DownloadLimits, deadline: number): Promise<{ status: number; location?: string; body?: Buffer }> {
  return new Promise((resolve, reject) => {
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      reject(new DownloadError('Failed to download file: the download took too long.'));
      return;
    }
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      {
        protocol: url.protocol,
        hostname: address,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        servername: isIP(url.hostname) ? undefined : url.hostname,
        headers: { host: url.host, 'user-agent': 'Loupe/0.1 (+image fetch)', accept: 'image/*' },
        timeout: remaining,
      },
      (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && res.headers.location) {
          res.resume();
          resolve({ status, location: res.headers.location });
          return;
        }
        if (status !== 200) {
          res.resume();
          reject(new DownloadError(`Failed to download file: the server answered HTTP ${status}.`));
          return;
        }
        const declared = Number(res.headers['content-length'] ?? 0);
        if (declared > limits.maxBytes) {
          res.destroy();
          reject(new DownloadError(`Failed to download file: it is larger than ${Math.round(limits.maxBytes / 1048576)} MB.`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > limits.maxBytes) {
            res.destroy();
            reject(new DownloadError(`Failed to download file: it is larger than ${Math.round(limits.maxBytes / 1048576)} MB.`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => resolve({ status, body: Buffer.concat(chunks) }));
        res.on('error', () => reject(new DownloadError('Failed to download file: the connection was interrupted.')));
      },
    );
    req.on('timeout', () => req.destroy(new DownloadError('Failed to download file: the download took too long.')));
    req.on('error', (error) =>
      reject(error instanceof DownloadError ? error : new DownloadError('Failed to download file: the server could not be reached.')),
    );
    req.end();
  });
}

/**
 * Downloads an image URL before its job is queued (specification 1.3): http(s) only, every hop's address checked
 * against the SSRF block list, redirects bounded, time and size limited. Content is checked by the caller's format
 * sniffing, not by the Content-Type header, which servers often get wrong.
 */
export async function downloadUrl(rawUrl: string, limits: DownloadLimits): Promise<Buffer> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new DownloadError('Failed to download file: this is not a valid URL.');
  }
  const deadline = Date.now() + limits.timeoutMs;
  for (let hop = 0; hop <= limits.maxRedirects; hop++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new DownloadError('Failed to download file: only http and https URLs are accepted.');
    }
    if (url.username || url.password) throw new DownloadError('Failed to download file: URLs with credentials are not accepted.');
    const address = await resolveSafely(url.hostname, limits.allowPrivate);
    const answer = await fetchOnce(url, address, limits, deadline);
    if (answer.body) return answer.body;
    url = new URL(answer.location!, url);
  }
  throw new DownloadError(`Failed to download file: more than ${limits.maxRedirects} redirects.`);
}
