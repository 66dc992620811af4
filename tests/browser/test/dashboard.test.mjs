// The dashboard at GET /_emulator/ui in headless chromium, on the walkthrough scenario: a week of
// two ml.p5.48xlarge bought for an endpoint, and an endpoint on it. The page opens on the pools in
// use with the plan in sight; the plan's bar sits on its zone's row with its dates and its use over
// time inside it; the endpoint and the jobs hold instances on the timeline, a job waiting for its
// plan is drawn from when it was created; the page follows changes made through the AWS API
// without a reload; +7 days turns the plan Expired and the endpoint red with its reason, after
// which invocations fail. The cost panel shows GET /_emulator/costs for the time in view, to the
// cent. A HyperPod cluster on a plan and on demand shows its groups and nodes, the quotas panel
// their use. Dates typed in a browser set to another time zone are read as UTC. GET
// /_emulator/report is one page that loads nothing and shows the plan, the endpoint and the costs.
// Screenshots go to $DASHBOARD_ARTIFACTS (and the shipped walkthrough's, before and after the
// plan's end, also to $DASHBOARD_SCREENSHOTS/dashboard.png and dashboard-expired.png).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CreateClusterCommand, CreateEndpointCommand, CreateEndpointConfigCommand, CreateModelCommand,
  CreateTrainingJobCommand, CreateTrainingPlanCommand, SearchTrainingPlanOfferingsCommand,
} from '@aws-sdk/client-sagemaker';
import { InvokeEndpointCommand } from '@aws-sdk/client-sagemaker-runtime';
import {
  ACCOUNT, DAY, P5, REGION, admin, launchBrowser, runtime, sagemaker, startEmulator, tempDir, writeJson,
} from '../lib.mjs';

const PLAN = 'p5-endpoint-week';
const TRAINING_PLAN = 'p5-training-3d';
const ENDPOINT = 'demo-endpoint';
const ROLE = `arn:aws:iam::${ACCOUNT}:role/demo`;
const ARTIFACTS = process.env.DASHBOARD_ARTIFACTS || 'artifacts';
const iso = (ms) => new Date(ms).toISOString().replace('.000Z', 'Z');
// Dollars with two decimals, as the page must show the ledger's figures.
const dollars = (n) => `${n < 0 ? '-' : ''}$${Math.abs(n).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

const work = tempDir('smemu-dashboard-');
const capacity = writeJson(work.dir, 'capacity.json', {
  regions: {
    [REGION]: {
      'us-west-2a': { [P5]: { reservable: 2, on_demand: 1 } },
      'us-west-2b': { [P5]: { reservable: 1, on_demand: 0 } },
      'us-west-2c': { [P5]: { reservable: 0, on_demand: 1 } },
    },
    'eu-west-1': { 'eu-west-1a': { 'ml.p4d.24xlarge': { reservable: 4, on_demand: 2 } } },
  },
  prices: {
    [P5]: { on_demand_hourly: 98.32, plan_hourly: 55.0 },
    'ml.p4d.24xlarge': { on_demand_hourly: 37.69, plan_hourly: 20.0 },
    'ml.g5.xlarge': { on_demand_hourly: 1.41, plan_hourly: 1.0 },
  },
});
let browser;
const emulators = [];
before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  for (const emu of emulators) await emu.stop();
  work.remove();
});

async function emulator(args = []) {
  const emu = await startEmulator(['--capacity', capacity, '--clock-start', '2027-01-15T00:00:00Z',
    '--frozen-clock', ...args]);
  emulators.push(emu);
  return emu;
}

async function buyPlan(sm, name, search) {
  const { TrainingPlanOfferings: offers } = await sm.send(new SearchTrainingPlanOfferingsCommand(search));
  assert.ok(offers.length > 0, `an offering for ${name}`);
  const { TrainingPlanArn: arn } = await sm.send(new CreateTrainingPlanCommand({
    TrainingPlanName: name, TrainingPlanOfferingId: offers[0].TrainingPlanOfferingId,
  }));
  return { arn, offer: offers[0].ReservedCapacityOfferings[0] };
}

const job = (name, resourceConfig, extra = {}) => new CreateTrainingJobCommand({
  TrainingJobName: name, RoleArn: ROLE,
  AlgorithmSpecification: { TrainingImage: `${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com/train:1`, TrainingInputMode: 'File' },
  OutputDataConfig: { S3OutputPath: 's3://demo/out' },
  ResourceConfig: { VolumeSizeInGB: 100, ...resourceConfig },
  StoppingCondition: { MaxRuntimeInSeconds: 86400 },
  Environment: { SAGEMAKER_EMULATOR_RUN_SECONDS: String(3 * 3600) },
  ...extra,
});

// The element's box; retried, since the page may redraw the element meanwhile.
async function boxOf(locator) {
  for (let i = 0; i < 50; i++) {
    const box = await locator.boundingBox({ timeout: 5000 }).catch(() => null);
    if (box) return box;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no box for ${locator}`);
}

async function screenshot(page, name) {
  const path = join(ARTIFACTS, name);
  await page.screenshot({ path, fullPage: true });
  return path;
}

