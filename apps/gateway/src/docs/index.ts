export { CATALOG, COMMON_PARAMS, operationDoc } from './catalog';
export type { OperationDoc, ParamDoc, ServiceCatalog } from './catalog';
export { DocsModule } from './docs.module';
export { renderDocsHtml } from './html';
export { buildOpenApi, catalogGaps } from './openapi';
export type { OperationNames } from './openapi';
