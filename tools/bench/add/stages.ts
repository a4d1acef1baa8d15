/**
 * Where an add's time goes, per image and stage, each stage run alone on one thread (no concurrency): decode and
 * normalise, border crop + assessment, JPEG encode, grey, ORB extraction, visual words, whole-image hash, feature
 * serialisation. Then what stays on the ingest's calling thread, one image after another, whatever the threads: the
 * IngestService over the same images (mobile, batches of 10, embedded PGlite and folder blobs) with every task
 * answered from the results above: path lookup, staged read, result copies, blob writes, the transaction. Medians and
 * means in ms per image.
 *
 *   npx tsx tools/bench/add/stages.ts [images=40] [side=1200] [folder of photos]
 */
import { differenceHash, extractFeatures, serializeFeatures, type TaskRunner } from '@loupe/fingerprint';
import { assessImage, cropImage, encodeJpeg, findContentBox, grayImageOf, normalizeImage } from '@loupe/imaging';
import { IngestPayload, stagingKey } from '@loupe/jobs';
import { prepareImage, prepareImageTask } from '@loupe/jobs/src/image-preparation';
import { IngestService } from '@loupe/jobs/src/ingest.service';
import { SearchIndexHook, searchIndexEntryTask } from '@loupe/jobs/src/match/search-index.hook';
import { matchVocabulary } from '@loupe/jobs/src/match/vocabulary';
import { ensureAccountUser, loadConfig, openInfrastructure } from '@loupe/runtime';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import { sceneSvg } from '../../../apps/gateway/test/images';

const total = Number(process.argv[2] ?? 40);
const side = Number(process.argv[3] ?? 1200);
const folder = process.argv[4];

async function inputs(): Promise<Buffer[]> {
  if (folder) {
    const names = (await readdir(folder)).filter((n) => /\.(jpe?g|png|webp)$/i.test(n)).sort().slice(0, total);
    return Promise.all(names.map((n) => readFile(path.join(folder, n))));
  }
  const out: Buffer[] = [];
  for (let i = 0; i < total; i++) out.push(await sharp(Buffer.from(sceneSvg(1000 + i, Math.round((side * 4) / 3), side))).jpeg({ quality: 88 }).toBuffer());
  return out;
}

async function main(): Promise<void> {
  const images = await inputs();
  const times = new Map<string, number[]>();
  const timed = async <T>(stage: string, work: () => T | Promise<T>): Promise<T> => {
    const started = performance.now();
    const out = await work();
    (times.get(stage) ?? times.set(stage, []).get(stage)!).push(performance.now() - started);
    return out;
  };
  matchVocabulary();
  await extractFeatures(grayImageOf(await normalizeImage(images[0], { preferredSide: 600 })));
  for (const data of images) {
    const full = await timed('decode + normalise', () => normalizeImage(data, { preferredSide: 600 }));
    const normalized = await timed('border crop + assess', () => {
      const cropped = { ...full, ...cropImage(full, findContentBox(full)) };
      assessImage(cropped, full.original);
      return cropped;
    });
    await timed('JPEG encode', () => encodeJpeg(normalized, 90));
    const gray = await timed('grey', () => grayImageOf(normalized));
    const features = await timed('ORB features', () => extractFeatures(gray));
    await timed('visual words', () => matchVocabulary().vocabulary.quantize(features));
    await timed('whole-image hash', () => differenceHash(gray));
    await timed('serialise features', () => serializeFeatures(features));
  }
  times.set('calling thread (commit etc.)', await callingThreadShare(images));
  const rows = [...times].map(([stage, ms]) => {
    const sorted = [...ms].sort((a, b) => a - b);
    const mean = ms.reduce((a, b) => a + b, 0) / ms.length;
    return { stage, median: sorted[Math.floor(sorted.length / 2)], mean };
  });
  console.log(`${images.length} images (${folder ?? `synthetic ${Math.round((side * 4) / 3)}x${side} JPEG`}), ms per image:`);
  for (const r of rows) console.log(`  ${r.stage.padEnd(22)} median ${r.median.toFixed(1).padStart(6)}  mean ${r.mean.toFixed(1).padStart(6)}`);
  console.log(`  ${'sum of means'.padEnd(22)} ${rows.reduce((a, r) => a + r.mean, 0).toFixed(1)}`);
}

/** ms per image of the ingest's own thread, with every task's answer computed beforehand. */
async function callingThreadShare(images: Buffer[]): Promise<number[]> {
  const keyOf = (data: Uint8Array) => `${data.length}:${Buffer.from(data.subarray(data.length >> 1, (data.length >> 1) + 64)).toString('hex')}`;
  const prepared = new Map<string, unknown>();
  const entries = new Map<unknown, unknown>();
  for (const data of images) {
    const preparation = await prepareImage({ data, preferredSide: 600, cropBorders: true });
    prepared.set(keyOf(data), preparation);
    if ('image' in preparation && preparation.image.features) entries.set(preparation.image.features, await searchIndexEntryTask.run({ features: preparation.image.features, gray: preparation.image.gray }));
  }
  const answered: TaskRunner = async (task, input) => {
    if (task === (prepareImageTask as unknown)) return prepared.get(keyOf((input as { data: Uint8Array }).data)) as never;
    if (task === (searchIndexEntryTask as unknown)) return entries.get((input as { features: unknown }).features) as never;
    throw new Error(`no answer for ${task.name}`);
  };
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-stages-'));
  const infra = await openInfrastructure(loadConfig({ DATA_DIR: dataDir, NODE_ENV: 'test' }));
  try {
    await ensureAccountUser(infra.accounts, { account: 'bench', username: 'bench', password: 'pw' });
    const account = (await infra.accounts.find('bench'))!;
    const hook = new SearchIndexHook(infra.matchIndex, answered);
    const service = new IngestService(infra.images, infra.blobs, () => [hook], { run: answered, parallelism: 1 });
    const perImage: number[] = [];
    for (let i = 0; i < images.length; i += 10) {
      const items = [];
      for (const [j, data] of images.slice(i, i + 10).entries()) {
        const staged_key = stagingKey();
        await infra.blobs.put(staged_key, data);
        items.push({ filepath: `stages/${i + j}.jpg`, image_id: null, staged_key });
      }
      const payload: IngestPayload = { account_id: account.id, account: 'bench', service: 'mobile', items, on_existing: 'refuse', preferred_side: 600, crop_borders: true };
      const started = performance.now();
      await service.ingest(payload);
      perImage.push(...items.map(() => (performance.now() - started) / items.length));
    }
    return perImage;
  } finally {
    await infra.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
