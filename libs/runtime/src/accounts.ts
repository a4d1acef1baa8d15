import { ACCOUNT_NAME_PATTERN, AccountSeed, hashPassword, verifyPassword } from '@loupe/auth';
import type { AccountRepository } from '@loupe/storage';

/** Creates the account and user, or sets the user's password; shared by ACCOUNTS at start-up and the CLI. */
export async function ensureAccountUser(accounts: AccountRepository, seed: AccountSeed): Promise<void> {
  if (!ACCOUNT_NAME_PATTERN.test(seed.account)) throw new Error(`"${seed.account}" is not a valid account name.`);
  if (seed.username === '' || seed.password === '') throw new Error('A user needs a non-empty name and password.');
  const account = await accounts.ensure(seed.account);
  const existing = await accounts.findUser(account.id, seed.username);
  // Re-hashing an unchanged password on every start would only churn the table.
  if (existing && (await verifyPassword(seed.password, existing.password_hash))) return;
  await accounts.upsertUser(account.id, seed.username, await hashPassword(seed.password));
}
