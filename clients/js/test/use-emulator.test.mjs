// useEmulator: one emulator for this file, reset before every test, and setPool() letting a
// Pending training job start (README "Training and processing jobs").
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  CreateModelCommand, CreateTrainingJobCommand, DescribeTrainingJobCommand, ListModelsCommand, SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import { useEmulator } from 'sagemaker-emulator/node-test';

const START = new Date('2027-01-15T00:00:00Z');
const G5 = 'ml.g5.xlarge';
const M5 = 'ml.m5.xlarge';  // not in the built-in capacity file: unlimited on demand until a pool says otherwise

const emu = useEmulator({ args: ['--check-responses', '--clock-start', START.toISOString(), '--frozen-clock'] });
// Read before `before` ran: what a user who touches the handle at load time gets.
const atLoadTime = (() => {
  try {
    return emu.url;
  } catch (err) {
    return err;
  }
})();

const sagemaker = () => new SageMakerClient(emu.clientConfig({ maxAttempts: 1 }));
const createModel = (name) => sagemaker().send(new CreateModelCommand({
  ModelName: name,
  PrimaryContainer: { Image: `${emu.accountId}.dkr.ecr.${emu.region}.amazonaws.com/demo:1` },
  ExecutionRoleArn: `arn:aws:iam::${emu.accountId}:role/demo`,
}));
const modelNames = async () => (await sagemaker().send(new ListModelsCommand({}))).Models.map((m) => m.ModelName);
const m5Pools = async () => (await emu.capacity({ region: emu.region, instanceType: M5 })).pools;

test('the handle is there inside tests only', () => {
  assert.equal(atLoadTime.message, 'useEmulator(): the emulator is there only inside tests and hooks');
  assert.match(emu.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.ok('setPool' in emu);
});

// The two tests run in order: the second sees nothing of what the first left behind.
describe('reset before each test', () => {
  test('a test leaves a model, a pool change and a later clock', async () => {
    await createModel('left-behind');
    await emu.setPool({ availabilityZone: 'us-west-2a', instanceType: M5, onDemand: 0 });
    await emu.advance(86_400);
    assert.deepEqual(await modelNames(), ['left-behind']);
    assert.equal((await m5Pools()).length, 1);
  });

  test('the next test starts from a clean emulator', async () => {
    assert.deepEqual(await modelNames(), []);
    assert.deepEqual(await m5Pools(), []);
    assert.deepEqual(await emu.clock(), { now: START, epoch: START.getTime() / 1000, frozen: true });
    await createModel('left-behind');  // the name is free again
  });
});

test('setPool() gives a Pending training job the capacity it waits for', async () => {
  const sm = sagemaker();
  const describeJob = () => sm.send(new DescribeTrainingJobCommand({ TrainingJobName: 'waits' }));
  // A GPU type: only a list with an accelerated type waits for capacity (a CPU-only one is
  // evaluated once, as on SageMaker).
  const pool = { availabilityZone: 'us-west-2a', instanceType: G5 };
  await emu.setPool({ ...pool, onDemand: 0 });
  await sm.send(new CreateTrainingJobCommand({
    TrainingJobName: 'waits',
    RoleArn: `arn:aws:iam::${emu.accountId}:role/demo`,
    AlgorithmSpecification: { TrainingImage: `${emu.accountId}.dkr.ecr.${emu.region}.amazonaws.com/train:1`, TrainingInputMode: 'File' },
    OutputDataConfig: { S3OutputPath: 's3://demo/out' },
    ResourceConfig: { InstanceType: G5, InstanceCount: 1, VolumeSizeInGB: 10 },
    StoppingCondition: { MaxRuntimeInSeconds: 86_400 },
  }));
  await emu.advance(600);
  let job = await describeJob();
  assert.deepEqual([job.TrainingJobStatus, job.SecondaryStatus], ['InProgress', 'Pending']);
  assert.equal(job.TrainingStartTime, undefined);

  const changed = await emu.setPool({ ...pool, onDemand: 1 });
  assert.deepEqual([changed.region, changed.availability_zone, changed.instance_type, changed.on_demand],
    [emu.region, 'us-west-2a', G5, 1]);
  job = await describeJob();
  assert.deepEqual([job.TrainingJobStatus, job.SecondaryStatus], ['InProgress', 'Starting']);
  assert.deepEqual(job.TrainingStartTime, new Date(START.getTime() + 600_000));
  const { in_use: inUse } = await emu.capacity({ instanceType: G5 });
  assert.deepEqual(inUse.map((h) => [h.arn, h.count, h.on_demand]), [[job.TrainingJobArn, 1, true]]);
});
