import { LabelSpec, wineBottlePhoto, wineLabelJpeg } from '@loupe/ocr/src/testing/wine-photos';
import { LazyOcrPool } from '@loupe/ocr';
import { BlobStore, Db, ImageRepository, MatchIndexRepository, WineLabelRepository } from '@loupe/storage';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stagingKey } from '../blob-keys';
import { INPUT_REFUSED, IngestItem, QuerySource } from '../contracts';
import { IngestService } from '../ingest.service';
import { LocalCollectionIndex } from '../match/collection-index';
import { MatchIndexCache } from '../match/index-cache';
import { MatchService } from '../match/match.service';
import { SearchIndexHook } from '../match/search-index.hook';
import { TEXT_ONLY_MIN_SCORE } from './ranking';
import { WINE_PREFERRED_SIDE, WineSearchPayload } from './contracts';
import { WineLabelHook } from './label.hook';
import { WineLabelReader } from './label-reader';
import { WineSearchService } from './wine-search.service';
import { openEmbeddedStore, type EmbeddedStore } from '../testing/embedded-store';

const RIVEL: LabelSpec = {
  producer: 'Domaine Rivel', region: 'Pauillac', vintage: 2015, variety: 'Cabernet Sauvignon', country: 'France',
  colorText: 'Red Wine', extras: ['Grand Vin de Bordeaux'],
};
const BELLAVISTA: LabelSpec = {
  producer: 'Tenuta Bellavista', region: 'Chianti Classico', vintage: 2018, variety: 'Sangiovese', country: 'Italy',
  colorText: 'Vino Rosso', layout: 1, font: 'sans-serif', paper: '#ffffff', ink: '#1a1a1a', accent: '#24476b',
};
/** Few labels: every add and every search with a photo runs tesseract (0.3-2 s a read). */
const COLLECTION: Record<string, LabelSpec> = {
  'labels/rivel-2015.jpg': RIVEL,
  // A near-twin: the same label of another year, which the image alone cannot tell apart.
  'labels/rivel-2016.jpg': { ...RIVEL, vintage: 2016 },
  'labels/italy/bellavista.jpg': BELLAVISTA,
};

