import type { Infrastructure } from '@loupe/runtime';
import { bulkAdd, BulkAddResult, readSource } from './bulk-add';
import { exportCollection, importCollection } from './collection-archive';
import { readService } from './ingest-policy';
import { ProgressBar } from './progress';

export const BULK_USAGE = `  add <account> <service> <folder|manifest.jsonl>   add many images in batches of 10 (progress on stderr);
                                            resumable: paths already in the collection are skipped
  export <account> <service> <file.tar|folder>      originals and manifest.jsonl (file, filepath, image_id, metadata)
  import <account> <service> <file.tar|folder>      add the images of an export (resumable like add)`;

export const BULK_COMMANDS: ReadonlySet<string> = new Set(['add', 'export', 'import']);

function summary(result: BulkAddResult): string {
  return `Done: ${result.added} added, ${result.skipped} already present, ${result.failed} failed (of ${result.total}).`;
}

/**
 * `add`, `export` and `import`; returns the process exit code (1 when some images failed). `threads`: compute threads
 * (COMPUTE_THREADS), the default when undefined.
 */
export async function runBulkCommand(command: string, args: string[], infra: Infrastructure, threads?: number): Promise<number> {
  const [account, serviceName, source] = args;
  if (!account || !serviceName || !source) throw new Error(`Missing arguments.\n\n${BULK_USAGE}`);
  const service = readService(serviceName);
  if (command === 'export') {
    const bar = new ProgressBar();
    const { exported, missing } = await exportCollection(infra, account, service, source, (done, total) => bar.update({ done, total, added: done, skipped: 0, failed: 0 }));
    bar.finish();
    for (const filepath of missing) console.error(`${filepath}: the stored original is missing; not exported.`);
    console.log(`Exported ${exported} image(s) of ${account}/${service} to ${source}.`);
    return missing.length > 0 ? 1 : 0;
  }
  const bar = new ProgressBar();
  const onProgress = (counts: BulkAddResult | Parameters<ProgressBar['update']>[0], failures: string[]) => {
    for (const failure of failures) bar.note(failure);
    bar.update(counts);
  };
  const result = command === 'import'
    ? await importCollection(infra, account, service, source, onProgress, threads)
    : await bulkAdd(infra, account, service, await readSource(source), onProgress, threads);
  bar.finish();
  console.log(summary(result));
  return result.failed > 0 ? 1 : 0;
}
