import ipaddr from 'ipaddr.js';
import type { IncomingMessage } from 'node:http';

/**
 * The address a failed sign-in is counted against. Without a trusted proxy it is the socket's peer; behind one
 * (TRUST_PROXY) it is the last X-Forwarded-For entry, the one the proxy itself appended: earlier entries are whatever
 * the client chose to send, so trusting them would let an attacker pick a fresh address for every guess.
 *
 * IPv6 clients are counted per /64: one subscriber usually holds a whole /64, and counting single addresses would hand
 * them 2^64 fresh identities. IPv4-mapped IPv6 (`::ffff:a.b.c.d`) is the IPv4 address.
 */
export function clientAddress(req: Pick<IncomingMessage, 'headers' | 'socket'>, trustProxy: boolean): string {
  const forwarded = trustProxy ? lastForwardedFor(req.headers['x-forwarded-for']) : undefined;
  const raw = forwarded ?? req.socket?.remoteAddress ?? '';
  if (!ipaddr.isValid(raw)) return raw === '' ? 'unknown' : raw.slice(0, 64);
  const address = ipaddr.process(raw);
  if (address.kind() === 'ipv4') return address.toString();
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((part) => part.toString(16)).join(':')}::/64`;
}

function lastForwardedFor(header: string | string[] | undefined): string | undefined {
  // Repeated headers are joined in order, so the proxy's own entry is still the last one.
  const joined = Array.isArray(header) ? header.join(',') : header;
  const last = joined?.split(',').pop()?.trim();
  if (!last) return undefined;
  // `[v6]:port` and `v4:port` forms, which some proxies write.
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(last);
  if (bracketed) return bracketed[1];
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(last);
  return v4WithPort ? v4WithPort[1] : last;
}
