import { randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCallback) as (password: string, salt: Buffer, keylen: number, options: object) => Promise<Buffer>;

/**
 * scrypt with N=2^15, r=8, p=1: the OWASP-recommended floor for interactive logins, about 50 ms and 32 MB here,
 * so a stolen table costs an attacker real work per guess while a login stays fast.
 */
const COST = 1 << 15;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
/** Node's default scrypt memory cap (32 MB) is exactly the need at N=2^15, r=8; leave headroom. */
const MAX_MEMORY = 64 * 1024 * 1024;

/** Stored form: `scrypt$N$r$p$salt$hash` with base64 salt and hash, so parameters can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const hash = await scrypt(password, salt, KEY_LENGTH, { N: COST, r: BLOCK_SIZE, p: PARALLELISM, maxmem: MAX_MEMORY });
  return ['scrypt', COST, BLOCK_SIZE, PARALLELISM, salt.toString('base64'), hash.toString('base64')].join('$');
}

/**
 * Stands in for the stored hash of a user who does not exist (or whose stored hash is unreadable): the check still runs
 * scrypt with the current parameters, so a refusal costs the same whether the user exists or not and response times do
 * not tell which users exist. Its salt and hash are random bytes of this process, so no password matches it.
 */
const NO_USER_HASH = ['scrypt', COST, BLOCK_SIZE, PARALLELISM, randomBytes(SALT_LENGTH).toString('base64'), randomBytes(KEY_LENGTH).toString('base64')].join('$');

/** True when `password` matches `stored`; with no stored hash, the same scrypt work is done and the answer is false. */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const parts = stored?.split('$') ?? [];
  const readable = parts.length === 6 && parts[0] === 'scrypt';
  const [, n, r, p, saltText, hashText] = readable ? parts : NO_USER_HASH.split('$');
  const expected = Buffer.from(hashText, 'base64');
  const actual = await scrypt(password, Buffer.from(saltText, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: MAX_MEMORY,
  });
  return readable && actual.length === expected.length && timingSafeEqual(actual, expected);
}
