#!/usr/bin/env node
/*
 * Container health check for the Loupe images (Dockerfile HEALTHCHECK, docker-compose healthcheck, Kubernetes exec
 * probe). Plain Node, no packages: node:*-slim images have neither curl nor wget.
 *
 *   node infra/docker/healthcheck.cjs http [path]   GET http://127.0.0.1:$PORT<path> (default /health/live); 2xx is healthy
 *   node infra/docker/healthcheck.cjs redis         PING on $REDIS_URL (redis:// or rediss://, with AUTH and SELECT); +PONG is healthy
 *
 * The worker has no HTTP server, so its check is that it can reach the queue it takes jobs from.
 * Exit code 0 is healthy, 1 is not (the Docker and Kubernetes convention).
 */
'use strict';

const net = require('node:net');
const tls = require('node:tls');

const TIMEOUT_MS = Number(process.env.HEALTHCHECK_TIMEOUT_MS || 4000);
const DEFAULT_HTTP_PATH = '/health/live';

function fail(reason) {
  process.stderr.write(`unhealthy: ${reason}\n`);
  process.exit(1);
}

function ok(what) {
  process.stdout.write(`healthy: ${what}\n`);
  process.exit(0);
}

async function checkHttp(path) {
  const port = process.env.PORT || '8080';
  const url = `http://127.0.0.1:${port}${path}`;
  const response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (response.status >= 200 && response.status < 300) ok(`${url} answered ${response.status}`);
  fail(`${url} answered ${response.status}`);
}

/** A RESP command: *<n>\r\n then $<len>\r\n<arg>\r\n per argument. */
function resp(args) {
  return `*${args.length}\r\n` + args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('');
}

function checkRedis() {
  const raw = process.env.REDIS_URL;
  if (!raw) fail('REDIS_URL is not set');
  const url = new URL(raw);
  const secure = url.protocol === 'rediss:';
  const port = Number(url.port || 6379);
  const commands = [];
  const password = decodeURIComponent(url.password || '');
  const username = decodeURIComponent(url.username || '');
  if (password) commands.push(username ? ['AUTH', username, password] : ['AUTH', password]);
  const db = url.pathname.replace(/^\//, '');
  if (db) commands.push(['SELECT', db]);
  commands.push(['PING']);

  const socket = secure
    ? tls.connect({ host: url.hostname, port, servername: url.hostname })
    : net.connect({ host: url.hostname, port });
  socket.setTimeout(TIMEOUT_MS, () => fail(`no answer from ${url.hostname}:${port} within ${TIMEOUT_MS} ms`));
  socket.on('error', (error) => fail(`${url.hostname}:${port}: ${error.message}`));
  socket.once(secure ? 'secureConnect' : 'connect', () => socket.write(commands.map(resp).join('')));
  let buffer = '';
  socket.on('data', (chunk) => {
    buffer += chunk.toString('utf8');
    const lines = buffer.split('\r\n');
    if (lines.length <= commands.length) return; // not every reply is complete yet
    const replies = lines.slice(0, commands.length);
    const error = replies.find((line) => line.startsWith('-'));
    socket.destroy();
    if (error) fail(`redis answered ${error}`);
    if (replies[replies.length - 1] !== '+PONG') fail(`redis answered ${replies[replies.length - 1]} to PING`);
    ok(`redis at ${url.hostname}:${port} answered PONG`);
  });
}

const [mode, arg] = process.argv.slice(2);
try {
  if (mode === 'http') {
    checkHttp(arg || DEFAULT_HTTP_PATH).catch((error) => fail(error instanceof Error ? error.message : String(error)));
  } else if (mode === 'redis') {
    checkRedis();
  } else {
    fail(`usage: healthcheck.cjs http [path] | redis (got "${mode ?? ''}")`);
  }
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
