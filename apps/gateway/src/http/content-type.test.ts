import busboy from 'busboy';
import { describe, expect, it } from 'vitest';
import { multipartBoundary, withQuotedBoundary } from './content-type';

const MAIL = '===============1784191527892559933==';

describe('multipart boundaries', () => {
  it('are read as sent, quoted or not, with = and spaces kept', () => {
    expect(multipartBoundary(`multipart/form-data; boundary=${MAIL}`)).toBe(MAIL);
    expect(multipartBoundary(`multipart/form-data; boundary="${MAIL}"`)).toBe(MAIL);
    expect(multipartBoundary('multipart/form-data; boundary="a b=c"; charset=utf-8')).toBe('a b=c');
    expect(multipartBoundary('Multipart/Form-Data;BOUNDARY=xyz;charset=utf-8')).toBe('xyz');
    expect(multipartBoundary('multipart/form-data; charset=utf-8')).toBeUndefined();
    expect(multipartBoundary('multipart/form-data; xboundary=nope')).toBeUndefined();
  });

  it('are quoted for busboy when Python wrote them unquoted, and left alone otherwise', () => {
    expect(() => busboy({ headers: { 'content-type': `multipart/form-data; boundary=${MAIL}` } })).toThrow(/Malformed content type/);
    const quoted = withQuotedBoundary(`multipart/form-data; boundary=${MAIL}; charset=utf-8`)!;
    expect(quoted).toBe(`multipart/form-data; boundary="${MAIL}"; charset=utf-8`);
    expect(() => busboy({ headers: { 'content-type': quoted } })).not.toThrow();
    expect(multipartBoundary(quoted)).toBe(MAIL);
    expect(withQuotedBoundary('multipart/form-data; boundary=----abc123')).toBe('multipart/form-data; boundary="----abc123"');
    for (const unchanged of ['multipart/form-data; boundary="x=y"', 'multipart/form-data', 'application/json', undefined]) {
      expect(withQuotedBoundary(unchanged)).toBe(unchanged);
    }
  });
});
