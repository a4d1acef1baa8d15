import type { Envelope } from './envelope';
import { ParamError } from './errors';
import { quoteInput } from './quote';
import { renderXml, visibleControls } from './xml';

export type ResponseFormat = 'json' | 'xml';

export interface RenderedBody {
  contentType: string;
  body: string;
}

/** JSONP callback names are restricted to identifiers and dotted paths so a callback cannot inject script. */
const CALLBACK_PATTERN = /^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*$/;

export function parseFormat(value: string | undefined): ResponseFormat {
  if (value === undefined || value === '') return 'json';
  const lower = value.toLowerCase();
  if (lower === 'json' || lower === 'xml') return lower;
  throw new ParamError(`format: ${quoteInput(value)} is not a valid format; use json or xml.`);
}

/** Envelope fields in the order clients print them; absent optional fields are left out. */
function ordered(envelope: Envelope): Record<string, unknown> {
  const out: Record<string, unknown> = {
    method: envelope.method,
    status: envelope.status,
    error: envelope.error,
    result: envelope.result,
  };
  if (envelope.query_image !== undefined) out.query_image = envelope.query_image;
  out.stats = envelope.stats;
  return out;
}

/**
 * The envelope with every string (keys included) passed through visibleControls, sharing whatever has nothing to
 * change. JSON could carry any character, but an envelope must read the same in both formats (xml.ts).
 */
function withVisibleControls(value: unknown): unknown {
  if (typeof value === 'string') return visibleControls(value);
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const w = withVisibleControls(v);
      changed ||= w !== v;
      return w;
    });
    return changed ? out : value;
  }
  if (value !== null && typeof value === 'object') {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const key = visibleControls(k);
      const w = withVisibleControls(v);
      changed ||= key !== k || w !== v;
      out[key] = w;
    }
    return changed ? out : value;
  }
  return value;
}

export function renderEnvelope(
  envelope: Envelope,
  format: ResponseFormat,
  options: { callback?: string; pretty?: boolean } = {},
): RenderedBody {
  if (format === 'xml') {
    return { contentType: 'application/xml; charset=utf-8', body: renderXml(ordered(envelope)) };
  }
  const json = JSON.stringify(withVisibleControls(ordered(envelope)), null, options.pretty ? 2 : undefined);
  if (options.callback && CALLBACK_PATTERN.test(options.callback)) {
    return { contentType: 'application/javascript; charset=utf-8', body: `${options.callback}(${json});` };
  }
  return { contentType: 'application/json; charset=utf-8', body: json };
}
