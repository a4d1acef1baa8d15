import { All, Controller, Get, Inject, Param, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiDispatcher } from './api.dispatcher';

/**
 * The public index API (any method, trailing slash optional) and its overlay links, at `/rest/<operation>/` where the
 * specification (4.14) puts it and clients that know only a host name build it, and at `/api/rest/<operation>/`,
 * our own prefix. Both answer the same; a signature covers whichever URL the client used.
 */
@Controller(['rest', 'api/rest'])
export class ApiController {
  constructor(@Inject(ApiDispatcher) private readonly dispatcher: ApiDispatcher) {}

  @Get('overlay/:key/:file')
  async overlay(@Res() res: Response, @Param('key') key: string, @Param('file') file: string): Promise<void> {
    const answer = await this.dispatcher.overlay(key, file);
    res.status(answer.status).set(answer.headers).send(answer.body);
  }

  @All(':operation')
  async call(@Req() req: Request, @Res() res: Response, @Param('operation') operation: string): Promise<void> {
    const answer = await this.dispatcher.handle(req, operation);
    res.status(answer.status).set(answer.headers).send(answer.body);
  }
}
