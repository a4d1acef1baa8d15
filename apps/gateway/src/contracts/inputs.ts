import { inputLabel, ParamError, UploadedFile } from '@loupe/envelope';
import { compileGlob, GlobError, MAX_GLOB_LENGTH } from '@loupe/jobs';
import {
  DEFAULT_SEARCH_LIMIT, MAX_FILEPATH_LENGTH, MAX_IMAGE_ID_LENGTH, MAX_IMAGES_PER_REQUEST, MAX_PATHS_PER_REQUEST, MAX_TIMEOUT_SECONDS,
} from './limits';
import { choice, flag, int, listDoc, num, Param, param, ParamDoc, ParamReader, readFormat, text, textDoc, uploadDoc } from './params';

/**
 * A filepath must be printable text: control characters would corrupt messages, XML and logs (and a NUL byte is
 * refused by Postgres itself). The message names the path, or its start when it is too long.
 */
export function checkFilepath(filepath: string): string | null {
  if (filepath.length > MAX_FILEPATH_LENGTH) return `${filepath.slice(0, 60)}…: filepath is longer than ${MAX_FILEPATH_LENGTH} characters.`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(filepath)) return `${JSON.stringify(filepath)}: filepath contains control characters.`;
  return null;
}

/**
 * Refuses a path to look up (get_info, delete, search by filepath…) that add would refuse: it cannot be in a
 * collection, a 100 kB one was echoed whole in "does not exist", and one with a NUL byte made Postgres fail (HTTP 500).
 */
export function refuseBadPath(filepath: string): void {
  const problem = checkFilepath(filepath);
  if (problem) throw new ParamError(problem);
}

// ---- parameters every operation reads ------------------------------------------------------------------------------

/** Read by OperationInputPipe before the operation's own, in this order. */
export const COMMON = {
  callback: text('callback', 'JSONP: wraps the JSON answer in a call of this function.'),
  format: choice('format', ['json', 'xml'], 'json', 'Answer format: JSON, or XML with root `data` and list entries as `item`.', readFormat),
  timeout: num('timeout', { default: 0, min: 0, max: MAX_TIMEOUT_SECONDS }, 'Seconds the call may wait and run (0 = no limit); a call still queued or running then gets a `fail` envelope saying which.'),
};

// ---- query images --------------------------------------------------------------------------------------------------

/** One query image: an upload, a collection path or a URL, exactly one. */
export interface QueryImage {
  upload?: UploadedFile;
  filepath?: string;
  url?: string;
}

function queryImageDocs(suffix: string): ParamDoc[] {
  return [
    uploadDoc(`image${suffix}`, 'The query image as an upload. Exactly one of the three query forms.'),
    textDoc(`filepath${suffix}`, 'The query as a collection path (a search by path returns that image first).'),
    textDoc(`url${suffix}`, 'The query as an http(s) URL, downloaded by the gateway.'),
  ];
}

function readQueryImage(p: ParamReader, suffix: string): QueryImage {
  const names = { image: `image${suffix}`, filepath: `filepath${suffix}`, url: `url${suffix}` };
  const upload = p.file(names.image);
  const filepath = p.string(names.filepath);
  const url = p.string(names.url);
  const given = [upload && names.image, filepath !== undefined && names.filepath, url !== undefined && names.url].filter(Boolean);
  if (given.length === 0) throw new ParamError(`Please specify a query image: ${names.image}, ${names.filepath} or ${names.url}.`);
  if (given.length > 1) throw new ParamError(`Please specify only one of ${given.join(', ')}.`);
  if (filepath !== undefined) {
    refuseBadPath(filepath);
    return { filepath };
  }
  return upload ? { upload } : { url };
}

/** The query of a search: `image`, `filepath` or `url`. */
export function queryImage(): Param<QueryImage> {
  return param(queryImageDocs(''), (p) => readQueryImage(p, ''));
}

