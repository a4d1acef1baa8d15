import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import type { Request } from 'express';
import { BasicAuthService } from './basic-auth.service';
import { BASIC_AUTH, callOf } from './collection-call';
import { noSuchService, serviceOf } from './collection-routes';

/**
 * HTTP Basic credentials of a user of the account named in `/<service>/<account>/rest/…`, on every route of a service
 * controller. A wrong user, password or account is 401, with the same lookups and timing for each
 * (BasicAuthService), and too many failures 429. Operations are looked up only after this (OperationInputPipe, the
 * controllers' catch-all), so a caller without credentials learns nothing of them.
 *
 * Express matches the service's mount path without regard to case, so `/MOBILE/…` reaches the mobile controller;
 * service names have always been exact, so that path names no service and is answered 404 first, as a path naming
 * none is (CollectionModule): there is no account to sign in to.
 */
@Injectable()
export class BasicAuthGuard implements CanActivate {
  constructor(@Inject(BASIC_AUTH) private readonly auth: BasicAuthService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<Request>();
    const call = callOf(req)!;
    if (call.service !== serviceOf(context.getClass())) throw noSuchService(call);
    call.account = await this.auth.authenticate(call.accountName!, req);
    return true;
  }
}
