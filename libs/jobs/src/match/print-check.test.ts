import { badgeSvg } from '@loupe/ocr/src/testing/badges';
import { LazyOcrPool } from '@loupe/ocr';
import { BlobStore, ImageRepository, MatchIndexRepository } from '@loupe/storage';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stagingKey } from '../blob-keys';
import type { ComparePayload, SearchPayload } from '../contracts';
import { IngestService } from '../ingest.service';
import { MATCHING_PREFERRED_SIDE } from '../ingest-policy';
import { openEmbeddedStore, type EmbeddedStore } from '../testing/embedded-store';
import { LocalCollectionIndex } from './collection-index';
import { MatchIndexCache } from './index-cache';
import { MatchService } from './match.service';
import { NO_PRINT_CHECK, OcrPrintCheck, PrintVerdicts, type PrintCheck } from './print-check';
import { SearchIndexHook } from './search-index.hook';

describe('the print of two aligned designs (OcrPrintCheck)', () => {
  let store: EmbeddedStore;
  let ocr: LazyOcrPool;
  let withPrint: MatchService;
  let withoutPrint: MatchService;
  /** Reads with tesseract as `withPrint` does, counting its readings in `readings` and its blob reads in `blobReads`. */
  let countingReadings: MatchService;
  let readings: number;
  const blobReads: string[] = [];

  beforeAll(async () => {
    store = await openEmbeddedStore('print-check');
    ocr = new LazyOcrPool(1);
    const images = new ImageRepository(store.db);
    const matchIndex = new MatchIndexRepository(store.db);
    const service = (check: PrintCheck, blobs: BlobStore = store.blobs) => new MatchService(images, matchIndex, blobs, new LocalCollectionIndex(new MatchIndexCache(matchIndex)), undefined, undefined, undefined, undefined, check);
    withPrint = service(new OcrPrintCheck(ocr));
    withoutPrint = service(NO_PRINT_CHECK);
    readings = 0;
    const reading = new OcrPrintCheck(ocr);
    const countingBlobs = new Proxy(store.blobs, {
      get: (target, property) => {
        if (property === 'get') return (key: string) => (blobReads.push(key), target.get(key));
        const value: unknown = Reflect.get(target, property);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    countingReadings = service({ differs: (...args) => (readings++, reading.differs(...args)) }, countingBlobs);
  }, 60_000);
  afterAll(async () => {
    await ocr?.close();
    await store?.close();
  });

  /** A badge as the collection holds it: a little smaller and off-centre, as designs of a range are laid out. */
  const stored = async (name: string, year: number) => sharp(Buffer.from(badgeSvg(name, year, { transform: 'translate(40 10) scale(0.95)' }))).png().toBuffer();
  /** Copies of a badge: turned 20° on a grey canvas, and the middle of it cropped, both JPEG. */
  const copies = async (name: string, year: number) => {
    const original = await sharp(Buffer.from(badgeSvg(name, year))).png().toBuffer();
    return {
      'turned 20°': await sharp(original).rotate(20, { background: '#808080' }).jpeg({ quality: 80 }).toBuffer(),
      'cropped to the middle': await sharp(original).extract({ left: 100, top: 80, width: 636, height: 424 }).jpeg({ quality: 80 }).toBuffer(),
    };
  };
  const compare = async (service: MatchService, first: Buffer, second: Buffer) => {
    const payload: ComparePayload = {
      account_id: store.accountId, account: 'acme', service: 'mobile', first: await store.stage(first, 'first.jpg'), second: await store.stage(second, 'second.png'),
      preferred_side: MATCHING_PREFERRED_SIDE,
      options: { min_score: 0, check_horizontal_flip: false, generate_overlay: false, compute_enhanced_score: false, compare_color: false },
    };
    return (await service.compare(payload)).items;
  };

  it.each(['turned 20°', 'cropped to the middle'] as const)('tells two badges of one template apart by their names, which features, colours and edges do not (%s)', async (edit) => {
    const query = (await copies('QUIPHA', 2007))[edit];
    expect(await compare(withoutPrint, query, await stored('NORGOSYL', 1992)), 'the shapes alone fit').toHaveLength(1);
    expect(await compare(withPrint, query, await stored('NORGOSYL', 1992))).toEqual([]);
  }, 60_000);

  it.each(['turned 20°', 'cropped to the middle'] as const)('still finds a copy of the badge with the same name (%s)', async (edit) => {
    expect(await compare(withPrint, (await copies('QUIPHA', 2007))[edit], await stored('QUIPHA', 2007))).toHaveLength(1);
  }, 60_000);

  // Turned, the design is found again by the upright copy's chances after its own; cropped, by the pixel chances after
  // feature verification refused its concentrated fit.
  it.each(['turned 20°', 'cropped to the middle'] as const)('reads and decodes a refused design once in a search, though a later chance of the search finds it again (%s)', async (edit) => {
    const staged_key = stagingKey();
    await store.blobs.put(staged_key, await stored('NORGOSYL', 1992));
    const added = await new IngestService(new ImageRepository(store.db), store.blobs, () => [new SearchIndexHook(new MatchIndexRepository(store.db))]).ingest({
      account_id: store.accountId, account: 'acme', service: 'mobile', items: [{ filepath: 'badges/norgosyl.png', image_id: null, staged_key }], on_existing: 'replace', preferred_side: MATCHING_PREFERRED_SIDE, crop_borders: true,
    });
    expect(added.errors).toEqual([]);
    const search = async (service: MatchService) => {
      const payload: SearchPayload = {
        account_id: store.accountId, account: 'acme', service: 'mobile', query: await store.stage((await copies('QUIPHA', 2007))[edit], 'query.jpg'), preferred_side: MATCHING_PREFERRED_SIDE,
        options: { min_score: 0, check_horizontal_flip: false, generate_overlay: false, offset: 0, limit: 0 },
      };
      return (await service.search(payload)).items.map((i) => i.filepath);
    };
    expect(await search(withoutPrint), 'the shapes alone are found').toEqual(['badges/norgosyl.png']);
    readings = 0;
    blobReads.length = 0;
    expect(await search(countingReadings)).toEqual([]);
    expect(readings).toBe(1);
    const { norm_blob_key } = (await new ImageRepository(store.db).findByPaths({ accountId: store.accountId, service: 'mobile' }, ['badges/norgosyl.png'])).get('badges/norgosyl.png')!;
    expect(blobReads.filter((key) => key === norm_blob_key), 'its stored image').toHaveLength(1);
  }, 120_000);
});

describe('PrintVerdicts', () => {
  it('asks each image once, and tells a later or concurrent ask the first verdict', async () => {
    const verdicts = new PrintVerdicts();
    const asked: number[] = [];
    const check = (imagePk: number, differs: boolean) => () => (asked.push(imagePk), new Promise<boolean>((resolve) => setTimeout(() => resolve(differs), 5)));
    const concurrent = await Promise.all([verdicts.decide(1, check(1, true)), verdicts.decide(1, check(1, false)), verdicts.decide(2, check(2, false))]);
    expect(concurrent).toEqual([true, true, false]);
    expect(await verdicts.decide(1, check(1, false))).toBe(true);
    expect(await verdicts.decide(2, check(2, true))).toBe(false);
    expect(asked).toEqual([1, 2]);
  });
});
