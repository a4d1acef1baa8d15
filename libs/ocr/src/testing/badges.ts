/**
 * A badge of one template (a ring, a ribbon across it, a name on the ribbon, a year above): designs of a range that
 * differ only by their name, as packaging and labels do. `transform` (SVG) places the badge in a larger frame, for a
 * query that shows it scaled and turned.
 */
export function badgeSvg(name: string, year: number, options: { width?: number; height?: number; transform?: string } = {}): string {
  const { width = 900, height = 600, transform = '' } = options;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#e6eee8"/>
    <g transform="${transform}">
    <circle cx="450" cy="300" r="220" fill="#7a1e6a"/><circle cx="450" cy="300" r="187" fill="none" stroke="#e84a6a" stroke-width="9"/>
    <rect x="186" y="260" width="528" height="80" fill="#e8304a"/>
    <text x="450" y="326" text-anchor="middle" font-family="DejaVu Sans" font-weight="bold" font-size="66" fill="#7a1e6a">${name}</text>
    <text x="450" y="212" text-anchor="middle" font-family="DejaVu Serif" font-size="35" fill="#ffffff">EST. ${year}</text>
    </g></svg>`;
}
