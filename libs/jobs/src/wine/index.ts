export * from './contracts';
export { WineLabelReader, type LabelReading } from './label-reader';
export { WineLabelHook } from './label.hook';
export { WineSearchService } from './wine-search.service';
export { WineExtractService, noLabelMessage } from './wine-extract.service';
export { rankByLabel, matchMetadata, TEXT_SCORED_RESULTS, TEXT_WEIGHT, FIELD_AGREEMENT_BONUS } from './ranking';
export { MIN_LABEL_IMAGE_SIDE, loadLabelImage } from './label-image';
