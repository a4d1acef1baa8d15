import { AuthThrottle, clientAddress, parseBasicAuth, verifyPassword } from '@loupe/auth';
import { AuthError } from '@loupe/envelope';
import type { AccountRepository, AccountRow } from '@loupe/storage';
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * A successful scrypt check is remembered for a minute so that a client sending many calls does not pay ~50 ms of
 * hashing on each; a changed or removed password takes effect within that minute.
 */
const VERIFIED_TTL_MS = 60_000;
const MAX_CACHED = 10_000;

/** No account has id 0 (ids start at 1): looking a user up under it costs the query a real account's lookup costs. */
const NO_ACCOUNT_ID = 0;

/**
 * Too many failed sign-ins from this client address (or for this user from addresses that failed too): answered with
 * HTTP 429 and Retry-After. An AuthError, so a path that does not know it still refuses the call.
 */
export class AuthThrottledError extends AuthError {
  constructor(readonly retryAfterSeconds: number) {
    super(`Too many failed sign-in attempts; try again in ${retryAfterSeconds} s.`);
    this.name = 'AuthThrottledError';
  }
}

/** Checks HTTP Basic credentials against the users of the account named in the path. */
export class BasicAuthService {
  private readonly verified = new Map<string, { account: AccountRow; expires: number }>();

  constructor(
    private readonly accounts: Pick<AccountRepository, 'find' | 'findUser'>,
    private readonly throttle: AuthThrottle,
    private readonly trustProxy: boolean,
  ) {}

  async authenticate(accountName: string, req: Pick<IncomingMessage, 'headers' | 'socket'>): Promise<AccountRow> {
    const credentials = parseBasicAuth(req.headers.authorization);
    // One message for every refusal: nothing tells a caller whether an account or user exists.
    const refusal = new AuthError('Invalid or missing credentials for this account.');
    // No credentials is a client's first, unauthenticated try (browsers), not a guess: not counted.
    if (!credentials) throw refusal;
    const client = clientAddress(req, this.trustProxy);
    const subject = `basic\u0000${accountName}\u0000${credentials.username}`;
    // Before the cache: otherwise a throttled guesser would still learn a password the moment its owner had used it.
    const decision = await this.throttle.check(subject, client);
    if (!decision.allowed) throw new AuthThrottledError(decision.retryAfterSeconds);
    const cacheKey = createHash('sha256').update(`${accountName}\u0000${credentials.username}\u0000${credentials.password}`).digest('hex');
    const cached = this.verified.get(cacheKey);
    if (cached && cached.expires > Date.now()) return cached.account;
    // The same lookups and one scrypt on every path: an unknown account, an unknown user, another account's user and
    // a wrong password cost the same time, so response times do not tell which accounts and users exist.
    const account = await this.accounts.find(accountName);
    const user = await this.accounts.findUser(account?.id ?? NO_ACCOUNT_ID, credentials.username);
    const matches = await verifyPassword(credentials.password, user?.password_hash);
    if (!account || !user || !matches) {
      await this.throttle.fail(subject, client);
      throw refusal;
    }
    if (this.verified.size >= MAX_CACHED) this.verified.clear();
    this.verified.set(cacheKey, { account, expires: Date.now() + VERIFIED_TTL_MS });
    return account;
  }
}
