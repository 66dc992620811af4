// The documentation site (scripts/docs, build/site/) in headless chromium, served from this machine
// with every request elsewhere refused: the home page (the README) shows the navigation, a click
// on it opens a reference page, and search finds a page by a word in it, with no request leaving
// the machine.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser } from '../lib.mjs';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const SITE = join(ROOT, 'build', 'site');
const TYPES = {
  '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json',
  '.png': 'image/png', '.svg': 'image/svg+xml',
};

// A heading's text, without the permalink mark (¶) the site puts after it.
const heading = async (page) => (await page.locator('article h1').first().innerText()).replace('¶', '').trim();

let server;
let base;
let browser;
const outside = [];  // requests the pages tried to send elsewhere

before(async () => {
  execFileSync(join(ROOT, 'scripts', 'docs'), { stdio: 'inherit' });  // builds build/site/
  server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, 'http://x').pathname));
    let file = join(SITE, path);
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!file.startsWith(SITE) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'Content-Type': TYPES[extname(file)] || 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}/`;
  browser = await launchBrowser();
  await browser.context.route('**/*', (route) => {
    if (route.request().url().startsWith(base)) return route.continue();
    outside.push(route.request().url());
    return route.abort();
  });
});

after(async () => {
  await browser?.close();
  server?.close();
});

test('the home page is the README, with the navigation to every section', async () => {
  const page = await browser.context.newPage();
  await page.goto(base);
  assert.equal(await heading(page), 'sagemaker-emulator');
  const nav = await page.locator('nav.md-nav--primary .md-nav__link').allInnerTexts();
  for (const title of ['Home', 'The training-plan walkthrough', 'CI recipes', 'What is emulated',
    'Architecture', 'Reliability']) {
    assert.ok(nav.some((text) => text.trim() === title), `${title} in ${JSON.stringify(nav)}`);
  }
  await page.locator('nav.md-nav--primary a.md-nav__link[href="reference.html"]').click();
  await page.waitForURL(/reference\.html$/);
  assert.equal(await heading(page), 'Reference: options, the admin API and metrics');
  await page.close();
});

test('search finds a page by a word in it, offline', async () => {
  const page = await browser.context.newPage();
  await page.goto(base);
  const query = page.locator('input.md-search__input');
  await query.click();
  await query.fill('ThreadSanitizer');
  // The index loads in a worker after the page: a query typed before it is ready finds nothing,
  // so type again (as a user would) until it answers.
  const results = page.locator('.md-search-result__item');
  for (let tries = 0; tries < 60 && (await results.count()) === 0; ++tries) {
    await page.waitForTimeout(500);
    await query.press('End');
    await query.press('Space');
    await query.press('Backspace');
  }
  await results.first().waitFor({ timeout: 5000 });
  const titles = await page.locator('.md-search-result__item h1').allInnerTexts();
  assert.ok(titles.some((title) => title.includes('Reliability')), JSON.stringify(titles));
  assert.deepEqual(outside, [], 'requests that left the machine');
  await page.close();
});