/** The two images of a compare: both uploads or both URLs (or collection paths), not a mixture. */
export function imagePair(): Param<{ first: QueryImage; second: QueryImage }> {
  return param([...queryImageDocs('1'), ...queryImageDocs('2')], (p) => {
    const hasUpload = p.files('image1').length + p.files('image2').length > 0;
    const hasUrl = p.has('url1') || p.has('url2');
    if (hasUpload && hasUrl) throw new ParamError('Please send both images as uploads or both as URLs, not a mixture of the two.');
    return { first: readQueryImage(p, '1'), second: readQueryImage(p, '2') };
  });
}

/** Images to read (extractions, color search by image): uploads first, then URLs. */
export interface QueryImages {
  uploads: UploadedFile[];
  urls: string[];
}

const tooManyImages = (n: number) => new ParamError(`At most ${MAX_IMAGES_PER_REQUEST} images or URLs may be sent per request; ${n} were sent.`);

/** `image`, `images[n]`, `url`, `urls[n]`, at most 10 together; `required`: at least one. */
export function queryImages(options: { required: boolean }): Param<QueryImages> {
  return param(
    [
      uploadDoc('image', 'One image.'),
      listDoc('images', 'file', `Several images (at most ${MAX_IMAGES_PER_REQUEST} images and URLs together).`, { maxItems: MAX_IMAGES_PER_REQUEST }),
      textDoc('url', 'An http(s) image URL.'),
      listDoc('urls', 'string', 'Several image URLs.', { maxItems: MAX_IMAGES_PER_REQUEST }),
    ],
    (p) => {
      const single = p.file('image');
      const uploads = [...(single ? [single] : []), ...p.files('images')];
      const url = p.string('url');
      const urls = [...(url !== undefined ? [url] : []), ...p.list('urls').filter((u) => u !== '')];
      const total = uploads.length + urls.length;
      if (total > MAX_IMAGES_PER_REQUEST) throw tooManyImages(total);
      if (total === 0 && options.required) throw new ParamError('Please send an image: image, images[n], url or urls[n].');
      return { uploads, urls };
    },
  );
}

// ---- images to add -------------------------------------------------------------------------------------------------

/** One image of an add, before it is checked and staged. */
export interface AddCandidate {
  filepath: string | undefined;
  imageId: string | undefined;
  /** How the input is named in messages when it has no usable filepath. */
  label: string;
  upload?: Buffer;
  url?: string;
}

/**
 * The four add/update forms of docs/protocol.md §7 (one or several uploads, one or several URLs; they may be combined).
 * With several uploads, filepaths[n] belong to them; URLs then continue the numbering (images first, then urls).
 */
export function addInputs(): Param<AddCandidate[]> {
  return param(
    [
      uploadDoc('image', 'One image to add (JPEG, PNG, WEBP, AVIF, GIF, BMP, TIFF).'),
      textDoc('filepath', 'Collection path of `image` or `url`; for an upload, the multipart file name (folders kept) when absent.', { maxLength: MAX_FILEPATH_LENGTH }),
      textDoc('image_id', 'An identifier of the caller\'s, stored with the image and returned by get_metadata.', { maxLength: MAX_IMAGE_ID_LENGTH }),
      listDoc('images', 'file', `Several images in one call (at most ${MAX_IMAGES_PER_REQUEST} images and URLs together).`, { maxItems: MAX_IMAGES_PER_REQUEST }),
      listDoc('filepaths', 'string', 'Paths of `images[n]`, then of `urls[n]` continuing the numbering.', { maxItems: MAX_IMAGES_PER_REQUEST, maxLength: MAX_FILEPATH_LENGTH }),
      listDoc('image_ids', 'string', 'Identifiers of `images[n]` / `urls[n]`, numbered like `filepaths[n]`.', { maxItems: MAX_IMAGES_PER_REQUEST, maxLength: MAX_IMAGE_ID_LENGTH }),
      textDoc('url', 'An http(s) image URL the gateway downloads (needs `filepath`).'),
      listDoc('urls', 'string', 'Several image URLs (each needs its `filepaths[n]`).', { maxItems: MAX_IMAGES_PER_REQUEST }),
    ],
    (p) => {
      const candidates: AddCandidate[] = [];
      const single = p.file('image');
      if (single) {
        candidates.push({
          upload: single.data,
          filepath: p.string('filepath') ?? (single.filename || undefined),
          imageId: p.string('image_id'),
          label: inputLabel(single.filename || 'image'),
        });
      }
      const uploads = p.files('images');
      const uploadPaths = p.indexed('filepaths');
      const uploadIds = p.indexed('image_ids');
      uploads.forEach((file, i) => {
        candidates.push({
          upload: file.data,
          filepath: uploadPaths.get(i) || file.filename || undefined,
          imageId: uploadIds.get(i) || undefined,
          label: inputLabel(file.filename || `images[${i}]`),
        });
      });
      const url = p.string('url');
      if (url !== undefined) {
        candidates.push({ url, filepath: single ? undefined : p.string('filepath'), imageId: p.string('image_id'), label: inputLabel(url) });
      }
      const urlOffset = uploads.length;
      p.list('urls').forEach((u, i) => {
        candidates.push({ url: u, filepath: uploadPaths.get(urlOffset + i) || undefined, imageId: uploadIds.get(urlOffset + i) || undefined, label: inputLabel(u) });
      });
      if (candidates.length === 0) throw new ParamError('Please send an image: image, images[n], url or urls[n].');
      if (candidates.length > MAX_IMAGES_PER_REQUEST) throw tooManyImages(candidates.length);
      return candidates;
    },
  );
}

