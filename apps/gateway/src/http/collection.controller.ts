import { All, Controller, Get, HttpCode, Inject, Param, Req, Res, UseGuards, UseInterceptors } from '@nestjs/common';
import type { Request, Response } from 'express';
import { serveOverlay } from './overlay';
import { BasicAuthService } from './basic-auth.service';
import { BASIC_AUTH, BLOB_STORE } from './collection-call';
import { BasicAuthGuard } from './basic-auth.guard';
import { EnvelopeInterceptor } from './envelope.interceptor';
import { CollectionRequest, OperationCall, OperationInputPipe } from './operation-input.pipe';
import type { OperationOutcome, ServiceName } from '../services/operation';
import type { BlobStore } from '@loupe/storage';

/**
 * Every collection-service call: `/<service>/<account>/rest/<operation>/`, any method, with or without the trailing
 * slash. The guard signs the caller in, the pipe reads the operation's contract, the interceptor renders the
 * envelope, and ProtocolExceptionFilter answers every failure; the handler only runs the operation.
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

  @All(':service/:account/rest/:operation')
  @HttpCode(200)
  @UseGuards(BasicAuthGuard)
  @UseInterceptors(EnvelopeInterceptor)
  call(@CollectionRequest(OperationInputPipe) { call, operation, input }: OperationCall): Promise<OperationOutcome> {
    const { service, account, common, signal } = call;
    const timeoutMs = common.timeout ? common.timeout * 1000 : undefined;
    return operation.run({ service: service as ServiceName, account: account!, format: common.format ?? 'json', timeoutMs, signal }, input as never);
  }
}
