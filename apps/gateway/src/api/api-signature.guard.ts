import { Params } from '@loupe/envelope';
import { CanActivate, ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { Request } from 'express';
import { apiCallOf, API_WIRING, ApiWiring, beginApiCall } from './api-call';
import { readApiRequest } from './read-api-request';

const API_OPERATION = 'loupe:api-operation';

/** Names a handler's public API operation (its metrics label). */
export const ApiOperation = (name: string) => SetMetadata(API_OPERATION, name);

/**
 * The public API's authentication: the request is read as its signature covers it (every pair as sent, the upload's
 * boundary), then checked by ApiAuthService (api_key, date, nonce, api_sig; failures throttled per address and key),
 * or, for key-header clients, by KeyHeaderAuth (`x-api-key`, over HTTPS). The parameters read stay on the call for
 * the handler, so the body is read once.
 */
@Injectable()
export class ApiSignatureGuard implements CanActivate {
  constructor(
    @Inject(API_WIRING) private readonly api: ApiWiring,
    @Inject(Reflector) private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const call = apiCallOf(req) ?? beginApiCall(req);
    call.operation = this.reflector.get<string>(API_OPERATION, context.getHandler());
    const data = await readApiRequest(req, this.api.limits);
    call.params = new Params(data.pairs, data.files);
    call.pretty = call.params.bool('pretty', call.pretty);
    const headerKey = this.api.keyHeader.requested(req, data);
    call.key = headerKey !== undefined ? await this.api.keyHeader.authenticate(req, headerKey) : await this.api.auth.authenticate(req, data);
    return true;
  }
}
