// The dashboard with many plans (10,000 by default when enabled): times GET /_emulator/state and
// GET /_emulator/costs, and the page's first draw, a pan, the cost panel, folding every group and a
// redraw in headless chromium. Opt-in, since seeding takes a
// while: DASHBOARD_MANY_PLANS=10000 tests/browser/run.sh build/sagemaker-emulator
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ACCOUNT, DAY, REGION, admin, launchBrowser, startEmulator, tempDir, writeJson } from '../lib.mjs';

const COUNT = Number(process.env.DASHBOARD_MANY_PLANS || 0);
const ARTIFACTS = process.env.DASHBOARD_ARTIFACTS || 'artifacts';
const TYPES = ['ml.p5.48xlarge', 'ml.p4d.24xlarge', 'ml.trn1.32xlarge'];
const ZONES = ['us-west-2a', 'us-west-2b', 'us-west-2c'];
const COUNTS = [1, 2, 4];  // plans are sold in 1, 2, 4, 8 ... 64 instances

test(`the dashboard stays responsive with ${COUNT || 'many'} plans`, { skip: COUNT === 0 && 'set DASHBOARD_MANY_PLANS' }, async () => {
  const work = tempDir('smemu-many-');
  after(() => work.remove());
  const regions = { [REGION]: {} };
  for (const zone of ZONES) {
    regions[REGION][zone] = Object.fromEntries(TYPES.map((t) => [t, { reservable: 64, on_demand: 4 }]));
  }
  const prices = Object.fromEntries(TYPES.map((t) => [t, { on_demand_hourly: 40, plan_hourly: 20 }]));
  const capacity = writeJson(work.dir, 'capacity.json', { regions, prices });
  const emu = await startEmulator(['--capacity', capacity, '--clock-start', '2027-01-01T00:00:00Z', '--frozen-clock']);
  after(() => emu.stop());
  const t0 = Date.parse('2027-01-01T00:00:00Z');

  const call = async (op, body) => {
    const res = await fetch(emu.url, { method: 'POST', body: JSON.stringify(body), headers: {
      'Content-Type': 'application/x-amz-json-1.1', 'X-Amz-Target': `SageMaker.${op}`,
      Authorization: `AWS4-HMAC-SHA256 Credential=${ACCOUNT}/20270101/${REGION}/sagemaker/aws4_request, SignedHeaders=host, Signature=0`,
    } });
    const json = await res.json();
    assert.equal(res.status, 200, JSON.stringify(json));
    return json;
  };
  // The plans start over a year. A plan can be bought at most 56 days before it starts ("up to 8
  // weeks (56 days) in advance of the start date"), and the clock never moves backwards: the
  // plans are bought day by day through the year, each for a start up to 4 weeks after its day
  // (so not in the order of their starts), with the clock two weeks before that day.
  const seeding = Date.now();
  let now = t0;
  for (let i = 0, bought = 0; bought < COUNT; i++) {
    const day = Math.floor((bought * 360) / COUNT);
    if (t0 + (day - 14) * DAY > now) {
      now = t0 + (day - 14) * DAY;
      await admin(emu.url, '/_emulator/clock', { now: new Date(now).toISOString() });
    }
    const { TrainingPlanOfferings: offers } = await call('SearchTrainingPlanOfferings', {
      InstanceType: TYPES[i % TYPES.length], InstanceCount: COUNTS[i % COUNTS.length], DurationHours: 24 * (1 + (i % 7)),
      StartTimeAfter: (t0 + (day + ((i * 5) % 28)) * DAY) / 1000, TargetResources: ['training-job'] });
    if (offers.length === 0) continue;
    await call('CreateTrainingPlan', { TrainingPlanName: `plan-${i}`,
      TrainingPlanOfferingId: offers[i % offers.length].TrainingPlanOfferingId });
    bought++;
  }
  console.log(`seeded ${COUNT} plans in ${Date.now() - seeding} ms; the clock is at ${new Date(now).toISOString()}`);

  const timings = [];
  let version = '';
  for (let i = 0; i < 5; i++) {
    const start = performance.now();
    const res = await fetch(`${emu.url}/_emulator/state`);
    const text = await res.text();
    timings.push(performance.now() - start);
    version = JSON.parse(text).version;
    if (i === 0) console.log(`GET /_emulator/state: ${text.length} bytes`);
  }
  const since = performance.now();
  const unchanged = await (await fetch(`${emu.url}/_emulator/state?since=${version}`)).json();
  const sinceMs = performance.now() - since;
  assert.equal(unchanged.unchanged, true);
  console.log(`GET /_emulator/state with ${COUNT} plans: ${timings.map((t) => t.toFixed(1)).join(', ')} ms;` +
    ` ?since= (unchanged): ${sinceMs.toFixed(1)} ms`);

  // The cost ledger: all time (what the timeline draws) and one month (the panel's view).
  for (const query of ['', `?from=2027-01-01T00:00:00Z&to=2027-02-01T00:00:00Z`]) {
    const start = performance.now();
    const text = await (await fetch(`${emu.url}/_emulator/costs${query}`)).text();
    console.log(`GET /_emulator/costs${query}: ${(performance.now() - start).toFixed(1)} ms, ${text.length} bytes,` +
      ` ${JSON.parse(text).plans.length} plans`);
  }

  const browser = await launchBrowser();
  after(() => browser.close());
  const page = await browser.context.newPage();
  const opened = performance.now();
  await page.goto(`${emu.url}/_emulator/ui`);
  await page.locator('[data-testid=plan-bar]').first().waitFor({ timeout: 30000 });
  console.log(`page open to first bars: ${(performance.now() - opened).toFixed(0)} ms;` +
    ` bars in the DOM: ${await page.locator('[data-testid=plan-bar]').count()};` +
    ` plan rows in the DOM: ${await page.locator('[data-testid=plan-row]').count()} of ${COUNT}`);
  await page.locator('[data-testid=costs][data-ready=true]').waitFor({ timeout: 30000 });
  console.log(`page open to the cost panel: ${(performance.now() - opened).toFixed(0)} ms`);
  await page.waitForTimeout(1500);  // the ledger for the timeline too
  // A pan redraws only what is in sight: time one from the click to the next frame.
  const panMs = await page.evaluate(() => new Promise((resolve) => {
    const start = performance.now();
    document.getElementById('pan-forward').click();
    requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - start)));
  }));
  const scrollMs = await page.evaluate(() => new Promise((resolve) => {
    const start = performance.now();
    const wrap = document.getElementById('plans-wrap');
    wrap.scrollTop = wrap.scrollHeight / 2;
    wrap.dispatchEvent(new Event('scroll'));
    requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - start)));
  }));
  console.log(`pan: ${panMs.toFixed(0)} ms; scroll the plan list to the middle: ${scrollMs.toFixed(0)} ms`);
  // The cost panel for the time in view, its plan list drawn only where it is in sight.
  const costsOpened = performance.now();
  await page.waitForFunction(() => document.getElementById('costs').dataset.from ===
    document.querySelector('[data-testid=timeline]').dataset.viewStart, null, { timeout: 30000 });
  const costRows = await page.locator('[data-testid=cost-plan-row]').count();
  console.log(`cost panel ready ${(performance.now() - costsOpened).toFixed(0)} ms after the pan;` +
    ` cost plan rows in the DOM: ${costRows} of ${await page.locator('#cost-plans-count').innerText()}`);
  assert.ok(costRows < 200, 'the cost panel lists only the rows in sight');
  await page.screenshot({ path: join(ARTIFACTS, 'dashboard-many-plans.png') });
  // Folded groups draw no plan at all; a frame of the whole timeline with every group folded.
  const barsBefore = await page.locator('[data-testid=plan-bar]').count();
  const foldMs = await page.evaluate(() => new Promise((resolve) => {
    const start = performance.now();
    // Each fold redraws the rows: look the next open group up again.
    for (let toggle; (toggle = document.querySelector('[data-testid=group-row][data-folded=false] [data-testid=group-toggle]'));) {
      toggle.dispatchEvent(new PointerEvent('pointerdown', { bubbles: true }));
    }
    requestAnimationFrame(() => requestAnimationFrame(() => resolve(performance.now() - start)));
  }));
  const barsFolded = await page.locator('[data-testid=plan-bar]').count();
  console.log(`fold every group: ${foldMs.toFixed(0)} ms; plan bars in the DOM ${barsBefore} -> ${barsFolded}`);
  assert.equal(barsFolded, 0);
  assert.ok(barsBefore < COUNT, 'only the bars in the window are drawn');
  assert.ok(panMs < 1000 && scrollMs < 1000 && foldMs < 1000, 'interactions answer within a second');
});
