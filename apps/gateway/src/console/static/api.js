// The console's client of the collection services: every call carries the signed-in user's Basic credentials.

const STORAGE_KEY = 'loupe.console.session';

/** Credentials kept in sessionStorage: they last as long as the tab, never on disk across sessions. */
export function loadSession() {
  try {
    const value = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null');
    return value && value.account && value.user ? value : null;
  } catch {
    return null;
  }
}

export function saveSession(session) {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
}

export function clearSession() {
  sessionStorage.removeItem(STORAGE_KEY);
}

/** An HTTP answer that is not an envelope: 401 (credentials), 404 (service or operation missing), 413, 5xx. */
export class HttpError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

function authHeader(session) {
  const bytes = new TextEncoder().encode(`${session.user}:${session.password}`);
  return `Basic ${btoa(String.fromCharCode(...bytes))}`;
}

function base(session, service) {
  return `/${encodeURIComponent(service)}/${encodeURIComponent(session.account)}/rest`;
}

/**
 * Calls `/<service>/<account>/rest/<operation>/` and returns the envelope. `fields` go into a multipart body (File
 * values as uploads); `query` into the query string. Non-envelope answers throw HttpError.
 */
export async function call(session, service, operation, { fields, query, method } = {}) {
  const search = query ? `?${new URLSearchParams(query)}` : '';
  let body;
  if (fields) {
    body = new FormData();
    for (const [name, value] of Object.entries(fields)) {
      if (value instanceof File) body.append(name, value, value.name);
      else body.append(name, String(value));
    }
  }
  const res = await fetch(`${base(session, service)}/${operation}/${search}`, {
    method: method ?? (body ? 'POST' : 'GET'),
    headers: { authorization: authHeader(session) },
    body,
    // The gateway answers 401 with `WWW-Authenticate: Basic`; with credentials omitted the browser hands the 401 to
    // the page instead of opening its own password dialog. The explicit Authorization header is still sent.
    credentials: 'omit',
  });
  if (res.status === 401) throw new HttpError(401, 'Wrong account, user or password.');
  let envelope = null;
  try {
    envelope = await res.json();
  } catch {
    envelope = null;
  }
  if (res.status === 404) throw new HttpError(404, envelope?.error?.[0] ?? `The ${service} service has no operation "${operation}".`);
  if (!res.ok || !envelope) throw new HttpError(res.status, envelope?.error?.[0] ?? `The server answered HTTP ${res.status}.`);
  return envelope;
}

/** Fetches an authenticated image (an overlay, or a collection image's normalised copy) as an object URL. */
export async function imageUrl(session, service, relative) {
  const res = await fetch(`${base(session, service)}/${relative}`, { headers: { authorization: authHeader(session) }, credentials: 'omit' });
  if (!res.ok) throw new HttpError(res.status, `Could not load ${relative} (HTTP ${res.status}).`);
  return URL.createObjectURL(await res.blob());
}

/** The path of a collection image under the read-only image route, each segment encoded. */
export function collectionImagePath(filepath) {
  return `image/${filepath.split('/').map(encodeURIComponent).join('/')}`;
}
