// The dashboard at GET /_emulator/ui in headless chromium, on the walkthrough scenario: a week of
// two ml.p5.48xlarge bought for an endpoint, and an endpoint on it. The plan's bar must sit on its
// zone's row with its dates; the page must follow changes made through the AWS API without a
// reload; +7 days must turn the plan Expired in the page, after which invocations fail. A HyperPod
// cluster on a plan and on demand must show its groups and nodes, and the quotas panel their use.
// Screenshots go to $DASHBOARD_ARTIFACTS (and the walkthrough one also to $DASHBOARD_SCREENSHOT).
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

const work = tempDir('smemu-dashboard-');
const capacity = writeJson(work.dir, 'capacity.json', {
  regions: {
    [REGION]: {
      'us-west-2a': { [P5]: { reservable: 2, on_demand: 1 } },
      'us-west-2b': { [P5]: { reservable: 1, on_demand: 0 } },
    },
  },
  prices: { [P5]: { on_demand_hourly: 98.32, plan_hourly: 55.0 } },
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

test('the walkthrough on the dashboard: the plan on its row, live updates, +7 days expires it', async () => {
  const { url } = await emulator();
  const sm = sagemaker(url);
  const rt = runtime(url);

  // The walkthrough: a week of two ml.p5.48xlarge for an endpoint, starting Jan 20 or later.
  const plan = await buyPlan(sm, PLAN, {
    TargetResources: ['endpoint'], InstanceType: P5, InstanceCount: 2, DurationHours: 168,
    StartTimeAfter: new Date('2027-01-20T00:00:00Z'), EndTimeBefore: new Date('2027-01-31T00:00:00Z'),
  });
  assert.equal(plan.offer.AvailabilityZone, 'us-west-2a');
  const start = plan.offer.StartTime.getTime();
  const end = plan.offer.EndTime.getTime();
  assert.equal(end - start, 7 * DAY);
  // And three days of one for training, in the other zone (zone a is sold out that week).
  const training = await buyPlan(sm, TRAINING_PLAN, {
    TargetResources: ['training-job'], InstanceType: P5, InstanceCount: 1, DurationHours: 72,
    StartTimeAfter: new Date('2027-01-22T00:00:00Z'),
  });
  assert.equal(training.offer.AvailabilityZone, 'us-west-2b');
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
    start: '2027-01-20T00:00:00Z', end: '2027-01-27T00:00:00Z', status: 'Active', count: '2',
  });
  assert.equal(await page.locator(`[data-testid=pool-row][data-az=us-west-2b] [data-plan=${PLAN}]`).count(), 0);
  const barBox = await boxOf(bar.locator('rect'));
  const rowBox = await boxOf(page.locator('[data-testid=pool-row][data-az=us-west-2a] [data-testid=pool-row-band]'));
  assert.ok(barBox.y >= rowBox.y && barBox.y + barBox.height <= rowBox.y + rowBox.height + 0.5,
    `bar ${JSON.stringify(barBox)} inside row ${JSON.stringify(rowBox)}`);
  const lineBox = await boxOf(page.locator('[data-testid=clock-line]'));
  assert.ok(Math.abs(barBox.x - (lineBox.x + lineBox.width / 2)) <= 1.5, 'the bar starts at the clock (Jan 20)');
  // 7 days of bar against the axis: the 3-day training plan is 3/7 as long.
  const trainingBox = await boxOf(page.locator(`[data-testid=pool-row][data-az=us-west-2b] [data-plan=${TRAINING_PLAN}] rect`));
  assert.ok(Math.abs(trainingBox.width / barBox.width - 3 / 7) < 0.02, `${trainingBox.width} / ${barBox.width}`);
  assert.equal(await page.locator('[data-testid=clock-now]').getAttribute('data-now'), '2027-01-20T00:00:00Z');

  // The lists: the endpoint on the plan, the job waiting for its plan.
  const endpointRow = page.locator(`[data-testid=endpoint-row][data-endpoint=${ENDPOINT}]`);
  await endpointRow.waitFor();
  assert.equal(await endpointRow.getAttribute('data-status'), 'InService');
  assert.match(await endpointRow.innerText(), new RegExp(`AllTraffic\\s+${P5.replaceAll('.', '\\.')}\\s+2\\s+plan ${PLAN}`));
  const jobRow = page.locator('[data-testid=job-row][data-job=train-on-plan]');
  assert.match(await jobRow.innerText(), /InProgress\s+Pending/);
  await endpointRow.click();
  await page.locator(`[data-testid=plan-bar][data-plan=${PLAN}].selected`).waitFor();

  // Live: a job created through the AWS API shows up without a reload.
  await sm.send(job('tune-on-demand', { InstanceType: 'ml.g5.xlarge', InstanceCount: 1 }));
  await page.locator('[data-testid=job-row][data-job=tune-on-demand]').waitFor({ timeout: 5000 });
  await page.locator('[data-testid=group-row][data-instance-type="ml.g5.xlarge"]').waitFor({ timeout: 5000 }).catch(() => {});
  await screenshot(page, 'dashboard-walkthrough.png');

  // +7 days: the plan ends (Jan 27), the page shows it Expired, and invocations fail.
  await page.locator('[data-testid=advance-7d]').click();
  await page.locator(`[data-testid=plan-bar][data-plan=${PLAN}][data-status=Expired]`).waitFor({ timeout: 5000 });
  await page.locator(`[data-testid=plan-row][data-plan=${PLAN}][data-status=Expired]`).waitFor({ timeout: 5000 });
  assert.equal(await page.locator('[data-testid=clock-now]').getAttribute('data-now'), '2027-01-27T00:00:00Z');
  await assert.rejects(invoke(), (err) => {
    assert.equal(err.name, 'ModelError');
    assert.match(err.message, /capacity reservation has expired/);
    return true;
  });
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
  // Two p5 for a week from Jan 17 (the clock is at Jan 15): the workers wait for it, Pending.
  const plan = await buyPlan(sm, 'p5-hyperpod', {
    TargetResources: ['hyperpod-cluster'], InstanceType: P5, InstanceCount: 2, DurationHours: 168,
    StartTimeAfter: new Date('2027-01-17T00:00:00Z'),
  });
  assert.equal(plan.offer.StartTime.toISOString(), '2027-01-17T00:00:00.000Z');
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

// The README's screenshot is made here, from the shipped scenario exactly as the README starts it.
test('the shipped walkthrough scenario (the README screenshot): its plan and endpoint', async () => {
  const scenario = fileURLToPath(new URL('../../../examples/scenarios/walkthrough.json', import.meta.url));
  const emu = await startEmulator(['--account-id', ACCOUNT, '--init', scenario]);
  emulators.push(emu);
  const page = await browser.context.newPage();
  assert.equal((await page.goto(`${emu.url}/_emulator/ui`)).status(), 200);
  // The page lists every pool; clicking the endpoint brings its plan's row into view.
  const endpointRow = page.locator(`[data-testid=endpoint-row][data-endpoint=${ENDPOINT}]`);
  await endpointRow.waitFor();
  assert.equal(await endpointRow.getAttribute('data-status'), 'InService');
  await endpointRow.click();
  const bar = page.locator(`[data-testid=pool-row][data-instance-type="${P5}"] ` +
    '[data-testid=plan-bar][data-plan=p5-endpoint-plan].selected');
  await bar.waitFor();
  assert.equal(await bar.getAttribute('data-status'), 'Active');
  assert.equal(await bar.getAttribute('data-count'), '2');
  const shot = await screenshot(page, 'dashboard-scenario.png');
  if (process.env.DASHBOARD_SCREENSHOT) copyFileSync(shot, process.env.DASHBOARD_SCREENSHOT);
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
  assert.equal(await page.locator('[data-testid=pool-row]').count(), 2);
  await page.close();
});
