import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

function firstHeader(req: IncomingMessage, name: string): string | undefined {
  const raw = req.headers[name];
  const value = Array.isArray(raw) ? raw[0] : raw;
  const first = value?.split(',')[0]?.trim();
  return first ? first : undefined;
}

/** RFC 9112 §3.2.2 absolute-form: `scheme://authority/path?query` in the request line instead of `/path?query`. */
const ABSOLUTE_FORM = /^([a-z][a-z0-9+.-]*):\/\/(?:[^/?#@]*@)?([^/?#]*)([^?#]*)/i;

/** Where the client addressed the call: scheme, host (as written, port included) and path without the query. */
function addressOf(req: IncomingMessage, trustProxy: boolean): { proto: string; host: string; prefix: string; path: string } {
  const target = req.url ?? '/';
  const absolute = ABSOLUTE_FORM.exec(target);
  if (absolute && absolute[2] !== '') {
    // The client wrote the whole URL it signed into the request line; RFC 9112 §3.2.2 has the target's authority
    // win over Host. Forwarded headers describe origin-form requests a proxy rewrote, so they do not apply here.
    return { proto: absolute[1].toLowerCase(), host: absolute[2], prefix: '', path: absolute[3] || '/' };
  }
  const encrypted = Boolean((req.socket as TLSSocket | undefined)?.encrypted);
  return {
    proto: ((trustProxy && firstHeader(req, 'x-forwarded-proto')) || (encrypted ? 'https' : 'http')).toLowerCase(),
    host: (trustProxy && firstHeader(req, 'x-forwarded-host')) || req.headers.host || 'localhost',
    prefix: trustProxy ? (firstHeader(req, 'x-forwarded-prefix') ?? '').replace(/\/+$/, '') : '',
    path: target.split('?')[0],
  };
}

/**
 * The URLs a client may have signed for this call (docs/protocol.md §5: the API base plus `<operation>/`), rebuilt
 * from the request as the client addressed it: the URL of an absolute-form request line (RFC 9112 §3.2.2, sent by
 * clients on low-level HTTP pools), else scheme and Host of the connection, or, behind a trusted reverse proxy,
 * X-Forwarded-Proto, X-Forwarded-Host and X-Forwarded-Prefix. The path is the one requested with its trailing slash
 * restored (clients sign `…/search/` but may send `…/search`). A default port written out (`:80`, `:443`) or left
 * implicit is the same address, so both spellings are offered.
 */
export function signedRequestUrls(req: IncomingMessage, trustProxy: boolean): string[] {
  const { proto, host, prefix, path: rawPath } = addressOf(req, trustProxy);
  const path = `${rawPath.replace(/\/+$/, '')}/`;
  const defaultPort = proto === 'https' ? '443' : '80';
  const hosts = new Set([host]);
  if (host.endsWith(`:${defaultPort}`)) hosts.add(host.slice(0, -(defaultPort.length + 1)));
  else if (!/:\d+$/.test(host)) hosts.add(`${host}:${defaultPort}`);
  return [...hosts].map((h) => `${proto}://${h}${prefix}${path}`);
}

/**
 * Whether the call reached us over HTTPS: a TLS socket or, behind a trusted reverse proxy that terminates TLS,
 * X-Forwarded-Proto https. Without TRUST_PROXY that header, like an `https://` written into the request line, is
 * the client's own word and proves nothing.
 */
export function arrivedOverHttps(req: IncomingMessage, trustProxy: boolean): boolean {
  if ((req.socket as TLSSocket | undefined)?.encrypted) return true;
  return trustProxy && firstHeader(req, 'x-forwarded-proto')?.toLowerCase() === 'https';
}
