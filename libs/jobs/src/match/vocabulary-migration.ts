import { deserializeFeatures, Features } from '@loupe/fingerprint';
import { MatchIndexRepository, PublicIndexRepository } from '@loupe/storage';
import { matchVocabulary } from './vocabulary';

/** Rows read and re-quantised per step: bounds memory (~50 KB of features a row) and each statement's time. */
const BATCH_ROWS = 200;

export interface MigrationReport {
  collectionImages: number;
  publicImages: number;
}

/**
 * Brings stored visual words to the current search vocabulary. Words name the vocabulary that made them, and a search
 * only reads words of its own (never a mix), so after a vocabulary change every image indexed before it is invisible
 * to search until its words are re-quantised. Their features are stored, so that costs a quantisation (about a
 * millisecond), not a new decode and extraction. Each image is logged re-indexed, so every cached index and shard
 * owner reads it like a new add. Safe to run in several processes at once: a row already brought over is skipped.
 */
export class VocabularyMigration {
  constructor(
    private readonly collections: MatchIndexRepository,
    private readonly publicIndex: PublicIndexRepository,
    private readonly quantize: (features: Features) => Uint32Array = (f) => matchVocabulary().vocabulary.quantize(f),
    private readonly vocabularyId: string = matchVocabulary().id,
  ) {}

  /** Re-quantises every stale row, or those before `signal` is aborted (checked between batches). */
  async run(signal?: AbortSignal): Promise<MigrationReport> {
    return {
      collectionImages: await this.bringOver(
        (after) => this.collections.staleWords(this.vocabularyId, after, BATCH_ROWS),
        (id, words) => this.collections.replaceStaleWords(id, this.vocabularyId, words),
        signal,
      ),
      publicImages: await this.bringOver(
        (after) => this.publicIndex.staleWords(this.vocabularyId, after, BATCH_ROWS),
        (id, words) => this.publicIndex.replaceStaleWords(id, this.vocabularyId, words),
        signal,
      ),
    };
  }

  /** Pages through one table's stale rows in id order, replacing each one's words; the count of rows replaced. */
  private async bringOver(
    staleAfter: (id: number) => Promise<Array<{ id: number; features: Buffer }>>,
    replace: (id: number, words: Uint32Array) => Promise<boolean>,
    signal: AbortSignal | undefined,
  ): Promise<number> {
    let replaced = 0;
    for (let after = 0; !signal?.aborted; ) {
      const rows = await staleAfter(after);
      if (rows.length === 0) break;
      for (const row of rows) if (await replace(row.id, this.wordsOf(row.features))) replaced++;
      after = rows[rows.length - 1].id;
    }
    return replaced;
  }

  private wordsOf(stored: Buffer): Uint32Array {
    return stored.length === 0 ? new Uint32Array(0) : this.quantize(deserializeFeatures(stored));
  }
}

/**
 * Runs the migration in the background of a process that runs jobs, reporting what it re-quantised (nothing, on every
 * start but the first after a vocabulary change). A failure (the database going away) is reported; the next start
 * resumes, since only rows still of another vocabulary are read. `stop` ends it after the batch under way.
 */
export function startVocabularyMigration(
  repositories: { matchIndex: MatchIndexRepository; publicIndex: PublicIndexRepository },
  report: (message: string, error?: unknown) => void,
): { stop(): Promise<void> } {
  const started = Date.now();
  const abort = new AbortController();
  const done = new VocabularyMigration(repositories.matchIndex, repositories.publicIndex)
    .run(abort.signal)
    .then(({ collectionImages, publicImages }) => {
      if (collectionImages + publicImages === 0) return;
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const unfinished = abort.signal.aborted ? ' before the process stopped (the next start goes on)' : '';
      report(`search vocabulary ${matchVocabulary().id}: re-quantised the words of ${collectionImages} collection images and ${publicImages} public index images in ${seconds} s${unfinished}`);
    })
    .catch((error: unknown) => report('search vocabulary migration stopped (the next start resumes it)', error));
  return {
    stop: async () => {
      abort.abort();
      await done;
    },
  };
}
