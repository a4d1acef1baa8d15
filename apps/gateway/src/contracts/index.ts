export * from './contract';
export * from './params';
export * from './limits';
export { addInputs, checkFilepath, COMMON, queryImage, queryImages, refuseBadPath } from './inputs';
export type { AddCandidate, QueryImage, QueryImages } from './inputs';
export { background, readColor, readColorQuery } from './color-inputs';
export type { GivenColor } from './color-inputs';
export { CONTRACTS } from './operations';
export type * from './types';
