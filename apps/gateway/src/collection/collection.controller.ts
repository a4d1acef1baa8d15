import { All, Controller, Get, Inject, Param, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { BlobStore } from '@loupe/storage';
import { BasicAuthService } from '../http/basic-auth.service';
import { BASIC_AUTH, callOf } from '../http/collection-call';
import { COLLECTION_CALL_ROUTE, noSuchService } from '../http/collection-routes';
import { serveOverlay } from '../http/overlay';
import { BLOB_STORE } from '../services/tokens';

/**
 * The collection paths that belong to no one service: overlays, and a call naming no service. Registered after the
 * services' controllers (CollectionModule), so `:service` here is a name none of them has.
 */
@Controller()
export class CollectionController {
  constructor(
    @Inject(BASIC_AUTH) private readonly auth: BasicAuthService,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  @Get(':service/:account/rest/overlay/:file')
  async overlay(
    @Req() req: Request,
    @Res() res: Response,
    @Param('service') service: string,
    @Param('account') account: string,
    @Param('file') file: string,
  ): Promise<void> {
    const answer = await serveOverlay(this.auth, this.blobs, req, service, account, file);
    res.status(answer.status).set(answer.headers).send(answer.body);
  }

  /** 404 before any credentials are checked: there is no account of a service that does not exist to sign in to. */
  @All(COLLECTION_CALL_ROUTE)
  unknownService(@Req() req: Request): never {
    throw noSuchService(callOf(req)!);
  }
}
