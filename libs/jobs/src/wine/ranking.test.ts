import { describe, expect, it } from 'vitest';
import type { WineLabelMetadata } from './contracts';
import { matchMetadata, rankByLabel, TEXT_ONLY_MIN_SCORE, TEXT_SCORED_RESULTS } from './ranking';

const rect = { left: 1, right: 2, top: 3, bottom: 4 };
const item = (filepath: string, score: number) => ({
  filepath, score, match_percent: 50, query_overlap_percent: 50, target_overlap_percent: 50, query_match_rect: rect, target_match_rect: rect,
});
const tokens = (text: string) => text.toLowerCase().split(/\s+/);

describe('wine search order', () => {
  const query: WineLabelMetadata = { vintage_year: 2016, variety_type: 'Merlot', text_tokens: tokens('domaine rivel pauillac 2016 merlot red wine') };

  it('puts the near-twin whose vintage and variety agree with the query first, even with a slightly lower image score', () => {
    const ranked = rankByLabel(
      [
        { item: item('rivel-2015-cab.jpg', 82), label: { vintage_year: 2015, variety_type: 'Cabernet Sauvignon', text_tokens: tokens('domaine rivel pauillac 2015 cabernet sauvignon red wine') } },
        { item: item('rivel-2016-merlot.jpg', 78), label: { vintage_year: 2016, variety_type: 'Merlot', text_tokens: tokens('domaine rivel pauillac 2016 merlot red wine') } },
        { item: item('rivel-2015-merlot.jpg', 80), label: { vintage_year: '2015', variety_type: 'Merlot', text_tokens: tokens('domaine rivel pauillac 2015 merlot red wine') } },
      ],
      query,
    );
    expect(ranked.map((r) => r.item.filepath)).toEqual(['rivel-2016-merlot.jpg', 'rivel-2015-merlot.jpg', 'rivel-2015-cab.jpg']);
    expect(ranked[0].item.score_text).toBe(100);
  });

  it('takes a label printed Shiraz and one printed Syrah for the same variety', () => {
    const shiraz: WineLabelMetadata = { vintage_year: 2016, variety_type: 'Shiraz', text_tokens: tokens('domaine rivel barossa 2016 red wine') };
    const ranked = rankByLabel(
      [
        { item: item('rivel-merlot.jpg', 80), label: { vintage_year: 2016, variety_type: 'Merlot', text_tokens: tokens('domaine rivel barossa 2016 red wine') } },
        { item: item('rivel-syrah.jpg', 78), label: { vintage_year: 2016, variety_type: 'Syrah', text_tokens: tokens('domaine rivel barossa 2016 red wine') } },
      ],
      shiraz,
    );
    expect(ranked.map((r) => r.item.filepath)).toEqual(['rivel-syrah.jpg', 'rivel-merlot.jpg']);
  });

  it('does not let text alone lift a weak image match over a strong one when the text identifies no label', () => {
    // A poorly read photo: no candidate reads >= TEXT_ONLY_MIN_SCORE, so the image scores count in full.
    const poorRead = { text_tokens: tokens('tenuta bellavista chianti rosso riserva') };
    const ranked = rankByLabel(
      [
        { item: item('strong.jpg', 95), label: { text_tokens: tokens('tenuta bellavista chianti classico montalcino toscana red wine') } },
        { item: item('weak.jpg', 34), label: { text_tokens: tokens('tenuta bellavista chianti rosso estate bottled') } },
      ],
      poorRead,
    );
    expect(ranked[0].item.score_text).toBeLessThan(TEXT_ONLY_MIN_SCORE);
    expect(ranked[1].item.score_text).toBeLessThan(TEXT_ONLY_MIN_SCORE);
    expect(ranked[1].item.score_text!).toBeGreaterThan(ranked[0].item.score_text!);
    expect(ranked.map((r) => r.item.filepath)).toEqual(['strong.jpg', 'weak.jpg']);
  });

  it('ranks the label its text identifies above a strong image match of another producer\'s label of the same design', () => {
    // Bench miss: the look-alike verified with ~110 inliers (score 97.7) and read 35.8; the photo's own label,
    // wrapped round the bottle, did not verify and was found by its text (98.6).
    const photo: WineLabelMetadata = { vintage_year: 1997, variety_type: 'Agiorgitiko', text_tokens: tokens('quinta serrano alder nemea 1997 agiorgitiko red wine product of greece') };
    const ranked = rankByLabel(
      [
        { item: item('lookalike.jpg', 97.7), label: { vintage_year: 2009, variety_type: 'Syrah', text_tokens: tokens('bodegas corvo rioja 2009 syrah red wine product of spain') } },
        { item: item('own.jpg', 0), label: { vintage_year: 1997, variety_type: 'Agiorgitiko', text_tokens: tokens('quinta serrano alder nemea 1997 agiorgitiko red wine product of greece') } },
      ],
      photo,
    );
    expect(ranked.map((r) => r.item.filepath)).toEqual(['own.jpg', 'lookalike.jpg']);
    expect(ranked[0].item.score).toBe(0);
  });

  it('lets the read vintage decide between near-twins even when only the other twin verified by image', () => {
    const twinLabel = (year: number): WineLabelMetadata => ({ vintage_year: year, variety_type: 'Merlot', text_tokens: tokens(`domaine rivel pauillac ${year} merlot red wine`) });
    const ranked = rankByLabel(
      [
        { item: item('rivel-2015.jpg', 96), label: twinLabel(2015) },
        { item: item('rivel-2016.jpg', 0), label: twinLabel(2016) },
      ],
      query,
    );
    expect(ranked.map((r) => r.item.filepath)).toEqual(['rivel-2016.jpg', 'rivel-2015.jpg']);
  });

  it('does not let an image score that text cannot judge override the read variety between near-twins', () => {
    // Both twins read the same words but for the variety; the query read Merlot.
    const ranked = rankByLabel(
      [
        { item: item('rivel-cab.jpg', 99), label: { vintage_year: 2016, variety_type: 'Cabernet Franc', text_tokens: tokens('domaine rivel pauillac 2016 cabernet franc red wine') } },
        { item: item('rivel-merlot.jpg', 40), label: { vintage_year: 2016, variety_type: 'Merlot', text_tokens: tokens('domaine rivel pauillac 2016 merlot red wine') } },
      ],
      query,
    );
    expect(ranked[0].item.filepath).toBe('rivel-merlot.jpg');
  });

  it('ranks labels matched by text alone among the image matches even when more than 10 images verified', () => {
    const lookalikes = Array.from({ length: 12 }, (_, i) => ({
      item: item(`other${String(i).padStart(2, '0')}.jpg`, 90 - i),
      label: { text_tokens: tokens(`chateau morrow${i} margaux 2011 cabernet sauvignon red wine`) },
    }));
    const own = { item: item('own.jpg', 0), label: { vintage_year: 2016, variety_type: 'Merlot', text_tokens: query.text_tokens } };
    const ranked = rankByLabel([...lookalikes, own], query);
    expect(ranked[0].item.filepath).toBe('own.jpg');
    expect(ranked[0].item.score_text).toBe(100);
    expect(ranked).toHaveLength(13);
    expect(ranked.filter((r) => r.item.score_text !== undefined)).toHaveLength(TEXT_SCORED_RESULTS);
  });

  it('scores text for the top 10 only and keeps image order below them', () => {
    const many = Array.from({ length: 14 }, (_, i) => ({ item: item(`l${String(i).padStart(2, '0')}.jpg`, 90 - i), label: { text_tokens: ['x'] } }));
    const ranked = rankByLabel(many, { text_tokens: ['y'] });
    expect(ranked.filter((r) => r.item.score_text !== undefined)).toHaveLength(TEXT_SCORED_RESULTS);
    expect(ranked.slice(TEXT_SCORED_RESULTS).map((r) => r.item.filepath)).toEqual(['l10.jpg', 'l11.jpg', 'l12.jpg', 'l13.jpg']);
  });
});

