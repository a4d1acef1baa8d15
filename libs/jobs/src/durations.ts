/** One hour in milliseconds: the unit the sweepers' ages and the overlays' hour prefixes are counted in. */
export const HOUR_MS = 3_600_000;
