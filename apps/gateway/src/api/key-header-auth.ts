import { AuthThrottle, clientAddress } from '@loupe/auth';
import type { ApiKeyRow, PublicApiRepository } from '@loupe/storage';
import type { IncomingMessage } from 'node:http';
import { tooManyFailures } from './api-auth.service';
import { ApiError } from './api-envelope';
import type { ApiRequestData } from './read-api-request';
import { arrivedOverHttps } from './request-url';

export const KEY_HEADER = 'x-api-key';

export interface KeyHeaderOptions {
  /** Behind a TLS-terminating reverse proxy: believe its X-Forwarded-Proto. */
  trustProxy: boolean;
  /** The operator allows the header over plain HTTP (API_KEY_HEADER_OVER_HTTP), e.g. on a private network. */
  overHttp: boolean;
  /** Counts unknown keys per client address, as for signed calls: the header is a private key to guess. */
  throttle: AuthThrottle;
}

/**
 * Key-header authentication (docs/protocol.md §5): `pytineye` 3.x sends the
 * private key in an `x-api-key` header and signs nothing. The key then travels as a bearer secret, so it is accepted
 * only over HTTPS unless the operator says otherwise; with no signature there is no date or nonce to check. What
 * follows is the same as for a signed call: the key's account is charged and its searches rate-limited.
 */
export class KeyHeaderAuth {
  constructor(
    private readonly keys: Pick<PublicApiRepository, 'findKeyByPrivateKey'>,
    private readonly options: KeyHeaderOptions,
  ) {}

  /**
   * The header's key when this call authenticates with it: the header is present and the call carries no signature.
   * A call with both is a signed call; the signature, which is the stronger proof, decides.
   */
  requested(req: IncomingMessage, data: ApiRequestData): string | undefined {
    const raw = req.headers[KEY_HEADER];
    const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
    if (value === undefined) return undefined;
    return data.pairs.some(([name]) => name === 'api_sig') ? undefined : value;
  }

  async authenticate(req: IncomingMessage, privateKey: string): Promise<ApiKeyRow> {
    if (!this.options.overHttp && !arrivedOverHttps(req, this.options.trustProxy)) {
      throw new ApiError(
        403,
        'HTTPS_REQUIRED',
        `The ${KEY_HEADER} header carries the private key and is accepted only over HTTPS. Call the API with https, or sign the call (api_key, date, nonce, api_sig) instead.`,
      );
    }
    const client = clientAddress(req, this.options.trustProxy);
    const subject = `api-header\u0000${privateKey}`;
    const decision = await this.options.throttle.check(subject, client);
    if (!decision.allowed) throw tooManyFailures(decision.retryAfterSeconds);
    const key = privateKey === '' ? null : await this.keys.findKeyByPrivateKey(privateKey);
    if (!key) {
      await this.options.throttle.fail(subject, client);
      throw new ApiError(401, 'INVALID_API_KEY', `The ${KEY_HEADER} header is not a known API key.`);
    }
    return key;
  }
}
