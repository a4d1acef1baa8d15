import { NotFoundError, quoteInput } from '@loupe/envelope';
import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { performance } from 'node:perf_hooks';
import { BasicAuthService } from './basic-auth.service';
import { BASIC_AUTH, beginCall, callOf, SERVICE_TABLES, ServiceTables, tableOf } from './collection-call';

/**
 * HTTP Basic credentials of a user of the account named in `/<service>/<account>/rest/…`. A path naming no service is
 * answered 404 first (there is no account to sign in to); a wrong user, password or account is 401, with the same
 * lookups and timing for each (BasicAuthService), and too many failures 429. Operations are looked up only after
 * this, so a caller without credentials learns nothing of them.
 */
@Injectable()
export class BasicAuthGuard implements CanActivate {
  constructor(
    @Inject(BASIC_AUTH) private readonly auth: BasicAuthService,
    @Inject(SERVICE_TABLES) private readonly services: ServiceTables,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const call = callOf(req) ?? beginCall(req, '', performance.now());
    const params = req.params as Record<string, string>;
    call.service = params.service;
    call.accountName = params.account;
    call.operation = params.operation;
    if (!tableOf(this.services, call.service)) throw new NotFoundError(`There is no service named ${quoteInput(call.service)}.`);
    call.account = await this.auth.authenticate(call.accountName, req);
    return true;
  }
}
