import fc from 'fast-check';

/** 100 kB values, built once: long enough to find quadratic parsing, echoed inputs and unbounded buffers. */
const LONG = [
  'x'.repeat(100_000),
  '9'.repeat(100_000),
  '🦊'.repeat(25_000),
  '*'.repeat(100_000),
  '['.repeat(50_000),
  `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`,
  `${'<a>'.repeat(30_000)}`,
  '%'.repeat(100_000),
];

/** Numbers a careless or hostile client sends where an integer or a score is expected. */
const NUMBERS = [
  '0', '-0', '1', '-1', '00000000000000000001', '1.5', '-1.5', '1e3', '1e308', '1e309', '-1e309', 'NaN', 'nan', 'Infinity',
  '-Infinity', '0x10', '0b11', '0o7', '1_000', ' 7 ', '7abc', '+5', '.5', '5.', '2147483647', '2147483648', '-2147483649',
  '4294967296', '9007199254740993', '9223372036854775807', '9223372036854775808', '-9223372036854775809',
  '18446744073709551616', '100000000000000000000', '1'.padEnd(400, '0'), '86401', '101', '-100',
];

/** Strings that are trouble somewhere: encodings, control characters, markup, paths, prototype keys. */
const STRINGS = [
  '', ' ', '\t', '\u0000', 'a\u0000b', '\r\n', '\u0001\u0002\u0003\u001f\u007f', '\u0085', '\u2028\u2029', '\u202e', '\ufeff', '\ufffd',
  '\uffff', 'é', 'ﬁ', 'İ', '🦊', '👩‍👩‍👧', 'true', 'false', 'True', 'null', 'undefined', '[]', '{}', '{"a":', '{"__proto__":{"x":1}}',
  '<a>', '</data>', '<![CDATA[x]]>', '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]><x>&b;</x>',
  '&amp;', '"', "'", '\\', '../../etc/passwd', '/etc/passwd', 'C:\\Windows', 'a/../../b', '//', '%00', '%', '%ZZ', '%E0%A4%A',
  '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '$where', '${jndi:ldap://x}', "'; DROP TABLE images; --",
  'fuzz/a.jpg', 'fuzz/missing.jpg', '255,0,0', '#ff0000', 'wildcard', 'json', 'xml', 'XML', 'rgb', 'hex',
];

/** Literal addresses only (never a host name to resolve), refused by the private-address rule; and junk schemes. */
export const URLS = [
  'http://127.0.0.1/a.jpg', 'http://127.0.0.1:1/', 'https://127.0.0.1:9/x.png', 'http://[::1]/a.jpg', 'http://0.0.0.0/', 'http://0/',
  'http://2130706433/', 'http://0x7f000001/', 'http://017700000001/', 'http://169.254.169.254/latest/meta-data/',
  'http://10.0.0.1/a.jpg', 'http://192.168.1.1/', 'http://[::ffff:127.0.0.1]/', 'http://[fe80::1]/', 'http://user:pw@127.0.0.1/',
  'ftp://127.0.0.1/a.jpg', 'file:///etc/passwd', 'gopher://127.0.0.1:6379/_PING', 'data:image/png;base64,iVBORw0KGgo=',
  'javascript:alert(1)', 'http://', 'http:///a', 'http://[', 'http://127.0.0.1:99999/', 'http://127.0.0.1/%00', '//127.0.0.1/a.jpg',
  'HTTP://127.0.0.1/A.JPG', ' http://127.0.0.1/ ', 'http://127.0.0.1/\r\nX-Injected: 1',
];

const printable = fc.string({ unit: 'binary', maxLength: 40 });

/** A hostile parameter value. */
export const hostileValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NUMBERS) },
  { weight: 4, arbitrary: fc.constantFrom(...STRINGS) },
  { weight: 1, arbitrary: fc.constantFrom(...LONG) },
  { weight: 2, arbitrary: fc.constantFrom(...URLS) },
  { weight: 2, arbitrary: fc.integer().map(String) },
  { weight: 2, arbitrary: fc.bigInt({ min: -(2n ** 130n), max: 2n ** 130n }).map(String) },
  { weight: 2, arbitrary: fc.double().map(String) },
  { weight: 3, arbitrary: printable },
);

/** How a parameter's key is written: plain, indexed (including absurd indexes), appended, percent-encoded. */
export const keyForm: fc.Arbitrary<(name: string) => string> = fc.oneof(
  { weight: 5, arbitrary: fc.constant((name: string) => name) },
  { weight: 2, arbitrary: fc.constantFrom(0, 1, 9, 10, 11, 255, 99_999_999, 2 ** 31, 2 ** 53 + 1).map((i) => (name: string) => `${name}[${i}]`) },
  { weight: 1, arbitrary: fc.constantFrom('00000000000000000000000000000001', '1'.repeat(400), '-1', '1.5', ' 1').map((i) => (name: string) => `${name}[${i}]`) },
  { weight: 1, arbitrary: fc.constant((name: string) => `${name}[]`) },
  { weight: 1, arbitrary: fc.constant((name: string) => `${name}%5B0%5D`) },
  { weight: 1, arbitrary: fc.constant((name: string) => `${name}[0][1]`) },
);