// The cost panel shows GET /_emulator/costs for the time in view (read from the page), to the cent.
async function checkCostPanel(page, url) {
  await page.waitForFunction(() => {
    const costs = document.getElementById('costs').dataset;
    const view = document.querySelector('[data-testid=timeline]').dataset;
    return costs.ready === 'true' && costs.from === view.viewStart && costs.to === view.viewEnd &&
      costs.now === document.querySelector('[data-testid=clock-now]').dataset.now;
  }, null, { timeout: 5000 });
  const { from, to } = await page.locator('[data-testid=costs]').evaluate((el) => ({ ...el.dataset }));
  const res = await fetch(`${url}/_emulator/costs?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);
  assert.equal(res.status, 200);
  const costs = await res.json();
  assert.equal(costs.from, from);
  assert.equal(costs.to, to);
  const overall = costs.totals.overall;
  for (const field of ['plan_fees', 'on_demand_cost', 'total_cost', 'on_demand_equivalent', 'savings']) {
    const cell = page.locator(`[data-testid=costs-totals] [data-field=${field}]`);
    assert.equal(await cell.innerText(), dollars(overall[field]), field);
  }
  for (const field of ['reserved_instance_hours', 'plan_used_instance_hours', 'on_demand_instance_hours', 'utilization']) {
    const value = await page.locator(`[data-testid=costs-totals] [data-field=${field}]`).getAttribute('data-value');
    assert.equal(value, String(overall[field] ?? ''), field);
  }
  const utilization = page.locator('[data-testid=costs-totals] [data-field=utilization]');
  if (overall.utilization !== null) assert.equal(await utilization.innerText(), `${(overall.utilization * 100).toFixed(1)}%`);
  // Per plan: the fee in view; per on-demand holder: its cost; the summary: the total.
  const planRows = await page.locator('[data-testid=cost-plan-row]').evaluateAll((rows) =>
    rows.map((r) => [r.dataset.plan, r.querySelectorAll('td')[2].innerText.split(' of ')[0]]));
  assert.deepEqual(planRows, costs.plans.map((p) => [p.name, dollars(p.fee_in_range)]));
  const holderRows = await page.locator('[data-testid=cost-holder-row]').evaluateAll((rows) =>
    rows.map((r) => [r.dataset.name, r.dataset.source, r.querySelectorAll('td')[6].innerText]));
  assert.deepEqual(holderRows, costs.holders.map((h) => [h.name, h.training_plan_arn ? 'plan' : 'on-demand',
    h.cost === null ? "in the plan's fee" : dollars(h.cost)]));
  assert.equal(await page.locator('#sum-cost').innerText(), dollars(overall.total_cost));
  return costs;
}

// Where an element is, relative to a row's band: inside it, top to bottom.
async function inside(inner, outer) {
  const a = await boxOf(inner), b = await boxOf(outer);
  return a.y >= b.y - 0.5 && a.y + a.height <= b.y + b.height + 0.5;
}

test('the walkthrough on the dashboard: pools in use, use and holders on the timeline, waiting, costs, +7 days flags the endpoint', async () => {
  const { url } = await emulator();
  const sm = sagemaker(url);
  const rt = runtime(url);

  // The walkthrough: a week of two ml.p5.48xlarge for an endpoint, starting Jan 20 or later: plans
  // start and end at 11:30 UTC, so from Jan 20 11:30 to Jan 27 11:30.
  const plan = await buyPlan(sm, PLAN, {
    TargetResources: ['endpoint'], InstanceType: P5, InstanceCount: 2, DurationHours: 168,
    StartTimeAfter: new Date('2027-01-20T00:00:00Z'), EndTimeBefore: new Date('2027-01-31T00:00:00Z'),
  });
  assert.equal(plan.offer.AvailabilityZone, 'us-west-2a');
  const start = plan.offer.StartTime.getTime();
  const end = plan.offer.EndTime.getTime();
  assert.equal(iso(start), '2027-01-20T11:30:00Z');
  assert.equal(end - start, 7 * DAY);
  // And three days of one for training, in the other zone (zone a is sold out that week).
  const training = await buyPlan(sm, TRAINING_PLAN, {
    TargetResources: ['training-job'], InstanceType: P5, InstanceCount: 1, DurationHours: 72,
    StartTimeAfter: new Date('2027-01-22T00:00:00Z'),
  });
  assert.equal(training.offer.AvailabilityZone, 'us-west-2b');
  assert.equal(iso(training.offer.StartTime.getTime()), '2027-01-22T11:30:00Z');
  await admin(url, '/_emulator/clock', { now: iso(start) });
  await sm.send(new CreateModelCommand({ ModelName: 'demo-model', ExecutionRoleArn: ROLE,
    PrimaryContainer: { Image: `${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com/demo:1` } }));
  await sm.send(new CreateEndpointConfigCommand({ EndpointConfigName: 'demo-config', ProductionVariants: [{
    VariantName: 'AllTraffic', ModelName: 'demo-model', InstanceType: P5, InitialInstanceCount: 2,
    CapacityReservationConfig: { CapacityReservationPreference: 'capacity-reservations-only', MlReservationArn: plan.arn },
  }] }));
  await sm.send(new CreateEndpointCommand({ EndpointName: ENDPOINT, EndpointConfigName: 'demo-config' }));
  const invoke = () => rt.send(new InvokeEndpointCommand({
    EndpointName: ENDPOINT, Body: new TextEncoder().encode('1,2,3'), ContentType: 'text/csv' }));
  assert.equal(new TextDecoder().decode((await invoke()).Body), '1,2,3');
  // A job for the training plan, which starts on Jan 22 at 11:30: it waits from Jan 20, 11:30.
  await sm.send(job('train-on-plan', { InstancePreferences: [
    { InstanceType: P5, InstanceCount: 1, TrainingPlanArns: [training.arn] }] }));

  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (err) => errors.push(err.message));
  const response = await page.goto(`${url}/_emulator/ui`);
  assert.equal(response.status(), 200);
  assert.match(response.headers()['content-type'], /^text\/html/);

  // The plan's bar: on zone a's row, with the plan's dates, Active, starting at the clock line.
  const bar = page.locator(`[data-testid=pool-row][data-az=us-west-2a][data-instance-type="${P5}"] ` +
    `[data-testid=plan-bar][data-plan=${PLAN}]`);
  await bar.waitFor();
  assert.deepEqual(await bar.evaluate((el) => ({ ...el.dataset })), {
    testid: 'plan-bar', plan: PLAN, arn: plan.arn, region: REGION, az: 'us-west-2a', instanceType: P5,
    start: '2027-01-20T11:30:00Z', end: '2027-01-27T11:30:00Z', status: 'Active', count: '2',
  });
  // It opens on what matters: the two zones with plans, not the empty zone c or eu-west-1, and the
  // plan in sight without scrolling anything.
  assert.deepEqual(await page.locator('[data-testid=pool-row]').evaluateAll((rows) =>
    rows.map((r) => `${r.dataset.region} ${r.dataset.az}`)), [`${REGION} us-west-2a`, `${REGION} us-west-2b`]);
  assert.match(await page.locator('[data-testid=pools-shown]').innerText(), /^2 of 4 pools/);
  const barBox = await boxOf(bar.locator('rect').first());
  assert.ok(barBox.y > 0 && barBox.y + barBox.height < 1000, `the plan is in the first screen: ${JSON.stringify(barBox)}`);
  assert.equal(await page.evaluate(() => window.scrollY), 0);
  // Everything else is one click away.
  const showAll = page.locator('[data-testid=show-all-pools]');
  await showAll.check();
  await page.locator('[data-testid=pool-row][data-az=eu-west-1a]').waitFor();
  assert.equal(await page.locator('[data-testid=pool-row]').count(), 4);
  await showAll.uncheck();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=pool-row]').length === 2);
  assert.equal(await page.locator(`[data-testid=pool-row][data-az=us-west-2b] [data-plan=${PLAN}]`).count(), 0);
  const rowBox = await boxOf(page.locator('[data-testid=pool-row][data-az=us-west-2a] [data-testid=pool-row-band]'));
  assert.ok(barBox.y >= rowBox.y && barBox.y + barBox.height <= rowBox.y + rowBox.height + 0.5,
    `bar ${JSON.stringify(barBox)} inside row ${JSON.stringify(rowBox)}`);
  const lineBox = await boxOf(page.locator('[data-testid=clock-line]'));
  assert.ok(Math.abs(barBox.x - (lineBox.x + lineBox.width / 2)) <= 1.5, 'the bar starts at the clock (Jan 20, 11:30)');
  // 7 days of bar against the axis: the 3-day training plan is 3/7 as long.
  const trainingBox = await boxOf(page.locator(`[data-testid=pool-row][data-az=us-west-2b] [data-plan=${TRAINING_PLAN}] rect`).first());
  assert.ok(Math.abs(trainingBox.width / barBox.width - 3 / 7) < 0.02, `${trainingBox.width} / ${barBox.width}`);
  assert.equal(await page.locator('[data-testid=clock-now]').getAttribute('data-now'), '2027-01-20T11:30:00Z');

  // The lists: the endpoint on the plan, the job waiting for its plan.
  const endpointRow = page.locator(`[data-testid=endpoint-row][data-endpoint=${ENDPOINT}]`);
  await endpointRow.waitFor();
  assert.equal(await endpointRow.getAttribute('data-status'), 'InService');
  assert.equal(await endpointRow.getAttribute('data-flagged'), 'false');
  assert.match(await endpointRow.innerText(), new RegExp(`AllTraffic\\s+${P5.replaceAll('.', '\\.')}\\s+2\\s+plan ${PLAN}`));
  const jobRow = page.locator('[data-testid=job-row][data-job=train-on-plan]');
  assert.match(await jobRow.innerText(), /InProgress\s+Pending/);
  // Waiting is measured on the virtual clock: since when, not "0 s" on a frozen clock.
  assert.equal(await jobRow.getAttribute('data-waiting'), 'true');
  assert.match(await jobRow.locator('[data-testid=waiting-since]').innerText(), /^since 2027-01-20 11:30 UTC/);
  assert.match(await jobRow.innerText(), new RegExp(`waits for 1 × ${P5.replaceAll('.', '\\.')} on plan ${TRAINING_PLAN}`));
  // ... and drawn, hatched from Jan 20 11:30, under its plan's zone.
  const waiting = page.locator('[data-testid=waiting-bar][data-job=train-on-plan]');
  assert.equal(await waiting.getAttribute('data-since'), '2027-01-20T11:30:00Z');
  assert.ok(await inside(waiting.locator('rect'), page.locator('[data-testid=pool-row][data-az=us-west-2b] [data-testid=pool-row-band]')),
    'the waiting job is on zone b\'s row');
  assert.equal(await page.locator('[data-testid=summary-waiting]').getAttribute('data-count'), '1');
  await endpointRow.click();
  await page.locator(`[data-testid=plan-bar][data-plan=${PLAN}].selected`).waitFor();

  // Live: a job created through the AWS API shows up without a reload.
  await sm.send(job('tune-on-demand', { InstanceType: 'ml.g5.xlarge', InstanceCount: 1 }));
  await page.locator('[data-testid=job-row][data-job=tune-on-demand]').waitFor({ timeout: 5000 });
  await screenshot(page, 'dashboard-walkthrough.png');

  // A day later: the endpoint held its two instances all day, drawn under the plan and inside its
  // bar as use; the on-demand job held its g5 for 3 hours, under its type's on-demand row.
  await page.locator('[data-testid=advance-1d]').click();
  const held = page.locator(`[data-testid=holder-bar][data-name=${ENDPOINT}]`);
  await held.waitFor({ timeout: 5000 });
  assert.equal(await held.getAttribute('data-kind'), 'endpoint');
  assert.equal(await held.getAttribute('data-from'), '2027-01-20T11:30:00Z');
  assert.equal(await held.getAttribute('data-to'), '2027-01-21T11:30:00Z');
  assert.equal(await held.getAttribute('data-source'), 'plan');
  assert.equal(await held.getAttribute('data-plan-arn'), plan.arn);
  assert.equal(await held.getAttribute('data-instances'), '2');
  assert.ok(await inside(held.locator('rect'), page.locator('[data-testid=pool-row][data-az=us-west-2a] [data-testid=pool-row-band]')),
    'the endpoint is on its plan\'s row');
  const use = bar.locator('[data-testid=plan-use]');
  await use.waitFor();
  // In the SVG's own units (the window's outline is not part of it).
  const useBox = await use.evaluate((el) => { const b = el.getBBox(); return { width: b.width, height: b.height }; });
  const windowBox = await bar.locator('rect').first().evaluate((el) => { const b = el.getBBox(); return { width: b.width, height: b.height }; });
  assert.ok(Math.abs(useBox.width / windowBox.width - 1 / 7) < 0.02, 'one day of seven used');
  assert.ok(Math.abs(useBox.height - windowBox.height) < 0.5, 'both instances used: the full height');
  const onDemand = page.locator('[data-testid=holder-bar][data-name=tune-on-demand]');
  await onDemand.waitFor({ timeout: 5000 });
  assert.equal(await onDemand.getAttribute('data-source'), 'on-demand');
  assert.equal(await onDemand.getAttribute('data-to'), '2027-01-20T14:30:00Z');
  await checkCostPanel(page, url);

  // +7 days: the plan ends (Jan 27, 11:30), the page shows it Expired, the endpoint is flagged in red with
  // its reason (in its row, on the timeline and in the summary), and invocations fail.
  await page.locator('[data-testid=advance-7d]').click();
  await page.locator(`[data-testid=plan-bar][data-plan=${PLAN}][data-status=Expired]`).waitFor({ timeout: 5000 });
  await page.locator(`[data-testid=plan-row][data-plan=${PLAN}][data-status=Expired]`).waitFor({ timeout: 5000 });
  assert.equal(await page.locator('[data-testid=clock-now]').getAttribute('data-now'), '2027-01-28T11:30:00Z');
  await page.locator(`[data-testid=endpoint-row][data-endpoint=${ENDPOINT}][data-flagged=true]`).waitFor({ timeout: 5000 });
  const reason = await endpointRow.getAttribute('data-flag');
  assert.match(reason, new RegExp(`^Capacity reservation expired: plan ${PLAN} ended 2027-01-27 11:30 UTC; invocations fail$`));
  const flagCell = endpointRow.locator('[data-testid=flag]');
  assert.equal(await flagCell.innerText(), reason);
  assert.equal(await flagCell.evaluate((el) => getComputedStyle(el).color), 'rgb(180, 35, 24)', 'red');
  const marker = page.locator(`[data-testid=flag-marker][data-name=${ENDPOINT}]`);
  await marker.waitFor();
  assert.equal(await marker.getAttribute('data-reason'), 'reservation expired: invocations fail');
  const markerBox = await boxOf(marker.locator('line'));
  const endBox = await boxOf(bar.locator('rect').first());
  assert.ok(Math.abs(markerBox.x + markerBox.width / 2 - (endBox.x + endBox.width)) <= 1.5, 'the flag is at the plan\'s end');
  assert.equal(await page.locator('[data-testid=summary-broken]').getAttribute('data-count'), '1');
  assert.match(await page.locator('[data-testid=broken-item]').innerText(), new RegExp(`^${ENDPOINT}: reservation expired`));
  await assert.rejects(invoke(), (err) => {
    assert.equal(err.name, 'ModelError');
    assert.match(err.message, /capacity reservation has expired/);
    return true;
  });
  const costs = await checkCostPanel(page, url);
  assert.ok(costs.plans.some((p) => p.name === PLAN && p.status === 'Expired'));
  // The training job waited two days for its plan, then ran: both on its lane.
  assert.equal(await page.locator('[data-testid=waited-bar][data-job=train-on-plan]').getAttribute('data-since'), '2027-01-20T11:30:00Z');
  assert.equal(await page.locator('[data-testid=holder-bar][data-name=train-on-plan]').getAttribute('data-from'), '2027-01-22T11:30:00Z');
  await screenshot(page, 'dashboard-expired.png');
  assert.deepEqual(errors, [], 'no script errors in the page');
  await page.close();
});

test('a HyperPod cluster in the clusters table, its plan\'s users, and the quotas panel', async () => {
  const quotas = writeJson(work.dir, 'quotas.json', { quotas: [
    { name: `${P5} for cluster usage`, value: 3 },
    { name: 'Maximum number instances allowed per SageMaker HyperPod cluster', value: 8 },
    { name: 'Number of training plans per Region', value: 5 },
    { name: `${P5} for endpoint usage`, value: 1, account: '210987654321' },
  ] });
  const { url } = await emulator(['--account-id', ACCOUNT, '--region', REGION, '--quotas', quotas]);
  const sm = sagemaker(url);
  // Two p5 for a week from Jan 17, 11:30 UTC (the clock is at Jan 15): the workers wait for it, Pending.
  const plan = await buyPlan(sm, 'p5-hyperpod', {
    TargetResources: ['hyperpod-cluster'], InstanceType: P5, InstanceCount: 2, DurationHours: 168,
    StartTimeAfter: new Date('2027-01-17T00:00:00Z'),
  });
  assert.equal(plan.offer.StartTime.toISOString(), '2027-01-17T11:30:00.000Z');
  const group = (name, count, extra = {}) => ({
    InstanceGroupName: name, InstanceType: P5, InstanceCount: count, ExecutionRole: ROLE,
    LifeCycleConfig: { SourceS3Uri: 's3://demo/lifecycle', OnCreate: 'on_create.sh' }, ...extra,
  });
  await sm.send(new CreateClusterCommand({ ClusterName: 'trainers', InstanceGroups: [
    group('workers', 2, { TrainingPlanArn: plan.arn }), group('head', 1)] }));

  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (err) => errors.push(err.message));
  assert.equal((await page.goto(`${url}/_emulator/ui`)).status(), 200);
  const workers = page.locator('[data-testid=cluster-row][data-cluster=trainers][data-group=workers]');
  const head = page.locator('[data-testid=cluster-row][data-cluster=trainers][data-group=head]');
  await workers.waitFor();
  assert.equal(await workers.getAttribute('data-status'), 'InService');
  const cells = (row) => row.locator('td').allInnerTexts();
  assert.deepEqual(await cells(workers), ['trainers', 'InService', 'workers', P5, '2', '2 / 0 / 0',
    'plan p5-hyperpod', REGION, ACCOUNT, '']);
  assert.deepEqual(await cells(head), ['trainers', 'InService', 'head', P5, '1', '0 / 1 / 0',
    'on demand', REGION, ACCOUNT, '']);
  assert.equal(await page.locator('#clusters-count').innerText(), '(2)');
  // The plan's row says who is on it; its use counts the cluster's workers.
  const planRow = page.locator('[data-testid=plan-row][data-plan=p5-hyperpod]');
  assert.match(await planRow.innerText(), /2 \/ 2\s.*hyperpod-cluster\s+cluster trainers\s/s);

  // Quotas in force for the server's account (the other account's setting is not): the cluster
  // quota is full (2 on the plan + 1 on demand), highlighted with a full bar.
  assert.equal(await page.locator('[data-testid=quotas-for]').innerText(),
    `in force for account ${ACCOUNT} in ${REGION}`);
  const quotaRows = page.locator('[data-testid=quota-row]');
  assert.deepEqual(await quotaRows.evaluateAll((rows) => rows.map((r) =>
    [r.dataset.quota, r.dataset.used, r.dataset.limit, r.dataset.full])), [
    ['Maximum number instances allowed per SageMaker HyperPod cluster', '3', '8', 'false'],
    ['Number of training plans per Region', '1', '5', 'false'],
    [`${P5} for cluster usage`, '3', '3', 'true'],
  ]);
  const full = page.locator(`[data-testid=quota-row][data-quota="${P5} for cluster usage"]`);
  assert.match(await full.innerText(), /3 \/ 3\s+at the limit/);
  const fill = async (row) => row.locator('[data-testid=quota-meter] > span').evaluate((el) =>
    el.getBoundingClientRect().width / el.parentElement.getBoundingClientRect().width);
  assert.ok(Math.abs(await fill(full) - 1) < 0.02);
  const perCluster = page.locator('[data-testid=quota-row][data-quota^=Maximum]');
  assert.ok(Math.abs(await fill(perCluster) - 3 / 8) < 0.02, 'the bar is used / limit');
  assert.notEqual(await full.locator('.used').evaluate((el) => getComputedStyle(el).color),
    await perCluster.locator('.used').evaluate((el) => getComputedStyle(el).color), 'the full one is highlighted');
  // Clicking the workers' row brings their plan's bar into view.
  await workers.click();
  await page.locator('[data-testid=plan-bar][data-plan=p5-hyperpod].selected').waitFor();
  await screenshot(page, 'dashboard-clusters-quotas.png');

  // +7 days (Jan 22): the plan is Active and the workers run, without a reload.
  await page.locator('[data-testid=advance-7d]').click();
  await page.locator('[data-testid=plan-row][data-plan=p5-hyperpod][data-status=Active]').waitFor({ timeout: 5000 });
  await page.waitForFunction(() => document.querySelector(
    '[data-testid=cluster-row][data-group=workers] td:nth-child(6)')?.innerText === '0 / 2 / 0', null, { timeout: 5000 });
  assert.deepEqual(errors, [], 'no script errors in the page');
  await page.close();
});

// The README's screenshots are made here, from the shipped scenario exactly as the README starts it
// (three days into the plan, and at its end, as the README's +7 days leaves it).
test('the shipped walkthrough scenario (the README screenshots): before and after the plan ends', async () => {
  const scenario = fileURLToPath(new URL('../../../examples/scenarios/walkthrough.json', import.meta.url));
  const emu = await startEmulator(['--account-id', ACCOUNT, '--init', scenario]);
  emulators.push(emu);
  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (err) => errors.push(err.message));
  assert.equal((await page.goto(`${emu.url}/_emulator/ui`)).status(), 200);
  // Of the shipped capacity's many pools, only the plan's is shown, with the plan in sight.
  const bar = page.locator(`[data-testid=pool-row][data-az=us-west-2a][data-instance-type="${P5}"] ` +
    '[data-testid=plan-bar][data-plan=p5-endpoint-plan]');
  await bar.waitFor();
  assert.equal(await page.locator('[data-testid=pool-row]').count(), 1);
  assert.match(await page.locator('[data-testid=pools-shown]').innerText(), /^1 of \d{2,} pools/);
  const first = await boxOf(bar.locator('rect').first());
  assert.ok(first.y > 0 && first.y + first.height < 1000, 'the plan is in the first screen');
  const endpointRow = page.locator(`[data-testid=endpoint-row][data-endpoint=${ENDPOINT}]`);
  await endpointRow.waitFor();
  assert.equal(await endpointRow.getAttribute('data-status'), 'InService');

  // Three days in: the endpoint's use inside the plan's bar and on its own line.
  await admin(emu.url, '/_emulator/clock', { advance_seconds: 3 * 86400 });
  await page.locator(`[data-testid=holder-bar][data-name=${ENDPOINT}][data-to="2027-01-23T11:30:00Z"]`).waitFor({ timeout: 5000 });
  await endpointRow.click();
  await page.locator('[data-testid=plan-bar][data-plan=p5-endpoint-plan].selected').waitFor();
  assert.equal(await bar.getAttribute('data-status'), 'Active');
  assert.equal(await bar.getAttribute('data-count'), '2');
  await checkCostPanel(page, emu.url);
  const before = join(ARTIFACTS, 'dashboard-scenario.png');
  await page.screenshot({ path: before });

  // At the plan's end, as the README's first run leaves it: Expired, and the endpoint in red.
  await admin(emu.url, '/_emulator/clock', { advance_seconds: 4 * 86400 });
  await page.locator(`[data-testid=endpoint-row][data-endpoint=${ENDPOINT}][data-flagged=true]`).waitFor({ timeout: 5000 });
  await page.locator('[data-testid=flag-marker]').waitFor();
  await checkCostPanel(page, emu.url);
  const expired = join(ARTIFACTS, 'dashboard-scenario-expired.png');
  await page.screenshot({ path: expired });
  if (process.env.DASHBOARD_SCREENSHOTS) {
    mkdirSync(process.env.DASHBOARD_SCREENSHOTS, { recursive: true });
    copyFileSync(before, join(process.env.DASHBOARD_SCREENSHOTS, 'dashboard.png'));
    copyFileSync(expired, join(process.env.DASHBOARD_SCREENSHOTS, 'dashboard-expired.png'));
  }
  assert.deepEqual(errors, [], 'no script errors in the page');
  await page.close();
});

// "Multiple Reserved Capacity blocks in a single training plan may be discontinuous": a plan of two
// blocks is one bar of two rectangles, with the gap between them where another plan's day sits.
test('a plan of two reserved capacities is drawn as its two blocks, the gap between them', async () => {
  const oneP5 = writeJson(work.dir, 'one-p5.json', {
    regions: { [REGION]: { 'us-west-2a': { [P5]: { reservable: 1, on_demand: 0 } } } },
    prices: { [P5]: { on_demand_hourly: 98.32, plan_hourly: 55.0 } },
  });
  const emu = await startEmulator(['--capacity', oneP5, '--clock-start', '2027-01-15T00:00:00Z', '--frozen-clock']);
  emulators.push(emu);
  const sm = sagemaker(emu.url);
  const day = (n) => new Date(Date.parse('2027-01-15T11:30:00Z') + n * DAY);
  const search = (days, from, to) => ({
    InstanceType: P5, InstanceCount: 1, DurationHours: days * 24, StartTimeAfter: day(from), EndTimeBefore: day(to),
    TargetResources: ['endpoint'],
  });
  await buyPlan(sm, 'day-three', search(1, 2, 3));
  const split = await buyPlan(sm, 'split', search(3, 0, 5));
  const state = await (await fetch(`${emu.url}/_emulator/state`)).json();
  assert.deepEqual(state.plans.find((p) => p.name === 'split').reserved_capacities.map((b) => [b.start, b.end]), [
    ['2027-01-15T11:30:00Z', '2027-01-17T11:30:00Z'], ['2027-01-18T11:30:00Z', '2027-01-19T11:30:00Z'],
  ]);

  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (err) => errors.push(err.message));
  await page.goto(`${emu.url}/_emulator/ui`);
  const blocks = page.locator('[data-testid=plan-bar][data-plan=split] [data-testid=plan-block]');
  await blocks.first().waitFor();
  assert.equal(await blocks.count(), 2);
  const [first, second] = [await boxOf(blocks.nth(0)), await boxOf(blocks.nth(1))];
  const between = await boxOf(page.locator('[data-testid=plan-bar][data-plan=day-three] [data-testid=plan-block]'));
  assert.ok(first.x + first.width <= between.x + 1 && between.x + between.width <= second.x + 1,
    `the other plan's day sits in the gap: ${JSON.stringify([first, between, second])}`);
  assert.ok(Math.abs(first.width - 2 * second.width) < 2, 'two days, then one');
  assert.ok(Math.abs(first.y - between.y) < 1 && Math.abs(second.y - between.y) < 1,
    `one lane: the day in the gap does not stack above the plan: ${JSON.stringify([first, between, second])}`);

  // "The endpoint only functions during the reservation window specified in the training plan":
  // an endpoint on the plan is flagged between its blocks, and its invocations fail there.
  await sm.send(new CreateModelCommand({ ModelName: 'm', ExecutionRoleArn: ROLE,
    PrimaryContainer: { Image: `${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com/demo:1` } }));
  await sm.send(new CreateEndpointConfigCommand({ EndpointConfigName: 'on-split', ProductionVariants: [{
    VariantName: 'AllTraffic', ModelName: 'm', InstanceType: P5, InitialInstanceCount: 1,
    CapacityReservationConfig: { CapacityReservationPreference: 'capacity-reservations-only', MlReservationArn: split.arn },
  }] }));
  await sm.send(new CreateEndpointCommand({ EndpointName: 'gap-endpoint', EndpointConfigName: 'on-split' }));
  await admin(emu.url, '/_emulator/clock', { now: '2027-01-17T12:00:00Z' });
  await assert.rejects(runtime(emu.url).send(new InvokeEndpointCommand({
    EndpointName: 'gap-endpoint', Body: new TextEncoder().encode('x'), ContentType: 'text/csv' })),
  (err) => err.name === 'ModelError' && /not active until 2027-01-18T11:30:00Z/.test(err.message));
  const row = page.locator('[data-testid=endpoint-row][data-endpoint=gap-endpoint][data-flagged=true]');
  await row.waitFor({ timeout: 5000 });
  assert.match(await row.getAttribute('data-flag'), /^Between reserved capacities: plan split resumes 2027-01-18 11:30 UTC/);
  assert.deepEqual(errors, [], 'no script errors in the page');
  await page.close();
});

// Fault rules on the page: the panel lists each rule with its counts, and a plan whose payment a
// rule failed is flagged (it reserves nothing, so it is not drawn as capacity). "When created, the
// plan initially enters a Pending state and remains there until the reservation process is
// complete" (Reserve the best training plan): both purchases are Pending for the payment's 30
// seconds of clock time, then the paid one is Scheduled and the declined one Failed.
test('the fault rules panel, and a plan whose payment failed flagged as broken', async () => {
  const emu = await emulator();
  await admin(emu.url, '/_emulator/faults', { rules: [
    { id: 'declined', operation: 'CreateTrainingPlan', resource: 'doomed', payment: {} },
    { id: 'busy', operation: 'ListModels', every: 2, error: 'ThrottlingException' }] });
  const sm = sagemaker(emu.url);
  await buyPlan(sm, 'doomed', { InstanceType: P5, InstanceCount: 1, DurationHours: 24,
    StartTimeAfter: new Date('2027-01-16T00:00:00Z'), TargetResources: ['training-job'] });
  await buyPlan(sm, 'paid', { InstanceType: P5, InstanceCount: 1, DurationHours: 24,
    StartTimeAfter: new Date('2027-01-17T00:00:00Z'), TargetResources: ['training-job'] });
  const page = await browser.context.newPage();
  const errors = [];
  page.on('pageerror', (err) => errors.push(err.message));
  await page.goto(`${emu.url}/_emulator/ui`);
  const declined = page.locator('[data-testid=fault-row][data-rule=declined]');
  await declined.waitFor();
  assert.equal(await declined.getAttribute('data-fired'), '1');
  assert.match(await declined.innerText(), /CreateTrainingPlan · doomed\s+fails the payment\s+always\s+1 \/ 1\s+api/);
  assert.match(await page.locator('[data-testid=fault-row][data-rule=busy]').innerText(),
    /answers ThrottlingException \(400\)\s+every 2nd/);
  // While the payments are processed (the clock is frozen at the purchase), both plans are
  // Pending and nothing is flagged yet.
  await page.locator('[data-testid=plan-bar][data-plan=paid][data-status=Pending]').waitFor({ timeout: 5000 });
  await page.locator('[data-testid=plan-bar][data-plan=doomed][data-status=Pending]').waitFor({ timeout: 5000 });
  assert.equal(await page.locator('[data-testid=broken-item]').count(), 0, 'nothing flagged while Pending');
  // 30 seconds later: the paid plan is Scheduled, the declined one Failed and flagged.
  assert.equal((await admin(emu.url, '/_emulator/clock', { advance_seconds: 30 })).now, '2027-01-15T00:00:30Z');
  await page.locator('[data-testid=plan-bar][data-plan=paid][data-status=Scheduled]').waitFor({ timeout: 5000 });
  await page.locator('[data-testid=broken-item][data-name=doomed]').waitFor({ timeout: 5000 });
  assert.match(await page.locator('[data-testid=broken-item][data-name=doomed]').innerText(), /^doomed: payment failed/);
  assert.equal(await page.locator('[data-testid=plan-bar][data-plan=doomed]').count(), 0, 'no capacity drawn');
  assert.deepEqual(errors, [], 'no script errors in the page');
  await page.close();
});

test('with --admin-token the page needs the token, then sends it on every call', async () => {
  const { url } = await emulator(['--admin-token', 'dash-s3cret']);
  const page = await browser.context.newPage();
  assert.equal((await page.goto(`${url}/_emulator/ui`)).status(), 403);
  assert.equal((await page.goto(`${url}/_emulator/ui?token=dash-s3cret`)).status(), 200);
  await page.waitForFunction(() => document.querySelector('[data-testid=clock-now]')?.dataset.now);
  assert.equal(new URL(page.url()).search, '', 'the token leaves the address bar');
  await page.locator('[data-testid=advance-1d]').click();
  await page.waitForFunction(() =>
    document.querySelector('[data-testid=clock-now]').dataset.now === '2027-01-16T00:00:00Z');
  // Nothing is in use: no pool is shown until asked for; the costs come with the token too.
  assert.equal(await page.locator('[data-testid=pool-row]').count(), 0);
  await page.locator('[data-testid=show-all-pools]').check();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=pool-row]').length === 4);
  await page.locator('[data-testid=costs][data-ready=true]').waitFor({ timeout: 5000 });
  assert.equal(await page.locator('[data-field=total_cost]').innerText(), '$0.00');
  await page.close();
});

