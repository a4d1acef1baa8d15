import type { Migration } from '..';
import { collections } from './001-collections';
import { matchIndex } from './002-match-index';
import { color } from './003-color';

/** Every schema change, in order. Append; never edit one that has shipped. */
export const MIGRATIONS: readonly Migration[] = [collections, matchIndex, color];
