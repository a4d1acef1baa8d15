/**
 * XML rendering of an envelope (docs/protocol.md §3): root `data`, every list a parent element whose entries are `item`
 * children, every object an element with child elements, an empty list an empty element. Keys that are not valid XML
 * names (the metadata hierarchy allows almost anything) are written as `<item key="...">`-free sanitised names; the
 * empty-named member of a keyed metadata entry becomes the element's text.
 */
const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';

/**
 * Characters XML 1.0 cannot carry, not even as character references: C0 controls other than tab, line feed and
 * carriage return, U+FFFE, U+FFFF, and halves of a surrogate pair standing alone.
 */
const NOT_IN_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/**
 * Writes each character XML cannot carry as the visible text `\uXXXX`. Both formats of an envelope go through this
 * (render.ts), so JSON and XML say the same thing: the XML document stays parseable, JSON does not carry a character
 * the XML answer would have to lose, and the client sees where its input had one. Where such characters come from:
 * echoed inputs (a URL or path in an error message), stored metadata; add refuses them in filepaths.
 */
export function visibleControls(text: string): string {
  return text.replace(NOT_IN_XML, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
}

/**
 * Text for element content. A carriage return is written as `&#13;`: XML parsers turn a raw CR LF (or lone CR) into
 * LF, so a raw `\r` would reach the client as `\n` and the XML answer would quote an input differently from JSON.
 */
export function escapeXml(text: string): string {
  return visibleControls(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/\r/g, '&#13;');
}

/** Text for an attribute value: parsers also turn a raw tab or line feed there into a space (attribute normalisation). */
function escapeAttribute(text: string): string {
  return escapeXml(text).replace(/\n/g, '&#10;').replace(/\t/g, '&#9;');
}

/** XML element names cannot start with a digit or contain spaces; replace what is not allowed with `_`. */
export function xmlName(key: string): string {
  // As in text, a control character shows as `\uXXXX` (then `_uXXXX`), the way the JSON key shows it.
  let name = visibleControls(key).replace(/[^A-Za-z0-9_.\-]/g, '_');
  if (!/^[A-Za-z_]/.test(name)) name = `_${name}`;
  return name;
}

function scalarText(value: unknown, escape: (text: string) => string = escapeXml): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return escape(String(value));
}

function renderNode(name: string, value: unknown, attrs = ''): string {
  const tag = xmlName(name);
  if (Array.isArray(value)) {
    if (value.length === 0) return `<${tag}${attrs}/>`;
    return `<${tag}${attrs}>${value.map((v) => renderNode('item', v)).join('')}</${tag}>`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    // An element's own text lives under the empty key; `@name` keys become attributes (count-metadata uses both).
    const attributes = entries
      .filter(([k, v]) => k.startsWith('@') && v !== undefined)
      .map(([k, v]) => ` ${xmlName(k.slice(1))}="${scalarText(v, escapeAttribute)}"`)
      .join('');
    const text = entries.find(([k]) => k === '');
    const children = entries.filter(([k, v]) => k !== '' && !k.startsWith('@') && v !== undefined);
    const inner = (text ? scalarText(text[1]) : '') + children.map(([k, v]) => renderNode(k, v)).join('');
    if (inner === '') return `<${tag}${attrs}${attributes}/>`;
    return `<${tag}${attrs}${attributes}>${inner}</${tag}>`;
  }
  const text = scalarText(value);
  return text === '' ? `<${tag}${attrs}/>` : `<${tag}${attrs}>${text}</${tag}>`;
}

export function renderXml(root: Record<string, unknown>, rootName = 'data'): string {
  return `${XML_DECLARATION}\n${renderNode(rootName, root)}\n`;
}
