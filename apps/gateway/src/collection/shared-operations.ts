import { All, Req } from '@nestjs/common';
import type { Request } from 'express';
import type { CONTRACTS } from '../contracts';
import { callOf } from '../http/collection-call';
import { noSuchOperation } from '../http/collection-routes';
import type { OperationRequest } from '../http/operation-input.pipe';
import type { CollectionService } from '../services/collection.service';
import type { OperationOutcome } from '../services/operation';
import { Operation, OperationInput } from './decorators';

type Shared = (typeof CONTRACTS)['mobile'];

/**
 * delete, list, count and ping, which every collection service has, and the 404 of any other name. Each service's
 * controller extends this; its own operations are declared first, so Express tries them before the catch-all.
 */
export abstract class SharedOperations {
  constructor(protected readonly collection: CollectionService) {}

  @Operation('delete')
  delete(@OperationInput() { ctx, input }: OperationRequest<Shared['delete']>): Promise<OperationOutcome> {
    return this.collection.delete(ctx, input.filepaths);
  }

  @Operation('list')
  list(@OperationInput() { ctx, input }: OperationRequest<Shared['list']>): Promise<OperationOutcome> {
    return this.collection.list(ctx, input);
  }

  @Operation('count')
  count(@OperationInput() { ctx }: OperationRequest<Shared['count']>): Promise<OperationOutcome> {
    return this.collection.count(ctx);
  }

  /** Reads no parameter of its own, but the common ones still (`?timeout=x` is refused, `format` applies). */
  @Operation('ping')
  ping(@OperationInput() _request: OperationRequest<Shared['ping']>): Promise<OperationOutcome> {
    return this.collection.ping();
  }

  /** Any other name: 404, after the guard signed the caller in, and before the body is read. */
  @All(':operation')
  unknown(@Req() req: Request): never {
    throw noSuchOperation(callOf(req)!);
  }
}
