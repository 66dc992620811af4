// Shared fixtures of the capacity, plan and endpoint tests: a capacity file per test file, an
// emulator per test on a frozen virtual clock, clock moves through the admin API, buying a
// training plan (search + CreateTrainingPlan), models and variants, error checks, and helpers for
// the endpoint waiters.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import {
  CreateModelCommand,
  CreateTrainingPlanCommand,
  DescribeTrainingPlanCommand,
  SearchTrainingPlanOfferingsCommand,
} from '@aws-sdk/client-sagemaker';
import {
  DEFAULT_ACCOUNT, DEFAULT_REGION, admin, assertRawError, errorOf, runtime, sagemaker, startEmulator, UUID,
} from './emulator.mjs';

export const CLOCK_START = '2027-01-20T00:00:00Z';
export const T0 = Date.parse(CLOCK_START);
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
// "Training Plans always end at 11:30 AM UTC on the final day of the reservation": plan days run
// from 11:30 UTC to 11:30 UTC, and a plan bought ahead starts at 11:30 UTC. P0 is the first plan
// day after CLOCK_START (2027-01-20T11:30:00Z); P0 + n * DAY are the later ones.
export const PLAN_DAY_OFFSET = 11 * HOUR + 30 * MINUTE;
export const P0 = T0 + PLAN_DAY_OFFSET;
export const ACCOUNT = DEFAULT_ACCOUNT;
export const OTHER_ACCOUNT = '210987654321';
export const REGION = DEFAULT_REGION;
export const P5 = 'ml.p5.48xlarge';
export const G5 = 'ml.g5.xlarge';
export const P5_PRICES = { on_demand_hourly: 98.32, plan_hourly: 55.0 };
export const ROLE = `arn:aws:iam::${ACCOUNT}:role/service-role/SageMakerExecution`;
export const IMAGE = `${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com/llm-serving:1`;

// ------------------------------------------------------------------------------------ capacity

// Writes `capacity` (schemas/capacity.schema.json) to a file of its own in a temporary directory
// that is removed after the test file. Returns the path, for --capacity.
export function writeCapacityFile(capacity) {
  const dir = mkdtempSync(join(tmpdir(), 'smemu-capacity-'));
  const path = join(dir, 'capacity.json');
  writeFileSync(path, JSON.stringify(capacity));
  after(() => rmSync(dir, { recursive: true, force: true }));
  return path;
}

// ------------------------------------------------------------------------------------ emulator

// Runs `fn` against a fresh emulator (in-memory database, clock frozen at `clockStart`) and stops
// it afterwards, also when `fn` throws. `fn` gets { url, emu, sm (123456789012, us-west-2),
// rt (its runtime client), east (123456789012, us-east-1), other (210987654321, us-west-2) }.
export async function withEmulator(fn, {
  capacityFile, clockStart = CLOCK_START, provisioningSeconds, args = [],
} = {}) {
  const emu = await startEmulator([
    '--clock-start', clockStart, '--frozen-clock',
    ...(capacityFile === undefined ? [] : ['--capacity', capacityFile]),
    ...(provisioningSeconds === undefined ? [] : ['--provisioning-seconds', String(provisioningSeconds)]),
    ...args,
  ]);
  try {
    await fn({
      url: emu.url,
      emu,
      sm: sagemaker(emu.url),
      rt: runtime(emu.url),
      east: sagemaker(emu.url, { region: 'us-east-1' }),
      other: sagemaker(emu.url, { accessKeyId: OTHER_ACCOUNT }),
    });
  } finally {
    await emu.stop();
  }
}

// POST /_emulator/clock; fails the test unless the server answers 200. Returns the new clock.
export async function setClock(url, body) {
  const res = await admin(url, '/_emulator/clock', { method: 'POST', body });
  assert.equal(res.status, 200, `clock change ${JSON.stringify(body)} failed: ${res.text}`);
  return res.json;
}
export const advance = (url, seconds) => setClock(url, { advance_seconds: seconds });
export const clockTo = (url, ms) => setClock(url, { now: new Date(ms).toISOString() });

