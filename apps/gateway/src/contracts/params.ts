import { MAX_INT, MIN_INT, NumberRule, ParamError, Params, parseFormat, ResponseFormat, UploadedFile } from '@loupe/envelope';
import { z } from 'zod';

/**
 * The parameters of an operation, declared once: each declaration says what the call reads (its wire names, type,
 * bounds, default) and reads it, and /docs and /docs/openapi.json are generated from the same declarations.
 *
 * Each scalar is declared as a zod schema, whose JSON Schema (draft 2020-12, OpenAPI 3.1's dialect) is what the
 * reference shows. The wire values are read by Params (libs/envelope) under the same rule, not by zod's parse: the
 * protocol answers the first problem only, in its own words (`limit: "x" is not an integer from 0 to 2147483647.`),
 * and a list is `name[0]`, `name[]` or a plain alias, none of which zod's issues or object shapes express.
 *
 * Vocabulary of the docs: `in: 'query'` is a plain field, accepted in the query string or in the form body (the
 * protocol merges both); `in: 'formData'` is an upload, only in a multipart body. `indexed` parameters are lists sent
 * as `name[0]`, `name[1]`, … (or `name[]`); where `single` is set, one value may also be sent under that name.
 */

export type ParamType = 'string' | 'integer' | 'number' | 'boolean' | 'file';

export interface ParamDoc {
  name: string;
  in: 'query' | 'formData';
  type: ParamType;
  description: string;
  /** A list sent as `name[0]`, `name[1]`, … */
  indexed?: boolean;
  /** For an indexed list: the un-indexed name that sends one value (`filepath` for `filepaths[0]`). */
  single?: string;
  /** Other names read as the same list (`metadatas[n]` beside `metadata[n]`), said in the description. */
  aliases?: string[];
  default?: string | number | boolean;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  maxLength?: number;
  enum?: string[];
  required?: boolean;
}

/** The accessors of Params a parameter may use, limited (by readInput) to the names it documents. */
export type ParamReader = Pick<Params, 'string' | 'bool' | 'int' | 'number' | 'list' | 'indexed' | 'file' | 'files' | 'has'>;

/**
 * One declared parameter, or a group read together (a query image is `image`, `filepath` or `url`, exactly one).
 * `read` gets the values read before it, in declaration order, for rules that depend on them.
 */
export interface Param<T> {
  docs: ParamDoc[];
  read(params: ParamReader, before: Readonly<Record<string, unknown>>): T;
}

const JSON_KEYS = ['default', 'minimum', 'maximum', 'maxLength', 'enum'] as const;

/** The documented rule of a scalar, from its zod schema's JSON Schema. */
function docOf(name: string, type: ParamType, schema: z.ZodType, description: string, extra: Partial<ParamDoc> = {}): ParamDoc {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  const doc: ParamDoc = { name, in: type === 'file' ? 'formData' : 'query', type, description };
  for (const key of JSON_KEYS) if (json[key] !== undefined) (doc as unknown as Record<string, unknown>)[key] = json[key];
  return { ...doc, ...extra };
}

export function param<T>(docs: ParamDoc[], read: (params: ParamReader, before: Readonly<Record<string, unknown>>) => T): Param<T> {
  return { docs, read };
}

/** A rule between parameters read before it (no parameter of its own), at the point of the call where it applies. */
export function check(rule: (before: Readonly<Record<string, unknown>>) => void): Param<void> {
  return { docs: [], read: (_params, before) => rule(before) };
}

function numberSchema(base: z.ZodNumber, rule: NumberRule): z.ZodType {
  let schema = base;
  if (rule.min !== undefined) schema = schema.min(rule.min);
  if (rule.max !== undefined) schema = schema.max(rule.max);
  return rule.default !== undefined ? schema.default(rule.default) : schema;
}

/**
 * An integer; without a rule's bound, Params keeps it within Postgres `integer` (MIN_INT..MAX_INT) and says so, so the
 * document states those bounds too.
 */
export function int(name: string, rule: NumberRule & { default: number }, description: string): Param<number>;
export function int(name: string, rule: NumberRule, description: string): Param<number | undefined>;
export function int(name: string, rule: NumberRule, description: string): Param<number | undefined> {
  const bounds = { ...rule, min: Math.max(rule.min ?? MIN_INT, MIN_INT), max: Math.min(rule.max ?? MAX_INT, MAX_INT) };
  return param([docOf(name, 'integer', numberSchema(z.int(), bounds), description)], (p) => p.int(name, rule));
}

export function num(name: string, rule: NumberRule & { default: number }, description: string): Param<number>;
export function num(name: string, rule: NumberRule, description: string): Param<number | undefined>;
export function num(name: string, rule: NumberRule, description: string): Param<number | undefined> {
  return param([docOf(name, 'number', numberSchema(z.number(), rule), description)], (p) => p.number(name, rule));
}

/** true/false/True/False/1/0, false when absent. */
export function flag(name: string, description: string): Param<boolean> {
  return param([docOf(name, 'boolean', z.boolean().default(false), `${description} (true/false/True/False/1/0).`)], (p) => p.bool(name));
}

/**
 * A text value (empty counts as absent). `maxLength` is refused by the reader; `documentedMaxLength` is a bound checked
 * per input later (an add's filepath), so one bad input of a batch becomes a message and the others still go ahead.
 */
export function text(name: string, description: string, options: { maxLength?: number; documentedMaxLength?: number } = {}): Param<string | undefined> {
  const bound = options.maxLength ?? options.documentedMaxLength;
  const schema = bound !== undefined ? z.string().max(bound) : z.string();
  return param([docOf(name, 'string', schema, description)], (p) => p.string(name, { maxLength: options.maxLength }));
}

/** Documentation of a text value read by a group (its reading is the group's). */
export function textDoc(name: string, description: string, options: { maxLength?: number } = {}): ParamDoc {
  return docOf(name, 'string', options.maxLength !== undefined ? z.string().max(options.maxLength) : z.string(), description);
}

/** Documentation of one upload read by a group. */
export function uploadDoc(name: string, description: string): ParamDoc {
  return { name, in: 'formData', type: 'file', description };
}

/** One upload under a name; two or more under it are refused. */
export function upload(name: string, description: string): Param<UploadedFile | undefined> {
  return param([uploadDoc(name, description)], (p) => p.file(name));
}

/** Documentation of a list `name[n]` of the given item type. */
export function listDoc(name: string, type: ParamType, description: string, extra: Partial<ParamDoc> & { items?: z.ZodType } = {}): ParamDoc {
  const { items, ...rest } = extra;
  const doc = type === 'file' ? uploadDoc(name, description) : docOf(name, type, items ?? (type === 'integer' ? z.int() : z.string()), description);
  return { ...doc, indexed: true, ...rest };
}

/** An answer format from a name (`format`, `color_format`) whose refusal the reader words. */
export function choice<T extends string>(name: string, values: readonly [T, ...T[]], fallback: T, description: string, read: (p: ParamReader) => T): Param<T> {
  return param([docOf(name, 'string', z.enum(values).default(fallback as never), description)], read);
}

/** The format parameter, for the few places that must know it before the parameters are read (early answers). */
export const FORMAT_VALUES = ['json', 'xml'] as const;
export function readFormat(p: ParamReader): ResponseFormat {
  return parseFormat(p.string('format'));
}

/** A ParamError naming a parameter; the readers' messages start with the parameter's name. */
export function refuse(message: string): never {
  throw new ParamError(message);
}
