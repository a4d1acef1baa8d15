/**
 * XML rendering of an envelope (compatibility.md): root `data`, every list a parent element whose entries are `item`
 * children, every object an element with child elements, an empty list an empty element. Keys that are not valid XML
 * names (the metadata hierarchy allows almost anything) are written as `<item key="...">`-free sanitised names; the
 * empty-named member of a keyed metadata entry becomes the element's text.
 */
const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';

export function escapeXml(text: string): string {
  return text
    // Characters that XML 1.0 cannot carry at all are dropped rather than producing a document clients cannot parse.
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/** XML element names cannot start with a digit or contain spaces; replace what is not allowed with `_`. */
export function xmlName(key: string): string {
  let name = key.replace(/[^A-Za-z0-9_.\-]/g, '_');
  if (!/^[A-Za-z_]/.test(name)) name = `_${name}`;
  return name;
}

function scalarText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return escapeXml(String(value));
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
      .map(([k, v]) => ` ${xmlName(k.slice(1))}="${scalarText(v)}"`)
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
