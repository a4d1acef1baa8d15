import { Controller, Get, Inject } from '@nestjs/common';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import { ReadinessProbe, runProbe } from './readiness';

export const READINESS_PROBES = Symbol('READINESS_PROBES');

/**
 * Kubernetes probes. Liveness says only that the process serves HTTP (restarting it would not fix a database outage);
 * readiness checks Postgres, Redis and the blob store, so a replica that cannot reach them gets no traffic.
 */
@Controller('health')
export class HealthController {
  constructor(
    @Inject(HealthCheckService) private readonly health: HealthCheckService,
    @Inject(HealthIndicatorService) private readonly indicators: HealthIndicatorService,
    @Inject(READINESS_PROBES) private readonly probes: ReadinessProbe[],
  ) {}

  @Get('live')
  @HealthCheck()
  live() {
    return this.health.check([async () => this.indicators.check('process').up({ uptime_s: Math.round(process.uptime()) })]);
  }

  @Get('ready')
  @HealthCheck()
  ready() {
    return this.health.check(
      this.probes.map((probe) => async () => {
        const outcome = await runProbe(probe);
        const indicator = this.indicators.check(probe.name);
        return outcome.ok ? indicator.up({ ms: outcome.ms }) : indicator.down({ ms: outcome.ms, message: outcome.error });
      }),
    );
  }
}
