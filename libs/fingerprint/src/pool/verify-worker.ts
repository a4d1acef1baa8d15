import { parentPort } from 'node:worker_threads';
import { deserializeFeatures } from '../features-codec';
import type { MatchResult, VerifyOptions } from '../types';
import { verifyInThisThread } from '../verify-batch';

export interface VerifyRequest {
  id: number;
  query: Uint8Array;
  targets: Uint8Array[];
  options: VerifyOptions;
}

export type VerifyResponse = { id: number; results: Array<MatchResult | null> } | { id: number; error: string };

/** Verifies one chunk of a search's shortlist; the query arrives serialised (with its mirrored features when flips are checked). */
parentPort!.on('message', async (request: VerifyRequest) => {
  try {
    const query = deserializeFeatures(Buffer.from(request.query.buffer, request.query.byteOffset, request.query.byteLength));
    const results = await verifyInThisThread(query, request.targets, request.options);
    parentPort!.postMessage({ id: request.id, results } satisfies VerifyResponse);
  } catch (error) {
    parentPort!.postMessage({ id: request.id, error: error instanceof Error ? error.message : String(error) } satisfies VerifyResponse);
  }
});