describe('vintage rules in match metadata', () => {
  const label: WineLabelMetadata = { vintage_year: 2015, vintage_rect: rect, variety_type: 'Merlot', text_lines: ['Merlot 2015'], text_tokens: ['merlot', '2015'] };

  it('rule 1 and 2: the query\'s year is the one to use, so the matched image\'s year is left out', () => {
    const meta = matchMetadata(label, { vintage_year: 2018 }, 'id-7');
    expect(meta).toEqual({ variety_type: 'Merlot', text_tokens: ['merlot', '2015'], image_id: 'id-7' });
  });

  it('rule 3: without a year on the query, the matched image\'s year is given as a hint, as a string', () => {
    expect(matchMetadata(label, {}, null)).toMatchObject({ vintage_year: '2015', vintage_rect: rect, image_id: '' });
  });

  it('gives no year at all when neither side shows one', () => {
    expect(matchMetadata({ variety_type: 'Merlot' }, {}, 'a')).toEqual({ variety_type: 'Merlot', image_id: 'a' });
  });
});

describe('labels matched by their text alone', () => {
  const labels = [
    { filepath: 'same.jpg', text_tokens: tokens('domaine rivel pauillac 2015 cabernet sauvignon red wine product of france') },
    { filepath: 'same-region.jpg', text_tokens: tokens('chateau morrow pauillac 2011 merlot red wine product of france') },
    { filepath: 'verified.jpg', text_tokens: tokens('domaine rivel pauillac 2015 cabernet sauvignon red wine product of france') },
  ];
  const query: WineLabelMetadata = { text_tokens: tokens('domalne rivel pauillac 2015 cabernet sauvlgnon red wine product of france'), label_rect: rect };

  it('adds a label read with the same words (OCR slips allowed), not one that only shares its region and colour', async () => {
    const { textOnlyMatches } = await import('./ranking');
    const found = textOnlyMatches(labels, query, new Set(['verified.jpg']));
    expect(found.map((f) => f.filepath)).toEqual(['same.jpg']);
    expect(found[0]).toMatchObject({ score: 0, query_match_rect: rect, target_match_rect: { left: 0, right: 100, top: 0, bottom: 100 } });
  });
});
