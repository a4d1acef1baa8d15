import type { ColorForm, Rgb } from './types';

/** A color string that is neither "r,g,b" nor "rrggbb"/"#rrggbb"; the message names the string. */
export class ColorParseError extends Error {
  override name = 'ColorParseError';
}

const HEX_FORM = /^#?([0-9a-f]{6})$/i;
const RGB_FORM = /^\s*([^,]*),([^,]*),([^,]*)$/;
const DECIMAL_INTEGER = /^\s*\d+\s*$/;
const MAX_COMPONENT = 255;

/** Parses a color as written in requests (docs/protocol.md §6): "r,g,b" (spaces allowed), "rrggbb" or "#rrggbb". */
export function parseColor(s: string): { rgb: Rgb; form: ColorForm } {
  const hex = HEX_FORM.exec(s.trim());
  if (hex) {
    const n = parseInt(hex[1], 16);
    return { rgb: [(n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff], form: 'hex' };
  }
  const parts = RGB_FORM.exec(s);
  if (!parts) {
    throw new ColorParseError(
      `Invalid color "${s}": expected "r,g,b" with integers from 0 to 255, or six hex digits "rrggbb".`,
    );
  }
  const components = parts.slice(1, 4).map((p) => (DECIMAL_INTEGER.test(p) ? Number(p) : NaN));
  if (components.some((c) => !(c <= MAX_COMPONENT))) {
    throw new ColorParseError(`Invalid color "${s}": each component must be an integer from 0 to 255.`);
  }
  return { rgb: [components[0], components[1], components[2]], form: 'rgb' };
}

/** Writes a color as responses do: [r, g, b] for "rgb", lower-case "rrggbb" for "hex". */
export function formatColor(rgb: Rgb, form: ColorForm): number[] | string {
  if (form === 'rgb') return [rgb[0], rgb[1], rgb[2]];
  return rgb.map((c) => c.toString(16).padStart(2, '0')).join('');
}
