import { Controller, DynamicModule, Get, Inject, Module, Param, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CollectionImages } from './collection-images';

/** The console's static files: plain HTML, CSS and ES modules beside this file (no build step). */
const STATIC_DIR = path.join(__dirname, 'static');
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
};
/** Only plain names of files in STATIC_DIR are served: no folders, no dot files, no way out of it. */
const STATIC_NAME = /^[a-z0-9-]+\.(html|css|js|svg)$/;

function joinWildcard(value: string | string[]): string {
  return Array.isArray(value) ? value.join('/') : value;
}

/** GET /console/ (the web console) and the read-only collection image route it draws match rectangles on. */
@Controller()
export class ConsoleController {
  constructor(@Inject(CollectionImages) private readonly images: CollectionImages) {}

  /** `/console` and `/console/` alike (Express matches both); the page links its files by absolute paths. */
  @Get('console')
  index(@Res() res: Response): Promise<void> {
    return this.sendStatic(res, 'index.html');
  }

  @Get('console/:file')
  file(@Res() res: Response, @Param('file') file: string): Promise<void> {
    return this.sendStatic(res, file);
  }

  @Get(':service/:account/rest/image/*filepath')
  async image(
    @Req() req: Request,
    @Res() res: Response,
    @Param('service') service: string,
    @Param('account') account: string,
    @Param('filepath') filepath: string | string[],
  ): Promise<void> {
    const answer = await this.images.normalized(req, service, account, joinWildcard(filepath));
    res.status(answer.status).set(answer.headers).send(answer.body);
  }

  private async sendStatic(res: Response, name: string): Promise<void> {
    if (!STATIC_NAME.test(name)) {
      res.status(404).type('text/plain').send('Not found.');
      return;
    }
    try {
      const data = await readFile(path.join(STATIC_DIR, name));
      res.set({ 'content-type': TYPES[path.extname(name)], 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' }).send(data);
    } catch {
      res.status(404).type('text/plain').send('Not found.');
    }
  }
}

@Module({})
export class ConsoleModule {
  static with(images: CollectionImages): DynamicModule {
    return { module: ConsoleModule, controllers: [ConsoleController], providers: [{ provide: CollectionImages, useValue: images }] };
  }
}