// "When created, the plan initially enters a Pending state and remains there until the
// reservation process is complete" (Reserve the best training plan, AWS developer guide): a
// purchase is Pending for the emulator's payment time, 30 seconds of the virtual clock by default
// (--plan-payment-seconds), then Scheduled (or Active). On the frozen clock of these tests it stays
// Pending until the clock moves past those 30 seconds.
export const PAYMENT_SECONDS = 30;
export const PENDING_MESSAGE = 'Payment is being processed.';
export const SCHEDULED_MESSAGE = 'Payment confirmed, training plan scheduled.';
// Moves the clock past the payment of a plan bought just now. Returns the new clock.
export const completePayment = (url) => advance(url, PAYMENT_SECONDS);

// ------------------------------------------------------------------------------------ ARNs

const arnOf = (kind, name, { account = ACCOUNT, region = REGION } = {}) =>
  `arn:aws:sagemaker:${region}:${account}:${kind}/${name.toLowerCase()}`;
export const planArn = (name, opts) => arnOf('training-plan', name, opts);
export const configArn = (name, opts) => arnOf('endpoint-config', name, opts);
export const endpointArn = (name, opts) => arnOf('endpoint', name, opts);
export const trainingJobArn = (name, opts) => arnOf('training-job', name, opts);
export const processingJobArn = (name, opts) => arnOf('processing-job', name, opts);

// ------------------------------------------------------------------------------------ plans

// Buys the plan of `hours` (whole days) x `count` instances of `type` that starts exactly at
// `startMs`, a plan day's start (11:30 UTC, P0 by default) more than 30 minutes after the clock:
// searches [startMs, startMs + hours] (so every offering starts then) and buys the offering in
// `zone`, or the first one. With `offeringCount`, the search must find exactly that many
// offerings. TargetResources is sent only when `targets` is given (the service's default is
// training-job). The plan is Pending for its payment (PAYMENT_SECONDS of clock time; it is taken
// wherever a Scheduled one is meanwhile), then Scheduled until startMs: move the clock there to use
// it at once. The clock is not moved here.
// Returns { arn, offering, offerings }.
export async function searchAndBuy(client, name, {
  startMs = P0, hours = 24, count = 1, type = P5, zone, targets, offeringCount,
} = {}) {
  const res = await client.send(new SearchTrainingPlanOfferingsCommand({
    InstanceType: type,
    InstanceCount: count,
    DurationHours: hours,
    StartTimeAfter: new Date(startMs),
    EndTimeBefore: new Date(startMs + hours * HOUR),
    ...(targets ? { TargetResources: targets } : {}),
  }));
  assert.equal(res.$metadata.httpStatusCode, 200);
  const offerings = res.TrainingPlanOfferings;
  assert.ok(Array.isArray(offerings), 'TrainingPlanOfferings is always a list');
  if (offeringCount !== undefined) {
    assert.equal(offerings.length, offeringCount, `offerings for ${name}: ${JSON.stringify(offerings)}`);
  }
  const offering = zone
    ? offerings.find((o) => o.ReservedCapacityOfferings[0].AvailabilityZone === zone)
    : offerings[0];
  assert.ok(offering, `no offering${zone ? ` in ${zone}` : ''} for ${name}: ${JSON.stringify(offerings)}`);
  const [rc] = offering.ReservedCapacityOfferings;
  assert.equal(rc.StartTime.getTime(), startMs, `${name} starts at ${new Date(startMs).toISOString()}`);
  assert.equal(rc.EndTime.getTime(), startMs + hours * HOUR, `${name} lasts ${hours} hours`);
  assert.equal(rc.EndTime.toISOString().slice(11), '11:30:00.000Z', `${name} ends at 11:30 UTC`);
  assert.equal(rc.InstanceType, type);
  assert.equal(rc.InstanceCount, count);
  const bought = await client.send(new CreateTrainingPlanCommand({
    TrainingPlanName: name, TrainingPlanOfferingId: offering.TrainingPlanOfferingId,
  }));
  assert.match(bought.TrainingPlanArn, new RegExp(`:training-plan/${name.toLowerCase()}$`));
  return { arn: bought.TrainingPlanArn, offering, offerings };
}

// Buys `count` ml.p5.48xlarge (or `type`) for endpoints (or `targets`), for a week (or `hours`)
// from `startMs` (P0 by default), and checks the plan's size and targets as DescribeTrainingPlan
// reports them. Returns the plan ARN.
export async function buyEndpointPlan(client, name, {
  startMs = P0, hours = 168, count = 1, type = P5, targets = ['endpoint'], zone, offeringCount,
} = {}) {
  const { arn } = await searchAndBuy(client, name, { startMs, hours, count, type, targets, zone, offeringCount });
  const plan = await client.send(new DescribeTrainingPlanCommand({ TrainingPlanName: name }));
  assert.equal(plan.TrainingPlanArn, arn);
  assert.equal(plan.TotalInstanceCount, count);
  assert.deepEqual(plan.TargetResources, targets);
  return arn;
}

