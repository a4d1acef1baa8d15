import { Controller, DynamicModule, Get, Inject, Module, Res } from '@nestjs/common';
import type { Response } from 'express';
import { renderDocsHtml } from './html';
import { buildOpenApi, OperationNames } from './openapi';

export const OPENAPI_DOCUMENT = Symbol('OPENAPI_DOCUMENT');

/** GET /docs (a readable HTML reference) and GET /docs/openapi.json, both generated once at start-up. */
@Controller('docs')
export class DocsController {
  private readonly html: string;
  private readonly json: string;

  constructor(@Inject(OPENAPI_DOCUMENT) document: Record<string, unknown>) {
    this.json = JSON.stringify(document, null, 2);
    this.html = renderDocsHtml(document);
  }

  @Get()
  page(@Res() res: Response): void {
    res.set('content-type', 'text/html; charset=utf-8').send(this.html);
  }

  @Get('openapi.json')
  document(@Res() res: Response): void {
    res.set('content-type', 'application/json; charset=utf-8').send(this.json);
  }
}

@Module({})
export class DocsModule {
  /**
   * `operations`: what the controllers serve (servedOperations), documented by the contracts their handlers read, so
   * the document lists exactly what the gateway serves and reads.
   */
  static with(operations: OperationNames): DynamicModule {
    return { module: DocsModule, controllers: [DocsController], providers: [{ provide: OPENAPI_DOCUMENT, useValue: buildOpenApi(operations) }] };
  }
}
