import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Metrics } from '@loupe/runtime';

/** Prometheus scrape endpoint. */
@Controller()
export class MetricsController {
  constructor(@Inject(Metrics) private readonly metrics: Metrics) {}

  @Get('metrics')
  async scrape(@Res() res: Response): Promise<void> {
    res.set('content-type', this.metrics.registry.contentType).send(await this.metrics.registry.metrics());
  }
}
