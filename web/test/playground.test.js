// The playground in a real browser (Debian's chromium, headless, through
// playwright-core): web/dist must be built first (web/build.sh).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, existsSync, mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deflateRawSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { serve } from './server.js';
import { encode } from '../src/url.js';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, '..', 'dist');
const example = readFileSync(join(here, '../../examples/web-app/template.yaml'), 'utf8');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

let server;
let browser;
let profile;
let page;

before(async () => {
  assert.ok(existsSync(join(dist, 'index.html')), 'web/dist is missing: run web/build.sh first');
  server = await serve(dist);
  mkdirSync(join(here, '..', 'test-results'), { recursive: true });
  profile = mkdtempSync(join(tmpdir(), 'v4t-chromium-'));
  // A fresh profile directory (--user-data-dir) for every run.
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  page = await browser.newPage();
  page.on('pageerror', (e) => console.log(`page error: ${e.message}`));
});

after(async () => {
  await browser?.close();
  await server?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

/** The page still runs scripts: a trivial evaluation answers within a second. */
async function responsive() {
  const answer = await Promise.race([
    page.evaluate(() => 1 + 1),
    new Promise((resolve) => setTimeout(() => resolve('frozen'), 1000)),
  ]);
  assert.equal(answer, 2, 'the tab does not answer');
}

const output = () => page.locator('#output');
const diagnostics = () => page.locator('#diagnostics');

test('a link opens the template with its presets', async () => {
  await page.goto(`${server.url}#template=${encode(example)}&presets=dev`);
  await page.waitForFunction(() => document.querySelector('#output').textContent.includes('node_templates'));
  const text = await output().textContent();
  assert.match(text, /dev_vm:/);
  assert.doesNotMatch(text, /db_server:/);
  assert.equal(await page.locator('input[name=preset][value=dev]').isChecked(), true);
  console.log(`resolve of the web-app example after load: ${(await page.evaluate(() => window.v4tLastResolveMs)).toFixed(1)} ms`);
});

test('switching the preset changes the output and the link', async () => {
  await page.locator('input[name=preset][value=dev]').uncheck();
  await page.locator('input[name=preset][value=prod]').check();
  await page.waitForFunction(() => document.querySelector('#output').textContent.includes('db_server:'));
  assert.doesNotMatch(await output().textContent(), /dev_vm:/);
  // Measured again with the page warm.
  const ms = await page.evaluate(() => window.v4tLastResolveMs);
  console.log(`resolve of the web-app example (prod, warm): ${ms.toFixed(1)} ms`);
  assert.match(page.url(), /&presets=prod$/);
});

test('an input picker assigns a variability input', async () => {
  await page.locator('input[name=preset][value=prod]').uncheck();
  await page.locator('select[name=env]').selectOption('"prod"');
  await page.waitForFunction(() => document.querySelector('#output').textContent.includes('db_server:'));
  assert.match(page.url(), /&inputs=/);
  await page.locator('select[name=env]').selectOption('"dev"');
  await page.waitForFunction(() => !document.querySelector('#output').textContent.includes('db_server:'));
});

test('a typo shows a located diagnostic', async () => {
  const line = page.locator('.cm-line', { hasText: 'pruning: true' });
  await line.click();
  await page.keyboard.press('End');
  await page.keyboard.type(': x');
  const number = example.split('\n').findIndex((l) => l.includes('pruning: true')) + 1;
  const item = diagnostics().locator('li.error').first();
  await item.waitFor();
  const text = await item.textContent();
  assert.match(text, new RegExp(`^template\\.yaml:${number}:\\d+ error V4T001`), text);
  assert.equal(await output().textContent(), '');
  assert.ok(await page.locator('.cm-lintRange-error').count() > 0, 'no inline marker');
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Backspace');
  await page.waitForFunction(() => document.querySelector('#output').textContent.includes('node_templates'));
});

test('the topology is drawn, offline', async () => {
  // Everything the page needs was fetched at load.
  await browser.setOffline(true);
  await page.locator('#panes button[data-pane=picture]').click();
  await page.locator('#graph svg').waitFor();
  assert.ok(await page.locator('#graph svg g.node').count() >= 3);
  assert.match(await page.locator('#graph svg').textContent(), /web_server/);
  assert.match(await page.locator('#mermaid').textContent(), /^flowchart/);
  await page.screenshot({ path: join(here, '..', 'test-results', 'playground.png') });
  await browser.setOffline(false);
});

test('explain says why an element is absent', async () => {
  await page.locator('#panes button[data-pane=explain]').click();
  const item = page.locator('#elements li', { hasText: 'db_server' }).first();
  await item.click();
  assert.match(await page.locator('#why').textContent(), /db_server/);
  assert.match(await page.locator('#why h3').textContent(), /absent/);
});

test('analyze counts the configurations', async () => {
  await page.locator('#panes button[data-pane=analyze]').click();
  await page.locator('#run-analyze').click();
  await page.locator('#analysis table').waitFor();
  assert.match(await page.locator('#analysis').textContent(), /configurations2/);
});

test('bundled examples open with their files', async () => {
  await page.locator('#examples').selectOption('multi-cloud');
  await page.locator('#tabs button', { hasText: 'profiles/aws.yaml' }).waitFor();
  // Its profiles are files beside the template, imported by profile name.
  await page.waitForFunction(() => document.querySelector('#output').textContent.includes('profile: example.aws:1.0'));
  await page.locator('input[name=preset][value=azure]').check();
  await page.waitForFunction(() => document.querySelector('#output').textContent.includes('profile: example.azure:1.0'));
});

test('invalid YAML in a link shows an error', async () => {
  await page.goto(`${server.url}#template=${encode('a: [\n')}`);
  await diagnostics().locator('li.error').first().waitFor();
  assert.match(await diagnostics().textContent(), /template\.yaml:\d+:\d+ error V4T001/);
  await responsive();
});

test('a 10 MB paste shows an error and the tab stays responsive', async () => {
  await page.locator('.cm-content').click();
  await page.keyboard.press('Control+a');
  const started = Date.now();
  await page.evaluate(() => {
    const big = `# ${'x'.repeat(99)}\n`.repeat(100_000);
    const data = new DataTransfer();
    data.setData('text/plain', big);
    document.querySelector('.cm-content').dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
  });
  await responsive();
  await page.waitForFunction(() => /too large/.test(document.querySelector('#diagnostics').textContent), null, { timeout: 30000 });
  console.log(`10 MB paste: error shown after ${Date.now() - started} ms`);
  await responsive();
});

/** A zip archive with one deflated entry of `size` zero bytes (a bomb). */
function zipBomb(size) {
  const data = deflateRawSync(Buffer.alloc(size), { level: 9 });
  const name = Buffer.from('service-template.yaml');
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(8, 8);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(1, 22); // the size it claims: one byte
  local.writeUInt16LE(name.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(1, 24);
  central.writeUInt16LE(name.length, 28);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + name.length, 12);
  end.writeUInt32LE(local.length + name.length + data.length, 16);
  return Buffer.concat([local, name, data, central, name, end]);
}

test('a zip bomb upload shows an error and the tab stays responsive', async () => {
  const bomb = zipBomb(1 << 30);
  assert.ok(bomb.length < 2 << 20);
  await page.locator('#csar').setInputFiles({ name: 'bomb.csar', mimeType: 'application/zip', buffer: bomb });
  await responsive();
  await page.waitForFunction(() => /zip bomb/.test(document.querySelector('#diagnostics').textContent), null, { timeout: 30000 });
  await responsive();
});
