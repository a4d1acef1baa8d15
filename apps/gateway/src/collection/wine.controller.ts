import { INGEST_POLICIES, WINE_PREFERRED_SIDE } from '@loupe/jobs';
import { Inject } from '@nestjs/common';
import type { CONTRACTS } from '../contracts';
import type { OperationRequest } from '../http/operation-input.pipe';
import { CollectionService } from '../services/collection.service';
import { MatchingService } from '../services/matching.service';
import type { OperationOutcome } from '../services/operation';
import { WineService } from '../services/wine.service';
import { Operation, OperationInput, ServiceController } from './decorators';
import { SharedOperations } from './shared-operations';

type Wine = (typeof CONTRACTS)['wine'];

/**
 * The wine-label service (docs/protocol.md §7, §8): add reads each label and stores its metadata; search matches the
 * label image and orders the best by label text; extract_metadata and extract_text read the labels of given images;
 * compare matches two images as match compare does.
 */
@ServiceController('wine')
export class WineController extends SharedOperations {
  constructor(
    @Inject(CollectionService) collection: CollectionService,
    @Inject(MatchingService) private readonly matching: MatchingService,
    @Inject(WineService) private readonly wine: WineService,
  ) {
    super(collection);
  }

  /**
   * docs/protocol.md §7-§9: an existing path is refused; rectangles refer to the image without its solid borders; the
   * label reading time is reported as time_detect_label.
   */
  @Operation('add')
  add(@OperationInput() { ctx, input }: OperationRequest<Wine['add']>): Promise<OperationOutcome> {
    return this.collection.add(ctx, input.images, { ...INGEST_POLICIES.wine, stageStats: ['time_detect_label'] });
  }

  @Operation('search')
  search(@OperationInput() { ctx, input }: OperationRequest<Wine['search']>): Promise<OperationOutcome> {
    return this.wine.search(ctx, input);
  }

  /**
   * docs/protocol.md §6 (wine compare): the Python WineEngine inherits compare from the match client. The images are
   * normalised as wine labels are (solid borders cropped, preferred side of docs/protocol.md §9).
   */
  @Operation('compare')
  compare(@OperationInput() { ctx, input }: OperationRequest<Wine['compare']>): Promise<OperationOutcome> {
    return this.matching.compare(ctx, input, WINE_PREFERRED_SIDE);
  }

  @Operation('extract_metadata')
  extractMetadata(@OperationInput() { ctx, input }: OperationRequest<Wine['extract_metadata']>): Promise<OperationOutcome> {
    return this.wine.extract(ctx, input, 'metadata');
  }

  @Operation('extract_text')
  extractText(@OperationInput() { ctx, input }: OperationRequest<Wine['extract_text']>): Promise<OperationOutcome> {
    return this.wine.extract(ctx, input, 'text');
  }
}
