import { badgeSvg } from '@loupe/ocr/src/testing/badges';
import { LazyOcrPool } from '@loupe/ocr';
import { ImageRepository, MatchIndexRepository } from '@loupe/storage';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ComparePayload } from '../contracts';
import { MATCHING_PREFERRED_SIDE } from '../ingest-policy';
import { openEmbeddedStore, type EmbeddedStore } from '../testing/embedded-store';
import { LocalCollectionIndex } from './collection-index';
import { MatchIndexCache } from './index-cache';
import { MatchService } from './match.service';
import { NO_PRINT_CHECK, OcrPrintCheck, type PrintCheck } from './print-check';

describe('the print of two aligned designs (OcrPrintCheck)', () => {
  let store: EmbeddedStore;
  let ocr: LazyOcrPool;
  let withPrint: MatchService;
  let withoutPrint: MatchService;

  beforeAll(async () => {
    store = await openEmbeddedStore('print-check');
    ocr = new LazyOcrPool(1);
    const images = new ImageRepository(store.db);
    const matchIndex = new MatchIndexRepository(store.db);
    const service = (check: PrintCheck) => new MatchService(images, matchIndex, store.blobs, new LocalCollectionIndex(new MatchIndexCache(matchIndex)), undefined, undefined, undefined, undefined, check);
    withPrint = service(new OcrPrintCheck(ocr));
    withoutPrint = service(NO_PRINT_CHECK);
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
});
