import { INGEST_POLICIES } from '@loupe/jobs';
import { Inject } from '@nestjs/common';
import type { CONTRACTS } from '../contracts';
import type { OperationRequest } from '../http/operation-input.pipe';
import { CollectionService } from '../services/collection.service';
import { MatchingService } from '../services/matching.service';
import type { OperationOutcome } from '../services/operation';
import { Operation, OperationInput, ServiceController } from './decorators';
import { SharedOperations } from './shared-operations';

type Mobile = (typeof CONTRACTS)['mobile'];
const POLICY = INGEST_POLICIES.mobile;

/** The mobile service: adds images (no overwrite), searches and compares them, reports their presence and health. */
@ServiceController('mobile')
export class MobileController extends SharedOperations {
  constructor(
    @Inject(CollectionService) collection: CollectionService,
    @Inject(MatchingService) private readonly matching: MatchingService,
  ) {
    super(collection);
  }

  @Operation('add')
  add(@OperationInput() { ctx, input }: OperationRequest<Mobile['add']>): Promise<OperationOutcome> {
    return this.collection.add(ctx, input.images, POLICY);
  }

  @Operation('search')
  search(@OperationInput() { ctx, input }: OperationRequest<Mobile['search']>): Promise<OperationOutcome> {
    return this.matching.search(ctx, input, POLICY.preferred_side);
  }

  @Operation('compare')
  compare(@OperationInput() { ctx, input }: OperationRequest<Mobile['compare']>): Promise<OperationOutcome> {
    return this.matching.compare(ctx, input, POLICY.preferred_side);
  }

  @Operation('get_info')
  getInfo(@OperationInput() { ctx, input }: OperationRequest<Mobile['get_info']>): Promise<OperationOutcome> {
    return this.collection.getInfo(ctx, input.filepaths, { reportFingerprint: true });
  }

  @Operation('get_metadata')
  getMetadata(@OperationInput() { ctx, input }: OperationRequest<Mobile['get_metadata']>): Promise<OperationOutcome> {
    return this.collection.getMetadata(ctx, input.filepaths);
  }
}
