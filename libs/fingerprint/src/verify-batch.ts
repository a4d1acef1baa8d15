import { deserializeFeatures } from './features-codec';
import type { Features, MatchResult, VerifyOptions } from './types';
import { verifyMatch } from './verify';

/** Verifies a query against serialised target features, answering in the targets' order (a pool or this thread). */
export type VerifyBatch = (query: Features, targets: readonly Uint8Array[], options: VerifyOptions) => Promise<Array<MatchResult | null>>;

/** `VerifyBatch` in the calling thread, one target after another: what each pool thread runs on its chunk. */
export async function verifyInThisThread(query: Features, targets: readonly Uint8Array[], options: VerifyOptions): Promise<Array<MatchResult | null>> {
  const results: Array<MatchResult | null> = [];
  for (const target of targets) {
    results.push(await verifyMatch(query, deserializeFeatures(Buffer.from(target.buffer, target.byteOffset, target.byteLength)), options));
  }
  return results;
}
