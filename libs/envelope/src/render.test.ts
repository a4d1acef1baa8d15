import { XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { Envelope, statusFor } from './envelope';
import { ParamError } from './errors';
import { parseFormat, renderEnvelope } from './render';

const sample: Envelope = {
  method: 'get_info',
  status: 'ok',
  error: [],
  result: [{ filepath: 'a/b & c.jpg', width: 600, height: 400, fingerprint: 97.5, date: '2026-11-22', status: 'healthy' }],
  stats: { time_get_info: 0.0012, time_total: 0.004 },
};

describe('envelope rendering', () => {
  it('renders JSON with the fields in the documented order', () => {
    const { body, contentType } = renderEnvelope(sample, 'json');
    expect(contentType).toMatch(/application\/json/);
    expect(Object.keys(JSON.parse(body))).toEqual(['method', 'status', 'error', 'result', 'stats']);
  });

  it('renders XML with a data root, item children and empty elements for empty lists', () => {
    const { body } = renderEnvelope(sample, 'xml');
    expect(body.startsWith('<?xml version="1.0" encoding="utf-8"?>\n<data>')).toBe(true);
    expect(body).toContain('<error/>');
    expect(body).toContain('<result><item><filepath>a/b &amp; c.jpg</filepath><width>600</width>');
    expect(body).toContain('<stats><time_get_info>0.0012</time_get_info><time_total>0.004</time_total></stats>');
  });

  it('renders nested lists and query_image in XML', () => {
    const env: Envelope = { ...sample, method: 'search', result: [{ rect: { left: 1 }, tags: ['x', 'y'] }], query_image: { filepath: 'q.jpg' } };
    const { body } = renderEnvelope(env, 'xml');
    expect(body).toContain('<tags><item>x</item><item>y</item></tags>');
    expect(body).toContain('<query_image><filepath>q.jpg</filepath></query_image>');
  });

  it('writes attributes and element text for count-metadata style objects', () => {
    const env: Envelope = { ...sample, result: [{ 'count-metadata': { '@count': '3', '': 'keywords' } }] };
    expect(renderEnvelope(env, 'xml').body).toContain('<count-metadata count="3">keywords</count-metadata>');
  });

  it('wraps JSON in a JSONP callback only for a safe callback name', () => {
    expect(renderEnvelope(sample, 'json', { callback: 'cb.done' }).body.startsWith('cb.done({')).toBe(true);
    expect(renderEnvelope(sample, 'json', { callback: 'alert(1)//' }).body.startsWith('{')).toBe(true);
  });

  it('accepts json and xml in any case and refuses other formats', () => {
    expect(parseFormat(undefined)).toBe('json');
    expect(parseFormat('XML')).toBe('xml');
    expect(() => parseFormat('yaml')).toThrow(ParamError);
  });

  it('derives ok, warn and fail from the errors and whether anything was done', () => {
    expect(statusFor([], true)).toBe('ok');
    expect(statusFor(['x'], true)).toBe('warn');
    expect(statusFor(['x'], false)).toBe('fail');
  });
});

describe('characters XML cannot carry', () => {
  const controls: Envelope = {
    method: 'get_metadata',
    status: 'warn',
    error: ['a\u0001b.jpg: This file does not exist in the image collection'],
    result: [{ filepath: 'tab\there', metadata: { 'k\u0002ey': 'v\u0000al\uFFFE\uD800', ok: 'line\nfeed 😀' } }],
    stats: {},
  };

  it('are written the same visible way in JSON and XML, and the XML stays well-formed', () => {
    const json = JSON.parse(renderEnvelope(controls, 'json').body);
    const xml = renderEnvelope(controls, 'xml').body;
    expect(json.error).toEqual(['a\\u0001b.jpg: This file does not exist in the image collection']);
    expect(json.result[0].metadata).toEqual({ 'k\\u0002ey': 'v\\u0000al\\uFFFE\\uD800', ok: 'line\nfeed 😀' });
    expect(xml).toContain('<error><item>a\\u0001b.jpg: This file does not exist in the image collection</item></error>');
    expect(xml).toContain('<k_u0002ey>v\\u0000al\\uFFFE\\uD800</k_u0002ey>');
    // Tab, line feed and characters outside the BMP are valid XML and pass unchanged in both.
    expect(json.result[0].filepath).toBe('tab\there');
    expect(xml).toContain('<filepath>tab\there</filepath>');
    expect(xml).toContain('<ok>line\nfeed 😀</ok>');
    // Every error text of one format equals the other's (XML entities aside).
    const xmlError = /<error><item>(.*?)<\/item><\/error>/.exec(xml)![1];
    expect(xmlError).toBe(json.error[0]);
    expect(XMLValidator.validate(xml)).toBe(true);
    expect(xml).not.toMatch(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u);
  });

  it('leave an envelope without them untouched', () => {
    expect(JSON.parse(renderEnvelope(sample, 'json').body).result).toEqual(sample.result);
  });
});
