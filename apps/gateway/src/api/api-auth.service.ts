import {
  AuthThrottle, clientAddress, clockSkewSeconds, MAX_CLOCK_SKEW_SECONDS, NONCE_PATTERN, NonceStore, nonceExpiry, SignedRequest, verifySignature,
} from '@loupe/auth';
import type { ApiKeyRow, PublicApiRepository } from '@loupe/storage';
import type { IncomingMessage } from 'node:http';
import { ApiError } from './api-envelope';
import type { ApiRequestData } from './read-api-request';
import { signedRequestUrls } from './request-url';

const REQUIRED = ['api_key', 'api_sig', 'date', 'nonce'] as const;

function single(pairs: ApiRequestData['pairs'], name: string): string | undefined {
  return pairs.find(([k]) => k === name)?.[1];
}

/** The refusal of a client (or of every failed client, for a key under attack) that sent too many wrong keys. */
export function tooManyFailures(retryAfterSeconds: number): ApiError {
  return new ApiError(
    429,
    'TOO_MANY_FAILED_ATTEMPTS',
    `Too many calls with an unknown API key or a wrong api_sig; try again in ${retryAfterSeconds} s.`,
    { 'retry-after': String(retryAfterSeconds) },
  );
}

/**
 * Checks the signed-request rules of docs/protocol.md §5, in an order that spends nothing on a forged request: the
 * arguments are present and well formed, the client address has not failed too often, the key exists, the date is
 * within 15 minutes, the signature matches (SHA-1 or SHA-256, for the URL the client addressed), and only then the
 * nonce is claimed, atomically across replicas. Unknown keys and bad signatures count as failures of the client
 * address and the key (AuthThrottle); a wrong date or a reused nonce is a client's mistake, not a guess, and does not.
 */
export class ApiAuthService {
  constructor(
    private readonly keys: Pick<PublicApiRepository, 'findKey'>,
    private readonly nonces: NonceStore,
    private readonly trustProxy: boolean,
    private readonly throttle: AuthThrottle,
    private readonly now: () => number = () => Date.now() / 1000,
  ) {}

  async authenticate(req: IncomingMessage, data: ApiRequestData): Promise<ApiKeyRow> {
    const missing = REQUIRED.filter((name) => !single(data.pairs, name));
    if (missing.length > 0) {
      throw new ApiError(400, 'BAD_REQUEST', `Missing required argument${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}. Every call must be signed (api_key, date, nonce, api_sig).`);
    }
    const [publicKey, signature, date, nonce] = REQUIRED.map((name) => single(data.pairs, name)!);
    if (!NONCE_PATTERN.test(nonce)) {
      throw new ApiError(400, 'BAD_REQUEST', 'The nonce must be 8 to 255 characters of a-z, A-Z, 0-9 and -_=.,*^.');
    }
    const skew = clockSkewSeconds(date, this.now());
    if (skew === null) throw new ApiError(400, 'BAD_REQUEST', 'The date must be a Unix timestamp in whole seconds.');
    const client = clientAddress(req, this.trustProxy);
    const subject = `api\u0000${publicKey}`;
    const decision = await this.throttle.check(subject, client);
    if (!decision.allowed) throw tooManyFailures(decision.retryAfterSeconds);
    const key = await this.keys.findKey(publicKey);
    if (!key) {
      await this.throttle.fail(subject, client);
      throw new ApiError(401, 'INVALID_API_KEY', 'The api_key is not a known public key.');
    }
    if (skew > MAX_CLOCK_SKEW_SECONDS) {
      throw new ApiError(
        401,
        'INVALID_DATE',
        `The request date is ${Math.round(skew)} seconds from server time (${Math.floor(this.now())}); at most ${MAX_CLOCK_SKEW_SECONDS} are allowed. Check the client's clock.`,
      );
    }
    const upload = data.files.find((f) => f.field === 'image_upload');
    const base = { date, nonce, params: data.pairs };
    const candidates: SignedRequest[] = signedRequestUrls(req, this.trustProxy).map((requestUrl) =>
      upload && data.boundary
        ? { ...base, method: 'POST', requestUrl, boundary: data.boundary, filename: upload.filename }
        : { ...base, method: 'GET', requestUrl },
    );
    if (!candidates.some((candidate) => verifySignature(key.private_key, candidate, signature))) {
      await this.throttle.fail(subject, client);
      throw new ApiError(401, 'INVALID_SIGNATURE', 'The api_sig does not match the request (HMAC-SHA1 or HMAC-SHA256 of the canonical request under the private key).');
    }
    if (!(await this.nonces.claim(publicKey, nonce, nonceExpiry(date)))) {
      throw new ApiError(401, 'NONCE_REUSED', 'This nonce was already used; send a new random nonce with every request.');
    }
    return key;
  }
}
