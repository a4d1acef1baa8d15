import { DEFAULT_MIN_SCORE, differenceHash, hashDistance, isSmoothThroughout, noSpareThread, RgbImage, runInThisThread, SpareRunner, TaskRunner, ThreadPool, verifyInThisThread } from '@loupe/fingerprint';
import { crop, cropBox, rotate, scale } from '@loupe/fingerprint/src/testing/edits';
import { flatLandscape, linearGradient, ringTiles, smoothWallpaper, softBlobs, syntheticImage, toGray } from '@loupe/fingerprint/src/testing/synthetic-images';
import { flatColor, rawSharp } from '@loupe/imaging/src/testing/test-images';
import { BlobStore, Db, ImageRepository, MatchIndexRepository } from '@loupe/storage';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { stagingKey } from '../blob-keys';
import { ComparePayload, IngestItem, INPUT_REFUSED, MatchItem, QuerySource, SearchPayload } from '../contracts';
import { prepareImage } from '../image-preparation';
import { IngestService } from '../ingest.service';
import { MATCHING_PREFERRED_SIDE } from '../ingest-policy';
import { CollectionSearchIndex, GLOBAL_HASH_MAX_DISTANCE, LocalCollectionIndex, PLAIN_COLOUR_CANDIDATES } from './collection-index';
import { MatchIndexCache } from './index-cache';
import { MatchService } from './match.service';
import { nativeScaleWordsTask } from './native-scale-vote';
import { placedCropTask, uprightTask } from './second-chance-tasks';
import { QueryLoader, uprightQuery, worthPlacing } from './query-loader';
import { SearchIndexHook } from './search-index.hook';
import { SearchTrace, TracedQuery } from './search-trace';
import { openEmbeddedStore, type EmbeddedStore } from '../testing/embedded-store';
import { Stopwatch } from '../stopwatch';
import { matchVocabulary } from './vocabulary';

const jpegOf = (img: RgbImage, quality = 88) => rawSharp(img).jpeg({ quality }).toBuffer();
const pngOf = (img: RgbImage) => rawSharp(img).png().toBuffer();
const [TILE_GLAZE, TILE_INK] = ['hsl(195,60%,75%)', 'hsl(15,50%,30%)'];
/** A fine lattice of one tile: at half size and JPEG q30 its whole-image hash moves 33 bits (the reach is 10). */
const [LATTICE_GLAZE, LATTICE_INK, LATTICE_TILE] = ['hsl(35,45%,65%)', 'hsl(225,40%,35%)', 27];
/** A soft three-stop gradient: not one ORB corner, so it can only be found as a whole copy. */
const GRADIENT_STOPS = ['hsl(200,60%,14%)', 'hsl(175,38%,44%)', 'hsl(195,55%,22%)'];
/** A left-to-right gradient with flat ends, which the border cut of ingest takes off (a fifth of the width each). */
const BANDED_STOPS = ['hsl(30,60%,30%)', 'hsl(30,60%,30%)', 'hsl(200,50%,50%)', 'hsl(230,50%,50%)', 'hsl(260,40%,60%)', 'hsl(260,40%,60%)'];

/** What a phone does to a collection image before it is searched: a crop of most of it, a tilt, a lossy re-encode. */
async function phoneCopy(img: RgbImage): Promise<Buffer> {
  const cropped = await crop(img, cropBox(img, 0.6, 0.3, 0.6));
  return jpegOf(await rotate(cropped, 12), 55);
}

