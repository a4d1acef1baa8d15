import { describe, expect, it } from 'vitest';
import { parseManifest, splitCsvLine } from './manifest';

describe('import manifests', () => {
  it('reads JSON lines with defaults for image_url and domain, and relative files against the manifest folder', () => {
    const entries = parseManifest(
      ['# comment', '{"image": "https://cdn.x.com/a.jpg", "backlink": "https://www.x.com/p", "crawl_date": "2024-05-01T10:00:00Z"}', '', '{"image": "b.png", "image_url": "https://y.org/b.png", "backlink": "https://y.org/"}'].join('\n'),
      '/data/crawl',
    );
    expect(entries).toEqual([
      { line: 2, source: 'https://cdn.x.com/a.jpg', image_url: 'https://cdn.x.com/a.jpg', backlink: 'https://www.x.com/p', domain: 'x.com', crawl_date: '2024-05-01' },
      { line: 4, source: '/data/crawl/b.png', image_url: 'https://y.org/b.png', backlink: 'https://y.org/', domain: 'y.org', crawl_date: null },
    ]);
  });

  it('reads CSV with quoted fields and names the bad line', () => {
    expect(splitCsvLine('a,"b,c","d ""e"""')).toEqual(['a', 'b,c', 'd "e"']);
    const csv = 'image,backlink\nhttps://a.com/1.jpg,"https://a.com/?q=1,2"\n';
    expect(parseManifest(csv, '/')[0]).toMatchObject({ backlink: 'https://a.com/?q=1,2', domain: 'a.com' });
    expect(() => parseManifest('image,backlink\nlocal.jpg,https://a.com/\n', '/')).toThrow(/line 2: "image_url" is required/);
    expect(() => parseManifest('{"image": "https://a.com/1.jpg", "backlink": "ftp://a"}', '/')).toThrow(/line 1: "backlink" must be an http/);
    expect(() => parseManifest('picture,page\n', '/')).toThrow(/CSV header/);
  });
});
