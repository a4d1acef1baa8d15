import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { failEnvelope } from './envelope';
import { Params } from './params';
import { quoteInput, shortInput } from './quote';
import { parseFormat, renderEnvelope } from './render';

const HUGE = 'x'.repeat(100_000);

function messageOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('quoting client values in error messages', () => {
  it('quotes a short value whole and a long one as a prefix with its length', () => {
    expect(quoteInput('yaml')).toBe('"yaml"');
    expect(quoteInput(HUGE)).toBe(`"${'x'.repeat(64)}…" (100000 characters)`);
    expect(shortInput('a'.repeat(65), 64)).toBe(`${'a'.repeat(64)}… (65 characters)`);
  });

  it('counts and cuts in code points, never inside a surrogate pair', () => {
    expect(quoteInput('🦊'.repeat(25_000))).toBe(`"${'🦊'.repeat(64)}…" (25000 characters)`);
    expect(quoteInput('🦊'.repeat(64))).toBe(`"${'🦊'.repeat(64)}"`);
  });

  it('keeps every refusal of a 100 kB value short: format, integers, numbers, booleans', () => {
    const messages = [
      messageOf(() => parseFormat(HUGE)),
      messageOf(() => new Params([['offset', HUGE]]).int('offset')),
      messageOf(() => new Params([['offset', '9'.repeat(100_000)]]).int('offset', { min: 0 })),
      messageOf(() => new Params([['timeout', HUGE]]).number('timeout')),
      messageOf(() => new Params([['pretty', HUGE]]).bool('pretty')),
    ];
    for (const message of messages) {
      expect(message.length).toBeLessThan(200);
      expect(message).toContain('(100000 characters)');
    }
    expect(messages[0]).toBe(`format: "${'x'.repeat(64)}…" (100000 characters) is not a valid format; use json or xml.`);
  });
});

describe('XML keeps carriage returns', () => {
  it('writes \\r as a character reference, so the XML answer reads like the JSON one', () => {
    const envelope = failEnvelope('search', ['limit: "\r\n" is not an integer.']);
    const xml = renderEnvelope(envelope, 'xml').body;
    expect(xml).toContain('limit: &quot;&#13;\n&quot; is not an integer.');
    // fast-xml-parser decodes character references only when told (a conforming XML parser always does).
    const parsed = new XMLParser({ trimValues: false, parseTagValue: false, htmlEntities: true, isArray: (name) => name === 'item' }).parse(xml);
    expect(parsed.data.error.item).toEqual([JSON.parse(renderEnvelope(envelope, 'json').body).error[0]]);
  });

  it('keeps tabs and line feeds in attribute values, which parsers would turn into spaces', () => {
    const envelope = { ...failEnvelope('count_metadata', []), status: 'ok' as const, result: [{ 'count-metadata': { '@value': 'a\tb\nc\rd', '': 'k' } }] };
    const xml = renderEnvelope(envelope, 'xml').body;
    const parsed = new XMLParser({ ignoreAttributes: false, trimValues: false, parseTagValue: false, parseAttributeValue: false, htmlEntities: true }).parse(xml);
    expect(parsed.data.result.item['count-metadata']['@_value']).toBe('a\tb\nc\rd');
  });
});
