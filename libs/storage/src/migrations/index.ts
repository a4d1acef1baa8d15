import type { Migration } from '..';
import { collections } from './001-collections';

/** Every schema change, in order. Append; never edit one that has shipped. */
export const MIGRATIONS: readonly Migration[] = [collections];
