import { NotFoundError, quoteInput } from '@loupe/envelope';
import { createParamDecorator, ExecutionContext, Inject, Injectable, PipeTransform } from '@nestjs/common';
import type { Request } from 'express';
import { COMMON, readInput } from '../contracts';
import type { Operation } from '../services/operation';
import { BODY_LIMITS, callOf, CollectionCall, operationOf, SERVICE_TABLES, ServiceTables } from './collection-call';
import { BodyLimits, readParams } from './read-params';

/** A collection call's operation with its request, read by its contract. */
export interface OperationCall {
  call: CollectionCall;
  operation: Operation;
  input: unknown;
}

/** The request of a collection call, for OperationInputPipe. */
export const CollectionRequest = createParamDecorator((_data: unknown, context: ExecutionContext) => context.switchToHttp().getRequest<Request>());

/**
 * Reads a collection call's parameters once: the body (bounded: 413 past MAX_BODY_MB), then the common parameters, then
 * the operation's contract (contracts/operations.ts), giving the handler a typed request. An operation the service
 * does not have is 404 (after authentication, which the guard did).
 */
@Injectable()
export class OperationInputPipe implements PipeTransform<Request, Promise<OperationCall>> {
  constructor(
    @Inject(SERVICE_TABLES) private readonly services: ServiceTables,
    @Inject(BODY_LIMITS) private readonly limits: BodyLimits,
  ) {}

  async transform(req: Request): Promise<OperationCall> {
    const call = callOf(req)!;
    const operation = operationOf(this.services, call);
    if (!operation) throw new NotFoundError(`The ${call.service} service has no operation ${quoteInput(call.operation ?? '')}.`);
    const params = await readParams(req, this.limits);
    readInput(COMMON, params, call.common);
    return { call, operation, input: readInput(operation.contract.params, params) };
  }
}