// ------------------------------------------------------------------------------------ models

export const createModel = (client, name, container = { Image: IMAGE }) =>
  client.send(new CreateModelCommand({ ModelName: name, PrimaryContainer: container, ExecutionRoleArn: ROLE }));

// Variants: `count` instances of `type` on demand, or on the plan `arn` (ml.p5.48xlarge unless
// `type` says otherwise).
export const onDemandVariant = (type, count, { model = 'llm', name = 'AllTraffic' } = {}) =>
  ({ VariantName: name, ModelName: model, InstanceType: type, InitialInstanceCount: count });
export const reservedVariant = (arn, count, { type = P5, ...opts } = {}) => ({
  ...onDemandVariant(type, count, opts),
  CapacityReservationConfig: { CapacityReservationPreference: 'capacity-reservations-only', MlReservationArn: arn },
});

// ------------------------------------------------------------------------------------ errors

// The call must fail with `code` at HTTP `status` (400 unless told), as the SDK decodes it and as
// it went over the wire. `message` is the exact text, a RegExp, or undefined for any non-empty
// text. Returns the error.
export async function expectError(client, promise, code, message, { status = 400 } = {}) {
  const err = await errorOf(promise);
  assert.equal(err.name, code, `unexpected error: ${err.stack}`);
  assert.equal(err.$fault, 'client');
  assert.equal(err.$metadata.httpStatusCode, status);
  assert.match(err.$metadata.requestId ?? '', UUID);
  if (message instanceof RegExp) {
    assert.match(err.message, message);
  } else if (message !== undefined) {
    assert.equal(err.message, message);
  } else {
    assert.equal(typeof err.message, 'string');
    assert.notEqual(err.message, '');
    assert.notEqual(err.message, 'UnknownError');
  }
  assertRawError(client, { status, code, message: err.message });
  return err;
}
export const expectValidation = (client, promise, message) =>
  expectError(client, promise, 'ValidationException', message);

// ------------------------------------------------------------------------------------ waiters

// Small delays so a waiter polls every 50-200 ms of real time.
export const FAST = { minDelay: 0.05, maxDelay: 0.2, maxWaitTime: 10 };

// Records the EndpointStatus of every DescribeEndpoint answer `client` gets (or the error name),
// so a test can see what a waiter saw. Other resources: pass the describe `command` and the
// status `member` (e.g. 'DescribeTrainingJobCommand', 'TrainingJobStatus').
export function recordStatuses(client, { command = 'DescribeEndpointCommand', member = 'EndpointStatus' } = {}) {
  const seen = [];
  client.middlewareStack.add((next, context) => async (args) => {
    try {
      const out = await next(args);
      if (context.commandName === command) seen.push(out.output[member]);
      return out;
    } catch (err) {
      if (context.commandName === command) seen.push(`error:${err.name}`);
      throw err;
    }
  }, { step: 'initialize', name: 'statusRecorder' });
  return seen;
}

export async function eventually(what, predicate, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

// Runs `waiterFn` for `names` on a fresh client, waits until every endpoint was seen at least
// twice in `pendingStatus`, then advances the clock by `seconds`. Returns the waiter results and
// the statuses each waiter saw.
export async function waitAcrossClockMove(url, waiterFn, names, pendingStatus, seconds) {
  const runs = names.map((name) => {
    const client = sagemaker(url);
    const seen = recordStatuses(client);
    return { seen, promise: waiterFn({ client, ...FAST }, { EndpointName: name }) };
  });
  for (const [i, run] of runs.entries()) {
    await eventually(`the waiter for ${names[i]} to poll twice`,
      () => run.seen.filter((s) => s === pendingStatus).length >= 2);
  }
  await advance(url, seconds);
  const results = await Promise.all(runs.map((r) => r.promise));
  return results.map((result, i) => ({ result, seen: runs[i].seen }));
}

// A waiter that reached a failure acceptor throws an Error whose message is the JSON result.
export async function expectWaiterFailure(promise) {
  const err = await errorOf(promise);
  assert.notEqual(err.name, 'TimeoutError', err.message);
  const result = JSON.parse(err.message);
  assert.equal(result.state, 'FAILURE', err.message);
  return result;
}
