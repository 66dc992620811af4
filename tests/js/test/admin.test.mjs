// The emulator's admin API under /_emulator/, driven with fetch, checked through the SDK.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CreateModelCommand,
  DescribeModelCommand,
  ListModelsCommand,
} from '@aws-sdk/client-sagemaker';
import { startEmulator, sagemaker, admin, errorOf } from '../lib/emulator.mjs';

const CLOCK_START = '2027-01-25T00:00:00Z';
const T0 = Date.parse(CLOCK_START);
const ROLE = 'arn:aws:iam::123456789012:role/SageMakerRole';

// Each test gets its own server, so the clock state of one cannot leak into another.
async function withEmulator(args, fn) {
  const emu = await startEmulator(args);
  try {
    await fn(emu);
  } finally {
    await emu.stop();
  }
}

test('health reports ok and a version', async () => {
  await withEmulator([], async ({ url }) => {
    const res = await admin(url, '/_emulator/health');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.json?.status, 'ok');
    assert.equal(typeof res.json?.version, 'string');
    assert.notEqual(res.json.version, '');
  });
});

test('GET clock shows the frozen start time', async () => {
  await withEmulator(['--clock-start', CLOCK_START, '--frozen-clock'], async ({ url }) => {
    const res = await admin(url, '/_emulator/clock');
    assert.equal(res.status, 200, res.text);
    assert.equal(Date.parse(res.json.now), T0, `now = ${res.json.now}`);
    assert.equal(res.json.epoch, T0 / 1000);
    assert.equal(res.json.frozen, true);
    // Frozen means frozen: a later read is the same.
    await new Promise((r) => setTimeout(r, 1100));
    const again = await admin(url, '/_emulator/clock');
    assert.equal(again.json.epoch, T0 / 1000);
  });
});

test('advancing the clock by 3600 s moves CreationTime one hour later', async () => {
  await withEmulator(['--clock-start', CLOCK_START, '--frozen-clock'], async ({ url }) => {
    const sm = sagemaker(url);
    await sm.send(new CreateModelCommand({ ModelName: 'before-advance', ExecutionRoleArn: ROLE }));

    const adv = await admin(url, '/_emulator/clock', { method: 'POST', body: { advance_seconds: 3600 } });
    assert.equal(adv.status, 200, adv.text);
    const clock = await admin(url, '/_emulator/clock');
    assert.equal(clock.json.epoch, T0 / 1000 + 3600);
    assert.equal(Date.parse(clock.json.now), T0 + 3_600_000);
    assert.equal(clock.json.frozen, true);

    await sm.send(new CreateModelCommand({ ModelName: 'after-advance', ExecutionRoleArn: ROLE }));
    const before = await sm.send(new DescribeModelCommand({ ModelName: 'before-advance' }));
    const after = await sm.send(new DescribeModelCommand({ ModelName: 'after-advance' }));
    assert.deepEqual(before.CreationTime, new Date('2027-01-25T00:00:00.000Z'));
    assert.deepEqual(after.CreationTime, new Date('2027-01-25T01:00:00.000Z'));
    assert.equal(after.CreationTime.getTime() - before.CreationTime.getTime(), 3_600_000);
  });
});

test('setting the clock to a later instant is used for new resources', async () => {
  await withEmulator(['--clock-start', CLOCK_START, '--frozen-clock'], async ({ url }) => {
    const set = await admin(url, '/_emulator/clock', { method: 'POST', body: { now: '2027-03-01T12:30:00Z' } });
    assert.equal(set.status, 200, set.text);
    const clock = await admin(url, '/_emulator/clock');
    assert.equal(clock.json.epoch, Date.parse('2027-03-01T12:30:00Z') / 1000);

    const sm = sagemaker(url);
    await sm.send(new CreateModelCommand({ ModelName: 'set-clock', ExecutionRoleArn: ROLE }));
    const { CreationTime } = await sm.send(new DescribeModelCommand({ ModelName: 'set-clock' }));
    assert.deepEqual(CreationTime, new Date('2027-03-01T12:30:00.000Z'));
  });
});

