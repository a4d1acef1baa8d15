import Ajv from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Params, ParamError } from '@loupe/envelope';
import { PATH_METADATA } from '@nestjs/common/constants';
import { MetadataScanner } from '@nestjs/core';
import { contract, CONTRACTS, documentedParams, int, param, readInput, textDoc, UndeclaredParamError } from '../src/contracts';
import { SERVICE_CONTROLLERS } from '../src/collection/collection.module';
import { buildOpenApi, CATALOG, catalogGaps, operationDoc, renderDocsHtml } from '../src/docs';
import { contractOf, operationOf, serviceOf, servedOperations } from '../src/http/collection-routes';
import { SERVICE_NAMES } from '../src/services/operation';
import { call, formWith, startTestSystem, TestSystem } from './harness';
import { sceneJpeg } from './images';

/** The operations the gateway serves: the handlers its service controllers declare. */
function realTables() {
  return servedOperations(SERVICE_CONTROLLERS);
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
  it('describes exactly the operations the service controllers serve', () => {
    expect(catalogGaps(realTables())).toEqual({ undocumented: [], unknown: [] });
  });

  it('marks an operation served without a catalog entry as undocumented', () => {
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

describe('parameters: the reference documents what each operation reads', () => {
  /** Names an OpenAPI operation documents: query parameters and multipart uploads, lists as `name[n]`. */
  function documentedNames(op: any): string[] {
    const form = op.requestBody?.content?.['multipart/form-data']?.schema ?? {};
    const uploads = [
      ...Object.entries<any>(form.properties ?? {}).filter(([, s]) => s.contentMediaType).map(([name]) => name),
      ...Object.entries<any>(form.patternProperties ?? {}).filter(([, s]) => s.contentMediaType).map(([pattern]) => `${pattern.slice(1, pattern.indexOf('\\'))}[n]`),
    ];
    return [...(op.parameters ?? []).map((p: any) => p.name), ...uploads].sort();
  }

  it('documents, for every operation the gateway runs, exactly the parameters of the contract it reads', () => {
    const served = realTables();
    const doc = buildOpenApi(served) as any;
    const common = ['callback', 'format', 'timeout'];
    for (const service of SERVICE_NAMES) {
      for (const name of served[service]) {
        const item = doc.paths[`/${service}/{account}/rest/${name}/`];
        // The contract OperationInputPipe reads the handler's request by.
        const declared = contractOf(service, name);
        for (const method of declared.methods) {
          // Uploads need a multipart body, which only POST documents.
          const read = documentedParams(declared).filter((p) => method === 'post' || p.type !== 'file').map((p) => (p.indexed ? `${p.name}[n]` : p.name));
          expect(documentedNames(item[method]), `${service}.${name} ${method}`).toEqual([...new Set([...read, ...common])].sort());
        }
      }
    }
  });

  it('runs every operation on the contract the catalog documents, at the path of its name', () => {
    const scanner = new MetadataScanner();
    const routed: string[] = [];
    for (const controller of SERVICE_CONTROLLERS) {
      const service = serviceOf(controller)!;
      for (const method of scanner.getAllMethodNames(controller.prototype)) {
        const handler = controller.prototype[method];
        const name = operationOf(handler);
        if (name === undefined) continue;
        // Express routes `…/rest/<path>/` to this handler, whose request is read by the contract of `name`.
        expect(Reflect.getMetadata(PATH_METADATA, handler), `${service}.${method}`).toBe(name);
        expect(operationDoc(contractOf(service, name)), `${service}.${name}`).toEqual(CATALOG[service][name]);
        routed.push(`${service}.${name}`);
      }
    }
    expect(routed.sort()).toEqual(SERVICE_NAMES.flatMap((s) => Object.keys(CONTRACTS[s]).map((op) => `${s}.${op}`)).sort());
  });

  it('refuses, as a contract bug, a reader that reads a name its declaration does not document', () => {
    const sloppy = { q: param([textDoc('query', 'A query.')], (p) => p.string('qeury')) };
    expect(() => readInput(sloppy, new Params([['qeury', 'x']]))).toThrow(UndeclaredParamError);
  });

  it('keeps every reader within its documented names, whatever the request holds', () => {
    const values: Record<string, string> = { integer: '3', number: '2.5', boolean: 'true', string: 'x' };
    for (const service of SERVICE_NAMES) {
      for (const [name, declared] of Object.entries((CONTRACTS as any)[service] as Record<string, any>)) {
        const docs = documentedParams(declared);
        const full = docs.filter((p) => p.type !== 'file').flatMap((p): Array<[string, string]> => (p.indexed ? [[`${p.name}[0]`, values[p.type]]] : [[p.name, values[p.type]]]));
        const files = docs.filter((p) => p.type === 'file').map((p) => ({ field: p.indexed ? `${p.name}[0]` : p.name, filename: 'a.jpg', data: Buffer.from('x') }));
        for (const params of [new Params([]), new Params(full, files)]) {
          try {
            readInput(declared.params, params);
          } catch (error) {
            expect(error, `${service}.${name}`).toBeInstanceOf(ParamError);
          }
        }
      }
    }
  });

  it('changes the reference and the reading together when a rule changes', () => {
    const list = contract({ ...CONTRACTS.mobile.list, params: { ...CONTRACTS.mobile.list.params, limit: int('limit', { default: 7, min: 1 }, 'Paths to return.') } });
    const doc = buildOpenApi(realTables(), { ...CATALOG, mobile: { ...CATALOG.mobile, list: operationDoc(list) } }) as any;
    const limit = doc.paths['/mobile/{account}/rest/list/'].get.parameters.find((p: any) => p.name === 'limit');
    expect(limit.schema).toMatchObject({ type: 'integer', default: 7, minimum: 1 });
    expect(readInput(list.params, new Params([])).limit).toBe(7);
    expect(() => readInput(list.params, new Params([['limit', '0']]))).toThrow('limit: "0" is not an integer from 1 to 2147483647.');
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
