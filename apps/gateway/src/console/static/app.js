import { call, clearSession, collectionImagePath, HttpError, imageUrl, loadSession, saveSession } from './api.js';
import { imageWithRects } from './draw.js';

/** The add operation takes at most 10 images per call (specification 8). */
const ADD_BATCH = 10;
/** Paths per collection page: enough to see a folder at a glance, few enough to load thumbnails quickly. */
const PAGE_SIZE = 24;

const $ = (id) => document.getElementById(id);
let session = loadSession();
let offset = 0;
let total = 0;

function service() {
  return $('service').value;
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === 'class') node.className = value;
    else if (key === 'text') node.textContent = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

function say(id, text, kind = 'info') {
  const node = $(id);
  node.textContent = text;
  node.dataset.kind = kind;
}

/** Shows an envelope's errors (warn/fail) or a thrown error; returns true when the call did its work. */
function report(id, envelope, okText) {
  if (envelope.status === 'fail') {
    say(id, envelope.error.join(' ') || 'The call failed.', 'error');
    return false;
  }
  say(id, envelope.status === 'warn' ? `${okText} ${envelope.error.join(' ')}` : okText, envelope.status === 'warn' ? 'warn' : 'ok');
  return true;
}

function failure(id, error) {
  if (error instanceof HttpError && error.status === 401) {
    signOut('Your credentials were refused; please sign in again.');
    return;
  }
  say(id, error.message, 'error');
}

// ---- session ---------------------------------------------------------------------------------------------------

function showApp() {
  $('login-view').hidden = true;
  $('app-view').hidden = false;
  $('session').hidden = false;
  $('who').textContent = `${session.user} @ ${session.account}`;
  refresh();
}

function signOut(message = '') {
  clearSession();
  session = null;
  $('app-view').hidden = true;
  $('session').hidden = true;
  $('login-view').hidden = false;
  say('login-message', message, message ? 'error' : 'info');
}

$('login').addEventListener('submit', async (event) => {
  event.preventDefault();
  const candidate = { account: $('account').value.trim(), user: $('user').value, password: $('password').value };
  say('login-message', 'Checking…');
  try {
    await call(candidate, 'mobile', 'ping');
    session = candidate;
    saveSession(session);
    say('login-message', '');
    showApp();
  } catch (error) {
    say('login-message', error.message, 'error');
  }
});

$('logout').addEventListener('click', () => signOut());
$('service').addEventListener('change', () => {
  offset = 0;
  $('results').replaceChildren();
  refresh();
});

// ---- collection ----------------------------------------------------------------------------------------------------

async function refresh() {
  const list = $('collection-list');
  try {
    const [count, page] = await Promise.all([
      call(session, service(), 'count'),
      call(session, service(), 'list', { query: { offset: String(offset), limit: String(PAGE_SIZE) } }),
    ]);
    total = count.result[0] ?? 0;
    $('count').textContent = `${total} image${total === 1 ? '' : 's'}`;
    $('page-label').textContent = total === 0 ? '' : `${offset + 1}–${Math.min(offset + PAGE_SIZE, total)} of ${total}`;
    $('prev').disabled = offset === 0;
    $('next').disabled = offset + PAGE_SIZE >= total;
    list.replaceChildren(...page.result.map(thumb));
    if (total === 0) list.append(el('li', { class: 'empty', text: 'No images yet: drop some above.' }));
  } catch (error) {
    failure('add-message', error);
  }
}

function thumb(filepath) {
  const img = el('img', { alt: '' });
  const remove = el('button', { type: 'button', class: 'remove', title: `Delete ${filepath}`, text: '×' });
  const item = el('li', { 'data-filepath': filepath }, el('div', { class: 'frame' }, img), el('span', { class: 'path', title: filepath, text: filepath }), remove);
  imageUrl(session, service(), collectionImagePath(filepath)).then((url) => (img.src = url), () => item.classList.add('broken'));
  remove.addEventListener('click', async () => {
    try {
      const envelope = await call(session, service(), 'delete', { query: { filepath }, method: 'DELETE' });
      if (report('add-message', envelope, `Deleted ${filepath}.`)) refresh();
    } catch (error) {
      failure('add-message', error);
    }
  });
  return item;
}