// ---- collection paths, pages, filters ------------------------------------------------------------------------------

/** `filepath` or `filepaths[n]`, at most 10, order kept, each a path add would accept. */
export function paths(what: string): Param<string[]> {
  return param(
    [listDoc('filepaths', 'string', `Collection paths ${what}, at most ${MAX_PATHS_PER_REQUEST}, answered in order.`, { single: 'filepath', maxItems: MAX_PATHS_PER_REQUEST, required: true })],
    (p) => {
      const sent = p.list('filepaths', 'filepath').filter((f) => f !== '');
      if (sent.length === 0) throw new ParamError('Please specify filepath or filepaths[n].');
      if (sent.length > MAX_PATHS_PER_REQUEST) {
        throw new ParamError(`At most ${MAX_PATHS_PER_REQUEST} filepaths may be sent per request; ${sent.length} were sent.`);
      }
      sent.forEach(refuseBadPath);
      return sent;
    },
  );
}

export const offset = (what: string) => int('offset', { default: 0, min: 0 }, `${what} to skip.`);
export const limit = (value: number, what: string) => int('limit', { default: value, min: 0 }, `${what} to return (0 = all).`);
export const searchLimit = (what: string) => limit(DEFAULT_SEARCH_LIMIT, what);

/**
 * A shell-style glob of every search (match, mobile, wine, color), compiled here so that one that is too long or has a
 * backwards range is refused with its reason before an upload is staged or a URL downloaded.
 */
function glob(name: 'name_filter' | 'path_filter', description: string): Param<string | undefined> {
  const declared = text(name, description, { maxLength: MAX_GLOB_LENGTH });
  return param(declared.docs, (p, before) => {
    const value = declared.read(p, before);
    if (value === undefined) return undefined;
    try {
      compileGlob(value);
    } catch (error) {
      if (error instanceof GlobError) throw new ParamError(`${name}: ${error.message}`);
      throw error;
    }
    return value;
  });
}

export const nameFilter = glob('name_filter', 'Shell-style glob on the file name (after the last `/`): `*`, `**`, `?`, `[a-z]`, `[!abc]`; case-sensitive, whole name.');
export const pathFilter = glob('path_filter', 'Shell-style glob on the folder part (before the last `/`, empty for top-level files), e.g. `catalog/2026/**`.');

export const minScore = num('min_score', { default: 0, min: 0, max: 100 }, 'Leave out matches scoring below this (0-100).');
export const flip = flag('check_horizontal_flip', 'Also find mirrored copies');
export const overlay = flag('generate_overlay', 'Render an overlay per match (`overlay/<id>.jpg`, fetched with the same Basic auth)');
