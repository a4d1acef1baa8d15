import type { ManifestEntry } from './manifest';
import { entryKey, ImportOutcome, PublicImportService } from './public-import.service';

/** Entries checked against the done-list in one query: one round trip per batch instead of per line. */
const DONE_CHECK_BATCH = 500;

export interface ImportProgress {
  total: number;
  processed: number;
  counts: Record<ImportOutcome, number>;
  /** Images fingerprinted per second since the start (added or failed, skips excluded). */
  rate: number;
}

export interface ImportRunOptions {
  /** Entries in flight at once: overlaps downloads and database round trips with fingerprinting. */
  concurrency?: number;
  onProgress?: (progress: ImportProgress) => void;
  onFailure?: (entry: ManifestEntry, message: string) => void;
}

/**
 * Runs a whole manifest: entries already done are skipped in batches, the rest imported a few at a time. Stopping
 * at any point loses nothing committed; the next run continues where this one stopped.
 */
export async function runImport(service: PublicImportService, entries: readonly ManifestEntry[], options: ImportRunOptions = {}): Promise<ImportProgress> {
  const concurrency = Math.max(1, options.concurrency ?? 2);
  const started = Date.now();
  const progress: ImportProgress = { total: entries.length, processed: 0, counts: { added: 0, backlink: 0, skipped: 0, failed: 0 }, rate: 0 };
  const report = () => {
    const worked = progress.counts.added + progress.counts.backlink + progress.counts.failed;
    progress.rate = worked / Math.max(0.001, (Date.now() - started) / 1000);
    options.onProgress?.({ ...progress, counts: { ...progress.counts } });
  };
  for (let at = 0; at < entries.length; at += DONE_CHECK_BATCH) {
    const batch = entries.slice(at, at + DONE_CHECK_BATCH);
    const done = await service.done(batch);
    const todo = batch.filter((e) => !done.has(entryKey(e).toString('hex')));
    progress.counts.skipped += batch.length - todo.length;
    progress.processed += batch.length - todo.length;
    let next = 0;
    const workers = Array.from({ length: Math.min(concurrency, todo.length) }, async () => {
      while (next < todo.length) {
        const entry = todo[next++];
        const result = await service.importEntry(entry);
        progress.counts[result.outcome]++;
        progress.processed++;
        if (result.outcome === 'failed') options.onFailure?.(entry, result.message ?? 'failed');
        report();
      }
    });
    await Promise.all(workers);
    if (todo.length === 0) report();
  }
  return progress;
}
