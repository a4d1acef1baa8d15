import { LabelSpec, wineBottlePhoto, wineLabelJpeg } from '@loupe/ocr/src/testing/wine-photos';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, formWith, MODES, startTestSystem, TestSystem } from './harness';

const RIVEL: LabelSpec = {
  producer: 'Domaine Rivel', region: 'Pauillac', vintage: 2015, variety: 'Cabernet Sauvignon', country: 'France',
  colorText: 'Red Wine', extras: ['Grand Vin de Bordeaux'],
};
const COLLECTION: Record<string, LabelSpec> = {
  'labels/rivel-2015.jpg': RIVEL,
  // Near-twins: the same producer's label with another vintage, and with another variety.
  'labels/rivel-2016.jpg': { ...RIVEL, vintage: 2016 },
  'labels/rivel-merlot-2015.jpg': { ...RIVEL, variety: 'Merlot' },
  'labels/italy/bellavista.jpg': {
    producer: 'Tenuta Bellavista', region: 'Chianti Classico', vintage: 2018, variety: 'Sangiovese', country: 'Italy',
    colorText: 'Vino Rosso', layout: 1, font: 'sans-serif', paper: '#ffffff', ink: '#1a1a1a', accent: '#24476b',
  },
  'labels/spain/pradera.jpg': {
    producer: 'Bodegas Pradera', region: 'Rioja', vintage: 2012, variety: 'Tempranillo', country: 'Spain',
    colorText: 'Vino Tinto', extras: ['Reserva'], layout: 2, accent: '#5b1f3a', paper: '#efe6cf',
  },
};

const upload = (data: Buffer, filename: string, field = 'image') => ({ field, data, filename });
const photo = (spec: LabelSpec, seed = 5) => wineBottlePhoto(spec, { seed, perspective: 0.03, curvature: 0.35, blur: 0.8, glare: 0.3, jpegQuality: 75 });
const paths = (res: { json: { result: Array<{ filepath: string }> } }) => res.json.result.map((r) => r.filepath);