/** Parameter names besides the documented ones. */
export const strayName: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('', '[', ']', '[]', '[0]', '__proto__', 'constructor', 'toString', 'image[', 'images]', 'x'.repeat(5000), '\u0000', 'filepath\u0000'),
  printable,
);

/**
 * Shell globs that make a backtracking matcher explode: runs of `*x` ending in a character the name lacks, nested
 * `**`, runs of `?`, unclosed and odd bracket sets; plus random glob syntax and very long patterns.
 */
export const hostileGlob: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.integer({ min: 8, max: 40 }), fc.constantFrom('*a', '**a', '*?', '?*', '*[a]', '*[!b]', '**', '*a*', '*[a-z]'), fc.constantFrom('b', '/', 'x.png', '[!a]b', ''))
      .map(([n, unit, end]) => `${unit.repeat(n)}${end}`),
  },
  {
    weight: 3,
    arbitrary: fc
      .array(fc.constantFrom('*', '**', '?', 'a', 'a', '.', 'jpg', '/', '[a-z]', '[!a]', '[', ']', '[]', '[!]', '\\', '{a,b}', '(', ')', '|', '+', '^', '$', '-'), { maxLength: 60 })
      .map((parts) => parts.join('')),
  },
  { weight: 1, arbitrary: fc.constantFrom('*'.repeat(10_000), '*a'.repeat(5_000), '?'.repeat(10_000), `[${'a'.repeat(10_000)}`, '['.repeat(10_000), '**/'.repeat(3_000), 'a'.repeat(100_000)) },
  { weight: 1, arbitrary: printable },
);

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A PNG header chunk claiming any dimensions (CRC left wrong on purpose half the time). */
function pngHeader(width: number, height: number, depth: number, colorType: number): Buffer {
  const ihdr = Buffer.alloc(25);
  ihdr.writeUInt32BE(13, 0);
  ihdr.write('IHDR', 4, 'latin1');
  ihdr.writeUInt32BE(width >>> 0, 8);
  ihdr.writeUInt32BE(height >>> 0, 12);
  ihdr[16] = depth;
  ihdr[17] = colorType;
  return Buffer.concat([PNG_SIGNATURE, ihdr]);
}

const junk = fc.uint8Array({ maxLength: 4096 }).map((a) => Buffer.from(a));

/** Bytes posing as an image: pure noise, a real format's magic bytes then junk, or a real image truncated or flipped. */
export function hostileImage(real: Buffer[]): fc.Arbitrary<{ kind: string; data: Buffer }> {
  const realImage = fc.constantFrom(...real);
  return fc.oneof(
    { weight: 2, arbitrary: fc.uint8Array({ maxLength: 65_536 }).map((a) => ({ kind: 'random bytes', data: Buffer.from(a) })) },
    {
      weight: 3,
      arbitrary: fc
        .tuple(fc.constantFrom<[string, Buffer]>(
          ['png', PNG_SIGNATURE],
          ['gif', Buffer.from('GIF89a')],
          ['webp', Buffer.from('RIFF\u00ff\u00ff\u00ff\u0000WEBPVP8 ', 'latin1')],
          ['jpeg', Buffer.from([0xff, 0xd8, 0xff, 0xe0])],
          ['bmp', Buffer.from('BM')],
          ['tiff', Buffer.from('II*\u0000', 'latin1')],
          ['avif', Buffer.from('\u0000\u0000\u0000\u0018ftypavif', 'latin1')],
          ['svg', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000">')],
        ), junk)
        .map(([[kind, magic], rest]) => ({ kind: `${kind} magic + junk`, data: Buffer.concat([magic, rest]) })),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(0, 1, 65_535, 2 ** 31 - 1, 2 ** 32 - 1, 100_000), fc.constantFrom(0, 1, 65_535, 2 ** 31 - 1, 2 ** 32 - 1, 100_000), fc.constantFrom(0, 1, 8, 16, 3), fc.constantFrom(0, 2, 3, 6, 7), junk)
        .map(([w, h, depth, colorType, rest]) => ({ kind: `png header ${w}x${h}`, data: Buffer.concat([pngHeader(w, h, depth, colorType), rest]) })),
    },
    {
      weight: 3,
      arbitrary: fc.tuple(realImage, fc.double({ min: 0, max: 1, noNaN: true })).map(([image, at]) => ({ kind: 'truncated image', data: image.subarray(0, Math.floor(image.length * at)) })),
    },
    {
      weight: 3,
      arbitrary: fc
        .tuple(realImage, fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 20 }))
        .map(([image, flips]) => {
          const data = Buffer.from(image);
          for (const [at, byte] of flips) data[Math.min(data.length - 1, Math.floor(at * data.length))] = byte;
          return { kind: 'image with flipped bytes', data };
        }),
    },
  );
}
