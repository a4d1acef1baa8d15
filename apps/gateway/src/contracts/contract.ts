import type { Params } from '@loupe/envelope';
import type { Param, ParamDoc, ParamReader } from './params';

/** Names of result item schemas in `#/components/schemas` of the OpenAPI document. */
export type ResultSchema =
  | 'Nothing' | 'MatchItem' | 'WineMatchItem' | 'InfoItem' | 'ImageIdMetadataItem' | 'Filepath' | 'Count' | 'PaletteColor'
  | 'ColorCount' | 'ColorSearchHit' | 'CountMetadataItem' | 'MetadataItem' | 'MetadataKey' | 'WineLabelItem' | 'WineTextItem';

export type ParamSet = Record<string, Param<unknown>>;

/**
 * One operation's contract: what it reads (in the order the call reads it, which decides which problem a request
 * with several is refused for) and what it answers. The reference documents it; readInput reads it.
 */
export interface OperationContract<P extends ParamSet = ParamSet> {
  summary: string;
  description?: string;
  /** HTTP methods worth documenting (the gateway accepts any method; uploads need POST). */
  methods: Array<'get' | 'post' | 'delete'>;
  params: P;
  result: ResultSchema;
  /** `query_image` in the envelope: `filepath`, or `filepath` and the label `metadata` (wine search). */
  queryImage?: 'filepath' | 'filepath+metadata';
  /** Fields of `stats` besides `time_total` (which every envelope has). `time_*` are seconds. */
  stats: string[];
  /** Stats present only in some calls, e.g. time_download when a URL was given. */
  optionalStats?: string[];
}

/** What a set of declared parameters reads: each parameter (or group) under its key, as its reader returns it. */
export type ReadOf<P extends ParamSet> = { [K in keyof P]: P[K] extends Param<infer T> ? T : never };

/** The typed request of a contract. */
export type InputOf<C extends OperationContract> = ReadOf<C['params']>;

export function contract<P extends ParamSet>(declared: OperationContract<P>): OperationContract<P> {
  return declared;
}

/** Every documented parameter of a contract, in declaration order. */
export function documentedParams(declared: OperationContract): ParamDoc[] {
  return Object.values(declared.params).flatMap((p) => p.docs);
}

/** Thrown when a reader touches a name its parameter does not document: a contract bug, never the client's. */
export class UndeclaredParamError extends Error {
  constructor(readonly names: string[]) {
    super(`A parameter reader read ${names.join(', ')}, which its declaration does not document.`);
    this.name = 'UndeclaredParamError';
  }
}

const ACCESSORS = ['string', 'bool', 'int', 'number', 'list', 'indexed', 'file', 'files', 'has'] as const;

/** Params limited to a parameter's documented names, so what is read is what the reference shows. */
function scoped(params: Params, docs: readonly ParamDoc[]): ParamReader {
  const allowed = new Set(docs.flatMap((d) => [d.name, ...(d.single ? [d.single] : []), ...(d.aliases ?? [])]));
  const view = {} as Record<(typeof ACCESSORS)[number], unknown>;
  for (const accessor of ACCESSORS) {
    const method = (params[accessor] as (...args: unknown[]) => unknown).bind(params);
    view[accessor] = (name: string, second?: unknown) => {
      // list/files/indexed take an alias as their second argument; the others take options.
      const names = typeof second === 'string' ? [name, second] : [name];
      const undeclared = names.filter((n) => !allowed.has(n));
      if (undeclared.length > 0) throw new UndeclaredParamError(undeclared);
      return method(name, second);
    };
  }
  return view as ParamReader;
}

/**
 * Reads a call's parameters by its contract (`contract.params`, or the common parameters), once, in declaration order: the first problem is thrown as the
 * ParamError the client gets, and what comes back is the typed request the operation runs on. `into` receives each
 * value as it is read, so a caller refused for a later parameter still has the earlier ones (the answer's format).
 */
export function readInput<P extends ParamSet>(declared: P, params: Params, into: Partial<ReadOf<P>> = {}): ReadOf<P> {
  const input = into as Record<string, unknown>;
  for (const [key, declaredParam] of Object.entries(declared)) {
    input[key] = declaredParam.read(scoped(params, declaredParam.docs), input);
  }
  return input as ReadOf<P>;
}
