/**
 * The `boundary` parameter of a multipart Content-Type, quoted (`boundary="a b"`) or not. RFC 2046 allows `=` in a
 * boundary but RFC 2045's token grammar does not allow it unquoted, and Python's mail-style multipart writer sends it
 * unquoted anyway (`boundary================1784191527892559933==`, docs/protocol.md §2). An
 * unquoted value therefore runs to the next `;` or white space, `=` included.
 */
const BOUNDARY_PARAM = /(^|[;\s])boundary\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s"]+))/i;

/** The boundary exactly as the client wrote it (without quotes), which is what it signed (public API POST signature). */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  const match = BOUNDARY_PARAM.exec(contentType ?? '');
  if (!match) return undefined;
  const value = match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : match[3];
  return value === '' ? undefined : value;
}

/**
 * The Content-Type to hand to a strict multipart parser (busboy refuses an unquoted `=` as "Malformed content type"):
 * an unquoted boundary is quoted, everything else is left as sent. The boundary itself is unchanged, so the body's
 * delimiter lines still match it.
 */
export function withQuotedBoundary(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  const match = BOUNDARY_PARAM.exec(contentType);
  if (!match || match[3] === undefined) return contentType;
  const at = match.index + match[1].length;
  return `${contentType.slice(0, at)}boundary="${match[3]}"${contentType.slice(match.index + match[0].length)}`;
}
