import { describe, expect, it } from 'vitest';
import { AccountRepository } from './accounts.repository';
import { PublicApiRepository } from './public-index-api.repository';
import { TEST_DATABASES, unavailable, useMigratedDatabase } from './test-databases';

// Postgres answers a NUL in a text parameter with an error; a lookup of a name or key that holds one finds nothing.
describe.each(TEST_DATABASES)('lookups of names and keys holding a NUL character (%s)', (label, url) => {
  const database = useMigratedDatabase(label, url);

  it.skipIf(unavailable(label, url))('find no account, user or API key instead of failing', async () => {
    const accounts = new AccountRepository(database());
    const keys = new PublicApiRepository(database());
    const account = await accounts.ensure('acme');
    await accounts.upsertUser(account.id, 'ann', 'hash');
    await keys.upsertKey(account.id, 'public-key', 'private-key');

    await expect(accounts.find('ac\u0000me')).resolves.toBeNull();
    await expect(accounts.findUser(account.id, 'a\u0000nn')).resolves.toBeNull();
    await expect(keys.findKey('a\u0000b')).resolves.toBeNull();
    await expect(keys.findKeyByPrivateKey('private\u0000key')).resolves.toBeNull();
    // The same lookups without the NUL still find what is there.
    expect((await accounts.find('acme'))?.id).toBe(account.id);
    expect((await accounts.findUser(account.id, 'ann'))?.username).toBe('ann');
    expect((await keys.findKey('public-key'))?.account).toBe('acme');
  });
});
