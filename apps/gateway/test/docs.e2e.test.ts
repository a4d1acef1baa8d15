import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApi, CATALOG, catalogGaps, operationNames, renderDocsHtml } from '../src/docs';
import type { CollectionService } from '../src/services/collection.service';
import { ColorOperations } from '../src/services/color.service';
import { matchOperations } from '../src/services/match.service';
import type { MatchingService } from '../src/services/matching.service';
import { mobileOperations } from '../src/services/mobile.service';
import { SERVICE_NAMES } from '../src/services/operation';
import { WineOperations } from '../src/services/wine.service';
import { call, formWith, startTestSystem, TestSystem } from './harness';
import { sceneJpeg } from './images';

/** The real operation tables; their handlers are never called here, so their collaborators can be left out. */
function realTables() {
  const none = undefined as never;
  return operationNames({
    mobile: mobileOperations(none as CollectionService, none as MatchingService),
    match: matchOperations(none as CollectionService, none as MatchingService),
    color: new ColorOperations(none, none, none, none, none).table(),
    wine: new WineOperations(none, none, none, none).table(),
  });
}

/** The parts of OpenAPI 3.1 this document uses, checked structurally (not the whole specification). */
const OPENAPI_31_SHAPE = {
  type: 'object',
  required: ['openapi', 'info', 'paths', 'components'],
  properties: {
    openapi: { type: 'string', pattern: '^3\\.1\\.\\d+$' },
    info: { type: 'object', required: ['title', 'version'], properties: { title: { type: 'string' }, version: { type: 'string' } } },
    paths: {
      type: 'object',
      propertyNames: { pattern: '^/' },
      additionalProperties: {
        type: 'object',
        properties: {
          parameters: { type: 'array', items: { $ref: '#/$defs/parameter' } },
          get: { $ref: '#/$defs/operation' },
          post: { $ref: '#/$defs/operation' },
          delete: { $ref: '#/$defs/operation' },
        },
      },
    },
    components: {
      type: 'object',
      required: ['schemas'],
      properties: { schemas: { type: 'object', additionalProperties: { type: 'object' } }, securitySchemes: { type: 'object' }, responses: { type: 'object' } },
    },
  },
  $defs: {
    parameter: {
      type: 'object',
      required: ['name', 'in', 'schema'],
      properties: { name: { type: 'string', minLength: 1 }, in: { enum: ['query', 'path', 'header', 'cookie'] }, required: { type: 'boolean' }, schema: { type: 'object' } },
      if: { properties: { in: { const: 'path' } } },
      then: { required: ['required'], properties: { required: { const: true } } },
    },
    operation: {
      type: 'object',
      required: ['operationId', 'responses'],
      properties: {
        operationId: { type: 'string' },
        parameters: { type: 'array', items: { $ref: '#/$defs/parameter' } },
        requestBody: { type: 'object', required: ['content'] },
        responses: {
          type: 'object',
          minProperties: 1,
          propertyNames: { pattern: '^[1-5][0-9][0-9]$' },
          additionalProperties: { type: 'object', anyOf: [{ required: ['description'] }, { required: ['$ref'] }] },
        },
      },
    },
  },
};

