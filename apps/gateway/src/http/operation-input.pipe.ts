import { Inject, Injectable, PipeTransform } from '@nestjs/common';
import type { Request } from 'express';
import { COMMON, InputOf, OperationContract, readInput } from '../contracts';
import type { OperationContext, ServiceName } from '../services/operation';
import { BODY_LIMITS, callOf } from './collection-call';
import { contractOf, noSuchOperation } from './collection-routes';
import { BodyLimits, readParams } from './read-params';

/** The request of a collection call with the route it reached (OperationInput, collection/decorators.ts). */
export interface RoutedRequest {
  req: Request;
  service: ServiceName;
  operation: string;
}

/** What an operation handler runs on: its context (account, format, deadline) and its request read by its contract. */
export interface OperationRequest<C extends OperationContract = OperationContract> {
  ctx: OperationContext;
  input: InputOf<C>;
}

/**
 * Reads a collection call's parameters once: the body (bounded: 413 past MAX_BODY_MB), then the common parameters, then
 * the operation's contract (contracts/operations.ts), giving the handler a typed request. Runs after the guard, so an
 * operation the service does not have is 404 only after authentication.
 */
@Injectable()
export class OperationInputPipe implements PipeTransform<RoutedRequest, Promise<OperationRequest>> {
  constructor(@Inject(BODY_LIMITS) private readonly limits: BodyLimits) {}

  async transform({ req, service, operation }: RoutedRequest): Promise<OperationRequest> {
    const call = callOf(req)!;
    // Express matched the handler's path without regard to case; operation names have always been exact (`PING` is
    // no operation).
    if (call.operation !== operation) throw noSuchOperation(call);
    const params = await readParams(req, this.limits);
    readInput(COMMON, params, call.common);
    const input = readInput(contractOf(service, operation).params, params);
    const { common } = call;
    const ctx: OperationContext = {
      service,
      account: call.account!,
      format: common.format ?? 'json',
      timeoutMs: common.timeout ? common.timeout * 1000 : undefined,
      signal: call.signal,
    };
    return { ctx, input };
  }
}