// Every date typed or shown is UTC, whatever the browser's time zone.
test('dates in UTC: in a browser set to Los Angeles, typed dates are UTC instants', async () => {
  const { url } = await emulator();
  const la = await launchBrowser({ timezoneId: 'America/Los_Angeles' });
  after(() => la.close());
  const page = await la.context.newPage();
  const errors = [];
  page.on('pageerror', (err) => errors.push(err.message));
  await page.goto(`${url}/_emulator/ui`);
  assert.equal(await page.evaluate(() => new Date('2027-01-15T00:00:00Z').getTimezoneOffset()), 480, 'the browser is on PST');
  await page.waitForFunction(() => document.querySelector('[data-testid=clock-now]')?.dataset.now);
  assert.equal(await page.locator('[data-testid=clock-now]').innerText(), '2027-01-15 00:00 UTC');
  assert.equal(await page.locator('[data-testid=clock-date]').inputValue(), '2027-01-15 00:00');

  // The view from a typed date: the timeline starts at that UTC instant, its axis in UTC.
  const viewDate = page.locator('[data-testid=view-date]');
  await viewDate.fill('2027-01-22 06:00');
  await viewDate.press('Enter');
  await page.waitForFunction(() => document.querySelector('[data-testid=timeline]').dataset.viewStart === '2027-01-22T06:00:00Z');
  assert.match(await page.locator('[data-testid=window-label]').innerText(), /^2027-01-22 06:00 – .* UTC$/);
  await page.locator('[data-testid=costs]').evaluate((el) => new Promise((resolve) => {
    const check = () => (el.dataset.from === '2027-01-22T06:00:00Z' ? resolve() : setTimeout(check, 50));
    check();
  }));

  // The clock to a typed date: the server gets that UTC instant.
  const clockDate = page.locator('[data-testid=clock-date]');
  await clockDate.fill('2027-01-16 06:30');
  await page.locator('[data-testid=clock-set]').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=clock-now]').dataset.now === '2027-01-16T06:30:00Z');
  assert.equal((await (await fetch(`${url}/_emulator/clock`)).json()).now, '2027-01-16T06:30:00Z');
  assert.equal(await page.locator('[data-testid=clock-now]').innerText(), '2027-01-16 06:30 UTC');
  // Not a date: refused, and the clock stays.
  await clockDate.fill('16/01/2027');
  await page.locator('[data-testid=clock-set]').click();
  assert.match(await page.locator('[data-testid=message]').innerText(), /YYYY-MM-DD HH:MM \(UTC\)/);
  assert.equal((await (await fetch(`${url}/_emulator/clock`)).json()).now, '2027-01-16T06:30:00Z');
  assert.deepEqual(errors, [], 'no script errors in the page');
  await page.close();
});

