// costs(), costsCsv() and report(): the cost ledger of GET /_emulator/costs as JSON and CSV, and
// the self-contained HTML report, with an on-demand endpoint held for 2 hours of virtual clock.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  CreateEndpointCommand, CreateEndpointConfigCommand, CreateModelCommand, SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import { EmulatorAdminError, startEmulator } from 'sagemaker-emulator';

const START = new Date('2027-01-15T00:00:00Z');
const HOUR = 3600;
const TRN1 = 'ml.trn1.32xlarge';  // 24.72 an instance-hour in the built-in capacity file

let emu;
let endpointArn;

// One emulator for the file: the tests only read the ledger, so none needs a reset.
before(async () => {
  emu = await startEmulator({ args: ['--check-responses', '--clock-start', START.toISOString(), '--frozen-clock'] });
  const sm = new SageMakerClient(emu.clientConfig({ maxAttempts: 1 }));
  await sm.send(new CreateModelCommand({
    ModelName: 'm',
    PrimaryContainer: { Image: `${emu.accountId}.dkr.ecr.${emu.region}.amazonaws.com/demo:1` },
    ExecutionRoleArn: `arn:aws:iam::${emu.accountId}:role/demo`,
  }));
  await sm.send(new CreateEndpointConfigCommand({
    EndpointConfigName: 'c',
    ProductionVariants: [{ VariantName: 'v', ModelName: 'm', InstanceType: TRN1, InitialInstanceCount: 1 }],
  }));
  ({ EndpointArn: endpointArn } = await sm.send(new CreateEndpointCommand({ EndpointName: 'on-demand', EndpointConfigName: 'c' })));
  await emu.advance(2 * HOUR);
});
after(() => emu?.stop());

test('costs() shows the on-demand holder line and the totals', async () => {
  const ledger = await emu.costs();
  assert.deepEqual([ledger.from, ledger.to, ledger.now], ['2027-01-15T00:00:00Z', '2027-01-15T02:00:00Z', '2027-01-15T02:00:00Z']);
  assert.deepEqual([ledger.currency, ledger.account, ledger.plans], ['USD', null, []]);
  assert.equal(ledger.holders.length, 1);
  const [holder] = ledger.holders;
  assert.deepEqual(
    [holder.arn, holder.kind, holder.instance_type, holder.training_plan_arn, holder.instance_hours, holder.hourly_price, holder.cost],
    [endpointArn, 'endpoint', TRN1, null, 2, 24.72, 49.44]);
  assert.deepEqual(holder.use, [{ from: '2027-01-15T00:00:00Z', to: '2027-01-15T02:00:00Z', instances: 1 }]);
  const { overall, by_account: byAccount } = ledger.totals;
  assert.deepEqual([overall.on_demand_cost, overall.plan_fees, overall.total_cost, overall.on_demand_instance_hours],
    [49.44, 0, 49.44, 2]);
  assert.deepEqual(byAccount.map((t) => [t.account, t.total_cost]), [[emu.accountId, 49.44]]);
});

test('costs() over a range (Dates or ISO strings) and for one account', async () => {
  const hour = await emu.costs({ from: new Date('2027-01-15T01:00:00Z'), to: '2027-01-15T02:00:00Z' });
  assert.deepEqual([hour.from, hour.to], ['2027-01-15T01:00:00Z', '2027-01-15T02:00:00Z']);
  assert.deepEqual(hour.holders.map((h) => [h.instance_hours, h.cost]), [[1, 24.72]]);
  assert.equal((await emu.costs({ from: '2027-01-15T01:30:00Z' })).totals.overall.total_cost, 12.36);

  assert.equal((await emu.costs({ account: emu.accountId })).totals.overall.total_cost, 49.44);
  const other = await emu.costs({ account: '210987654321' });
  assert.deepEqual([other.account, other.holders, other.totals.overall.total_cost], ['210987654321', [], 0]);
});

test('costsCsv() answers the ledger as CSV text, a header line first', async () => {
  const lines = (await emu.costsCsv()).split('\n').filter(Boolean);
  assert.match(lines[0], /^record,arn,name,kind,account,region,instance_type,/);
  const header = lines[0].split(',');
  const rows = lines.slice(1).map((line) => Object.fromEntries(line.split(',').map((v, i) => [header[i], v])));
  const holder = rows.find((r) => r.record === 'holder');
  assert.deepEqual([holder.arn, holder.used_instance_hours, holder.cost], [endpointArn, '2.0000', '49.44']);
  assert.equal(rows.find((r) => r.record === 'total').cost, '49.44');
  const hour = await emu.costsCsv({ from: START, to: new Date(START.getTime() + HOUR * 1000) });
  assert.match(hour.split('\n').find((l) => l.startsWith('holder,')), /,24\.72,/);
});

test('report() answers one HTML page with the data inside', async () => {
  const page = await emu.report();
  assert.match(page, /^\s*<!doctype html/i);
  assert.ok(page.includes('<script id="report-data"'));
  assert.ok(page.includes('on-demand'));
});

test('a range that ends before it starts is refused with a ValidationException', async () => {
  const expected = (err) => {
    assert.ok(err instanceof EmulatorAdminError);
    assert.deepEqual([err.name, err.status, err.message],
      ['ValidationException', 400, 'from (2027-01-16T00:00:00Z) must be before to (2027-01-15T00:00:00Z).']);
    return true;
  };
  await assert.rejects(emu.costs({ from: '2027-01-16T00:00:00Z', to: START }), expected);
  await assert.rejects(emu.costsCsv({ from: new Date('2027-01-16T00:00:00Z'), to: '2027-01-15T00:00:00Z' }), expected);
  await assert.rejects(emu.costs({ account: '12' }),
    { name: 'ValidationException', status: 400, message: 'account must be a 12-digit account id.' });
});
