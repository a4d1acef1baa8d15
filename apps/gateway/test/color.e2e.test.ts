import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, formWith, MODES, startTestSystem, TestSystem } from './harness';
import { bandsPng, framedPng } from './color-images';

const BLUE = '1f4e9c';
const RED = 'd81e1e';
const YELLOW = 'f2d14a';
const WHITE = 'ffffff';
const GREEN = '2e7d32';

const keys = (o: Record<string, unknown>) => Object.keys(o).sort();
const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@' });

function post(sys: TestSystem, operation: string, fields: Record<string, string>, files: Array<{ field: string; data: Buffer; filename: string }> = []) {
  return call(sys, 'color', operation, { form: formWith(files, fields) });
}

for (const mode of MODES) {
  describe.skipIf(!mode.enabled)(`color service over HTTP (${mode.name})`, () => {
    let sys: TestSystem;
    beforeAll(async () => {
      sys = await startTestSystem(mode.name);
      // The collection every test below reads: known colors, known metadata.
      const files = await Promise.all([
        bandsPng([{ hex: BLUE, percent: 90 }, { hex: YELLOW, percent: 10 }]).then((data) => ({ field: 'images[0]', data, filename: 'sea/blue.png' })),
        bandsPng([{ hex: RED, percent: 100 }]).then((data) => ({ field: 'images[1]', data, filename: 'fire/red.png' })),
        bandsPng([{ hex: BLUE, percent: 50 }, { hex: RED, percent: 50 }]).then((data) => ({ field: 'images[2]', data, filename: 'sea/half.png' })),
        bandsPng([{ hex: GREEN, percent: 70 }, { hex: WHITE, percent: 30 }]).then((data) => ({ field: 'images[3]', data, filename: 'land/green.png' })),
      ]);
      const update = await post(sys, 'update', {
        'metadata[0]': JSON.stringify({ keywords: ['Whale', 'sea'], price: { action: 'return', type: 'float', '': '49.5' }, year: { type: 'uint', '': '2019' } }),
        'metadata[1]': '<metadata><keywords>fire</keywords><price action="return" type="float">10</price><year type="uint">2021</year></metadata>',
        'metadata[2]': JSON.stringify({ keywords: 'sea', price: { action: 'return', type: 'float', '': 25 }, brand: 'acme' }),
        'metadata[3]': JSON.stringify({ keywords: ['land'], year: { type: 'uint', '': 2020 }, released: { type: 'date', '': '2020-06-01' } }),
      }, files);
      expect(update.json).toMatchObject({ method: 'update', status: 'ok', error: [], result: [] });
    });
    afterAll(async () => {
      await sys?.destroy();
    });

    it('updates with time_update in its stats and reports fingerprint 0 in get_info', async () => {
      const again = await post(sys, 'update', { filepath: 'tmp/x.png' }, [{ field: 'image', data: await bandsPng([{ hex: WHITE, percent: 100 }]), filename: 'ignored.png' }]);
      expect(again.json.status).toBe('ok');
      expect(keys(again.json.stats)).toEqual(['time_download', 'time_resize', 'time_total', 'time_update']);
      const info = await call(sys, 'color', 'get_info', { query: { 'filepaths[0]': 'sea/blue.png', 'filepaths[1]': 'nope.png' } });
      expect(info.json.result[0]).toMatchObject({ filepath: 'sea/blue.png', width: 300, height: 200, fingerprint: 0, status: 'healthy' });
      expect(info.json.result[1]).toMatchObject({ filepath: 'nope.png', status: 'missing' });
      expect(keys(info.json.stats)).toEqual(['time_get_info', 'time_total']);
    });

    it('replaces an existing path on update, with its new colors and metadata', async () => {
      const before = (await call(sys, 'color', 'count')).json.result[0];
      const replace = await post(sys, 'update', { filepath: 'tmp/x.png', metadata: '{"keywords": "replaced"}' }, [
        { field: 'image', data: await bandsPng([{ hex: GREEN, percent: 100 }]), filename: 'y.png' },
      ]);
      expect(replace.json.status).toBe('ok');
      expect((await call(sys, 'color', 'count')).json.result[0]).toBe(before);
      const meta = await call(sys, 'color', 'get_metadata', { query: { filepath: 'tmp/x.png' } });
      expect(meta.json.result).toEqual([{ filepath: 'tmp/x.png', metadata: { keywords: ['replaced'] } }]);
      const colors = await call(sys, 'color', 'extract_collection_colors', { query: { 'filepaths[0]': 'tmp/x.png', color_format: 'hex' } });
      expect(colors.json.result).toHaveLength(1);
      expect(colors.json.result[0]).toMatchObject({ color: GREEN, rank: 1, weight: 100 });
      const del = await call(sys, 'color', 'delete', { method: 'DELETE', query: { filepath: 'tmp/x.png' } });
      expect(del.json.status).toBe('ok');
      expect((await call(sys, 'color', 'list', { query: { limit: '0' } })).json.result).toEqual(['sea/blue.png', 'fire/red.png', 'sea/half.png', 'land/green.png']);
      expect((await call(sys, 'color', 'ping')).json.status).toBe('ok');
    });

    it('ranks the image mostly of the query blue first and scores the red image near 0', async () => {
      // min_score 0: every image, the unrelated red one too (the default floor would leave it out).
      const search = await post(sys, 'color_search', { 'colors[0]': BLUE, limit: '0', min_score: '0' });
      expect(search.json.status).toBe('ok');
      const scores = Object.fromEntries(search.json.result.map((r: { filepath: string; score: number }) => [r.filepath, r.score]));
      expect(search.json.result[0].filepath).toBe('sea/blue.png');
      expect(scores['sea/blue.png']).toBeGreaterThanOrEqual(85);
      expect(scores['sea/half.png']).toBeGreaterThan(40);
      expect(scores['sea/half.png']).toBeLessThan(60);
      expect(scores['fire/red.png']).toBeLessThan(5);
      expect(keys(search.json.result[0])).toEqual(['filepath', 'score']);
      expect(keys(search.json.stats)).toEqual(['time_resize', 'time_search', 'time_total', 'total_filtered_results', 'total_results', 'total_returned_results']);
      expect(search.json.stats).toMatchObject({ total_results: 4, total_filtered_results: 4, total_returned_results: 4 });
    });

    it('applies weights, a wildcard, min_score, offset and limit', async () => {
      const weighted = await post(sys, 'color_search', { 'colors[0]': '31, 78, 156', 'colors[1]': `#${RED}`, 'weights[0]': '50', 'weights[1]': '50' });
      expect(weighted.json.result[0].filepath).toBe('sea/half.png');
      expect(weighted.json.result[0].score).toBeGreaterThan(90);
      const wildcard = await post(sys, 'color_search', { 'colors[0]': BLUE, 'colors[1]': 'wildcard', 'weights[0]': '50', 'weights[1]': '50' });
      expect(wildcard.json.result.find((r: { filepath: string }) => r.filepath === 'sea/half.png').score).toBeGreaterThan(90);
      const min = await post(sys, 'color_search', { 'colors[0]': BLUE, min_score: '40' });
      expect(min.json.result.map((r: { filepath: string }) => r.filepath)).toEqual(['sea/blue.png', 'sea/half.png']);
      expect(min.json.stats.total_filtered_results).toBe(2);
      const page = await post(sys, 'color_search', { 'colors[0]': BLUE, offset: '1', limit: '1' });
      expect(page.json.result.map((r: { filepath: string }) => r.filepath)).toEqual(['sea/half.png']);
      // The default min_score (15) leaves out the red and green images, which hold no blue.
      expect(page.json.stats).toMatchObject({ total_filtered_results: 2, total_returned_results: 1 });
    });

    it('searches by collection path, upload and URL, echoing the query image', async () => {
      const byPath = await post(sys, 'color_search', { filepath: 'sea/blue.png' });
      expect(byPath.json.query_image).toEqual({ filepath: 'sea/blue.png' });
      expect(byPath.json.result[0]).toEqual({ filepath: 'sea/blue.png', score: expect.any(Number) });
      expect(byPath.json.result[0].score).toBeGreaterThan(95);
      const upload = await post(sys, 'color_search', {}, [{ field: 'image', data: await bandsPng([{ hex: RED, percent: 95 }, { hex: WHITE, percent: 5 }]), filename: 'q.png' }]);
      expect(upload.json.query_image).toEqual({ filepath: 'q.png' });
      expect(upload.json.result[0].filepath).toBe('fire/red.png');
      expect(upload.json.stats.time_resize).toBeGreaterThan(0);

      const png = await bandsPng([{ hex: GREEN, percent: 100 }]);
      const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(png));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const open = await startTestSystem(mode.name, { ALLOW_PRIVATE_URLS: 'true' });
      try {
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/g.png`;
        await post(open, 'update', { url, filepath: 'web/green.png' });
        const byUrl = await post(open, 'color_search', { url });
        expect(byUrl.json.result[0].filepath).toBe('web/green.png');
        expect(byUrl.json.stats.time_download).toBeGreaterThan(0);
        const extracted = await post(open, 'extract_image_colors', { 'urls[0]': url, color_format: 'hex' });
        expect(extracted.json.result[0]).toMatchObject({ color: GREEN, weight: 100 });
        expect(keys(extracted.json.stats)).toEqual(['time_download', 'time_extract', 'time_resize', 'time_total']);
      } finally {
        await open.destroy();
        server.close();
      }
    });

    it('filters searches by metadata in JSON and XML, with score_metadata, return_metadata and sorting', async () => {
      const sea = await post(sys, 'color_search', { 'colors[0]': BLUE, metadata: '{"keywords": "SEA"}' });
      expect(sea.json.result.map((r: { filepath: string }) => r.filepath)).toEqual(['sea/blue.png', 'sea/half.png']);
      expect(sea.json.result[0]).toEqual({ filepath: 'sea/blue.png', score: expect.any(Number), metadata: { price: 49.5 }, score_metadata: 100 });
      expect(sea.json.stats.total_results).toBe(2);

      const either = await post(sys, 'color_search', {
        metadata: '<metadata><_or_operator_><item><keywords>whale</keywords></item><item><keywords>sea</keywords></item></_or_operator_></metadata>',
        sort_metadata: 'true',
      });
      expect(either.json.result).toEqual([
        { filepath: 'sea/blue.png', metadata: { price: 49.5 }, score_metadata: 100 },
        { filepath: 'sea/half.png', metadata: { price: 25 }, score_metadata: 50 },
      ]);

      const range = await post(sys, 'color_search', { metadata: '{"year": {"type": "uint", "min": 2020}}', return_metadata: '{"year": {"sort": "desc", "": null}}' });
      expect(range.json.result.map((r: { filepath: string; metadata: { year: number } }) => [r.filepath, r.metadata.year])).toEqual([
        ['fire/red.png', 2021], ['land/green.png', 2020],
      ]);
      const dates = await post(sys, 'color_search', { metadata: '{"released": {"type": "date", "min": "2020-01-01", "max": "2020-12-31"}}' });
      expect(dates.json.result.map((r: { filepath: string }) => r.filepath)).toEqual(['land/green.png']);
      const equals = await post(sys, 'color_search', { 'colors[0]': RED, metadata: '{"brand": "acme", "price": {"type": "float", "": "25"}}' });
      expect(equals.json.result.map((r: { filepath: string }) => r.filepath)).toEqual(['sea/half.png']);

      const asXml = await call(sys, 'color', 'color_search', { method: 'POST', query: { 'colors[0]': BLUE, metadata: '{"keywords": "whale"}', format: 'xml' } });
      const doc = xml.parse(asXml.text).data;
      expect(doc.result.item).toMatchObject({ filepath: 'sea/blue.png', metadata: { price: 49.5 }, score_metadata: 100 });
    });

    it('restricts searches with name_filter (file name) and path_filter (folder) globs', async () => {
      const named = await post(sys, 'color_search', { 'colors[0]': BLUE, name_filter: 'h*.png' });
      expect(named.json.result.map((r: { filepath: string }) => r.filepath)).toEqual(['sea/half.png']);
      const pathed = await post(sys, 'color_search', { 'colors[0]': BLUE, path_filter: 'sea', limit: '0' });
      expect(pathed.json.result.map((r: { filepath: string }) => r.filepath).sort()).toEqual(['sea/blue.png', 'sea/half.png']);
      const none = await post(sys, 'color_search', { 'colors[0]': BLUE, path_filter: 'sea/*' });
      expect(none.json.result).toEqual([]);
    });

    it('extracts the colors of uploaded images with known areas, in rgb and hex, combined and limited', async () => {
      const image = await bandsPng([{ hex: BLUE, percent: 75 }, { hex: YELLOW, percent: 25 }]);
      const rgb = await post(sys, 'extract_image_colors', {}, [{ field: 'image', data: image, filename: 'a.png' }]);
      expect(rgb.json.status).toBe('ok');
      expect(keys(rgb.json.stats)).toEqual(['time_extract', 'time_resize', 'time_total']);
      const blue = rgb.json.result.find((r: { color: number[] }) => r.color[2] > 120);
      expect(blue).toMatchObject({ color: [31, 78, 156], class: expect.stringMatching(/blue/) });
      expect(blue.weight).toBeCloseTo(75, 0);
      expect(rgb.json.result.map((r: { rank: number }) => r.rank)).toEqual([1, 2]);
      const two = await post(sys, 'extract_image_colors', { color_format: 'hex', limit: '2' }, [
        { field: 'images[0]', data: image, filename: 'a.png' },
        { field: 'images[1]', data: await bandsPng([{ hex: RED, percent: 60 }, { hex: GREEN, percent: 40 }]), filename: 'b.png' },
      ]);
      expect(two.json.result).toHaveLength(2);
      expect(two.json.result.map((r: { color: string }) => r.color).sort()).toEqual([BLUE, RED].sort());
      expect(two.json.result.reduce((s: number, r: { weight: number }) => s + r.weight, 0)).toBeCloseTo(100, 5);
      const one = await post(sys, 'extract_image_colors', { target_number_colors: '1' }, [{ field: 'image', data: image, filename: 'a.png' }]);
      expect(one.json.result).toHaveLength(1);
    });

    it('ignores the background when asked, at update and at extraction', async () => {
      const framed = await framedPng(`#${RED}`, '#ffffff', 0.25);
      const plain = await post(sys, 'extract_image_colors', { color_format: 'hex' }, [{ field: 'image', data: framed, filename: 'f.png' }]);
      expect(plain.json.result.map((r: { color: string }) => r.color)).toContain(WHITE);
      const ignored = await post(sys, 'extract_image_colors', { color_format: 'hex', ignore_background: 'true' }, [{ field: 'image', data: framed, filename: 'f.png' }]);
      expect(ignored.json.result).toEqual([{ color: RED, rank: 1, class: expect.any(String), weight: 100 }]);
    });

    it('counts images containing each color partly and mostly, echoing the color form', async () => {
      const count = await post(sys, 'count_image_colors', { 'count_colors[0]': BLUE, 'count_colors[1]': '216,30,30' }, [
        { field: 'images[0]', data: await bandsPng([{ hex: BLUE, percent: 90 }, { hex: RED, percent: 10 }]), filename: 'a.png' },
        { field: 'images[1]', data: await bandsPng([{ hex: BLUE, percent: 30 }, { hex: WHITE, percent: 70 }]), filename: 'b.png' },
      ]);
      expect(count.json.result).toEqual([
        { color: BLUE, num_images_partial_area: 2, num_images_full_area: 1, class: expect.stringMatching(/blue/) },
        { color: [216, 30, 30], num_images_partial_area: 1, num_images_full_area: 0, class: expect.stringMatching(/red/) },
      ]);
      expect(keys(count.json.stats)).toEqual(['time_count', 'time_resize', 'time_total']);
      const collection = await post(sys, 'count_collection_colors', { 'count_colors[0]': BLUE, 'count_colors[1]': RED });
      // blue: sea/blue.png (90 %) and sea/half.png (50 %, which reaches the lib's "mostly" floor of 50 %); red likewise.
      expect(collection.json.result.map((r: { num_images_partial_area: number; num_images_full_area: number }) => [r.num_images_partial_area, r.num_images_full_area])).toEqual([
        [2, 2], [2, 2],
      ]);
      const green = await post(sys, 'count_collection_colors', { 'count_colors[0]': GREEN, 'count_colors[1]': WHITE, metadata: '{"keywords": "land"}' });
      expect(green.json.result.map((r: { num_images_partial_area: number; num_images_full_area: number }) => [r.num_images_partial_area, r.num_images_full_area])).toEqual([
        [1, 1], [1, 0],
      ]);
    });

    it('extracts collection colors for the whole collection and for metadata, color and path scopes', async () => {
      const all = await call(sys, 'color', 'extract_collection_colors', { query: { color_format: 'hex' } });
      expect(all.json.result.map((r: { color: string }) => r.color)).toEqual(expect.arrayContaining([BLUE, RED, GREEN]));
      expect(keys(all.json.stats)).toEqual(['time_extract', 'time_total']);
      const land = await call(sys, 'color', 'extract_collection_colors', { query: { color_format: 'hex', metadata: '{"keywords": "land"}' } });
      expect(land.json.result.map((r: { color: string }) => r.color).sort()).toEqual([GREEN, WHITE].sort());
      const reds = await call(sys, 'color', 'extract_collection_colors', { query: { 'colors[0]': RED, 'weights[0]': '100', color_format: 'hex', limit: '1' } });
      expect(reds.json.result).toEqual([{ color: RED, rank: 1, class: expect.any(String), weight: 100 }]);
      const partly = await call(sys, 'color', 'extract_collection_colors', { query: { 'filepaths[0]': 'fire/red.png', 'filepaths[1]': 'ghost.png' } });
      expect(partly.json).toMatchObject({ status: 'warn', error: ['ghost.png: This file does not exist in the image collection.'] });
      expect(partly.json.result[0].color).toEqual([216, 30, 30]);
    });

    it('counts metadata queries in order with the query echoed, in JSON and with a count attribute in XML', async () => {
      const query = { 'count_metadata[0]': '{"keywords": "sea"}', 'count_metadata[1]': '{"year": {"type": "uint", "min": 2020}}', 'count_metadata[2]': '{"keywords": "nothing"}' };
      const json = await call(sys, 'color', 'count_metadata', { query });
      expect(json.json.result).toEqual([{ metadata: [
        { 'count-metadata': { count: '2', '': { keywords: 'sea' } } },
        { 'count-metadata': { count: '2', '': { year: { type: 'uint', min: 2020 } } } },
        { 'count-metadata': { count: '0', '': { keywords: 'nothing' } } },
      ] }]);
      expect(keys(json.json.stats)).toEqual(['time_count', 'time_total']);
      const scoped = await call(sys, 'color', 'count_metadata', { query: { ...query, 'colors[0]': BLUE, min_score: '40' } });
      expect(scoped.json.result[0].metadata.map((m: { 'count-metadata': { count: string } }) => m['count-metadata'].count)).toEqual(['2', '0', '0']);
      const asXml = await call(sys, 'color', 'count_metadata', { query: { ...query, format: 'xml' } });
      expect(asXml.text).toContain('<count-metadata count="2"><keywords>sea</keywords></count-metadata>');
    });

    it('updates metadata alone and lists the keys for search and return', async () => {
      const upd = await post(sys, 'update_metadata', { 'filepaths[0]': 'land/green.png', 'metadata[0]': '{"keywords": ["land", "forest"], "price": {"action": "return", "type": "float", "": 5}}', 'filepaths[1]': 'ghost.png', 'metadata[1]': '{}' });
      expect(upd.json).toMatchObject({ status: 'warn', error: ['ghost.png: This file does not exist in the image collection.'] });
      const found = await post(sys, 'color_search', { metadata: '{"keywords": "forest"}' });
      expect(found.json.result).toEqual([{ filepath: 'land/green.png', metadata: { price: 5 }, score_metadata: 100 }]);
      const search = await call(sys, 'color', 'get_search_metadata');
      const byKey = Object.fromEntries(search.json.result.map((r: { key: string }) => [r.key, r]));
      expect(byKey.price).toEqual({ key: 'price', type: 'float', count: 4 });
      expect(byKey.keywords.keywords).toEqual(expect.arrayContaining([{ keyword: 'sea', count: 2 }, { keyword: 'forest', count: 1 }]));
      const ret = await call(sys, 'color', 'get_return_metadata');
      expect(ret.json.result).toEqual([{ key: 'price', type: 'float', count: 4 }]);
    });

    it('refuses bad color queries with a fail envelope naming the problem', async () => {
      const fail = async (fields: Record<string, string>, message: string | RegExp) => {
        const res = await post(sys, 'color_search', fields);
        expect(res.status).toBe(200);
        expect(res.json.status).toBe('fail');
        expect(res.json.result).toEqual([]);
        expect(res.json.error[0]).toMatch(message);
      };
      const six = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`colors[${i}]`, BLUE]));
      await fail(six, 'At most 5 colors may be sent per search; 6 were sent.');
      await fail({ 'colors[0]': BLUE, 'colors[1]': RED, 'weights[0]': '50', 'weights[1]': '40' }, 'The weights must sum to 100; they sum to 90.');
      await fail({ 'colors[0]': BLUE, 'colors[1]': RED, 'weights[0]': '100' }, 'Please specify the same number of weights as colors.');
      await fail({ 'weights[0]': '100' }, /^weights\[n\] were sent without colors\[n\]/);
      await fail({ 'colors[0]': BLUE, 'weights[0]': '0' }, 'weights[0]: "0" is not an integer from 1 to 100.');
      await fail({ 'colors[0]': '300,0,0' }, /^colors\[0\]: Invalid color "300,0,0"/);
      await fail({ 'colors[0]': 'bluish' }, /^colors\[0\]: Invalid color "bluish"/);
      await fail({ 'colors[0]': 'wildcard', 'colors[1]': 'wildcard' }, 'Only one of the colors may be a wildcard.');
      await fail({ 'colors[0]': BLUE, metadata: '{"keywords": ' }, /^metadata: the metadata is not valid JSON or XML/);
      await fail({ 'colors[0]': BLUE, metadata: '<metadata><keywords>sea</metadata>' }, /^metadata: the metadata is not valid XML/);
      await fail({ 'colors[0]': BLUE, metadata: '{"year": {"type": "uint", "": "soon"}}' }, 'metadata: "soon" is not a valid uint for "year".');
      await fail({ filepath: 'ghost.png' }, 'ghost.png: This file does not exist in the image collection.');
      await fail({ filepath: 'sea/blue.png', 'colors[0]': BLUE }, 'Please specify only one of image, filepath, url or colors[n].');
      await fail({}, 'Please specify image, filepath, url, colors[n] or metadata.');
      await fail({ 'colors[0]': BLUE, min_score: '101' }, 'min_score: 101 is above the maximum of 100.');
      const corrupt = await post(sys, 'color_search', {}, [{ field: 'image', data: Buffer.from('not an image'), filename: 'junk.png' }]);
      expect(corrupt.json).toMatchObject({ status: 'fail', error: [expect.stringMatching(/^junk\.png: .*format/)] });

      const badUpdate = await post(sys, 'update', { metadata: '<metadata><keywords>x</metadata>' }, [{ field: 'image', data: await bandsPng([{ hex: BLUE, percent: 100 }]), filename: 'z.png' }]);
      expect(badUpdate.json).toMatchObject({ status: 'fail', error: [expect.stringMatching(/^metadata\[0\]: the metadata is not valid XML/)] });
      const noWildcard = await call(sys, 'color', 'extract_collection_colors', { query: { 'colors[0]': 'wildcard' } });
      expect(noWildcard.json.error).toEqual(['colors[0]: a wildcard is allowed only in color_search.']);
      const unknownScope = await call(sys, 'color', 'count_collection_colors', { query: { 'count_colors[0]': BLUE, 'filepaths[0]': 'ghost.png' } });
      expect(unknownScope.json).toMatchObject({ status: 'fail', result: [], error: ['ghost.png: This file does not exist in the image collection.'] });
      const noCounts = await post(sys, 'count_image_colors', {}, [{ field: 'image', data: await bandsPng([{ hex: BLUE, percent: 100 }]), filename: 'z.png' }]);
      expect(noCounts.json.error).toEqual(['Please specify the colors to count: count_colors[n].']);
      const badFormat = await call(sys, 'color', 'extract_collection_colors', { query: { color_format: 'cmyk' } });
      expect(badFormat.json.error).toEqual(['color_format: "cmyk" is not valid; use rgb or hex.']);
    });

    it('renders every answer in XML too', async () => {
      const search = await call(sys, 'color', 'color_search', { method: 'POST', query: { 'colors[0]': BLUE, limit: '1', format: 'xml' } });
      expect(search.text).toMatch(/<data><method>color_search<\/method><status>ok<\/status><error\/><result><item><filepath>sea\/blue.png<\/filepath><score>[\d.]+<\/score><\/item><\/result><stats><total_results>4<\/total_results>/);
      const extract = await call(sys, 'color', 'extract_collection_colors', { query: { 'filepaths[0]': 'fire/red.png', format: 'xml' } });
      expect(extract.text).toContain('<result><item><color><item>216</item><item>30</item><item>30</item></color><rank>1</rank><class>');
      const meta = await call(sys, 'color', 'get_metadata', { query: { filepath: 'sea/blue.png', format: 'xml' } });
      // Postgres orders jsonb keys its own way, so the elements are checked by name rather than by position.
      const stored = xml.parse(meta.text).data.result.item.metadata;
      expect(stored).toEqual({ keywords: { item: ['whale', 'sea'] }, price: { '#text': 49.5, type: 'float', action: 'return' }, year: { '#text': 2019, type: 'uint' } });
      const failing = await call(sys, 'color', 'color_search', { query: { 'colors[0]': 'nope', format: 'xml' } });
      expect(failing.text).toContain('<status>fail</status><error><item>colors[0]: Invalid color');
    });
  });
}
