/**
 * A readable HTML reference rendered from the OpenAPI document itself (no CDN, no script): one section per service,
 * one card per operation with its methods, parameters, result fields, stats and error behaviour.
 */

type Json = Record<string, any>;

function esc(text: unknown): string {
  return String(text ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** `code` spans and nothing else of Markdown. */
function md(text: unknown): string {
  return esc(text).replace(/`([^`]+)`/g, '<code>$1</code>').replace(/\n\n/g, '<br>');
}

function typeOf(schema: Json | undefined): string {
  if (!schema) return '';
  if (schema.contentMediaType) return 'file';
  if (schema.type === 'array') return `list of ${typeOf(schema.items)}`;
  if (schema.$ref) return String(schema.$ref).split('/').pop()!;
  if (schema.oneOf) return schema.oneOf.map(typeOf).join(' | ');
  return schema.enum ? schema.enum.map((v: string) => `"${v}"`).join(' | ') : String(schema.type ?? 'object');
}

function limits(schema: Json): string {
  const s = schema.type === 'array' ? { ...schema.items, maxItems: schema.maxItems } : schema;
  const parts: string[] = [];
  if (s.default !== undefined) parts.push(`default ${JSON.stringify(s.default)}`);
  if (s.minimum !== undefined && s.maximum !== undefined) parts.push(`${s.minimum}–${s.maximum}`);
  else if (s.minimum !== undefined) parts.push(`≥ ${s.minimum}`);
  else if (s.maximum !== undefined) parts.push(`≤ ${s.maximum}`);
  if (s.maxLength !== undefined) parts.push(`≤ ${s.maxLength} chars`);
  if (s.maxItems !== undefined) parts.push(`≤ ${s.maxItems} items`);
  return parts.join(', ');
}

interface Row {
  name: string;
  where: string;
  type: string;
  limits: string;
  description: string;
}

function parameterRows(op: Json): Row[] {
  const rows: Row[] = (op.parameters ?? []).map((p: Json) => ({
    name: p.name,
    where: 'query or form',
    type: typeOf(p.schema),
    limits: limits(p.schema),
    description: p.description,
  }));
  const multipart = op.requestBody?.content?.['multipart/form-data']?.schema;
  if (multipart) {
    const files: Array<[string, Json]> = [
      ...Object.entries<Json>(multipart.properties ?? {}),
      ...Object.entries<Json>(multipart.patternProperties ?? {}).map(([pattern, s]): [string, Json] => [pattern.replace(/^\^|\\\[\\d\*\\\]\$$/g, '') + '[n]', s]),
    ].filter(([, s]) => s.contentMediaType);
    for (const [name, schema] of files) rows.unshift({ name, where: 'multipart', type: 'file', limits: '', description: schema.description });
  }
  return rows;
}

function resolve(doc: Json, ref: string | undefined): Json | undefined {
  if (!ref) return undefined;
  return ref.split('/').slice(1).reduce<Json | undefined>((node, key) => node?.[key], doc);
}

function resultFields(doc: Json, envelope: Json | undefined): { item: string; fields: Array<[string, Json]>; stats: Array<[string, Json]>; queryImage: boolean } {
  const own = envelope?.allOf?.[1]?.properties ?? {};
  const ref = own.result?.items?.$ref as string | undefined;
  const item = ref?.split('/').pop() ?? '';
  let schema = resolve(doc, ref);
  const fields: Array<[string, Json]> = [];
  while (schema?.allOf) {
    for (const part of schema.allOf) fields.push(...Object.entries<Json>((part.$ref ? resolve(doc, part.$ref) : part)?.properties ?? {}));
    schema = undefined;
  }
  if (schema?.properties) fields.push(...Object.entries<Json>(schema.properties));
  return { item, fields, stats: Object.entries<Json>(own.stats?.properties ?? {}), queryImage: own.query_image !== undefined };
}

function table(head: string[], rows: string[][]): string {
  if (rows.length === 0) return '';
  return `<table><thead><tr>${head.map((h) => `<th>${h}</th>`).join('')}</tr></thead><tbody>${rows.map((r) => `<tr>${r.map((c) => `<td>${c}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
}

function operationCard(doc: Json, path: string, item: Json): string {
  const methods = ['get', 'post', 'delete'].filter((m) => item[m]);
  const op = item.post ?? item.get ?? item.delete;
  const id = esc(op.operationId.replace(/_(post|delete)$/, ''));
  const badges = methods.map((m) => `<span class="method ${m}">${m.toUpperCase()}</span>`).join('');
  if (op['x-undocumented']) {
    return `<section class="op undocumented" id="${id}"><h3>${badges}<code>${esc(path)}</code></h3><p>This operation has no catalog entry yet.</p></section>`;
  }
  const params = parameterRows(op).map((r) => [`<code>${esc(r.name)}</code>`, esc(r.where), esc(r.type), esc(r.limits), md(r.description)]);
  const envelope = resolve(doc, op.responses?.['200']?.content?.['application/json']?.schema?.$ref);
  const result = resultFields(doc, envelope);
  const resultHtml = envelope
    ? `<h4>Result items: <code>${esc(result.item)}</code></h4>` +
      (result.item === 'Nothing'
        ? '<p class="muted">The result list is always empty.</p>'
        : result.fields.length > 0
          ? table(['field', 'type', 'meaning'], result.fields.map(([name, s]) => [`<code>${esc(name)}</code>`, esc(typeOf(s)), md(s.description ?? '')]))
          : `<p class="muted">${md(resolve(doc, `#/components/schemas/${result.item}`)?.description ?? '')}</p>`) +
      (result.queryImage ? '<p>The envelope carries <code>query_image</code>.</p>' : '') +
      `<h4>Stats</h4><p>${result.stats.map(([name, s]) => `<code title="${esc(s.description)}">${esc(name)}</code>`).join(' ')}</p>`
    : '';
  return `<section class="op" id="${id}">
<h3>${badges}<code>${esc(path)}</code></h3>
<p class="summary">${md(op.summary)}</p>
<p>${md(op.description)}</p>
${table(['parameter', 'in', 'type', 'default / limits', 'description'], params)}
${resultHtml}
</section>`;
}

const STYLE = `
:root { --ink:#1d2430; --muted:#677285; --line:#e3e7ee; --accent:#2f6fde; --bg:#f7f9fc; }
* { box-sizing: border-box; }
body { margin:0; font:15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color:var(--ink); background:var(--bg); }
header { padding:28px 40px 18px; background:#fff; border-bottom:1px solid var(--line); }
header h1 { margin:0 0 6px; font-size:26px; }
header p { margin:4px 0; color:var(--muted); max-width:980px; }
.layout { display:grid; grid-template-columns:240px 1fr; }
nav { position:sticky; top:0; align-self:start; height:100vh; overflow:auto; padding:18px 20px; border-right:1px solid var(--line); background:#fff; font-size:14px; }
nav h2 { font-size:13px; text-transform:uppercase; letter-spacing:.06em; color:var(--muted); margin:16px 0 6px; }
nav a { display:block; color:var(--ink); text-decoration:none; padding:1px 0; }
nav a:hover { color:var(--accent); }
main { padding:10px 40px 60px; max-width:1200px; }
main > h2 { margin-top:36px; font-size:22px; border-bottom:2px solid var(--ink); padding-bottom:4px; }
.op { background:#fff; border:1px solid var(--line); border-radius:10px; padding:16px 20px; margin:18px 0; }
.op.undocumented { border-color:#e0a100; background:#fff8e6; }
.op h3 { margin:0 0 4px; font-size:16px; display:flex; gap:8px; align-items:center; flex-wrap:wrap; }
.summary { font-weight:600; margin:4px 0; }
.method { font:600 11px/1 ui-monospace, monospace; padding:4px 7px; border-radius:4px; color:#fff; }
.method.get { background:#2b8a57; } .method.post { background:#2f6fde; } .method.delete { background:#c2423a; }
code { font:13px ui-monospace, SFMono-Regular, Menlo, monospace; background:#f0f3f8; padding:1px 4px; border-radius:4px; }
table { border-collapse:collapse; width:100%; margin:10px 0; font-size:13.5px; }
th, td { text-align:left; vertical-align:top; padding:6px 8px; border-bottom:1px solid var(--line); }
th { color:var(--muted); font-weight:600; font-size:12px; text-transform:uppercase; letter-spacing:.04em; }
h4 { margin:14px 0 4px; font-size:14px; }
.muted { color:var(--muted); }
.errors li { margin:4px 0; }
`;

export function renderDocsHtml(doc: Json): string {
  const tags: Array<{ name: string; description: string }> = doc.tags ?? [];
  const byTag = new Map<string, Array<[string, Json]>>(tags.map((t) => [t.name, []]));
  for (const [path, item] of Object.entries<Json>(doc.paths ?? {})) {
    const op = item.post ?? item.get ?? item.delete;
    byTag.get(op?.tags?.[0])?.push([path, item]);
  }
  const nav = tags
    .map((t) => `<h2>${esc(t.name)}</h2>${(byTag.get(t.name) ?? []).map(([path, item]) => {
      const op = item.post ?? item.get ?? item.delete;
      const label = path.replace(/^\/[^/]+\/\{account\}\/rest\//, '').replace(/\/$/, '');
      return `<a href="#${esc(op.operationId.replace(/_(post|delete)$/, ''))}">${esc(label)}</a>`;
    }).join('')}`)
    .join('');
  const sections = tags
    .map((t) => `<h2 id="service-${esc(t.name)}">${esc(t.name)}</h2><p>${md(t.description)}</p>${(byTag.get(t.name) ?? []).map(([path, item]) => operationCard(doc, path, item)).join('')}`)
    .join('');
  const responses = doc.components?.responses ?? {};
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(doc.info?.title)} — API reference</title><style>${STYLE}</style></head>
<body>
<header><h1>${esc(doc.info?.title)}</h1><p>${md(doc.info?.description)}</p>
<p>Machine-readable: <a href="/docs/openapi.json">/docs/openapi.json</a> (OpenAPI ${esc(doc.openapi)}). Web console: <a href="/console/">/console/</a>.</p>
<h4>Errors</h4><ul class="errors">
<li><b>200 with <code>status: fail</code></b>: parameter and input problems (existing clients never read non-2xx bodies).</li>
<li><b>401</b>: ${md(responses.Unauthorized?.description)}</li>
<li><b>404</b>: ${md(responses.NotFound?.description)}</li>
<li><b>413</b>: ${md(responses.PayloadTooLarge?.description)}</li>
<li><b>500</b>: ${md(responses.ServerError?.description)}</li>
</ul></header>
<div class="layout"><nav>${nav}</nav><main>${sections}</main></div>
</body></html>`;
}
