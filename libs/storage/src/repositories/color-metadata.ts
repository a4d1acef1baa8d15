/**
 * Keyword metadata of the color service (docs/protocol.md §8) as the database sees it: the stored form, the typed
 * query tree, and its translation to SQL over images.metadata (jsonpath `@?` filters, which the GIN index serves).
 *
 * Stored form (what `update` writes into images.metadata):
 *   { "keywords": ["lower-case", ...], "<key>": { "type": "string|uint|int|float|date", "": value or [values], "action"?: "return" } }
 * Numbers are JSON numbers and dates `YYYY-MM-DD` strings, so comparisons in jsonpath are typed and ordered.
 */
export type MetadataValueType = 'string' | 'uint' | 'int' | 'float' | 'date';

export type MetadataScalar = string | number;

export type MetadataQuery =
  | { kind: 'and'; items: MetadataQuery[] }
  | { kind: 'or'; items: MetadataQuery[] }
  /** The image carries this keyword (stored lower-case). */
  | { kind: 'keyword'; value: string }
  /** The key's value (or one of its values) equals one of these. */
  | { kind: 'equals'; key: string; values: MetadataScalar[] }
  /** The key's value (or one of its values) lies within [min, max]; either end may be open. */
  | { kind: 'range'; key: string; min?: MetadataScalar; max?: MetadataScalar };

/** Where a compiled query's parameters start and what it needs: `sql` refers to $start.. in `params` order. */
export interface CompiledMetadata {
  /** True when the image satisfies the whole query. */
  where: string;
  /** 0-100: the share of the query's conditions the image satisfies (score_metadata). */
  score: string;
  params: string[];
}

/** The leaves (single conditions) of a query, left to right. */
export function metadataLeaves(query: MetadataQuery): MetadataQuery[] {
  return query.kind === 'and' || query.kind === 'or' ? query.items.flatMap(metadataLeaves) : [query];
}

function literal(value: MetadataScalar): string {
  // JSON string escapes are valid jsonpath string escapes; numbers are written as JSON numbers.
  return typeof value === 'number' ? String(value) : JSON.stringify(value);
}

/** The jsonpath that finds a leaf's condition in a stored metadata document. */
export function leafPath(leaf: MetadataQuery): string {
  switch (leaf.kind) {
    case 'keyword':
      return `$.keywords ? (@ == ${literal(leaf.value)})`;
    case 'equals':
      return `$.${JSON.stringify(leaf.key)}."" ? (${leaf.values.map((v) => `@ == ${literal(v)}`).join(' || ')})`;
    case 'range': {
      const parts: string[] = [];
      if (leaf.min !== undefined) parts.push(`@ >= ${literal(leaf.min)}`);
      if (leaf.max !== undefined) parts.push(`@ <= ${literal(leaf.max)}`);
      if (parts.length === 0) return `$.${JSON.stringify(leaf.key)}.""`;
      return `$.${JSON.stringify(leaf.key)}."" ? (${parts.join(' && ')})`;
    }
    default:
      throw new Error(`not a leaf: ${leaf.kind}`);
  }
}

/**
 * Compiles a query over the column `column` (e.g. `i.metadata`) with parameters numbered from `firstParam`.
 * Each leaf becomes `column @? $n::jsonpath`; `and`/`or` become SQL AND/OR, so Postgres evaluates it per row and
 * the GIN index on images.metadata can narrow equality and keyword leaves.
 */
export function compileMetadata(query: MetadataQuery, column: string, firstParam: number): CompiledMetadata {
  const params: string[] = [];
  const leafSql = new Map<MetadataQuery, string>();
  const visit = (node: MetadataQuery): string => {
    if (node.kind === 'and' || node.kind === 'or') {
      if (node.items.length === 0) return node.kind === 'and' ? 'TRUE' : 'FALSE';
      return `(${node.items.map(visit).join(node.kind === 'and' ? ' AND ' : ' OR ')})`;
    }
    params.push(leafPath(node));
    const sql = `(${column} @? $${firstParam + params.length - 1}::jsonpath)`;
    leafSql.set(node, sql);
    return sql;
  };
  const where = visit(query);
  const leaves = metadataLeaves(query);
  const score =
    leaves.length === 0
      ? '100.0'
      : `(100.0 * (${leaves.map((l) => `CASE WHEN ${leafSql.get(l)} THEN 1 ELSE 0 END`).join(' + ')}) / ${leaves.length})`;
  return { where, score, params };
}
