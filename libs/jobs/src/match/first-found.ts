import type { MatchResult } from '@loupe/fingerprint';
import type { StepTimer } from '../step-timer';

/** A second chance's confirmed candidates, in the candidates' order. */
export type Found = Array<{ candidate: number; result: MatchResult }>;

/**
 * Second chances started at once, answered in their order: what the first that confirms anything found, each lapped on
 * `steps` (when given) as it is answered (a later chance, run alongside, mostly answers at once). None of them reads
 * what another decides, so the answer is the one of the chances run one after the other; run so, they left a core idle
 * between their few checks. The work of those after the one that confirms is wasted; what of it still waits for a
 * compute thread is withdrawn by the caller once answered (`MatchService.pixelChances`).
 */
export async function firstFound(chances: Array<[step: string, found: Promise<Found>]>, steps?: StepTimer): Promise<Found> {
  // Awaited below unless an earlier chance confirms first: their failures must not go unhandled then.
  for (const [, found] of chances) found.catch(() => undefined);
  for (const [step, found] of chances) {
    const confirmed = await found;
    steps?.lap(step);
    if (confirmed.length > 0) return confirmed;
  }
  return [];
}