describe('OpenAPI catalog', () => {
  it('describes exactly the operations of the real operation tables', () => {
    expect(catalogGaps(realTables())).toEqual({ undocumented: [], unknown: [] });
  });

  it('marks an operation added to a table without a catalog entry as undocumented', () => {
    const tables = realTables();
    const withNew = { ...tables, mobile: [...tables.mobile, 'frobnicate'] };
    expect(catalogGaps(withNew).undocumented).toEqual(['mobile.frobnicate']);
    const doc = buildOpenApi(withNew) as any;
    expect(doc.paths['/mobile/{account}/rest/frobnicate/'].post['x-undocumented']).toBe(true);
  });

  it('builds a structurally valid OpenAPI 3.1 document with a path and an envelope per operation', () => {
    const doc = buildOpenApi(realTables()) as any;
    const validate = new Ajv({ allErrors: true, strict: false }).compile(OPENAPI_31_SHAPE);
    expect(validate(doc), JSON.stringify(validate.errors?.slice(0, 5))).toBe(true);
    for (const service of SERVICE_NAMES) {
      for (const op of Object.keys(CATALOG[service])) {
        const item = doc.paths[`/${service}/{account}/rest/${op}/`];
        expect(item, `${service}.${op}`).toBeDefined();
        expect(doc.components.schemas[`${service}.${op}.envelope`], `${service}.${op}`).toBeDefined();
      }
    }
    // Every component schema is a valid JSON Schema 2020-12 (the dialect of OpenAPI 3.1), references included.
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ $id: 'https://loupe.invalid/openapi', components: doc.components });
    for (const name of Object.keys(doc.components.schemas)) {
      expect(() => ajv.getSchema(`https://loupe.invalid/openapi#/components/schemas/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`), name).not.toThrow();
    }
  });

  it('documents parameters with their place, type, indexed forms, defaults and limits', () => {
    const doc = buildOpenApi(realTables()) as any;
    const search = doc.paths['/mobile/{account}/rest/search/'].post;
    const limit = search.parameters.find((p: any) => p.name === 'limit');
    expect(limit).toMatchObject({ in: 'query', schema: { type: 'integer', default: 10, minimum: 0 } });
    const upload = search.requestBody.content['multipart/form-data'].schema.properties.image;
    expect(upload.contentMediaType).toBe('application/octet-stream');
    const add = doc.paths['/mobile/{account}/rest/add/'].post;
    const filepaths = add.parameters.find((p: any) => p.name === 'filepaths[n]');
    expect(filepaths).toMatchObject({ 'x-indexed': true, schema: { type: 'array', maxItems: 10 } });
    expect(add.requestBody.content['multipart/form-data'].schema.patternProperties['^images\\[\\d*\\]$']).toBeDefined();
    expect(Object.keys(add.responses)).toEqual(['200', '401', '404', '413', '500']);
    const stats = doc.components.schemas['mobile.search.envelope'].allOf[1].properties.stats;
    expect(stats.required).toEqual(['time_total', 'total_results', 'total_filtered_results', 'total_returned_results', 'time_resize', 'time_search']);
    expect(stats.properties.time_download).toBeDefined();
  });

  it('renders a readable HTML reference of every operation', () => {
    const html = renderDocsHtml(buildOpenApi(realTables()));
    for (const service of SERVICE_NAMES) {
      for (const op of Object.keys(CATALOG[service])) expect(html, `${service}.${op}`).toContain(`/${service}/{account}/rest/${op}/`);
    }
    expect(html).not.toMatch(/<script|https?:\/\/(?!loupe)/);
  });
});

describe('/docs served by the gateway (embedded)', () => {
  let sys: TestSystem;
  let doc: any;

  beforeAll(async () => {
    sys = await startTestSystem('embedded');
    const res = await fetch(`${sys.url}/docs/openapi.json`);
    expect(res.headers.get('content-type')).toContain('application/json');
    doc = await res.json();
  }, 120_000);
  afterAll(async () => {
    await sys?.destroy();
  });

  it('serves the document of the tables the gateway runs, and the HTML page without authentication', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const served = Object.keys(doc.paths).filter((p) => p.endsWith('/')).map((p) => p.replace(/^\/([^/]+)\/\{account\}\/rest\/([^/]+)\/$/, '$1.$2'));
    const expected = SERVICE_NAMES.flatMap((s) => Object.keys(CATALOG[s]).map((op) => `${s}.${op}`));
    expect(served.sort()).toEqual(expected.sort());
    const page = await fetch(`${sys.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('/mobile/{account}/rest/search/');
  });

  it('describes the envelopes the gateway really answers', async () => {
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ $id: 'https://loupe.invalid/openapi', components: doc.components });
    const check = (service: string, op: string, body: unknown) => {
      const validate = ajv.getSchema(`https://loupe.invalid/openapi#/components/schemas/${service}.${op}.envelope`)!;
      expect(validate(body), `${service}.${op}: ${JSON.stringify(validate.errors)}`).toBe(true);
    };
    const image = await sceneJpeg(42, 640, 480);
    check('mobile', 'add', (await call(sys, 'mobile', 'add', { form: formWith([{ field: 'image', data: image, filename: 'docs/a.jpg' }]) })).json);
    check('mobile', 'list', (await call(sys, 'mobile', 'list')).json);
    check('mobile', 'count', (await call(sys, 'mobile', 'count')).json);
    check('mobile', 'get_info', (await call(sys, 'mobile', 'get_info', { query: { filepath: 'docs/a.jpg' } })).json);
    check('mobile', 'search', (await call(sys, 'mobile', 'search', { query: { filepath: 'docs/a.jpg' } })).json);
    check('color', 'extract_image_colors', (await call(sys, 'color', 'extract_image_colors', { form: formWith([{ field: 'image', data: image, filename: 'q.jpg' }]) })).json);
    check('mobile', 'delete', (await call(sys, 'mobile', 'delete', { query: { filepath: 'docs/a.jpg' } })).json);
  });
});
