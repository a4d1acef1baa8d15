import { ParamError, Params } from '@loupe/envelope';
import { compileGlob, GlobError, MAX_GLOB_LENGTH, PathFilters } from '@loupe/jobs';

/**
 * `name_filter` and `path_filter` of every search (match, mobile, wine, color), checked here so that a glob that is too
 * long or has a backwards range is refused with its reason before an upload is staged or a URL downloaded.
 */
export function readPathFilters(params: Params): PathFilters {
  return { name_filter: readGlob(params, 'name_filter'), path_filter: readGlob(params, 'path_filter') };
}

function readGlob(params: Params, name: keyof PathFilters): string | undefined {
  const glob = params.string(name, { maxLength: MAX_GLOB_LENGTH });
  if (glob === undefined) return undefined;
  try {
    compileGlob(glob);
  } catch (error) {
    if (error instanceof GlobError) throw new ParamError(`${name}: ${error.message}`);
    throw error;
  }
  return glob;
}