for (const mode of MODES) {
  describe.skipIf(!mode.enabled)(`wine-label service over HTTP (${mode.name})`, () => {
    let sys: TestSystem;

    beforeAll(async () => {
      sys = await startTestSystem(mode.name);
      const entries = Object.entries(COLLECTION);
      const files = await Promise.all(entries.map(async ([path, spec], i) => upload(await wineLabelJpeg(spec), path, `images[${i}]`)));
      const fields = Object.fromEntries(entries.map(([path], i) => [`image_ids[${i}]`, `id-${path.split('/').pop()}`]));
      const add = await call(sys, 'wine', 'add', { form: formWith(files, fields) });
      expect(add.json).toMatchObject({ method: 'add', status: 'ok', error: [], result: [] });
      expect(Object.keys(add.json.stats)).toEqual(['time_download', 'time_resize', 'time_detect_label', 'time_add', 'time_total']);
      expect(add.json.stats.time_detect_label).toBeGreaterThan(0);
    }, 240_000);
    afterAll(async () => {
      await sys?.destroy();
    });

    it('finds the photographed bottle\'s label first, with text score, label metadata and the query\'s metadata', async () => {
      const query = await photo(RIVEL);
      const res = await call(sys, 'wine', 'search', { form: formWith([upload(query.jpeg, 'shop/bottle.jpg')]) });
      expect(res.json.status).toBe('ok');
      const [best] = res.json.result;
      expect(best.filepath).toBe('labels/rivel-2015.jpg');
      expect(best.score).toBeGreaterThan(30);
      expect(best.score_text).toBeGreaterThan(60);
      // The query shows a year, so it is the one to use: the matched image's own year is left out
      // (docs/protocol.md §8).
      expect(best.metadata).toMatchObject({ variety_type: 'Cabernet Sauvignon', region_name: 'Pauillac', country_name: 'France', color_type: 'red', image_id: 'id-rivel-2015.jpg' });
      expect(best.metadata.vintage_year).toBeUndefined();
      expect(res.json.query_image.filepath).toBe('shop/bottle.jpg');
      const q = res.json.query_image.metadata;
      expect(q).toMatchObject({ vintage_year: 2015, variety_type: 'Cabernet Sauvignon', region_name: 'Pauillac', country_name: 'France' });
      expect(q.text_lines.join(' ')).toMatch(/Domaine Rivel/i);
      expect(q.text_tokens).toEqual(expect.arrayContaining(['domaine', 'rivel', 'pauillac', '2015']));
      // The label is found on the photo, where it was put.
      const truth = { left: (query.labelBox.x0 / query.width) * 100, right: (query.labelBox.x1 / query.width) * 100 };
      expect(q.label_rect.left).toBeCloseTo(truth.left, -1);
      expect(q.label_rect.right).toBeCloseTo(truth.right, -1);
      expect(Object.keys(res.json.stats)).toEqual([
        'total_results', 'total_filtered_results', 'total_returned_results', 'time_resize', 'time_detect_label', 'time_extract_text',
        'time_compare_text', 'time_search', 'time_total',
      ]);
      expect(res.json.stats.total_returned_results).toBe(res.json.result.length);
    });

    it('tells near-twins apart by their text: another vintage and another variety of the same producer', async () => {
      const vintage = await call(sys, 'wine', 'search', { form: formWith([upload((await photo({ ...RIVEL, vintage: 2016 }, 8)).jpeg, 'v.jpg')]) });
      expect(paths(vintage)[0]).toBe('labels/rivel-2016.jpg');
      const variety = await call(sys, 'wine', 'search', { form: formWith([upload((await photo({ ...RIVEL, variety: 'Merlot' }, 9)).jpeg, 'm.jpg')]) });
      expect(paths(variety)[0]).toBe('labels/rivel-merlot-2015.jpg');
      expect(variety.json.result[0].metadata.variety_type).toBe('Merlot');
      const twins = variety.json.result.filter((r: { filepath: string }) => r.filepath.startsWith('labels/rivel'));
      expect(twins.length).toBe(3);
      for (const t of twins) expect(typeof t.score_text).toBe('number');
    });

    it('offers the collection image\'s year only as a hint when the query shows none', async () => {
      const noYear = await wineBottlePhoto({ ...COLLECTION['labels/italy/bellavista.jpg'], vintage: undefined }, { seed: 2, curvature: 0.3, jpegQuality: 80 });
      const res = await call(sys, 'wine', 'search', { form: formWith([upload(noYear.jpeg, 'no-year.jpg')]) });
      expect(res.json.result[0].filepath).toBe('labels/italy/bellavista.jpg');
      expect(res.json.query_image.metadata.vintage_year).toBeUndefined();
      expect(res.json.result[0].metadata.vintage_year).toBe('2018');
      expect(res.json.result[0].metadata).toMatchObject({ region_name: 'Chianti Classico', country_name: 'Italy', variety_type: 'Sangiovese' });
    });

    it('tolerates OCR errors: a small, blurred, heavily compressed photo still finds its label with a text score', async () => {
      const spec = COLLECTION['labels/spain/pradera.jpg'];
      const poor = await wineBottlePhoto(spec, { seed: 4, perspective: 0.04, curvature: 0.45, blur: 1.6, glare: 0.5, jpegQuality: 35, width: 600 });
      const res = await call(sys, 'wine', 'search', { form: formWith([upload(poor.jpeg, 'poor.jpg')]) });
      expect(res.json.result[0].filepath).toBe('labels/spain/pradera.jpg');
      expect(res.json.result[0].score_text).toBeGreaterThan(30);
    });

    it('searches by collection filepath, honours filters, offset and limit, and answers XML', async () => {
      const self = await call(sys, 'wine', 'search', { query: { filepath: 'labels/rivel-2016.jpg' } });
      expect(paths(self)[0]).toBe('labels/rivel-2016.jpg');
      expect(self.json.query_image).toMatchObject({ filepath: 'labels/rivel-2016.jpg', metadata: { vintage_year: 2016 } });
      const query = (await photo(RIVEL, 11)).jpeg;
      const filtered = await call(sys, 'wine', 'search', { form: formWith([upload(query, 'q.jpg')], { name_filter: 'rivel-2016*' }) });
      expect(paths(filtered)).toEqual(['labels/rivel-2016.jpg']);
      const byPath = await call(sys, 'wine', 'search', { form: formWith([upload(query, 'q.jpg')], { path_filter: 'labels/italy' }) });
      expect(paths(byPath).every((p: string) => p.startsWith('labels/italy/'))).toBe(true);
      const all = await call(sys, 'wine', 'search', { form: formWith([upload(query, 'q.jpg')]) });
      const second = await call(sys, 'wine', 'search', { form: formWith([upload(query, 'q.jpg')], { offset: '1', limit: '1' }) });
      expect(paths(second)).toEqual([paths(all)[1]]);
      const xml = await call(sys, 'wine', 'search', { form: formWith([upload(query, 'q.jpg')], { format: 'xml', limit: '1' }) });
      expect(xml.text).toMatch(/<query_image><filepath>q.jpg<\/filepath><metadata>.*<vintage_year>2015<\/vintage_year>/s);
      expect(xml.text).toMatch(/<result><item><filepath>labels\/rivel-2015.jpg<\/filepath>.*<score_text>[\d.]+<\/score_text>.*<metadata>.*<image_id>id-rivel-2015.jpg<\/image_id>/s);
      expect(xml.text).toMatch(/<text_tokens><item>/);
    });

    it('renders overlays on request', async () => {
      const res = await call(sys, 'wine', 'search', { form: formWith([upload((await photo(RIVEL, 12)).jpeg, 'q.jpg')], { generate_overlay: 'true', limit: '1' }) });
      expect(res.json.result[0].overlay).toMatch(/^overlay\/[0-9a-f-]{36}\.jpg$/);
    });

    it('extracts label metadata of several images, with a message naming the one without a label', async () => {
      const a = await photo(COLLECTION['labels/italy/bellavista.jpg'], 21);
      const b = await wineLabelJpeg(COLLECTION['labels/spain/pradera.jpg']);
      const blank = await sharp({ create: { width: 400, height: 500, channels: 3, background: '#336699' } })
        .composite([{ input: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="400" height="500"><circle cx="200" cy="250" r="120" fill="#cc8844"/></svg>') }])
        .jpeg().toBuffer();
      const res = await call(sys, 'wine', 'extract_metadata', {
        form: formWith([upload(a.jpeg, 'a.jpg', 'images[0]'), upload(b, 'b.jpg', 'images[1]'), upload(blank, 'blank.jpg', 'images[2]')]),
      });
      expect(res.json.status).toBe('warn');
      expect(res.json.error).toEqual(['blank.jpg: No wine label was found in the image.']);
      expect(res.json.result.map((r: { filepath: string }) => r.filepath)).toEqual(['a.jpg', 'b.jpg']);
      expect(res.json.result[0].metadata).toMatchObject({ vintage_year: 2018, variety_type: 'Sangiovese', region_name: 'Chianti Classico', country_name: 'Italy', country_name_inferred: 'Italy' });
      expect(res.json.result[1].metadata).toMatchObject({ vintage_year: 2012, variety_type: 'Tempranillo', region_name: 'Rioja', country_name: 'Spain' });
      expect(res.json.result[1].metadata.text_tokens).toEqual(expect.arrayContaining(['bodegas', 'pradera', 'reserva']));
      expect(Object.keys(res.json.stats)).toEqual(['time_download', 'time_resize', 'time_detect_label', 'time_extract_text', 'time_total']);
    });

    it('extracts the text lines of an image, also from a URL, and in XML', async () => {
      const label = await wineLabelJpeg(RIVEL);
      const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/jpeg' }).end(label));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const open = await startTestSystem(mode.name, { ALLOW_PRIVATE_URLS: 'true' });
      try {
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/rivel.jpg`;
        const res = await call(open, 'wine', 'extract_text', { form: formWith([], { url }) });
        expect(res.json.status).toBe('ok');
        expect(res.json.result).toHaveLength(1);
        expect(res.json.result[0].filepath).toBe(url);
        expect(res.json.result[0].text_lines).toEqual(expect.arrayContaining(['Domaine Rivel', 'Pauillac', '2015', 'Cabernet Sauvignon']));
        expect(Object.keys(res.json.stats)).toEqual(['time_resize', 'time_detect_label', 'time_extract_text', 'time_total']);
        const meta = await call(open, 'wine', 'extract_metadata', { form: formWith([], { 'urls[0]': url, format: 'xml' }) });
        expect(meta.text).toContain(`<filepath>${url}</filepath><metadata>`);
        expect(meta.text).toContain('<vintage_year>2015</vintage_year>');
        expect(meta.text).toMatch(/<time_download>[\d.e-]+<\/time_download>/);
      } finally {
        server.close();
        await open.destroy();
      }
    }, 60_000);

    it('refuses a duplicate path, too many images, and too small images, naming each', async () => {
      const dup = await call(sys, 'wine', 'add', { form: formWith([upload(await wineLabelJpeg(RIVEL), 'labels/rivel-2015.jpg')]) });
      expect(dup.json).toMatchObject({ status: 'fail', error: ['labels/rivel-2015.jpg: This file already exists in the image collection.'] });
      const tiny = await sharp(await wineLabelJpeg(RIVEL)).resize({ width: 20 }).jpeg().toBuffer();
      const small = await call(sys, 'wine', 'search', { form: formWith([upload(tiny, 'tiny.jpg')]) });
      expect(small.json.status).toBe('fail');
      expect(small.json.error[0]).toMatch(/^tiny.jpg: The image is too small/);
      const extractTiny = await call(sys, 'wine', 'extract_metadata', { form: formWith([upload(tiny, 'tiny.jpg')]) });
      expect(extractTiny.json).toMatchObject({ status: 'fail', result: [] });
      expect(extractTiny.json.error[0]).toMatch(/^tiny.jpg: The image is too small/);
      const eleven = Array.from({ length: 11 }, (_, i) => upload(tiny, `t${i}.jpg`, `images[${i}]`));
      const many = await call(sys, 'wine', 'extract_text', { form: formWith(eleven) });
      expect(many.json).toMatchObject({ status: 'fail', error: ['At most 10 images or URLs may be sent per request; 11 were sent.'] });
      const manyAdds = await call(sys, 'wine', 'add', { form: formWith(eleven) });
      expect(manyAdds.json.status).toBe('fail');
      expect(manyAdds.json.error[0]).toMatch(/At most 10 images/);
    });

    it('deletes, lists, counts and pings like every collection service', async () => {
      await call(sys, 'wine', 'add', { form: formWith([upload(await wineLabelJpeg({ ...RIVEL, producer: 'Clos Temp' }), 'tmp/clos.jpg')]) });
      expect((await call(sys, 'wine', 'count')).json.result).toEqual([6]);
      expect((await call(sys, 'wine', 'list', { query: { limit: '0' } })).json.result).toContain('tmp/clos.jpg');
      expect((await call(sys, 'wine', 'delete', { method: 'DELETE', query: { filepath: 'tmp/clos.jpg' } })).json.status).toBe('ok');
      expect((await call(sys, 'wine', 'delete', { query: { filepath: 'tmp/clos.jpg' } })).json).toMatchObject({ status: 'warn' });
      expect((await call(sys, 'wine', 'count')).json.result).toEqual([5]);
      expect((await call(sys, 'wine', 'ping')).json).toMatchObject({ status: 'ok', result: [] });
    });
  });
}