describe('WineSearchService on a small label collection added through ingest (tesseract runs)', () => {
  let store: EmbeddedStore;
  let db: Db;
  let blobs: BlobStore;
  let reader: WineLabelReader;
  let service: WineSearchService;
  let accountId: number;
  let rivelPhoto: Buffer;

  beforeAll(async () => {
    store = await openEmbeddedStore('wine-search');
    ({ db, blobs, accountId } = store);
    reader = new WineLabelReader(new LazyOcrPool(2));
    const images = new ImageRepository(db);
    const matchIndex = new MatchIndexRepository(db);
    const labels = new WineLabelRepository(db);
    const items: IngestItem[] = [];
    for (const [filepath, spec] of Object.entries(COLLECTION)) {
      const staged_key = stagingKey();
      await blobs.put(staged_key, await wineLabelJpeg(spec));
      items.push({ filepath, image_id: `id-${path.basename(filepath)}`, staged_key });
    }
    const added = await new IngestService(images, blobs, () => [new SearchIndexHook(matchIndex), new WineLabelHook(reader, labels)]).ingest({
      account_id: accountId, account: 'acme', service: 'wine', items, on_existing: 'refuse', preferred_side: WINE_PREFERRED_SIDE, crop_borders: true,
    });
    expect(added.errors).toEqual([]);
    const matching = new MatchService(images, matchIndex, blobs, new LocalCollectionIndex(new MatchIndexCache(matchIndex)));
    service = new WineSearchService(matching, reader, labels, blobs);
    rivelPhoto = (await wineBottlePhoto(RIVEL, { seed: 5, perspective: 0.03, curvature: 0.35, blur: 0.8, glare: 0.3, jpegQuality: 75 })).jpeg;
  }, 180_000);
  afterAll(async () => {
    await reader?.close();
    await store?.close();
  });

  const staged = (data: Buffer, label: string) => store.stage(data, label);

  function payload(query: QuerySource, options: Partial<WineSearchPayload['options']> = {}): WineSearchPayload {
    return {
      account_id: accountId, account: 'acme', service: 'wine', query, preferred_side: WINE_PREFERRED_SIDE,
      options: { min_score: 0, check_horizontal_flip: false, generate_overlay: false, offset: 0, limit: 0, ...options },
    };
  }

  it('finds the label of a bottle photo first, with its stored metadata, the query’s year, and consumes the upload', async () => {
    const query = await staged(rivelPhoto, 'shop/bottle.jpg');
    const result = await service.search(payload(query));
    expect(result.query_filepath).toBe('shop/bottle.jpg');
    expect(result.query_metadata).toMatchObject({ vintage_year: 2015, region_name: 'Pauillac', country_name: 'France' });
    expect(result.query_metadata.text_tokens).toEqual(expect.arrayContaining(['domaine', 'rivel', 'pauillac', '2015']));
    const [best, twin] = result.items;
    expect(best.filepath).toBe('labels/rivel-2015.jpg');
    expect(best.score).toBeGreaterThan(0);
    expect(best.score_text).toBeGreaterThan(twin.score_text!);
    expect(twin.filepath, 'the other year of the label comes next').toBe('labels/rivel-2016.jpg');
    expect(best.metadata).toMatchObject({ variety_type: 'Cabernet Sauvignon', region_name: 'Pauillac', country_name: 'France', image_id: 'id-rivel-2015.jpg' });
    // The query shows a year: the matched label's own year is left out, and its text lines stay with it.
    expect(best.metadata.vintage_year).toBeUndefined();
    expect(best.metadata.text_lines).toBeUndefined();
    expect(result.items.map((i) => i.filepath)).not.toContain('labels/italy/bellavista.jpg');
    expect(result.time_extract_text).toBeGreaterThan(0);
    expect(await blobs.exists(query.staged_key)).toBe(false);
  }, 60_000);

  it('pages the label-ranked results by offset and limit', async () => {
    const all = await service.search(payload(await staged(rivelPhoto, 'q.jpg')));
    expect(all.items.length).toBeGreaterThanOrEqual(2);
    const second = await service.search(payload(await staged(rivelPhoto, 'q.jpg'), { offset: 1, limit: 1 }));
    expect(second.items).toEqual([all.items[1]]);
    expect(second.total_results).toBe(all.total_results);
  }, 60_000);

  it('searches by a collection path with the stored label as the query, offering no hint when the years agree', async () => {
    const result = await service.search(payload({ filepath: 'labels/rivel-2016.jpg' }));
    expect(result.query_filepath).toBe('labels/rivel-2016.jpg');
    expect(result.query_metadata).toMatchObject({ vintage_year: 2016, variety_type: 'Cabernet Sauvignon' });
    expect(result.time_extract_text, 'nothing is read: the stored label is the query').toBe(0);
    expect(result.items[0]).toMatchObject({ filepath: 'labels/rivel-2016.jpg', metadata: { image_id: 'id-rivel-2016.jpg' } });
    expect(result.items[0].score_text).toBeGreaterThanOrEqual(TEXT_ONLY_MIN_SCORE);
    await expect(service.search(payload({ filepath: 'labels/absent.jpg' }))).rejects.toMatchObject({
      code: INPUT_REFUSED,
      message: 'labels/absent.jpg: This file does not exist in the image collection.',
    });
  }, 60_000);

  it('adds a label whose image does not match but whose text agrees, as a match of image score 0', async () => {
    // The same wine's label reprinted in another design and wrapped far round the bottle: the image check misses it (a
    // redesign alone still verifies on its words' glyphs), the words read the same.
    const redesign = await wineBottlePhoto({ ...BELLAVISTA, layout: 2, font: 'serif', paper: '#efe6cf', ink: '#2b1d12', accent: '#5b1f3a' }, { seed: 3, curvature: 1.2, jpegQuality: 85 });
    const result = await service.search(payload(await staged(redesign.jpeg, 'redesign.jpg')));
    const [best] = result.items;
    expect(best).toMatchObject({ filepath: 'labels/italy/bellavista.jpg', score: 0, match_percent: 0, metadata: { image_id: 'id-bellavista.jpg' } });
    expect(best.score_text).toBeGreaterThanOrEqual(TEXT_ONLY_MIN_SCORE);
    expect(result.total_results, 'counted with the image matches').toBe(result.items.length);
  }, 60_000);

  it('offers the collection label’s year as a hint when the photo shows none', async () => {
    const noYear = await wineBottlePhoto({ ...BELLAVISTA, vintage: undefined }, { seed: 2, curvature: 0.3, jpegQuality: 80 });
    const result = await service.search(payload(await staged(noYear.jpeg, 'no-year.jpg')));
    expect(result.query_metadata.vintage_year).toBeUndefined();
    expect(result.items[0].filepath).toBe('labels/italy/bellavista.jpg');
    expect(result.items[0].metadata).toMatchObject({ vintage_year: '2018', region_name: 'Chianti Classico', variety_type: 'Sangiovese', image_id: 'id-bellavista.jpg' });
  }, 60_000);
});
