import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH, call, formWith, MODES, startTestSystem, TestSystem } from './harness';
import { smoothWallpaper } from '@loupe/fingerprint/src/testing/synthetic-images';
import { flatJpeg, sceneJpeg } from './images';

/** A smooth gradient wallpaper (few stable corners) as JPEG, optionally shrunk, blurred and recompressed. */
async function smoothJpeg(seed: number, degrade = false): Promise<Buffer> {
  const rgb = await smoothWallpaper(seed);
  const image = sharp(Buffer.from(rgb.data), { raw: { width: rgb.width, height: rgb.height, channels: 3 } });
  if (!degrade) return image.jpeg({ quality: 92 }).toBuffer();
  return sharp(await image.resize(400).blur(2).jpeg({ quality: 10 }).toBuffer()).jpeg({ quality: 10 }).toBuffer();
}

const upload = (data: Buffer, filename = 'query.jpg', field = 'image') => ({ field, data, filename });

for (const mode of MODES) {
  describe.skipIf(!mode.enabled)(`matching engine over HTTP (${mode.name})`, () => {
    let sys: TestSystem;
    const originals: Buffer[] = [];

    beforeAll(async () => {
      sys = await startTestSystem(mode.name);
      for (let i = 0; i < 6; i++) originals.push(await sceneJpeg(300 + i, 800, 600));
      const form = formWith(originals.map((data, i) => upload(data, `art/${i < 3 ? 'posters' : 'cards'}/img${i}.jpg`, `images[${i}]`)));
      const add = await call(sys, 'match', 'add', { form });
      expect(add.json.status).toBe('ok');
    }, 180_000);
    afterAll(async () => {
      await sys?.destroy();
    });

    it('finds a 50% crop of a collection image first, with the crop rectangle in the collection image', async () => {
      const crop = await sharp(originals[2]).extract({ left: 200, top: 150, width: 400, height: 300 }).jpeg({ quality: 85 }).toBuffer();
      const res = await call(sys, 'match', 'search', { form: formWith([upload(crop, 'crop.jpg')]) });
      expect(res.json.status).toBe('ok');
      expect(res.json.query_image).toEqual({ filepath: 'crop.jpg' });
      const [best] = res.json.result;
      expect(best.filepath).toBe('art/posters/img2.jpg');
      expect(best.score).toBeGreaterThan(50);
      expect(best.target_match_rect.left).toBeCloseTo(25, -1);
      expect(best.target_match_rect.right).toBeCloseTo(75, -1);
      expect(best.target_match_rect.top).toBeCloseTo(25, -1);
      expect(best.target_match_rect.bottom).toBeCloseTo(75, -1);
      expect(best.query_overlap_percent).toBeGreaterThan(90);
      expect(best.target_overlap_percent).toBeGreaterThan(20);
      expect(best.target_overlap_percent).toBeLessThan(32);
      expect(Object.keys(res.json.stats)).toEqual(expect.arrayContaining(['total_results', 'total_filtered_results', 'total_returned_results', 'time_resize', 'time_search', 'time_total']));
    });

    it('finds rotated and recompressed copies, and returns nothing for an unrelated image', async () => {
      const rotated = await sharp(originals[4]).rotate(90).jpeg({ quality: 20 }).toBuffer();
      expect((await call(sys, 'match', 'search', { form: formWith([upload(rotated)]) })).json.result[0].filepath).toBe('art/cards/img4.jpg');
      const unrelated = await call(sys, 'match', 'search', { form: formWith([upload(await sceneJpeg(999, 800, 600))]) });
      expect(unrelated.json).toMatchObject({ status: 'ok', result: [], error: [] });
    });

    it('finds a shrunk, blurred, twice-recompressed copy of a smooth image, and no other smooth image', async () => {
      const add = await call(sys, 'match', 'add', { form: formWith([upload(await smoothJpeg(11), 'smooth/wall.jpg')]) });
      expect(add.json.status).toBe('ok');
      const copy = await call(sys, 'match', 'search', { form: formWith([upload(await smoothJpeg(11, true))]) });
      expect(copy.json.result[0]?.filepath).toBe('smooth/wall.jpg');
      const other = await call(sys, 'match', 'search', { form: formWith([upload(await smoothJpeg(12, true))]) });
      expect(other.json.result.map((r: { filepath: string }) => r.filepath)).not.toContain('smooth/wall.jpg');
      expect((await call(sys, 'match', 'delete', { query: { filepath: 'smooth/wall.jpg' } })).json.status).toBe('ok');
    });

    it('finds a mirrored copy only with check_horizontal_flip', async () => {
      const mirrored = await sharp(originals[1]).flop().jpeg().toBuffer();
      const without = await call(sys, 'match', 'search', { form: formWith([upload(mirrored)]) });
      expect(without.json.result.map((r: { filepath: string }) => r.filepath)).not.toContain('art/posters/img1.jpg');
      const withFlip = await call(sys, 'match', 'search', { form: formWith([upload(mirrored)], { check_horizontal_flip: 'true' }) });
      expect(withFlip.json.result[0].filepath).toBe('art/posters/img1.jpg');
    });

    it('returns a collection image first when searching by its filepath, and honours filters, offset and limit', async () => {
      const self = await call(sys, 'match', 'search', { query: { filepath: 'art/cards/img5.jpg' } });
      expect(self.json.result[0].filepath).toBe('art/cards/img5.jpg');
      expect(self.json.query_image).toEqual({ filepath: 'art/cards/img5.jpg' });
      const crop = await sharp(originals[0]).extract({ left: 0, top: 0, width: 600, height: 450 }).jpeg().toBuffer();
      const filteredOut = await call(sys, 'match', 'search', { form: formWith([upload(crop)], { path_filter: 'art/cards' }) });
      expect(filteredOut.json.result).toEqual([]);
      const byName = await call(sys, 'match', 'search', { form: formWith([upload(crop)], { name_filter: 'img[0-2].jpg' }) });
      expect(byName.json.result[0].filepath).toBe('art/posters/img0.jpg');
      const skipped = await call(sys, 'match', 'search', { form: formWith([upload(crop)], { offset: '1' }) });
      expect(skipped.json.result.map((r: { filepath: string }) => r.filepath)).not.toContain('art/posters/img0.jpg');
      expect(skipped.json.stats.total_results).toBeGreaterThanOrEqual(1);
    });

    it('renders an overlay the account can fetch: collection image and aligned query side by side', async () => {
      const crop = await sharp(originals[3]).extract({ left: 100, top: 100, width: 500, height: 400 }).rotate(15, { background: '#000' }).jpeg().toBuffer();
      const res = await call(sys, 'match', 'search', { form: formWith([upload(crop)], { generate_overlay: 'true', limit: '1' }) });
      const overlay = res.json.result[0].overlay as string;
      expect(overlay).toMatch(/^overlay\/[0-9a-f-]{36}\.jpg$/);
      const image = await fetch(`${sys.url}/match/acme/rest/${overlay}`, { headers: { authorization: AUTH } });
      expect(image.status).toBe(200);
      expect(image.headers.get('content-type')).toBe('image/jpeg');
      const meta = await sharp(Buffer.from(await image.arrayBuffer())).metadata();
      expect([meta.width, meta.height]).toEqual([1600, 600]);
      expect((await fetch(`${sys.url}/match/acme/rest/${overlay}`)).status).toBe(401);
      const other = await fetch(`${sys.url}/match/beta/rest/${overlay}`, { headers: { authorization: `Basic ${Buffer.from('bob:builder').toString('base64')}` } });
      expect(other.status).toBe(404);
    });

    it('compares two uploads with enhanced and color scores, and refuses mixed, tiny and flat inputs', async () => {
      const crop = await sharp(originals[0]).extract({ left: 100, top: 50, width: 500, height: 400 }).jpeg().toBuffer();
      const form = formWith([upload(originals[0], 'orig.jpg', 'image1'), upload(crop, 'crop.jpg', 'image2')], {
        compute_enhanced_score: 'true', compare_color: 'true', generate_overlay: 'true',
      });
      const res = await call(sys, 'match', 'compare', { form });
      expect(res.json.status).toBe('ok');
      expect(res.json.query_image).toEqual({ filepath: 'orig.jpg' });
      const [item] = res.json.result;
      expect(item.filepath).toBe('crop.jpg');
      expect(item.score).toBeGreaterThan(50);
      expect(item.score_enhanced).toBeGreaterThan(50);
      expect(item.score_color).toBeGreaterThan(80);
      expect(item.compare_color.color_percent_diff).toBeLessThan(20);
      expect(Object.keys(res.json.stats)).toEqual(['time_download', 'time_resize', 'time_compare', 'time_total']);

      const different = await call(sys, 'match', 'compare', { form: formWith([upload(originals[0], 'a.jpg', 'image1'), upload(originals[5], 'b.jpg', 'image2')]) });
      expect(different.json).toMatchObject({ status: 'ok', result: [] });

      const mixed = await call(sys, 'match', 'compare', { form: formWith([upload(originals[0], 'a.jpg', 'image1')], { url2: 'http://example.com/x.jpg' }) });
      expect(mixed.json.error).toEqual(['Please send both images as uploads or both as URLs, not a mixture of the two.']);
      const tiny = await call(sys, 'match', 'compare', { form: formWith([upload(await sceneJpeg(5, 20, 20), 'tiny.jpg', 'image1')], { filepath2: 'art/cards/img5.jpg' }) });
      expect(tiny.json.status).toBe('fail');
      expect(tiny.json.error[0]).toMatch(/^tiny\.jpg: The image is too small/);
      const flat = await call(sys, 'match', 'search', { form: formWith([upload(await flatJpeg(), 'flat.jpg')]) });
      expect(flat.json.status).toBe('fail');
      expect(flat.json.error[0]).toBe('flat.jpg: The image is essentially a single flat color; there is nothing in it to recognize.');
      const none = await call(sys, 'match', 'search', { method: 'POST' });
      expect(none.json.error).toEqual(['Please specify a query image: image, filepath or url.']);
    });

    it('replaces an existing path on the match service, and mobile search runs on the same engine', async () => {
      const replacement = await sceneJpeg(777, 800, 600);
      const add = await call(sys, 'match', 'add', { form: formWith([upload(replacement, 'art/cards/img5.jpg')]) });
      expect(add.json.status).toBe('ok');
      expect((await call(sys, 'match', 'count')).json.result).toEqual([6]);
      const found = await call(sys, 'match', 'search', { form: formWith([upload(replacement)]) });
      expect(found.json.result[0].filepath).toBe('art/cards/img5.jpg');
      const old = await call(sys, 'match', 'search', { form: formWith([upload(originals[5])]) });
      expect(old.json.result.map((r: { filepath: string }) => r.filepath)).not.toContain('art/cards/img5.jpg');

      expect((await call(sys, 'mobile', 'add', { form: formWith([upload(originals[1], 'm/one.jpg')]) })).json.status).toBe('ok');
      const mobile = await call(sys, 'mobile', 'search', { form: formWith([upload(await sharp(originals[1]).resize(300).jpeg().toBuffer())]) });
      expect(mobile.json.result.map((r: { filepath: string }) => r.filepath)).toEqual(['m/one.jpg']);
    });
  });
}
