import { COMMON, CONTRACTS, documentedParams, OperationContract } from '../contracts';
import type { ParamDoc } from '../contracts';
import type { ServiceName } from '../services/operation';

export type { ParamDoc, ParamType, ResultSchema } from '../contracts';

/**
 * The catalog of the collection services' operations, from which the OpenAPI document and the /docs page are
 * generated: each operation's contract (contracts/operations.ts) without its readers. The parameters documented are
 * the ones the contract reads, so a rule changed there changes the reference.
 */

export interface OperationDoc extends Omit<OperationContract, 'params'> {
  params: ParamDoc[];
}

export type ServiceCatalog = Record<ServiceName, Record<string, OperationDoc>>;

export function operationDoc(declared: OperationContract): OperationDoc {
  const { params: _readers, ...rest } = declared;
  return { ...rest, params: documentedParams(declared) };
}

/** Parameters every operation reads, appended to each operation's own. */
export const COMMON_PARAMS: ParamDoc[] = Object.values(COMMON).flatMap((p) => p.docs);

/** Every contract of every service, documented: the contracts the operations' handlers read their requests by. */
export const CATALOG: ServiceCatalog = Object.fromEntries(
  Object.entries(CONTRACTS).map(([service, ops]) => [service, Object.fromEntries(Object.entries(ops).map(([name, c]) => [name, operationDoc(c)]))]),
) as ServiceCatalog;

/** What each service is for, shown as the OpenAPI tag descriptions. */
export const SERVICE_DESCRIPTIONS: Record<ServiceName, string> = {
  mobile: 'Add images, search and compare them, report their presence and fingerprint health.',
  match: 'Compare two images (score, matching regions, enhanced and color scores, overlay); a searchable collection whose add replaces.',
  color: 'Palettes, color search, keyword metadata search and counts.',
  wine: 'Wine-label search, label text and label metadata.',
};