$('prev').addEventListener('click', () => {
  offset = Math.max(0, offset - PAGE_SIZE);
  refresh();
});
$('next').addEventListener('click', () => {
  offset += PAGE_SIZE;
  refresh();
});

async function addFiles(files) {
  const images = [...files].filter((f) => f.type.startsWith('image/') || /\.(jpe?g|png|webp|avif|gif|bmp|tiff?)$/i.test(f.name));
  if (images.length === 0) return;
  let added = 0;
  const problems = [];
  for (let i = 0; i < images.length; i += ADD_BATCH) {
    const batch = images.slice(i, i + ADD_BATCH);
    say('add-message', `Adding ${i + 1}–${i + batch.length} of ${images.length}…`);
    const fields = {};
    batch.forEach((file, n) => {
      fields[`images[${n}]`] = file;
      fields[`filepaths[${n}]`] = file.webkitRelativePath || file.name;
    });
    try {
      const envelope = await call(session, service(), 'add', { fields });
      problems.push(...envelope.error);
      added += envelope.status === 'fail' ? 0 : batch.length - envelope.error.length;
    } catch (error) {
      failure('add-message', error);
      return;
    }
  }
  say('add-message', `Added ${added} of ${images.length}.${problems.length ? ` ${problems.join(' ')}` : ''}`, problems.length ? 'warn' : 'ok');
  refresh();
}

// ---- search --------------------------------------------------------------------------------------------------------

async function search(file) {
  const results = $('results');
  results.replaceChildren();
  say('search-message', 'Searching…');
  try {
    const envelope = await call(session, service(), 'search', {
      fields: { image: file, generate_overlay: 'true', check_horizontal_flip: String($('flip').checked), limit: '5' },
    });
    if (!report('search-message', envelope, '')) return;
    const n = envelope.result.length;
    say('search-message', n === 0 ? 'No collection image was found in this query.' : `${n} match${n === 1 ? '' : 'es'} in ${envelope.stats.time_total.toFixed(2)} s.`, n ? 'ok' : 'info');
    const queryUrl = URL.createObjectURL(file);
    for (const match of envelope.result) results.append(await matchCard(match, queryUrl));
  } catch (error) {
    failure('search-message', error);
  }
}

function figure(caption, content) {
  return el('figure', {}, content, el('figcaption', { text: caption }));
}

async function matchCard(match, queryUrl) {
  const metrics = el(
    'dl',
    { class: 'metrics' },
    el('dt', { text: 'score' }), el('dd', { class: 'score', text: match.score.toFixed(1) }),
    el('dt', { text: 'match_percent' }), el('dd', { class: 'match-percent', text: `${match.match_percent.toFixed(1)} %` }),
    el('dt', { text: 'query overlap' }), el('dd', { text: `${match.query_overlap_percent.toFixed(1)} %` }),
    el('dt', { text: 'target overlap' }), el('dd', { text: `${match.target_overlap_percent.toFixed(1)} %` }),
  );
  const card = el('article', { class: 'match', 'data-filepath': match.filepath }, el('header', {}, el('h3', { text: match.filepath }), metrics));
  const pictures = el('div', { class: 'pictures' });
  card.append(pictures);
  pictures.append(figure('query · query_match_rect', await imageWithRects(queryUrl, [match.query_match_rect], { color: '#f2a516' })));
  try {
    const target = await imageUrl(session, service(), collectionImagePath(match.filepath));
    pictures.append(figure('collection image · target_match_rect', await imageWithRects(target, [match.target_match_rect])));
  } catch (error) {
    pictures.append(figure('collection image', el('p', { class: 'muted', text: error.message })));
  }
  if (match.overlay) {
    const overlay = el('img', { class: 'overlay', alt: `Overlay of ${match.filepath}` });
    card.append(figure('overlay: collection image and the query aligned to it', overlay));
    imageUrl(session, service(), match.overlay).then((url) => (overlay.src = url), () => overlay.replaceWith(el('p', { class: 'muted', text: 'The overlay could not be loaded.' })));
  }
  return card;
}

// ---- palette (color service) -------------------------------------------------------------------------------------

function hex(color) {
  return Array.isArray(color) ? `#${color.map((c) => c.toString(16).padStart(2, '0')).join('')}` : `#${color}`;
}