test('moving the clock backwards is refused with 400 and changes nothing while a resource exists', async () => {
  await withEmulator(['--clock-start', CLOCK_START, '--frozen-clock'], async ({ url }) => {
    await sagemaker(url).send(new CreateModelCommand({ ModelName: 'keeps-time', ExecutionRoleArn: ROLE }));
    const back = await admin(url, '/_emulator/clock', { method: 'POST', body: { now: '2027-01-24T23:59:59Z' } });
    assert.equal(back.status, 400, back.text);
    assert.match(back.json.message, /^The clock cannot move backwards: 2027-01-24T23:59:59Z is before/);

    const negative = await admin(url, '/_emulator/clock', { method: 'POST', body: { advance_seconds: -60 } });
    assert.equal(negative.status, 400, negative.text);

    const clock = await admin(url, '/_emulator/clock');
    assert.equal(clock.json.epoch, T0 / 1000);

    // With no resource left, nothing's time could run backwards: any date may be set.
    assert.equal((await admin(url, '/_emulator/reset', { method: 'POST' })).status, 200);
    const earlier = await admin(url, '/_emulator/clock', { method: 'POST', body: { now: '2026-06-01T00:00:00Z' } });
    assert.equal(earlier.status, 200, earlier.text);
    assert.equal(earlier.json.now, '2026-06-01T00:00:00Z');
  });
});

test('unfreezing lets the clock run, freezing stops it again', async () => {
  await withEmulator(['--clock-start', CLOCK_START, '--frozen-clock'], async ({ url }) => {
    const unfreeze = await admin(url, '/_emulator/clock', { method: 'POST', body: { frozen: false } });
    assert.equal(unfreeze.status, 200, unfreeze.text);
    const running = await admin(url, '/_emulator/clock');
    assert.equal(running.json.frozen, false);
    await new Promise((r) => setTimeout(r, 1200));
    const later = await admin(url, '/_emulator/clock');
    assert.ok(later.json.epoch >= T0 / 1000 + 1, `clock did not run: ${later.text}`);
    assert.ok(later.json.epoch < T0 / 1000 + 60, `clock ran too far: ${later.text}`);

    const freeze = await admin(url, '/_emulator/clock', { method: 'POST', body: { frozen: true } });
    assert.equal(freeze.status, 200, freeze.text);
    const a = await admin(url, '/_emulator/clock');
    assert.equal(a.json.frozen, true);
    await new Promise((r) => setTimeout(r, 1100));
    const b = await admin(url, '/_emulator/clock');
    assert.equal(b.json.epoch, a.json.epoch);
  });
});

test('reset deletes every model of every account', async () => {
  await withEmulator([], async ({ url }) => {
    const a = sagemaker(url);
    const b = sagemaker(url, { accessKeyId: '210987654321', region: 'eu-west-1' });
    await a.send(new CreateModelCommand({ ModelName: 'reset-a', ExecutionRoleArn: ROLE }));
    await b.send(new CreateModelCommand({ ModelName: 'reset-b', ExecutionRoleArn: ROLE }));

    const res = await admin(url, '/_emulator/reset', { method: 'POST' });
    assert.ok(res.status >= 200 && res.status < 300, `reset answered ${res.status}: ${res.text}`);

    assert.deepEqual((await a.send(new ListModelsCommand({}))).Models, []);
    assert.deepEqual((await b.send(new ListModelsCommand({}))).Models, []);
    const err = await errorOf(a.send(new DescribeModelCommand({ ModelName: 'reset-a' })));
    assert.equal(err.name, 'ValidationException');
    // The name is free again.
    await a.send(new CreateModelCommand({ ModelName: 'reset-a', ExecutionRoleArn: ROLE }));
  });
});
