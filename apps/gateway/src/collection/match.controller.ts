import { INGEST_POLICIES } from '@loupe/jobs';
import { Inject } from '@nestjs/common';
import type { CONTRACTS } from '../contracts';
import type { OperationRequest } from '../http/operation-input.pipe';
import { CollectionService } from '../services/collection.service';
import { MatchingService } from '../services/matching.service';
import type { OperationOutcome } from '../services/operation';
import { Operation, OperationInput, ServiceController } from './decorators';
import { SharedOperations } from './shared-operations';

type Match = (typeof CONTRACTS)['match'];
const POLICY = INGEST_POLICIES.match;

/** The match service: compare two images; and, as client libraries expect, a searchable collection whose add replaces. */
@ServiceController('match')
export class MatchController extends SharedOperations {
  constructor(
    @Inject(CollectionService) collection: CollectionService,
    @Inject(MatchingService) private readonly matching: MatchingService,
  ) {
    super(collection);
  }

  @Operation('compare')
  compare(@OperationInput() { ctx, input }: OperationRequest<Match['compare']>): Promise<OperationOutcome> {
    return this.matching.compare(ctx, input, POLICY.preferred_side);
  }

  @Operation('search')
  search(@OperationInput() { ctx, input }: OperationRequest<Match['search']>): Promise<OperationOutcome> {
    return this.matching.search(ctx, input, POLICY.preferred_side);
  }

  @Operation('add')
  add(@OperationInput() { ctx, input }: OperationRequest<Match['add']>): Promise<OperationOutcome> {
    return this.collection.add(ctx, input.images, POLICY);
  }
}
