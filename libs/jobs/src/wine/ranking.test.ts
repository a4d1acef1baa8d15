import { describe, expect, it } from 'vitest';
import type { WineLabelMetadata } from './contracts';
import { matchMetadata, rankByLabel, TEXT_SCORED_RESULTS } from './ranking';

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

  it('does not let text alone lift a weak image match over a strong one', () => {
    const ranked = rankByLabel(
      [
        { item: item('true.jpg', 95), label: { text_tokens: tokens('tenuta bellavista chianti') } },
        { item: item('same-words.jpg', 34), label: { vintage_year: 2016, variety_type: 'Merlot', text_tokens: query.text_tokens } },
      ],
      { text_tokens: tokens('tenuta bellavista chianti') },
    );
    expect(ranked[0].item.filepath).toBe('true.jpg');
  });

  it('scores text for the top 10 only and keeps image order below them', () => {
    const many = Array.from({ length: 14 }, (_, i) => ({ item: item(`l${String(i).padStart(2, '0')}.jpg`, 90 - i), label: { text_tokens: ['x'] } }));
    const ranked = rankByLabel(many, { text_tokens: ['y'] });
    expect(ranked.filter((r) => r.item.score_text !== undefined)).toHaveLength(TEXT_SCORED_RESULTS);
    expect(ranked.slice(TEXT_SCORED_RESULTS).map((r) => r.item.filepath)).toEqual(['l10.jpg', 'l11.jpg', 'l12.jpg', 'l13.jpg']);
  });
});

describe('vintage rules of specification 2.5 in match metadata', () => {
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
