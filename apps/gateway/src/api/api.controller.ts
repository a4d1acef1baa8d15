import { All, Controller, Get, HttpCode, Inject, Param, Req, Res, UseGuards, UseInterceptors } from '@nestjs/common';
import type { Request, Response } from 'express';
import { quoteInput } from '@loupe/envelope';
import { apiCallOf, API_WIRING, ApiWiring } from './api-call';
import { ApiError } from './api-envelope';
import { ApiEnvelopeInterceptor, ApiOutcome } from './api-envelope.interceptor';
import { ApiOperation, ApiSignatureGuard } from './api-signature.guard';
import type { ApiCall } from './public-api.service';

/**
 * The public index API (any method, trailing slash optional) and its overlay links, at `/rest/<operation>/`, where
 * clients that know only a host name build it, and at `/api/rest/<operation>/`, our own prefix (docs/protocol.md §1).
 * Both answer the same; a signature covers whichever URL the client used. Every operation is signed
 * (ApiSignatureGuard) and answered in the API's envelope (ApiEnvelopeInterceptor, ProtocolExceptionFilter).
 */
@Controller(['rest', 'api/rest'])
export class ApiController {
  constructor(@Inject(API_WIRING) private readonly api: ApiWiring) {}

  @Get('overlay/:key/:file')
  async overlay(@Res() res: Response, @Param('key') key: string, @Param('file') file: string): Promise<void> {
    const jpeg = await this.api.service.overlay(key, file);
    if (!jpeg) {
      res.status(404).set({ 'content-type': 'text/plain; charset=utf-8' }).send('No such overlay, or its link has expired.');
      return;
    }
    res.status(200).set({ 'content-type': 'image/jpeg', 'cache-control': 'private, max-age=3600' }).send(jpeg);
  }

  @All('search')
  @ApiOperation('search')
  @HttpCode(200)
  @UseGuards(ApiSignatureGuard)
  @UseInterceptors(ApiEnvelopeInterceptor)
  search(@Req() req: Request): Promise<ApiOutcome> {
    return this.api.service.search(signedCall(req));
  }

  @All('image_count')
  @ApiOperation('image_count')
  @HttpCode(200)
  @UseGuards(ApiSignatureGuard)
  @UseInterceptors(ApiEnvelopeInterceptor)
  async imageCount(@Req() req: Request): Promise<ApiOutcome> {
    return { results: await this.api.service.imageCount(signedCall(req)), messages: [] };
  }

  @All('remaining_searches')
  @ApiOperation('remaining_searches')
  @HttpCode(200)
  @UseGuards(ApiSignatureGuard)
  @UseInterceptors(ApiEnvelopeInterceptor)
  remainingSearches(@Req() req: Request): Promise<ApiOutcome> {
    return this.api.service.remainingSearches(signedCall(req));
  }

  /** Any other name: refused before its body is read or its signature checked. */
  @All(':operation')
  unknown(@Param('operation') operation: string): never {
    throw new ApiError(404, 'NOT_FOUND', `There is no operation ${quoteInput(operation)}; the operations are search, image_count and remaining_searches.`);
  }
}

/** The key and parameters ApiSignatureGuard checked and read, with the call's client-gone signal. */
function signedCall(req: Request): ApiCall {
  const call = apiCallOf(req)!;
  return { key: call.key!, params: call.params!, signal: call.signal };
}
