import { All, Controller, Get, Inject, Param, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { CollectionDispatcher } from './collection-dispatcher';

/** Every collection-service call: `/<service>/<account>/rest/<operation>/`, any method, with or without the trailing slash. */
@Controller()
export class CollectionController {
  constructor(@Inject(CollectionDispatcher) private readonly dispatcher: CollectionDispatcher) {}

  @Get(':service/:account/rest/overlay/:file')
  async overlay(
    @Req() req: Request,
    @Res() res: Response,
    @Param('service') service: string,
    @Param('account') account: string,
    @Param('file') file: string,
  ): Promise<void> {
    const answer = await this.dispatcher.overlay(req, service, account, file);
    res.status(answer.status).set(answer.headers).send(answer.body);
  }

  @All(':service/:account/rest/:operation')
  async call(
    @Req() req: Request,
    @Res() res: Response,
    @Param('service') service: string,
    @Param('account') account: string,
    @Param('operation') operation: string,
  ): Promise<void> {
    const answer = await this.dispatcher.handle(req, service, account, operation);
    res.status(answer.status).set(answer.headers).send(answer.body);
  }
}
