import type { Migration } from '..';
import { collections } from './001-collections';
import { matchIndex } from './002-match-index';
import { color } from './003-color';
import { wine } from './004-wine';
import { publicIndex } from './005-public-index';
import { maintenanceCursors } from './006-maintenance-cursors';
import { globalHash } from './007-global-hash';
import { wordsVocabularyIndex } from './008-words-vocabulary-index';
import { colourSet } from './009-colour-set';
import { colourShares } from './010-colour-shares';

/** Every schema change, in order. Append; never edit one that has shipped. */
export const MIGRATIONS: readonly Migration[] = [collections, matchIndex, color, wine, publicIndex, maintenanceCursors, globalHash, wordsVocabularyIndex, colourSet, colourShares];