async function palette(file) {
  const box = $('swatches');
  box.replaceChildren();
  say('palette-message', 'Extracting colors…');
  try {
    const envelope = await call(session, 'color', 'extract_image_colors', { fields: { image: file, color_format: 'hex', limit: '12' } });
    if (!report('palette-message', envelope, '')) return;
    say('palette-message', `${envelope.result.length} colors in ${envelope.stats.time_total.toFixed(2)} s.`, 'ok');
    const bar = el('div', { class: 'palette-bar' });
    const list = el('ul', { class: 'swatch-list' });
    for (const c of envelope.result) {
      const color = hex(c.color);
      bar.append(el('span', { style: `background:${color};flex:${Math.max(c.weight, 0.5)}`, title: `${color} ${c.weight}%` }));
      list.append(
        el('li', { class: 'swatch' },
          el('span', { class: 'chip', style: `background:${color}` }),
          el('code', { text: color }),
          el('span', { class: 'class', text: c.class }),
          el('span', { class: 'weight', text: `${Number(c.weight).toFixed(1)} %` })),
      );
    }
    box.append(el('div', { class: 'palette-view' }, el('img', { src: URL.createObjectURL(file), alt: '' }), bar), list);
  } catch (error) {
    failure('palette-message', error);
  }
}

// ---- wine label ------------------------------------------------------------------------------------------------------

const WINE_FIELDS = [
  ['variety_type', 'Variety'], ['vintage_year', 'Vintage'], ['color_type', 'Color'], ['region_name', 'Region'],
  ['country_name', 'Country'], ['country_name_inferred', 'Country (inferred)'], ['misc_info', 'Other'],
];

async function wine(file) {
  const box = $('wine-result');
  box.replaceChildren();
  say('wine-message', 'Reading the label…');
  try {
    const envelope = await call(session, 'wine', 'extract_metadata', { fields: { image: file } });
    if (!report('wine-message', envelope, '')) return;
    const item = envelope.result[0];
    if (!item) {
      say('wine-message', 'No readable label was found in this image.', 'warn');
      return;
    }
    const m = item.metadata;
    say('wine-message', `Label read in ${envelope.stats.time_total.toFixed(2)} s.`, 'ok');
    const rows = WINE_FIELDS.filter(([key]) => m[key] !== undefined && m[key] !== '' && !(Array.isArray(m[key]) && m[key].length === 0));
    const table = el('dl', { class: 'fields' }, ...rows.flatMap(([key, label]) => [el('dt', { text: label }), el('dd', { text: Array.isArray(m[key]) ? m[key].join(', ') : String(m[key]) })]));
    // extract_metadata answers the label's words (text_tokens); extract_text would answer its lines.
    const words = m.text_lines?.join('\n') ?? (m.text_tokens ?? []).join(' ');
    const text = el('pre', { class: 'label-text', title: 'Words read on the label', text: words || '(no text)' });
    const rects = [m.label_rect, m.variety_rect, m.vintage_rect, m.region_rect, m.country_rect].filter(Boolean);
    box.append(el('div', { class: 'wine-view' }, await imageWithRects(URL.createObjectURL(file), rects, { color: '#8e2c48', maxWidth: 220 }), el('div', {}, table, text)));
  } catch (error) {
    if (error instanceof HttpError && error.status === 404) say('wine-message', 'The wine service is not available on this gateway yet (HTTP 404).', 'error');
    else failure('wine-message', error);
  }
}

// ---- drop zones ------------------------------------------------------------------------------------------------------

function dropZone(zoneId, inputId, handle) {
  const zone = $(zoneId);
  const input = $(inputId);
  input.addEventListener('change', () => {
    if (input.files.length > 0) handle(input.files);
    input.value = '';
  });
  zone.addEventListener('dragover', (event) => {
    event.preventDefault();
    zone.classList.add('over');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (event) => {
    event.preventDefault();
    zone.classList.remove('over');
    if (event.dataTransfer?.files.length) handle(event.dataTransfer.files);
  });
}

dropZone('add-zone', 'add-input', addFiles);
dropZone('search-zone', 'search-input', (files) => search(files[0]));
dropZone('palette-zone', 'palette-input', (files) => palette(files[0]));
dropZone('wine-zone', 'wine-input', (files) => wine(files[0]));

if (session) showApp();
