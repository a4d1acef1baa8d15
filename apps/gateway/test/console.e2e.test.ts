import { wineLabelJpeg } from '@loupe/ocr/src/testing/wine-photos';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { chromium, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT, PASSWORD, startTestSystem, TestSystem, USER } from './harness';
import { sceneJpeg } from './images';

/**
 * The web console end to end in headless Chromium (Debian's `chromium`, driven by playwright-core): sign in, drop
 * images, see them listed, search with a crop and see the match with its score, rectangles and overlay, extract a
 * palette, read a wine label. With UPDATE_SCREENSHOTS=1 it also writes docs/console.png.
 */
const CHROMIUM = '/usr/bin/chromium';
const FLAGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync',
];
const SCREENSHOT = path.resolve(__dirname, '../../../docs/console.png');

const missing = !existsSync(CHROMIUM);
const MISSING_MESSAGE = `console end-to-end test needs Chromium at ${CHROMIUM} (apt-get install chromium; .ci/run installs it)`;
if (missing && process.env.REQUIRE_REAL_SERVERS !== '1') console.warn(`\n*** ${MISSING_MESSAGE}: skipped ***\n`);

/*
 * The callbacks given to page.waitForFunction run in the page, not in Node. The gateway's programs are compiled
 * without the DOM library (they are Node code), so the few page globals those callbacks read are declared here, for
 * this file only.
 */
interface PageImage {
  complete: boolean;
  naturalWidth: number;
}
declare const document: {
  querySelector(selector: string): PageImage | null;
  querySelectorAll(selector: string): Iterable<PageImage>;
};

/** One step may wait for the first OpenCV start-up and a queued job. */
const STEP_TIMEOUT = 180_000;

const jpeg = (name: string, buffer: Buffer) => ({ name, mimeType: 'image/jpeg', buffer });

describe.skipIf(missing && process.env.REQUIRE_REAL_SERVERS !== '1')('web console in headless Chromium', () => {
  let sys: TestSystem;
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  const originals: Buffer[] = [];

  beforeAll(async () => {
    if (missing) throw new Error(`REQUIRE_REAL_SERVERS=1 but the ${MISSING_MESSAGE}.`);
    sys = await startTestSystem('embedded');
    for (let i = 0; i < 3; i++) originals.push(await sceneJpeg(700 + i, 800, 600));
    profile = await mkdtemp(path.join(os.tmpdir(), 'loupe-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: FLAGS,
      viewport: { width: 1440, height: 1100 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(60_000);
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    if (profile) await rm(profile, { recursive: true, force: true });
    await sys?.destroy();
  });

  it('refuses wrong credentials and signs in with right ones', async () => {
    await page.goto(`${sys.url}/console/`);
    await page.fill('#account', ACCOUNT);
    await page.fill('#user', USER);
    await page.fill('#password', 'not-the-password');
    await page.click('#login button[type=submit]');
    await expect.poll(() => page.textContent('#login-message'), { timeout: 30_000 }).toContain('Wrong account, user or password');
    await page.fill('#password', PASSWORD);
    await page.click('#login button[type=submit]');
    await page.waitForSelector('#app-view:not([hidden])');
    expect(await page.textContent('#who')).toBe(`${USER} @ ${ACCOUNT}`);
  }, STEP_TIMEOUT);

  it('adds dropped images and lists them with their thumbnails', async () => {
    await page.setInputFiles('#add-input', originals.map((data, i) => jpeg(`poster-${i}.jpg`, data)));
    await page.waitForSelector('#collection-list li[data-filepath="poster-2.jpg"]', { timeout: 120_000 });
    expect(await page.textContent('#count')).toBe('3 images');
    await page.waitForFunction(() => [...document.querySelectorAll('#collection-list img')].every((img) => img.complete && img.naturalWidth > 0));
  }, STEP_TIMEOUT);

  it('finds a crop of a collection image and shows its score, rectangles and overlay', async () => {
    const crop = await sharp(originals[1]).extract({ left: 200, top: 150, width: 400, height: 300 }).jpeg({ quality: 85 }).toBuffer();
    await page.setInputFiles('#search-input', jpeg('crop.jpg', crop));
    const card = '.match[data-filepath="poster-1.jpg"]';
    await page.waitForSelector(card, { timeout: 120_000 });
    expect(Number(await page.textContent(`${card} .score`))).toBeGreaterThan(50);
    expect(await page.textContent(`${card} .match-percent`)).toMatch(/%$/);
    expect(await page.locator(`${card} canvas[data-rects="1"]`).count()).toBe(2);
    await page.waitForFunction((selector) => {
      const img = document.querySelector(`${selector} img.overlay`);
      return !!img && img.complete && img.naturalWidth > 0;
    }, card);
  }, STEP_TIMEOUT);

  it('extracts a palette and shows its swatches with weights and classes', async () => {
    await page.setInputFiles('#palette-input', jpeg('scene.jpg', originals[0]));
    await page.waitForSelector('#swatches .swatch', { timeout: 120_000 });
    const swatches = await page.$$eval('#swatches .swatch', (items) => items.map((i) => ({ hex: i.querySelector('code')!.textContent, weight: i.querySelector('.weight')!.textContent, cls: i.querySelector('.class')!.textContent })));
    expect(swatches.length).toBeGreaterThan(1);
    for (const s of swatches) {
      expect(s.hex).toMatch(/^#[0-9a-f]{6}$/);
      expect(s.weight).toMatch(/^\d+(\.\d)? %$/);
      expect(s.cls).not.toBe('');
    }
  }, STEP_TIMEOUT);

  it('reads a wine label and shows its fields and text', async () => {
    const label = await wineLabelJpeg({ producer: 'Domaine Rivel', region: 'Pauillac', vintage: 2015, variety: 'Cabernet Sauvignon', country: 'France', colorText: 'Red Wine' });
    await page.setInputFiles('#wine-input', jpeg('label.jpg', label));
    await page.waitForSelector('#wine-result .fields', { timeout: 150_000 });
    const fields = await page.textContent('#wine-result .fields');
    expect(fields).toContain('2015');
    expect(fields).toContain('Pauillac');
    expect(await page.textContent('#wine-result .label-text')).toMatch(/Rivel/i);
    if (process.env.UPDATE_SCREENSHOTS === '1') await page.screenshot({ path: SCREENSHOT, fullPage: true });
  }, STEP_TIMEOUT);
});
