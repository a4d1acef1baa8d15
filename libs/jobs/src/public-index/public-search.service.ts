import { renderOverlay, runInThisThread, verifyInThisThread, type MatchResult, type TaskRunner, type VerifyBatch } from '@loupe/fingerprint';
import { decodeToRgb } from '@loupe/imaging';
import type { BlobStore, PublicBacklink, PublicImageRow, PublicIndexRepository } from '@loupe/storage';
import { Stopwatch } from '../stopwatch';
import { mergeByRelativeVotes, nativeScaleWordsAhead } from '../match/native-scale-vote';
import { matchVocabulary } from '../match/vocabulary';
import { MAX_VERIFIED, verifyInRounds, verifyStoredFeatures } from '../match/verify-rounds';
import { PublicMatch, PublicSearchPayload, PublicSearchResult } from './contracts';
import { storePublicOverlay } from './overlay-store';
import { loadPublicImage } from './public-image';
import { byVotes, type CandidateSource } from './shard-index';

/** Candidates taken from the shards before verification: as in collection search, enough headroom for ranking noise. */
const CANDIDATE_POOL = 200;
function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

interface Verified {
  id: number;
  match: MatchResult;
}

/**
 * One match per (image, domain): an image found on several sites is reported once per site, as the public format
 * does, each with that site's backlinks (newest crawl first) and the image URL seen there most recently.
 */
export function expandByDomain(verified: readonly Verified[], rows: Map<number, PublicImageRow>, backlinks: Map<number, PublicBacklink[]>): Array<Omit<PublicMatch, 'overlay_id'> & { imageId: number; crawl: string }> {
  const out = [];
  for (const v of verified) {
    const row = rows.get(v.id);
    if (!row) continue;
    const byDomain = new Map<string, PublicBacklink[]>();
    for (const b of backlinks.get(v.id) ?? []) byDomain.set(b.domain, [...(byDomain.get(b.domain) ?? []), b]);
    for (const [domain, links] of byDomain) {
      out.push({
        imageId: v.id,
        crawl: links[0].crawl_date ?? '',
        image_url: links[0].image_url,
        domain,
        score: round2(v.match.score),
        width: row.width,
        height: row.height,
        size: row.width * row.height,
        format: row.format.toUpperCase(),
        filesize: row.filesize,
        backlinks: links.map((b) => ({ url: b.image_url, backlink: b.backlink, crawl_date: b.crawl_date })),
      });
    }
  }
  return out;
}

/** Search of the public index: query → features → words → shard candidates → verified matches → matches by domain. */
export class PublicSearchService {
  constructor(
    private readonly repo: PublicIndexRepository,
    private readonly blobs: BlobStore,
    private readonly index: CandidateSource,
    /** Verifies a shortlist on worker threads when the process has them; in this thread otherwise. */
    private readonly verifyAll: VerifyBatch = verifyInThisThread,
    /** Where other CPU work of a search runs (a small query's detection at its own scale). */
    private readonly run: TaskRunner = runInThisThread,
  ) {}

  async search(payload: PublicSearchPayload): Promise<PublicSearchResult> {
    try {
      const resizeWatch = new Stopwatch().start();
      const data = await this.blobs.get(payload.query.staged_key);
      if (data === null) throw new Error('the staged query image is missing from the blob store');
      const query = await loadPublicImage(data, payload.query.label);
      resizeWatch.stop();

      const searchWatch = new Stopwatch().start();
      const words = matchVocabulary().vocabulary.quantize(query.features);
      const wanted = payload.limit > 0 ? payload.offset + payload.limit : MAX_VERIFIED;
      // A small query's words at its own scale vote only when its first round found nothing (native-scale-vote.ts).
      const nativeScale = nativeScaleWordsAhead(query.gray, this.run);
      const shortlist = await this.index.candidates(words, CANDIDATE_POOL);
      const ranked = shortlist.map((c) => c.imageId);
      const widen = async () => {
        const nativeWords = await nativeScale();
        if (!nativeWords) return ranked;
        const native = await this.index.candidates(nativeWords, CANDIDATE_POOL);
        return mergeByRelativeVotes([shortlist, native], (c) => c.imageId).sort(byVotes).map((c) => c.imageId);
      };
      const found = await verifyInRounds(
        ranked,
        wanted,
        verifyStoredFeatures((ids) => this.repo.features(ids), (targets) => this.verifyAll(query.features, targets, {})),
        widen,
      );
      const verified: Verified[] = found.map(({ candidate, result }) => ({ id: candidate, match: result }));
      const ids = verified.map((v) => v.id);
      const [rows, backlinks] = await Promise.all([this.repo.images(ids), this.repo.backlinks(ids)]);
      const all = expandByDomain(verified, rows, backlinks);
      sortMatches(all, payload);
      const page = payload.limit > 0 ? all.slice(payload.offset, payload.offset + payload.limit) : all.slice(payload.offset);

      // Overlays for the returned page only, one per image even when it appears on several domains.
      const overlays = new Map<number, string>();
      for (const m of page) {
        if (overlays.has(m.imageId)) continue;
        const row = rows.get(m.imageId)!;
        const target = await this.blobs.get(row.norm_blob_key);
        if (!target) continue;
        const match = verified.find((v) => v.id === m.imageId)!.match;
        overlays.set(m.imageId, await storePublicOverlay(this.blobs, await renderOverlay(query.normalized, await decodeToRgb(target), match)));
      }
      return {
        total_results: all.length,
        total_backlinks: all.reduce((n, m) => n + m.backlinks.length, 0),
        matches: page.map(({ imageId, crawl: _crawl, ...m }) => ({ ...m, overlay_id: overlays.get(imageId) ?? '' })),
        time_resize: resizeWatch.elapsed,
        time_search: searchWatch.stop(),
      };
    } finally {
      await this.blobs.delete(payload.query.staged_key);
    }
  }
}

function sortMatches(matches: Array<{ score: number; size: number; crawl: string; image_url: string }>, payload: PublicSearchPayload): void {
  const sign = payload.order === 'asc' ? 1 : -1;
  const key = (m: { score: number; size: number; crawl: string }) => (payload.sort === 'size' ? m.size : payload.sort === 'crawl_date' ? m.crawl : m.score);
  matches.sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    const primary = ka < kb ? -1 : ka > kb ? 1 : 0;
    return sign * primary || b.score - a.score || a.image_url.localeCompare(b.image_url);
  });
}