describe('MatchService on a small collection added through ingest', () => {
  let store: EmbeddedStore;
  let db: Db;
  let blobs: BlobStore;
  let service: MatchService;
  let images: ImageRepository;
  let matchIndex: MatchIndexRepository;
  let accountId: number;
  const originals = new Map<number, RgbImage>();

  beforeAll(async () => {
    store = await openEmbeddedStore('match-service');
    ({ db, blobs, accountId } = store);
    images = new ImageRepository(db);
    matchIndex = new MatchIndexRepository(db);
    const entries: Array<{ filepath: string; data: Buffer }> = [];
    for (const seed of [1, 2, 3, 4]) {
      originals.set(seed, await syntheticImage(seed));
      entries.push({ filepath: `labels/label-${seed}.jpg`, data: await jpegOf(originals.get(seed)!) });
    }
    originals.set(5, await softBlobs(1));
    entries.push({ filepath: 'wallpapers/blobs.jpg', data: await jpegOf(originals.get(5)!) });
    originals.set(6, await ringTiles(TILE_GLAZE, TILE_INK, 76));
    entries.push({ filepath: 'patterns/tiles.jpg', data: await jpegOf(originals.get(6)!) });
    originals.set(9, await ringTiles(LATTICE_GLAZE, LATTICE_INK, LATTICE_TILE));
    entries.push({ filepath: 'patterns/lattice.jpg', data: await jpegOf(originals.get(9)!) });
    originals.set(7, await linearGradient(GRADIENT_STOPS));
    entries.push({ filepath: 'wallpapers/gradient.png', data: await pngOf(originals.get(7)!) });
    originals.set(8, await linearGradient(BANDED_STOPS, 1, 0));
    entries.push({ filepath: 'wallpapers/banded.png', data: await pngOf(originals.get(8)!) });
    // Copies of label 2 that match it less and less well: what offset, limit and min_score page through.
    entries.push({ filepath: 'copies/label-2-same.jpg', data: await jpegOf(originals.get(2)!) });
    entries.push({ filepath: 'copies/label-2-half.jpg', data: await jpegOf(await crop(originals.get(2)!, cropBox(originals.get(2)!, 0.45, 0, 0))) });
    const items: IngestItem[] = [];
    for (const { filepath, data } of entries) {
      const staged_key = stagingKey();
      await blobs.put(staged_key, data);
      items.push({ filepath, image_id: null, staged_key });
    }
    const added = await new IngestService(images, blobs, () => [new SearchIndexHook(matchIndex)]).ingest({
      account_id: accountId, account: 'acme', service: 'mobile', items, on_existing: 'refuse', preferred_side: MATCHING_PREFERRED_SIDE, crop_borders: true,
    });
    expect(added.errors).toEqual([]);
    service = new MatchService(images, matchIndex, blobs, new LocalCollectionIndex(new MatchIndexCache(matchIndex)));
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });

  const staged = (data: Buffer, label: string) => store.stage(data, label);

  function searchPayload(query: QuerySource, options: Partial<SearchPayload['options']> = {}): SearchPayload {
    return {
      account_id: accountId, account: 'acme', service: 'mobile', query, preferred_side: MATCHING_PREFERRED_SIDE,
      options: { min_score: 0, check_horizontal_flip: false, generate_overlay: false, offset: 0, limit: 0, ...options },
    };
  }

  function comparePayload(first: QuerySource, second: QuerySource, options: Partial<ComparePayload['options']> = {}): ComparePayload {
    return {
      account_id: accountId, account: 'acme', service: 'mobile', first, second, preferred_side: MATCHING_PREFERRED_SIDE,
      options: { min_score: 0, check_horizontal_flip: false, generate_overlay: false, compute_enhanced_score: false, compare_color: false, ...options },
    };
  }

  const paths = (items: MatchItem[]) => items.map((i) => i.filepath);

  it('finds a cropped, rotated, re-encoded photo of an image first, and deletes the staged query', async () => {
    const query = await staged(await phoneCopy(originals.get(3)!), 'phone.jpg');
    const result = await service.search(searchPayload(query));
    expect(result.query_filepath).toBe('phone.jpg');
    expect(result.items[0]?.filepath).toBe('labels/label-3.jpg');
    expect(result.items[0].score).toBeGreaterThanOrEqual(DEFAULT_MIN_SCORE);
    expect(paths(result.items), 'no other image is like it').toEqual(['labels/label-3.jpg']);
    expect(result.total_results).toBe(1);
    // The query shows 60% of the image's area (its tilted frame a little more): the match covers part of the target only.
    expect(result.items[0].target_overlap_percent).toBeGreaterThan(50);
    expect(result.items[0].target_overlap_percent).toBeLessThan(95);
    expect(await blobs.exists(query.staged_key)).toBe(false);
  }, 60_000);

  it('reports where its time went, step by step: the second chances only for a query nothing verified', async () => {
    const found = await service.search(searchPayload(await staged(await phoneCopy(originals.get(1)!), 'phone.jpg')));
    expect(found.items[0]?.filepath).toBe('labels/label-1.jpg');
    expect(Object.keys(found.steps!)).toEqual(['query', 'vote', 'verification']);
    const unknown = await service.search(searchPayload(await staged(await jpegOf(await syntheticImage(41)), 'unknown.jpg')));
    expect(unknown.items).toEqual([]);
    expect(Object.keys(unknown.steps!)).toEqual(expect.arrayContaining(['query', 'vote', 'verification', 'hash_neighbours', 'dense', 'whole_image', 'placement', 'upright_copy']));
    for (const ms of Object.values(unknown.steps!)) expect(ms).toBeGreaterThanOrEqual(0);
    // The steps follow one another: together they are the whole search, query decoding included.
    const total = Object.values(unknown.steps!).reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThanOrEqual(1000 * (unknown.time_resize + unknown.time_search) - 1);
  }, 60_000);

  /**
   * The test collection's index with the answers `change` gives in place of its own (`change` gets the index to ask):
   * how a larger collection would answer, or a record of what a search asks.
   */
  function indexChanged(change: (local: LocalCollectionIndex) => Partial<CollectionSearchIndex>): CollectionSearchIndex {
    const local = new LocalCollectionIndex(new MatchIndexCache(matchIndex));
    return {
      candidates: (ref, request) => local.candidates(ref, request),
      nearestByHash: (ref, probes, filters) => local.nearestByHash(ref, probes, filters),
      alikeInColour: (ref, colours, filters) => local.alikeInColour(ref, colours, filters),
      ...change(local),
    };
  }

  /**
   * A search to which every way to `hidden` but the upright copy's vote is closed: its index leaves the image out of the
   * votes, hash neighbours and colours until the upright copy has been made (noticed by the search's task runner), as a
   * large collection can outvote a rotated copy's own words. `votes` says, per vote, whether the upright copy was made.
   */
  function serviceFindingOnlyUpright(hidden: string): { searching: MatchService; votes: boolean[]; reset: () => void } {
    let uprightMade = false;
    const votes: boolean[] = [];
    const onlyUprightVoteFinds = indexChanged((local) => ({
      candidates: async (ref, request) => {
        votes.push(uprightMade);
        const candidates = await local.candidates(ref, request);
        return uprightMade ? candidates : candidates.filter((c) => c.filepath !== hidden);
      },
      nearestByHash: async (ref, probes, filters) => (await local.nearestByHash(ref, probes, filters)).map((near) => near.filter((c) => c.filepath !== hidden)),
      alikeInColour: async (ref, colours, filters) => (await local.alikeInColour(ref, colours, filters)).filter((c) => c.filepath !== hidden),
    }));
    const noticingUpright: TaskRunner = async (task, input) => {
      const output = await runInThisThread(task, input);
      if (task.name === uprightTask.name && output) uprightMade = true;
      return output;
    };
    return { searching: new MatchService(images, matchIndex, blobs, onlyUprightVoteFinds, verifyInThisThread, noticingUpright), votes, reset: () => (uprightMade = false) };
  }

  /**
   * A search whose vote leaves `filepath` out, as the vote of a large collection can rank an image beyond the shortlist:
   * in a million images a 0.2x thumbnail's few coarse corners share hardly more words with its image than chance sharers.
   */
  function serviceOutvoting(filepath: string): MatchService {
    const outvoted = indexChanged((local) => ({
      candidates: async (ref, request) => (await local.candidates(ref, request)).filter((c) => c.filepath !== filepath),
    }));
    return new MatchService(images, matchIndex, blobs, outvoted);
  }

  /** Runs tasks on `pool` and records which were started. */
  function recordingRunner(pool: ThreadPool, started: string[]): TaskRunner {
    return (task, input) => {
      started.push(task.name);
      return pool.run(task, input);
    };
  }

  it.each([
    ['detected when the first round found nothing, on the calling thread', null],
    ['detected ahead, while the first round verifies, with compute threads', [] as string[]],
  ])('votes apart with a small query\'s words at its own scale: a quarter of an image outvoted at the enlarged scale is found (%s)', async (_, startedTasks) => {
    // The first word list of each vote is the query's words as it is detected (enlarged when small); the vote with
    // those leaves the image out, as a large collection's vote does to a crop enlarged past its image's scale.
    const votes: number[][] = [];
    const outvotedWhenEnlarged = indexChanged((local) => ({
      candidates: async (ref, request) => {
        votes.push(request.wordLists.map((w) => w.length));
        const candidates = await local.candidates(ref, request);
        return votes.length % 2 === 1 ? candidates.filter((c) => c.filepath !== 'labels/label-4.jpg') : candidates;
      },
    }));
    const pool = startedTasks && new ThreadPool(1);
    onTestFinished(() => pool?.close());
    const searching = new MatchService(images, matchIndex, blobs, outvotedWhenEnlarged, verifyInThisThread, pool ? recordingRunner(pool, startedTasks) : runInThisThread);
    const label = originals.get(4)!;
    const quarter = await jpegOf(await crop(label, cropBox(label, 0.25, 0.7, 0.3)));
    const result = await searching.search(searchPayload(await staged(quarter, 'quarter.jpg')));
    expect(votes).toHaveLength(2);
    expect(result.items[0]?.filepath).toBe('labels/label-4.jpg');
    expect(result.items[0].score).toBeGreaterThanOrEqual(DEFAULT_MIN_SCORE);
    if (startedTasks) expect(startedTasks.filter((name) => name === nativeScaleWordsTask.name)).toHaveLength(1);
    // A query detected at its own scale votes once, and is not detected again.
    votes.length = 0;
    startedTasks?.splice(0);
    await searching.search(searchPayload(await staged(await jpegOf(label), 'whole.jpg')));
    expect(votes).toHaveLength(1);
    expect(startedTasks ?? []).not.toContain(nativeScaleWordsTask.name);
  }, 60_000);

  it('verifies the features of the query\'s hash neighbours when the vote ranks its image too low: a thumbnail', async () => {
    const thumbnail = await jpegOf(await scale(originals.get(1)!, 0.2), 80);
    const result = await serviceOutvoting('labels/label-1.jpg').search(searchPayload(await staged(thumbnail, 'thumbnail.jpg')));
    expect(paths(result.items)).toEqual(['labels/label-1.jpg']);
    // A feature match, not a whole-image second chance (scored below DEFAULT_MIN_SCORE).
    expect(result.items[0].score).toBeGreaterThanOrEqual(DEFAULT_MIN_SCORE);
    expect(result.items[0].target_overlap_percent).toBeGreaterThan(90);
  }, 60_000);

  it('verifies the features of the upright copy\'s hash neighbours when the vote ranks the image of a rotated copy too low', async () => {
    const turned = await jpegOf(await rotate(originals.get(4)!, 20), 80);
    const result = await serviceOutvoting('labels/label-4.jpg').search(searchPayload(await staged(turned, 'turned.jpg')));
    expect(paths(result.items)).toEqual(['labels/label-4.jpg']);
    expect(result.items[0].score).toBeGreaterThanOrEqual(DEFAULT_MIN_SCORE);
    // The label in the middle of the rotated canvas, which it fills only in part.
    expect(result.items[0].target_overlap_percent).toBeGreaterThan(90);
    expect(result.items[0].query_overlap_percent).toBeLessThan(80);
  }, 60_000);

  it('votes with the upright copy of a rotated query when the vote as it is, its hash neighbours and its colours leave the image out', async () => {
    // In a large collection a rotated copy's own words rank its image beyond the shortlist (87th-156th in 100,000
    // images), while its upright copy's words rank it first: here every way to the image but the upright copy's vote is
    // closed.
    const hidden = 'labels/label-4.jpg';
    const { searching, votes } = serviceFindingOnlyUpright(hidden);
    const turned = await jpegOf(await rotate(originals.get(4)!, 20), 80);
    const result = await searching.search(searchPayload(await staged(turned, 'turned.jpg')));
    expect(paths(result.items)).toEqual([hidden]);
    expect(votes.at(-1), 'the last vote is the upright copy\'s').toBe(true);
    expect(result.items[0].score).toBeGreaterThanOrEqual(DEFAULT_MIN_SCORE);
    // Told in the rotated query's frame: the label in the middle of the rotated canvas, which it fills only in part.
    expect(result.items[0].target_overlap_percent).toBeGreaterThan(90);
    expect(result.items[0].query_overlap_percent).toBeLessThan(80);
  }, 60_000);

  it('makes the upright copy ahead on a spare compute thread, before the vote, once; and only when it is asked for without one', async () => {
    const events: string[] = [];
    const noticingVotes = indexChanged((local) => ({
      candidates: async (ref, request) => {
        events.push('vote');
        return local.candidates(ref, request);
      },
    }));
    const noting =
      (what: string): TaskRunner =>
      (task, input) => {
        if (task.name === uprightTask.name) events.push(what);
        return runInThisThread(task, input);
      };
    const spareThread: SpareRunner = (task, input) => noting('upright ahead')(task, input);
    const ahead = new MatchService(images, matchIndex, blobs, noticingVotes, verifyInThisThread, noting('upright asked'), spareThread);
    const unrelatedTurned = await jpegOf(await rotate(await syntheticImage(98), 20), 80);
    const unmatched = await ahead.search(searchPayload(await staged(unrelatedTurned, 'unrelated-turned.jpg')));
    expect(unmatched.items).toEqual([]);
    expect(events[0], 'started before the vote').toBe('upright ahead');
    expect(events.filter((e) => e.startsWith('upright')), 'made once, and used').toEqual(['upright ahead']);
    expect(events.filter((e) => e === 'vote').length, 'the upright copy voted too').toBeGreaterThan(1);

    // Without a spare thread, a rotated copy found by its own vote never makes the upright copy; an unrelated one
    // makes it once its chances as it is have failed.
    events.length = 0;
    const asked = new MatchService(images, matchIndex, blobs, noticingVotes, verifyInThisThread, noting('upright asked'), noSpareThread);
    const found = await asked.search(searchPayload(await staged(await jpegOf(await rotate(originals.get(4)!, 20), 80), 'turned.jpg')));
    expect(paths(found.items)).toEqual(['labels/label-4.jpg']);
    expect(events).toEqual(['vote']);
    const again = await asked.search(searchPayload(await staged(unrelatedTurned, 'unrelated-turned.jpg')));
    expect(again).toMatchObject({ items: [], total_results: 0 });
    expect(events.slice(1).filter((e) => e.startsWith('upright'))).toEqual(['upright asked']);
    expect(events[1]).toBe('vote');
  }, 60_000);

  it('finds nothing for an unrelated image', async () => {
    const result = await service.search(searchPayload(await staged(await jpegOf(await syntheticImage(99)), 'other.jpg')));
    expect(result.items).toEqual([]);
    expect([result.total_results, result.total_filtered_results]).toEqual([0, 0]);
  }, 60_000);

  it('tells its trace the candidates it chose: the vote\'s for a query with points, the colour shortlist\'s for a plain crop', async () => {
    const voted: Array<{ by: TracedQuery; filepaths: readonly string[] }> = [];
    const alike: Array<{ by: TracedQuery; shortlist: readonly string[]; placed: readonly string[] }> = [];
    const trace: SearchTrace = { voted: (by, filepaths) => voted.push({ by, filepaths }), alikeInColour: (by, shortlist, placed) => alike.push({ by, shortlist, placed }) };
    const traced = new MatchService(images, matchIndex, blobs, new LocalCollectionIndex(new MatchIndexCache(matchIndex)), verifyInThisThread, runInThisThread, noSpareThread, trace);

    await traced.search(searchPayload(await staged(await phoneCopy(originals.get(3)!), 'phone.jpg')));
    expect(voted.map(({ by }) => by), 'found by its own vote: one vote, no colours asked').toEqual(['query']);
    expect(voted[0].filepaths[0]).toBe('labels/label-3.jpg');
    expect(alike).toEqual([]);

    voted.length = 0;
    const gradient = originals.get(7)!;
    await traced.search(searchPayload(await staged(await pngOf(await crop(gradient, cropBox(gradient, 0.25, 0.9, 0.3))), 'gradient-crop.png')));
    expect(voted, 'too plain to vote').toEqual([]);
    const [asIs] = alike;
    expect(asIs.by).toBe('query');
    expect(asIs.placed.length).toBeLessThanOrEqual(PLAIN_COLOUR_CANDIDATES);
    expect(asIs.placed).toContain('wallpapers/gradient.png');
    expect(asIs.placed.every((filepath) => asIs.shortlist.includes(filepath))).toBe(true);
  }, 60_000);

  it('places the upright copy of a rotated query when the copy is worth placing although the query as it is is not', async () => {
    // A rotated crop of a wallpaper outside the collection: as it is, its canvas's corners give it the points and words of
    // a photo; upright, its ribbons repeat their words. Every chance runs, so the trace shows which placements were asked.
    const wallpaper = await smoothWallpaper(7);
    const turned = await jpegOf(await rotate(await crop(wallpaper, cropBox(wallpaper, 0.35, 0.3, 0.6)), 20), 40);
    const asIs = await new QueryLoader(images, blobs).load({ accountId, service: 'mobile' }, await staged(turned, 'turned.jpg'), { preferredSide: MATCHING_PREFERRED_SIDE, includeMirror: false }, new Stopwatch());
    const upright = (await uprightQuery(asIs, false))!;
    expect(worthPlacing(asIs, matchVocabulary().vocabulary.quantize(asIs.features))).toBe(false);
    expect(worthPlacing(upright, matchVocabulary().vocabulary.quantize(upright.features))).toBe(true);
    const alike: TracedQuery[] = [];
    const trace: SearchTrace = { voted: () => undefined, alikeInColour: (by) => alike.push(by) };
    const traced = new MatchService(images, matchIndex, blobs, new LocalCollectionIndex(new MatchIndexCache(matchIndex)), verifyInThisThread, runInThisThread, noSpareThread, trace);
    const result = await traced.search(searchPayload(await staged(turned, 'turned.jpg')));
    expect(result.items).toEqual([]);
    expect(alike).toContain('upright');
  }, 60_000);

  it('gives the upright copy\'s pixel chances the best-voted of its own vote: a rotated wallpaper, and a rotated quarter of it, whose image only that vote ranks', async () => {
    // In a large collection a rotated copy's own words can rank its image far down where its upright copy's words rank
    // it among the first (digits turned 20°: 8th as it is, 2nd upright, in the matching benchmark's 1,000 images). Here
    // the query's own vote, its hash neighbours and its colours leave the image out; the upright copy's vote does not.
    const hidden = 'wallpapers/blobs.jpg';
    const { searching, reset } = serviceFindingOnlyUpright(hidden);
    const turned = await jpegOf(await rotate(originals.get(5)!, -20), 80);
    const result = await searching.search(searchPayload(await staged(turned, 'turned.jpg')));
    expect(paths(result.items)).toEqual([hidden]);
    expect(result.items[0].score, 'a pixel chance, not a feature match').toBeLessThan(DEFAULT_MIN_SCORE);
    expect(result.steps).toHaveProperty('upright_chances');

    // A rotated quarter of the wallpaper, re-encoded: only its placement upright, in the images its own vote ranks first.
    reset();
    const wallpaper = originals.get(5)!;
    const turnedQuarter = await jpegOf(await rotate(await crop(wallpaper, cropBox(wallpaper, 0.25, 0.3, 0.2)), -20), 50);
    const placed = await searching.search(searchPayload(await staged(turnedQuarter, 'turned-quarter.jpg')));
    expect(paths(placed.items)).toEqual([hidden]);
    expect(placed.items[0].target_overlap_percent, 'a quarter of the wallpaper').toBeLessThan(50);
  }, 60_000);

  it('finds a smooth wallpaper rotated onto a larger canvas by turning the query back upright, and places it in the query', async () => {
    const turned = await jpegOf(await rotate(originals.get(5)!, -20), 80);
    const result = await service.search(searchPayload(await staged(turned, 'turned.jpg')));
    expect(paths(result.items)).toEqual(['wallpapers/blobs.jpg']);
    const [match] = result.items;
    // A second chance's score: below every feature match.
    expect(match.score).toBeLessThan(DEFAULT_MIN_SCORE);
    // The whole wallpaper, in the middle of the rotated canvas, which it fills only in part.
    expect(match.target_overlap_percent).toBeGreaterThan(95);
    expect(match.query_overlap_percent).toBeLessThan(75);
    expect((match.query_match_rect.left + match.query_match_rect.right) / 2).toBeCloseTo(50, 0);
    expect((match.query_match_rect.top + match.query_match_rect.bottom) / 2).toBeCloseTo(50, 0);
  }, 60_000);

  it('finds a crop of square tiles by an alternative alignment when its pixels refute the best-supported one, and no crop of tiles in another glaze', async () => {
    const tiles = originals.get(6)!;
    const corner = await jpegOf(await crop(tiles, cropBox(tiles, 0.25, 0.3, 0)), 85);
    const result = await service.search(searchPayload(await staged(corner, 'corner.jpg')));
    expect(paths(result.items)).toEqual(['patterns/tiles.jpg']);
    expect(result.items[0].score).toBeLessThan(DEFAULT_MIN_SCORE);
    expect(result.items[0].query_overlap_percent).toBeGreaterThan(90);
    const green = await ringTiles('hsl(95,45%,70%)', TILE_INK, 76);
    const other = await service.search(searchPayload(await staged(await jpegOf(await crop(green, cropBox(green, 0.25, 0.3, 0)), 85), 'green.jpg')));
    expect(other.items).toEqual([]);
  }, 60_000);

  it('finds a whole copy of a fine tile lattice whose hash moved out of reach as a whole copy of its best-voted image, and not a lattice in another glaze', async () => {
    const lattice = originals.get(9)!;
    const copy = await jpegOf(await scale(lattice, 0.5), 30);
    // The hash of an image as ingest prepares it (normalised, cut to its content); the query loader cuts queries alike.
    const hashOf = async (data: Buffer) => {
      const prepared = await prepareImage({ data, preferredSide: MATCHING_PREFERRED_SIDE, cropBorders: true });
      if (!('image' in prepared)) throw new Error(prepared.refused);
      return differenceHash(prepared.image.gray);
    };
    expect(hashDistance(await hashOf(copy), await hashOf(await jpegOf(lattice))), 'the copy is no hash neighbour of its image').toBeGreaterThan(GLOBAL_HASH_MAX_DISTANCE);
    const result = await service.search(searchPayload(await staged(copy, 'lattice-copy.jpg')));
    expect(paths(result.items)).toEqual(['patterns/lattice.jpg']);
    expect(Object.keys(result.steps!).at(-1), 'found by the whole-image check').toBe('whole_image');
    expect([result.items[0].query_overlap_percent, result.items[0].target_overlap_percent]).toEqual([100, 100]);
    const green = await ringTiles('hsl(95,45%,60%)', LATTICE_INK, LATTICE_TILE);
    expect((await service.search(searchPayload(await staged(await jpegOf(await scale(green, 0.5), 30), 'green-lattice.jpg')))).items).toEqual([]);
  }, 60_000);

  it('finds a quarter of the smooth wallpaper by placing it by its pixels, and compares it with the wallpaper as one item', async () => {
    const wallpaper = originals.get(5)!;
    const box = cropBox(wallpaper, 0.25, 0.8, 0.2);
    const quarter = await jpegOf(await crop(wallpaper, box), 60);
    const result = await service.search(searchPayload(await staged(quarter, 'quarter.jpg')));
    expect(paths(result.items)).toEqual(['wallpapers/blobs.jpg']);
    const [match] = result.items;
    // Scored as a whole copy: the feature floor times the colour likeness, at most the floor.
    expect(match.score).toBeLessThanOrEqual(DEFAULT_MIN_SCORE);
    expect(match.query_overlap_percent).toBeGreaterThan(95);
    // Where the quarter was cut from, in percent of the wallpaper, within a few percent.
    const expected = { left: (100 * box.left) / wallpaper.width, right: (100 * (box.left + box.width)) / wallpaper.width, top: (100 * box.top) / wallpaper.height, bottom: (100 * (box.top + box.height)) / wallpaper.height };
    for (const side of ['left', 'right', 'top', 'bottom'] as const) expect(Math.abs(match.target_match_rect[side] - expected[side])).toBeLessThan(3);
    const compared = await service.compare(comparePayload(await staged(quarter, 'quarter.jpg'), { filepath: 'wallpapers/blobs.jpg' }));
    expect(compared.items.map((i) => i.filepath)).toEqual(['wallpapers/blobs.jpg']);
  }, 60_000);

  it('places a quarter of the smooth wallpaper in the images most alike it in colour when the vote leaves its image out', async () => {
    const wallpaper = originals.get(5)!;
    const quarter = await jpegOf(await crop(wallpaper, cropBox(wallpaper, 0.25, 0.1, 0.9)), 60);
    const result = await serviceOutvoting('wallpapers/blobs.jpg').search(searchPayload(await staged(quarter, 'quarter.jpg')));
    expect(paths(result.items)).toEqual(['wallpapers/blobs.jpg']);
    expect(result.items[0].score).toBeLessThanOrEqual(DEFAULT_MIN_SCORE);
  }, 60_000);

  it('finds a crop of a gradient without a single corner by placing it in the images most alike it in colour, and not a crop of another gradient', async () => {
    const gradient = originals.get(7)!;
    const box = cropBox(gradient, 0.25, 0.9, 0.3);
    const plainCrop = await staged(await pngOf(await crop(gradient, box)), 'gradient-crop.png');
    const result = await service.search(searchPayload(plainCrop));
    expect(paths(result.items)).toEqual(['wallpapers/gradient.png']);
    // Placed somewhere along the gradient's isolines, which nothing in a plain crop fixes: its position is not checked.
    expect(result.items[0].score).toBeLessThanOrEqual(DEFAULT_MIN_SCORE);
    const otherHues = await linearGradient(['hsl(220,60%,14%)', 'hsl(195,38%,44%)', 'hsl(215,55%,22%)']);
    const otherCrop = await staged(await pngOf(await crop(otherHues, box)), 'other-crop.png');
    await expect(service.search(searchPayload(otherCrop))).rejects.toMatchObject({ code: INPUT_REFUSED, message: expect.stringMatching(/^other-crop\.png: The image is too plain to search/) });
  }, 60_000);

  it('places a crop too plain to vote in the PLAIN_COLOUR_CANDIDATES images most alike in colour: its image ranked fourth is found', async () => {
    const others = ['wallpapers/banded.png', 'wallpapers/blobs.jpg', 'patterns/lattice.jpg'];
    const rows = await images.findByPaths({ accountId, service: 'mobile' }, others);
    // The index ranks three other images as more alike in colour, as in a collection of many gradients of one palette.
    const outranked = indexChanged((local) => ({
      alikeInColour: async (ref, colours, filters) => [
        ...others.map((filepath) => ({ imagePk: rows.get(filepath)!.id, filepath, likeness: 1 })),
        ...(await local.alikeInColour(ref, colours, filters)).filter((c) => !others.includes(c.filepath)),
      ],
    }));
    const searching = new MatchService(images, matchIndex, blobs, outranked);
    const gradient = originals.get(7)!;
    const plainCrop = await staged(await pngOf(await crop(gradient, cropBox(gradient, 0.25, 0.9, 0.3))), 'gradient-crop.png');
    expect(paths((await searching.search(searchPayload(plainCrop))).items)).toEqual(['wallpapers/gradient.png']);
  }, 60_000);

  it('reads and searches no image alike in colour set whose colours cannot hold the crop\'s where it would be placed', async () => {
    const others = ['labels/label-2.jpg', 'labels/label-3.jpg', 'labels/label-4.jpg'];
    const rows = await images.findByPaths({ accountId, service: 'mobile' }, [...others, 'wallpapers/gradient.png']);
    // The index ranks three labels first by their colour sets, as in a large collection; their stored colour shares (busy
    // scenes of many hues) hold too little of the dark teal gradient's.
    const outranked = indexChanged((local) => ({
      alikeInColour: async (ref, colours, filters) => [
        ...others.map((filepath) => ({ imagePk: rows.get(filepath)!.id, filepath, likeness: 1 })),
        ...(await local.alikeInColour(ref, colours, filters)).filter((c) => !others.includes(c.filepath)),
      ],
    }));
    const read: string[] = [];
    const reading = Object.assign(Object.create(blobs) as BlobStore, { get: (key: string) => (read.push(key), blobs.get(key)) });
    const gradient = originals.get(7)!;
    const plainCrop = await staged(await pngOf(await crop(gradient, cropBox(gradient, 0.25, 0.9, 0.3))), 'gradient-crop.png');
    expect(paths((await new MatchService(images, matchIndex, reading, outranked).search(searchPayload(plainCrop))).items)).toEqual(['wallpapers/gradient.png']);
    const storedCopies = (filepaths: string[]) => filepaths.map((filepath) => rows.get(filepath)!.norm_blob_key);
    expect(read).toEqual(expect.arrayContaining(storedCopies(['wallpapers/gradient.png'])));
    expect(read.filter((key) => storedCopies(others).includes(key))).toEqual([]);
  }, 60_000);

  it('places a query smooth throughout in the PLAIN_COLOUR_CANDIDATES images most alike in colour although it votes: a soft wallpaper\'s quarter whose image is fourth', async () => {
    const others = ['wallpapers/banded.png', 'wallpapers/gradient.png', 'patterns/lattice.jpg'];
    const rows = await images.findByPaths({ accountId, service: 'mobile' }, others);
    // The vote leaves the wallpaper out and three other images come first by colour, as among many soft wallpapers; no
    // stored colour shares rank them again.
    const outranked = indexChanged((local) => ({
      candidates: async (ref, request) => (await local.candidates(ref, request)).filter((c) => c.filepath !== 'wallpapers/blobs.jpg'),
      alikeInColour: async (ref, colours, filters) => [
        ...others.map((filepath) => ({ imagePk: rows.get(filepath)!.id, filepath, likeness: 1 })),
        ...(await local.alikeInColour(ref, colours, filters)).filter((c) => !others.includes(c.filepath)),
      ],
    }));
    const withoutShares = Object.assign(Object.create(matchIndex) as MatchIndexRepository, { colourSharesOf: async () => new Map() });
    const wallpaper = originals.get(5)!;
    const quarter = await crop(wallpaper, cropBox(wallpaper, 0.25, 0.1, 0.9));
    expect(isSmoothThroughout(toGray(quarter))).toBe(true);
    const result = await new MatchService(images, withoutShares, blobs, outranked).search(searchPayload(await staged(await jpegOf(quarter, 60), 'quarter.jpg')));
    expect(paths(result.items)).toEqual(['wallpapers/blobs.jpg']);
    expect(result.steps).toHaveProperty('verification');
  }, 60_000);

  it('ranks the images alike in colour again by how much of each colour they have, read once: a crop\'s image, last by colour sets, is placed', async () => {
    const ref = { accountId, service: 'mobile' };
    const gradient = originals.get(7)!;
    const plainCrop = await staged(await pngOf(await crop(gradient, cropBox(gradient, 0.25, 0.9, 0.3))), 'gradient-crop.png');
    // The index's shortlist by colour sets puts every other image first, as a collection of many images holding the
    // crop's colour bins in other amounts would: more than PLAIN_COLOUR_CANDIDATES of them.
    const lastByColourSet = indexChanged((local) => ({
      alikeInColour: async (r, colours, filters) => {
        const alike = await local.alikeInColour(r, colours, filters);
        const others = [...(await images.findByPaths(ref, await images.listPaths(ref, 0, 100))).values()].filter((row) => row.filepath !== 'wallpapers/gradient.png');
        expect(others.length).toBeGreaterThan(PLAIN_COLOUR_CANDIDATES);
        return [...others.map((row) => ({ imagePk: row.id, filepath: row.filepath, likeness: 1 })), ...alike.filter((c) => c.filepath === 'wallpapers/gradient.png')];
      },
    }));
    // The shares the ranking read are those the colour test before each placement reads: once per search.
    const asked: number[] = [];
    const counting = Object.assign(Object.create(matchIndex) as MatchIndexRepository, { colourSharesOf: (imagePks: readonly number[]) => (asked.push(...imagePks), matchIndex.colourSharesOf(imagePks)) });
    expect(paths((await new MatchService(images, counting, blobs, lastByColourSet).search(searchPayload(plainCrop))).items)).toEqual(['wallpapers/gradient.png']);
    expect(asked.length).toBeGreaterThan(PLAIN_COLOUR_CANDIDATES);
    expect(asked.length).toBe(new Set(asked).size);
    // Without stored shares (rows indexed before they were kept) the shortlist's order stands, and the crop is not placed.
    const withoutShares = Object.assign(Object.create(matchIndex) as MatchIndexRepository, { colourSharesOf: async () => new Map() });
    await expect(new MatchService(images, withoutShares, blobs, lastByColourSet).search(searchPayload(plainCrop))).rejects.toMatchObject({ code: INPUT_REFUSED });
  }, 60_000);

  it('places the upright copy of a rotated crop in the images most alike it in colour, when the rotated canvas\'s grey leads the query as it is elsewhere', async () => {
    const gradient = originals.get(7)!;
    const rotatedCrop = await jpegOf(await rotate(await crop(gradient, cropBox(gradient, 0.5, 0.2, 0.5)), 20), 80);
    // `rotate` fills the canvas with #808080: grey bin 4 of `colourSet` (greys by lightness, 8 bins). The index answers
    // colours with that grey by the other images only, as a collection with many grey images would.
    const fillGrey = 1n << 4n;
    const others = ['wallpapers/banded.png', 'wallpapers/blobs.jpg', 'patterns/lattice.jpg'];
    const rows = await images.findByPaths({ accountId, service: 'mobile' }, others);
    const greyLed = indexChanged((local) => ({
      alikeInColour: async (ref, colours, filters) =>
        (colours & fillGrey) !== 0n ? others.map((filepath) => ({ imagePk: rows.get(filepath)!.id, filepath, likeness: 1 })) : local.alikeInColour(ref, colours, filters),
    }));
    const result = await new MatchService(images, matchIndex, blobs, greyLed).search(searchPayload(await staged(rotatedCrop, 'rotated-crop.jpg')));
    expect(paths(result.items)).toEqual(['wallpapers/gradient.png']);
    expect(result.steps).toHaveProperty('upright_chances');
  }, 60_000);

  it('places a query turned on a filled canvas by its upright copy only, and an upright query as it is', async () => {
    // Per placement started: whether it placed the upright copy (judged as a shared design) or the query as it is.
    const placedUpright: boolean[] = [];
    const recording: TaskRunner = (task, input) => {
      if (task.name === placedCropTask.name) placedUpright.push((input as Parameters<typeof placedCropTask.run>[0]).check.sharedDesign === true);
      return runInThisThread(task, input);
    };
    const searching = new MatchService(images, matchIndex, blobs, new LocalCollectionIndex(new MatchIndexCache(matchIndex)), verifyInThisThread, recording);
    const gradient = originals.get(7)!;
    const rotatedCrop = await jpegOf(await rotate(await crop(gradient, cropBox(gradient, 0.5, 0.2, 0.5)), 20), 80);
    expect(paths((await searching.search(searchPayload(await staged(rotatedCrop, 'rotated-crop.jpg')))).items)).toEqual(['wallpapers/gradient.png']);
    expect(placedUpright.length).toBeGreaterThan(0);
    expect(placedUpright).not.toContain(false);
    placedUpright.length = 0;
    const wallpaper = originals.get(5)!;
    const quarter = await jpegOf(await crop(wallpaper, cropBox(wallpaper, 0.25, 0.8, 0.2)), 60);
    expect(paths((await searching.search(searchPayload(await staged(quarter, 'quarter.jpg')))).items)).toEqual(['wallpapers/blobs.jpg']);
    expect(placedUpright).toContain(false);
  }, 60_000);

  it('gives a query turned on a filled canvas its pixel chances on its upright copy only', async () => {
    const turned = await service.search(searchPayload(await staged(await jpegOf(await rotate(await syntheticImage(41), 20)), 'turned-unknown.jpg')));
    expect(turned.items).toEqual([]);
    const steps = Object.keys(turned.steps!);
    expect(steps).toEqual(expect.arrayContaining(['hash_neighbours', 'upright_copy', 'upright_vote', 'upright_chances']));
    for (const asIs of ['dense', 'whole_image', 'placement']) expect(steps, asIs).not.toContain(asIs);
  }, 60_000);

  it('runs the pixel second chances on compute threads and answers as in the calling thread', async () => {
    const wallpaper = originals.get(5)!;
    const tiles = originals.get(6)!;
    const gradient = originals.get(7)!;
    const queries: Array<[string, Buffer]> = [
      // Turned upright, then a whole copy; a crop of tiles fitted by an alternative alignment; a quarter placed by its
      // pixels; a crop without a corner placed in the images most alike it in colour; an image found by none.
      ['turned.jpg', await jpegOf(await rotate(wallpaper, -20), 80)],
      ['corner.jpg', await jpegOf(await crop(tiles, cropBox(tiles, 0.25, 0.3, 0)), 85)],
      ['quarter.jpg', await jpegOf(await crop(wallpaper, cropBox(wallpaper, 0.25, 0.8, 0.2)), 60)],
      ['gradient-crop.png', await pngOf(await crop(gradient, cropBox(gradient, 0.25, 0.9, 0.3)))],
      ['other.jpg', await jpegOf(await syntheticImage(98))],
    ];
    const pool = new ThreadPool(2);
    try {
      const threaded = new MatchService(images, matchIndex, blobs, new LocalCollectionIndex(new MatchIndexCache(matchIndex)), verifyInThisThread, pool.runner);
      for (const [label, data] of queries) {
        const here = await service.search(searchPayload(await staged(data, label)));
        const there = await threaded.search(searchPayload(await staged(data, label)));
        expect(there.items, label).toEqual(here.items);
        expect(paths(here.items).length, label).toBe(label === 'other.jpg' ? 0 : 1);
      }
    } finally {
      await pool.close();
    }
  }, 120_000);

  it('withdraws the placements still waiting for a compute thread once an earlier second chance has found the image', async () => {
    // One thread: the placements started with the dense and whole-image checks wait behind them.
    const pool = new ThreadPool(1);
    onTestFinished(() => pool.close());
    let answered = false;
    let placed = 0;
    const ranAfterAnswer: string[] = [];
    const withdrawn: string[] = [];
    const settled: Array<Promise<unknown>> = [];
    const recording: TaskRunner = (task, input, signal) => {
      const output = pool.run(task, input, signal);
      if (task.name === placedCropTask.name) placed++;
      settled.push(output.then(() => answered && ranAfterAnswer.push(task.name), () => withdrawn.push(task.name)));
      return output;
    };
    const searching = new MatchService(images, matchIndex, blobs, new LocalCollectionIndex(new MatchIndexCache(matchIndex)), verifyInThisThread, recording);
    const tiles = originals.get(6)!;
    const queries: Array<[string, Buffer, string, string]> = [
      ['corner.jpg', await jpegOf(await crop(tiles, cropBox(tiles, 0.25, 0.3, 0)), 85), 'patterns/tiles.jpg', 'dense'],
      ['half.jpg', await jpegOf(await scale(originals.get(9)!, 0.5), 30), 'patterns/lattice.jpg', 'whole_image'],
    ];
    for (const [label, data, image, foundBy] of queries) {
      answered = false;
      placed = 0;
      ranAfterAnswer.length = 0;
      withdrawn.length = 0;
      settled.length = 0;
      const result = await searching.search(searchPayload(await staged(data, label)));
      answered = true;
      await Promise.all(settled);
      expect(paths(result.items), label).toEqual([image]);
      expect(Object.keys(result.steps ?? {}).at(-1), label).toBe(foundBy);
      // The thread takes up the next waiting check as the answering one ends, before the answer is known: that one
      // runs, and every other placement is withdrawn (without the withdrawal, all of them ran after the answer).
      expect(placed, `${label}: placements waiting`).toBeGreaterThanOrEqual(2);
      expect(ranAfterAnswer.length, label).toBeLessThanOrEqual(1);
      expect(withdrawn.length, label).toBeGreaterThanOrEqual(placed - 1);
      expect(new Set(withdrawn), label).toEqual(new Set([placedCropTask.name]));
    }
  }, 120_000);

  it('compares a rotated copy of the smooth wallpaper with it upright, and places the match in the rotated copy', async () => {
    const turned = await jpegOf(await rotate(originals.get(5)!, 20), 80);
    const result = await service.compare(comparePayload(await staged(turned, 'turned.jpg'), { filepath: 'wallpapers/blobs.jpg' }));
    expect(result.items.map((i) => i.filepath)).toEqual(['wallpapers/blobs.jpg']);
    const [item] = result.items;
    expect(item.target_overlap_percent).toBeGreaterThan(95);
    expect((item.query_match_rect.left + item.query_match_rect.right) / 2).toBeCloseTo(50, 0);
    const other = await service.compare(comparePayload(await staged(turned, 'turned.jpg'), { filepath: 'labels/label-1.jpg' }));
    expect(other.items).toEqual([]);
  }, 60_000);

  it('ranks every copy of an image by score, and pages them by offset and limit', async () => {
    const copy = await phoneCopy(originals.get(2)!);
    // Each search consumes its staged query.
    const query = () => staged(copy, 'phone-2.jpg');

    const all = await service.search(searchPayload(await query()));
    expect(new Set(paths(all.items))).toEqual(new Set(['labels/label-2.jpg', 'copies/label-2-same.jpg', 'copies/label-2-half.jpg']));
    const scores = all.items.map((i) => i.score);
    expect(scores, 'best score first').toEqual([...scores].sort((a, b) => b - a));
    expect([all.total_results, all.total_filtered_results]).toEqual([3, 3]);

    const second = await service.search(searchPayload(await query(), { offset: 1, limit: 1 }));
    expect(second.items).toEqual([all.items[1]]);
    expect([second.total_results, second.total_filtered_results]).toEqual([3, 3]);
    const firstTwo = await service.search(searchPayload(await query(), { limit: 2 }));
    expect(firstTwo.items).toEqual(all.items.slice(0, 2));
    const pastTheEnd = await service.search(searchPayload(await query(), { offset: 3, limit: 5 }));
    expect(pastTheEnd.items).toEqual([]);
    expect(pastTheEnd.total_filtered_results).toBe(3);
  }, 120_000);

  it('drops the matches scoring below min_score, counting them in total_results only', async () => {
    const copy = await phoneCopy(originals.get(2)!);
    const all = await service.search(searchPayload(await staged(copy, 'phone-2.jpg')));
    const scores = all.items.map((i) => i.score);
    expect(new Set(scores).size, 'the copies score differently').toBeGreaterThan(1);
    const threshold = scores[scores.length - 1] + 0.1;
    const kept = await service.search(searchPayload(await staged(copy, 'phone-2.jpg'), { min_score: threshold }));
    expect(kept.items).toEqual(all.items.filter((i) => i.score >= threshold));
    expect(kept.items.length).toBeLessThan(all.items.length);
    expect([kept.total_results, kept.total_filtered_results]).toEqual([all.items.length, kept.items.length]);
    const none = await service.search(searchPayload(await staged(copy, 'phone-2.jpg'), { min_score: scores[0] + 1 }));
    expect(none.items).toEqual([]);
  }, 120_000);

  it('searching by a collection path returns that image first, then its copies', async () => {
    const result = await service.search(searchPayload({ filepath: 'copies/label-2-same.jpg' }));
    expect(result.query_filepath).toBe('copies/label-2-same.jpg');
    expect(paths(result.items)[0]).toBe('copies/label-2-same.jpg');
    expect(new Set(paths(result.items))).toEqual(new Set(['labels/label-2.jpg', 'copies/label-2-same.jpg', 'copies/label-2-half.jpg']));
  }, 60_000);

  it('refuses a query it cannot search, naming it and why, and deletes its staged upload', async () => {
    const corrupt = await staged((await jpegOf(originals.get(1)!)).subarray(0, 500), 'broken.jpg');
    await expect(service.search(searchPayload(corrupt))).rejects.toMatchObject({ code: INPUT_REFUSED, message: 'broken.jpg: The image data is corrupt or truncated.' });
    expect(await blobs.exists(corrupt.staged_key)).toBe(false);
    const plain = await staged(await jpegOf(flatColor(400, 300, [40, 120, 200])), 'plain.jpg');
    await expect(service.search(searchPayload(plain))).rejects.toMatchObject({ code: INPUT_REFUSED, message: expect.stringMatching(/^plain\.jpg: /) });
    await expect(service.search(searchPayload({ filepath: 'labels/absent.jpg' }))).rejects.toMatchObject({
      code: INPUT_REFUSED,
      message: 'labels/absent.jpg: This file does not exist in the image collection.',
    });
  }, 60_000);

  it('finds copies of a gradient without a single corner as whole copies, and refuses another plain gradient as too plain', async () => {
    const gradient = originals.get(7)!;
    // JPEG q30 gives the copy a thousand corners of block edges, which match nothing; a PNG copy has none.
    const copy = await staged(await jpegOf(await scale(gradient, 0.5), 30), 'gradient-copy.jpg');
    const result = await service.search(searchPayload(copy));
    expect(paths(result.items)).toEqual(['wallpapers/gradient.png']);
    const [match] = result.items;
    expect(match.score, 'a second chance scores at most a feature match\'s minimum').toBeLessThanOrEqual(DEFAULT_MIN_SCORE);
    expect([match.query_overlap_percent, match.target_overlap_percent, match.match_percent]).toEqual([100, 100, 100]);
    expect(await blobs.exists(copy.staged_key)).toBe(false);
    const plainCopy = await service.search(searchPayload(await staged(await pngOf(await scale(gradient, 0.5)), 'gradient-copy.png')));
    expect(paths(plainCopy.items)).toEqual(['wallpapers/gradient.png']);
    expect(plainCopy.items[0].match_percent, 'without points, the share of the query matched').toBe(100);
    const byPath = await service.search(searchPayload({ filepath: 'wallpapers/gradient.png' }));
    expect(paths(byPath.items)).toEqual(['wallpapers/gradient.png']);

    const otherHues = await linearGradient(['hsl(220,60%,14%)', 'hsl(195,38%,44%)', 'hsl(215,55%,22%)']);
    expect((await service.search(searchPayload(await staged(await jpegOf(otherHues, 30), 'other-gradient.jpg')))).items).toEqual([]);
    const other = await staged(await pngOf(otherHues), 'other-gradient.png');
    await expect(service.search(searchPayload(other))).rejects.toMatchObject({
      code: INPUT_REFUSED,
      message: expect.stringMatching(/^other-gradient\.png: The image is too plain to search: only 0 distinctive points were found, and it is not a copy of a whole image in the collection\.$/),
    });
    expect(await blobs.exists(other.staged_key)).toBe(false);
  }, 60_000);

  it('compares a gradient with its recompressed copy as one item, and refuses it against another plain gradient as too plain', async () => {
    const copy = await jpegOf(await scale(originals.get(7)!, 0.5), 30);
    const same = await service.compare(comparePayload(await staged(copy, 'gradient-copy.jpg'), { filepath: 'wallpapers/gradient.png' }));
    expect(same.items.map((i) => i.filepath)).toEqual(['wallpapers/gradient.png']);
    const reversed = await service.compare(comparePayload({ filepath: 'wallpapers/gradient.png' }, await staged(copy, 'gradient-copy.jpg')));
    expect(reversed.items.map((i) => i.filepath)).toEqual(['gradient-copy.jpg']);
    const diagonal = await pngOf(await linearGradient(GRADIENT_STOPS, 0.2, 1));
    await expect(service.compare(comparePayload(await staged(diagonal, 'diagonal.png'), { filepath: 'wallpapers/gradient.png' }))).rejects.toMatchObject({
      code: INPUT_REFUSED,
      message: expect.stringMatching(/^diagonal\.png: The image is too plain to search/),
    });
  }, 60_000);

  it('finds a gradient rotated onto a larger canvas although its stored copy lost its flat ends to the border cut, cutting the upright query the same way', async () => {
    const turned = await jpegOf(await rotate(originals.get(8)!, 20), 80);
    const result = await service.search(searchPayload(await staged(turned, 'turned-bands.jpg')));
    expect(paths(result.items)).toEqual(['wallpapers/banded.png']);
    expect(result.items[0].score).toBeLessThanOrEqual(DEFAULT_MIN_SCORE);
    const compared = await service.compare(comparePayload(await staged(turned, 'turned-bands.jpg'), { filepath: 'wallpapers/banded.png' }));
    expect(compared.items.map((i) => i.filepath)).toEqual(['wallpapers/banded.png']);
  }, 60_000);

  it('compares a crop that kept the flat sky its image loses to the border cut with the image, as one item', async () => {
    const landscape = await flatLandscape();
    const skyCrop = await jpegOf(await crop(landscape, { left: 40, top: 0, width: 560, height: 420 }), 90);
    const compared = await service.compare(comparePayload(await staged(skyCrop, 'sky-crop.jpg'), await staged(await jpegOf(landscape, 90), 'landscape.jpg')));
    expect(compared.items).toHaveLength(1);
  }, 60_000);

  it('compares an unrotated copy of a smooth wallpaper that no fit aligns as a whole copy', async () => {
    const copy = await jpegOf(await scale(originals.get(5)!, 0.5), 20);
    const result = await service.compare(comparePayload(await staged(copy, 'blobs-copy.jpg'), { filepath: 'wallpapers/blobs.jpg' }));
    expect(result.items.map((i) => i.filepath)).toEqual(['wallpapers/blobs.jpg']);
  }, 60_000);

  it('compares a photo with the image it copies as one item, and an unrelated pair as none', async () => {
    const copy = await phoneCopy(originals.get(4)!);
    const first = await staged(copy, 'phone-4.jpg');
    const same = await service.compare(comparePayload(first, { filepath: 'labels/label-4.jpg' }, { compute_enhanced_score: true, compare_color: true }));
    expect(same.query_filepath).toBe('phone-4.jpg');
    expect(same.items).toHaveLength(1);
    const [item] = same.items;
    expect(item.filepath).toBe('labels/label-4.jpg');
    expect(item.score).toBeGreaterThanOrEqual(DEFAULT_MIN_SCORE);
    expect(item.score_enhanced).toEqual(expect.any(Number));
    expect(item.compare_color?.color_percent_diff).toEqual(expect.any(Number));
    expect(await blobs.exists(first.staged_key)).toBe(false);

    const above = await service.compare(comparePayload(await staged(copy, 'phone-4.jpg'), { filepath: 'labels/label-4.jpg' }, { min_score: item.score + 1 }));
    expect(above.items, 'min_score applies to compare too').toEqual([]);

    const unrelated = await service.compare(comparePayload(await staged(copy, 'phone-4.jpg'), { filepath: 'labels/label-1.jpg' }));
    expect(unrelated.items).toEqual([]);
    const twoUploads = await service.compare(comparePayload(await staged(copy, 'a.jpg'), await staged(await jpegOf(await syntheticImage(98)), 'b.jpg')));
    expect(twoUploads.items).toEqual([]);
  }, 60_000);
});