// GET /_emulator/report: the dashboard page with the state and the whole ledger inside; opened with
// every request refused, it draws the plan, the endpoint (flagged) and the costs, and asks for nothing.
test('the report: one page that loads nothing, with the timeline, the tables and the costs', async () => {
  const scenario = fileURLToPath(new URL('../../../examples/scenarios/walkthrough.json', import.meta.url));
  const emu = await startEmulator(['--account-id', ACCOUNT, '--init', scenario]);
  emulators.push(emu);
  await admin(emu.url, '/_emulator/clock', { advance_seconds: 7 * 86400 });
  const res = await fetch(`${emu.url}/_emulator/report`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type'), /^text\/html/);
  const html = await res.text();
  // Nothing to load: no address of any network resource, no fetch of any kind.
  const loads = (re) => (html.match(re) || [])[0] || null;
  assert.equal(loads(/https?:\/\/\S{0,40}/i), null, 'no address on the network');
  assert.equal(loads(/\b(?:src|href|action)\s*=\s*["']?\s*\/\/\S{0,40}/i), null, 'no address without a scheme');
  assert.equal(loads(/url\(\s*["']?(?!#)\S{0,40}|@import\S{0,40}/i), null, 'no style loads anything (url(#id) is in the page)');
  const data = JSON.parse(/<script id="report-data" type="application\/json">(.*?)<\/script>/s.exec(html)[1]);
  const ledger = await (await fetch(`${emu.url}/_emulator/costs`)).json();
  assert.deepEqual(data.costs.totals, ledger.totals, 'the whole ledger, as GET /_emulator/costs answers it');

  const page = await browser.context.newPage();
  const requests = [];
  await page.route('**/*', (route) => { requests.push(route.request().url()); return route.abort(); });
  const errors = [];
  page.on('pageerror', (err) => errors.push(err.message));
  await page.setContent(html);
  await page.locator('[data-testid=plan-bar][data-plan=p5-endpoint-plan][data-status=Expired]').waitFor();
  assert.equal(await page.locator('[data-testid=report-title]').innerText(),
    'Report generated at 2027-01-27 11:30 UTC (virtual clock 2027-01-27 11:30 UTC, frozen)');
  // The whole story on the timeline: the plan with its use, the endpoint's line and its flag.
  await page.locator('[data-testid=plan-bar][data-plan=p5-endpoint-plan] [data-testid=plan-use]').waitFor();
  assert.equal(await page.locator(`[data-testid=holder-bar][data-name=${ENDPOINT}]`).getAttribute('data-to'), '2027-01-27T11:30:00Z');
  await page.locator(`[data-testid=flag-marker][data-name=${ENDPOINT}]`).waitFor();
  const endpointRow = page.locator(`[data-testid=endpoint-row][data-endpoint=${ENDPOINT}]`);
  assert.equal(await endpointRow.getAttribute('data-flagged'), 'true');
  assert.match(await endpointRow.innerText(), /Capacity reservation expired/);
  assert.equal(await page.locator('[data-testid=plan-row][data-plan=p5-endpoint-plan]').getAttribute('data-status'), 'Expired');
  // The costs, to the cent; no controls.
  for (const field of ['plan_fees', 'on_demand_cost', 'total_cost', 'on_demand_equivalent', 'savings']) {
    assert.equal(await page.locator(`[data-testid=costs-totals] [data-field=${field}]`).innerText(),
      dollars(ledger.totals.overall[field]), field);
  }
  assert.equal(await page.locator('[data-testid=cost-plan-row][data-plan=p5-endpoint-plan]').getAttribute('data-fee'),
    String(ledger.plans[0].fee_in_range));
  for (const id of ['advance-7d', 'reset', 'pool-form', 'show-all-pools']) {
    assert.equal(await page.locator(`[data-testid=${id}]`).isVisible(), false, `${id} is hidden`);
  }
  await page.waitForTimeout(1500);  // a live page would have polled by now
  assert.deepEqual(requests, [], 'the report asked for nothing');
  assert.deepEqual(errors, [], 'no script errors in the page');
  await page.screenshot({ path: join(ARTIFACTS, 'dashboard-report.png'), fullPage: true });
  await page.close();
});
