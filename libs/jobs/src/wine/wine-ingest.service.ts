import type { IngestPayload } from '../contracts';
import type { IngestService } from '../ingest.service';
import type { WineIngestResult } from './contracts';
import type { WineLabelHook } from './label.hook';

/**
 * A wine add is the common ingest with the label hook among its hooks; this adds the label time the hook measured
 * (specification 2.2: time_detect_label) and takes it out of time_add, which would otherwise count it too.
 */
export class WineIngestService {
  constructor(
    private readonly ingest: IngestService,
    private readonly labels: WineLabelHook,
  ) {}

  async add(payload: IngestPayload): Promise<WineIngestResult> {
    try {
      const result = await this.ingest.ingest(payload);
      const detect = Math.round(this.labels.takeTime(payload.items.map((i) => i.staged_key)) * 1e6) / 1e6;
      return { ...result, time_detect_label: detect, time_add: Math.max(0, Math.round((result.time_add - detect) * 1e6) / 1e6) };
    } catch (error) {
      this.labels.takeTime(payload.items.map((i) => i.staged_key));
      throw error;
    }
  }
}
