import { describe, expect, it } from 'vitest';
import { hashPassword, parseAccountsSpec, parseBasicAuth, verifyPassword } from './index';

describe('passwords', () => {
  it('stores a salted scrypt hash that verifies the right password only', async () => {
    const stored = await hashPassword('s3cret:with:colons');
    expect(stored).toMatch(/^scrypt\$32768\$8\$1\$/);
    expect(stored).not.toContain('s3cret');
    expect(await verifyPassword('s3cret:with:colons', stored)).toBe(true);
    expect(await verifyPassword('s3cret', stored)).toBe(false);
    expect(await hashPassword('same')).not.toEqual(await hashPassword('same'));
  });

  it('rejects a malformed stored hash instead of throwing', async () => {
    expect(await verifyPassword('x', 'plain-text')).toBe(false);
  });
});

describe('basic auth header', () => {
  it('decodes user and a password containing colons', () => {
    const header = `Basic ${Buffer.from('alice:pa:ss').toString('base64')}`;
    expect(parseBasicAuth(header)).toEqual({ username: 'alice', password: 'pa:ss' });
  });

  it('returns null for missing, non-basic or malformed headers', () => {
    expect(parseBasicAuth(undefined)).toBeNull();
    expect(parseBasicAuth('Bearer abc')).toBeNull();
    expect(parseBasicAuth(`Basic ${Buffer.from('nocolon').toString('base64')}`)).toBeNull();
  });
});

describe('ACCOUNTS specification', () => {
  it('parses several accounts and keeps colons in passwords', () => {
    expect(parseAccountsSpec('acme:alice:pw, beta:bob:a:b')).toEqual([
      { account: 'acme', username: 'alice', password: 'pw' },
      { account: 'beta', username: 'bob', password: 'a:b' },
    ]);
  });

  it('refuses malformed entries and unsafe account names', () => {
    expect(() => parseAccountsSpec('acme:alice')).toThrow(/account:user:password/);
    expect(() => parseAccountsSpec('a/b:alice:pw')).toThrow(/not a valid account name/);
  });
});
