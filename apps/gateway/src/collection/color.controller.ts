import { Inject } from '@nestjs/common';
import type { CONTRACTS } from '../contracts';
import type { OperationRequest } from '../http/operation-input.pipe';
import { CollectionService } from '../services/collection.service';
import { ColorService } from '../services/color.service';
import type { OperationOutcome } from '../services/operation';
import { Operation, OperationInput, ServiceController } from './decorators';
import { SharedOperations } from './shared-operations';

type Color = (typeof CONTRACTS)['color'];

/** The color service (docs/protocol.md §6-§8): palettes, color search, keyword metadata search and counts. */
@ServiceController('color')
export class ColorController extends SharedOperations {
  constructor(
    @Inject(CollectionService) collection: CollectionService,
    @Inject(ColorService) private readonly color: ColorService,
  ) {
    super(collection);
  }

  @Operation('color_search')
  colorSearch(@OperationInput() { ctx, input }: OperationRequest<Color['color_search']>): Promise<OperationOutcome> {
    return this.color.search(ctx, input);
  }

  @Operation('extract_image_colors')
  extractImageColors(@OperationInput() { ctx, input }: OperationRequest<Color['extract_image_colors']>): Promise<OperationOutcome> {
    return this.color.extractImageColors(ctx, input);
  }

  @Operation('count_image_colors')
  countImageColors(@OperationInput() { ctx, input }: OperationRequest<Color['count_image_colors']>): Promise<OperationOutcome> {
    return this.color.countImageColors(ctx, input);
  }

  @Operation('extract_collection_colors')
  extractCollectionColors(@OperationInput() { ctx, input }: OperationRequest<Color['extract_collection_colors']>): Promise<OperationOutcome> {
    return this.color.collectionColors(ctx, input, 'extract');
  }

  @Operation('count_collection_colors')
  countCollectionColors(@OperationInput() { ctx, input }: OperationRequest<Color['count_collection_colors']>): Promise<OperationOutcome> {
    return this.color.collectionColors(ctx, input, 'count_colors');
  }

  @Operation('count_metadata')
  countMetadata(@OperationInput() { ctx, input }: OperationRequest<Color['count_metadata']>): Promise<OperationOutcome> {
    return this.color.countMetadata(ctx, input);
  }

  /** docs/protocol.md §6 (color add): both MulticolorEngine clients fill a collection with add, never update. */
  @Operation('add')
  add(@OperationInput() { ctx, input }: OperationRequest<Color['add']>): Promise<OperationOutcome> {
    return this.color.update(ctx, input, 'time_add');
  }

  @Operation('update')
  update(@OperationInput() { ctx, input }: OperationRequest<Color['update']>): Promise<OperationOutcome> {
    return this.color.update(ctx, input, 'time_update');
  }

  @Operation('update_metadata')
  updateMetadata(@OperationInput() { ctx, input }: OperationRequest<Color['update_metadata']>): Promise<OperationOutcome> {
    return this.color.updateMetadata(ctx, input);
  }

  @Operation('get_metadata')
  getMetadata(@OperationInput() { ctx, input }: OperationRequest<Color['get_metadata']>): Promise<OperationOutcome> {
    return this.color.getMetadata(ctx, input.filepaths);
  }

  @Operation('get_search_metadata')
  getSearchMetadata(@OperationInput() { ctx }: OperationRequest<Color['get_search_metadata']>): Promise<OperationOutcome> {
    return this.color.metadataKeys(ctx, false);
  }

  @Operation('get_return_metadata')
  getReturnMetadata(@OperationInput() { ctx }: OperationRequest<Color['get_return_metadata']>): Promise<OperationOutcome> {
    return this.color.metadataKeys(ctx, true);
  }

  /** docs/protocol.md §8: the color service shows the fingerprint field as 0 for every file. */
  @Operation('get_info')
  getInfo(@OperationInput() { ctx, input }: OperationRequest<Color['get_info']>): Promise<OperationOutcome> {
    return this.collection.getInfo(ctx, input.filepaths, { reportFingerprint: false });
  }
}
