export { CATALOG, catalogOf, COMMON_PARAMS, operationDoc } from './catalog';
export type { OperationDoc, ParamDoc, ServiceCatalog } from './catalog';
export { DocsModule } from './docs.module';
export { renderDocsHtml } from './html';
export { buildOpenApi, catalogGaps, operationNames } from './openapi';
export type { OperationNames } from './openapi';
