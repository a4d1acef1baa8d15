import { parseBasicAuth, verifyPassword } from '@loupe/auth';
import { AuthError } from '@loupe/envelope';
import type { AccountRepository, AccountRow } from '@loupe/storage';
import { createHash } from 'node:crypto';

/**
 * A successful scrypt check is remembered for a minute so that a client sending many calls does not pay ~50 ms of
 * hashing on each; a changed or removed password takes effect within that minute.
 */
const VERIFIED_TTL_MS = 60_000;
const MAX_CACHED = 10_000;

/** Checks HTTP Basic credentials against the users of the account named in the path. */
export class BasicAuthService {
  private readonly verified = new Map<string, { account: AccountRow; expires: number }>();

  constructor(private readonly accounts: AccountRepository) {}

  async authenticate(accountName: string, header: string | undefined): Promise<AccountRow> {
    const credentials = parseBasicAuth(header);
    // One message for every refusal: nothing tells a caller whether an account or user exists.
    const refusal = new AuthError('Invalid or missing credentials for this account.');
    if (!credentials) throw refusal;
    const cacheKey = createHash('sha256').update(`${accountName}\u0000${credentials.username}\u0000${credentials.password}`).digest('hex');
    const cached = this.verified.get(cacheKey);
    if (cached && cached.expires > Date.now()) return cached.account;
    const account = await this.accounts.find(accountName);
    const user = account ? await this.accounts.findUser(account.id, credentials.username) : null;
    if (!account || !user || !(await verifyPassword(credentials.password, user.password_hash))) throw refusal;
    if (this.verified.size >= MAX_CACHED) this.verified.clear();
    this.verified.set(cacheKey, { account, expires: Date.now() + VERIFIED_TTL_MS });
    return account;
  }
}
