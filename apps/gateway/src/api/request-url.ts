import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

function firstHeader(req: IncomingMessage, name: string): string | undefined {
  const raw = req.headers[name];
  const value = Array.isArray(raw) ? raw[0] : raw;
  const first = value?.split(',')[0]?.trim();
  return first ? first : undefined;
}

/**
 * The URLs a client may have signed for this call (compatibility.md: the API base plus `<operation>/`), rebuilt
 * from the request as the client addressed it: scheme and Host of the connection, or, behind a trusted reverse
 * proxy, X-Forwarded-Proto, X-Forwarded-Host and X-Forwarded-Prefix. The path is the one requested with its
 * trailing slash restored (clients sign `…/search/` but may send `…/search`). A default port written out
 * (`:80`, `:443`) or left implicit is the same address, so both spellings are offered.
 */
export function signedRequestUrls(req: IncomingMessage, trustProxy: boolean): string[] {
  const encrypted = Boolean((req.socket as TLSSocket | undefined)?.encrypted);
  const proto = ((trustProxy && firstHeader(req, 'x-forwarded-proto')) || (encrypted ? 'https' : 'http')).toLowerCase();
  const host = (trustProxy && firstHeader(req, 'x-forwarded-host')) || req.headers.host || 'localhost';
  const prefix = trustProxy ? (firstHeader(req, 'x-forwarded-prefix') ?? '').replace(/\/+$/, '') : '';
  const rawPath = (req.url ?? '/').split('?')[0];
  const path = `${rawPath.replace(/\/+$/, '')}/`;
  const defaultPort = proto === 'https' ? '443' : '80';
  const hosts = new Set([host]);
  if (host.endsWith(`:${defaultPort}`)) hosts.add(host.slice(0, -(defaultPort.length + 1)));
  else if (!/:\d+$/.test(host)) hosts.add(`${host}:${defaultPort}`);
  return [...hosts].map((h) => `${proto}://${h}${prefix}${path}`);
}
