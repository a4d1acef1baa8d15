import type { InputOf } from './contract';
import type { CONTRACTS } from './operations';

/** The typed requests the services run on, named after the operations that read them. */
export type SearchInput = InputOf<typeof CONTRACTS.mobile.search>;
export type CompareInput = InputOf<typeof CONTRACTS.mobile.compare>;
export type ListInput = InputOf<typeof CONTRACTS.mobile.list>;
export type ColorSearchInput = InputOf<typeof CONTRACTS.color.color_search>;
export type ExtractImageColorsInput = InputOf<typeof CONTRACTS.color.extract_image_colors>;
export type CountImageColorsInput = InputOf<typeof CONTRACTS.color.count_image_colors>;
export type ExtractCollectionColorsInput = InputOf<typeof CONTRACTS.color.extract_collection_colors>;
export type CountCollectionColorsInput = InputOf<typeof CONTRACTS.color.count_collection_colors>;
export type CountMetadataInput = InputOf<typeof CONTRACTS.color.count_metadata>;
export type ColorUpdateInput = InputOf<typeof CONTRACTS.color.update>;
export type UpdateMetadataInput = InputOf<typeof CONTRACTS.color.update_metadata>;
export type WineSearchInput = InputOf<typeof CONTRACTS.wine.search>;
export type WineExtractInput = InputOf<typeof CONTRACTS.wine.extract_metadata>;
