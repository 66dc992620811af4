// Training and processing jobs through @aws-sdk/client-sagemaker: CreateTrainingJob with
// ResourceConfig.InstancePreferences, DescribeTrainingJob (the selected instance type and count,
// SecondaryStatus and its transitions), ListTrainingJobs (TrainingPlanArnEquals), StopTrainingJob,
// CreateProcessingJob / DescribeProcessingJob / ListProcessingJobs with
// ClusterConfig.InstancePreferences, and the waiters waitUntilTrainingJobCompletedOrStopped /
// waitUntilProcessingJobCompletedOrStopped, on the emulator's capacity scheduler and virtual clock.
//
// Every test starts its own emulator (frozen clock at 2027-01-20T00:00:00Z) on a capacity file of
// its own, described above the test. Instance types the file does not list have unlimited
// on-demand capacity. A job runs SAGEMAKER_EMULATOR_RUN_SECONDS virtual seconds (set by every job
// here): Starting for the first 10 %, Downloading to 20 %, Training to 90 %, Uploading, Completed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CreateProcessingJobCommand,
  CreateTrainingJobCommand,
  DescribeProcessingJobCommand,
  DescribeTrainingJobCommand,
  DescribeTrainingPlanCommand,
  ListProcessingJobsCommand,
  ListTrainingJobsCommand,
  StopProcessingJobCommand,
  StopTrainingJobCommand,
  waitUntilProcessingJobCompletedOrStopped,
  waitUntilTrainingJobCompletedOrStopped,
} from '@aws-sdk/client-sagemaker';
import { admin, sagemaker } from '../lib/emulator.mjs';
import {
  T0, P0, HOUR, DAY, P5, G5, P5_PRICES, ROLE, IMAGE, FAST,
  PAYMENT_SECONDS, advance, buyEndpointPlan, clockTo, completePayment, eventually, expectError, expectValidation, expectWaiterFailure,
  planArn, processingJobArn, recordStatuses, searchAndBuy, trainingJobArn, withEmulator,
  writeCapacityFile,
} from '../lib/fixtures.mjs';

const P4D = 'ml.p4d.24xlarge';
const M5 = 'ml.m5.xlarge';
const C5 = 'ml.c5.xlarge'; // in no capacity file below: unlimited on demand
const SECOND = 1000;

const PENDING_RAN_OUT =
  'InsufficientCapacityError: No instance preference got capacity within MaxPendingTimeInSeconds (7200 seconds).';
const NOT_FOUND = 'Requested resource not found.';
const inStatus = (status) => `The request was rejected because the training job is in status ${status}.`;

// One zone (us-west-2a) holding `pools` ({ type: { reservable?, on_demand? } }), with P5 prices
// when P5 is among them (only pools with reservable instances need prices).
const capacity = (pools, zoneB = {}) => writeCapacityFile({
  regions: { 'us-west-2': { 'us-west-2a': pools, ...(Object.keys(zoneB).length ? { 'us-west-2b': zoneB } : {}) } },
  prices: pools[P5]?.reservable ? { [P5]: P5_PRICES } : {},
});

// ------------------------------------------------------------------------------------ requests

// A preference: `type`, with InstanceCount `count` and the plan `plan` when given.
const pref = (type, count, plan) => ({
  InstanceType: type,
  ...(count === undefined ? {} : { InstanceCount: count }),
  ...(plan === undefined ? {} : { TrainingPlanArns: [plan] }),
});
// A ResourceConfig with InstancePreferences `list` and, when given, the job's InstanceCount.
const prefs = (list, jobCount) => ({
  InstancePreferences: list, VolumeSizeInGB: 50, ...(jobCount === undefined ? {} : { InstanceCount: jobCount }),
});
// A ResourceConfig with one instance type.
const plain = (type, count = 1) => ({ InstanceType: type, InstanceCount: count, VolumeSizeInGB: 50 });

const trainingJob = (name, resourceConfig, { runSeconds = 100, stopping } = {}) => ({
  TrainingJobName: name,
  RoleArn: ROLE,
  AlgorithmSpecification: { TrainingImage: IMAGE, TrainingInputMode: 'File' },
  OutputDataConfig: { S3OutputPath: 's3://bucket/out' },
  ResourceConfig: resourceConfig,
  ...(stopping === undefined ? {} : { StoppingCondition: stopping }),
  Environment: { SAGEMAKER_EMULATOR_RUN_SECONDS: String(runSeconds) },
});

async function createJob(client, name, resourceConfig, opts) {
  const res = await client.send(new CreateTrainingJobCommand(trainingJob(name, resourceConfig, opts)));
  assert.equal(res.TrainingJobArn, trainingJobArn(name));
  return res;
}
const describeJob = (client, name) => client.send(new DescribeTrainingJobCommand({ TrainingJobName: name }));
const stopJob = (client, name) => client.send(new StopTrainingJobCommand({ TrainingJobName: name }));
const listJobs = (client, input = {}) => client.send(new ListTrainingJobsCommand(input));
const describePlan = (client, name) => client.send(new DescribeTrainingPlanCommand({ TrainingPlanName: name }));

const processingJob = (name, clusterConfig, { runSeconds = 100 } = {}) => ({
  ProcessingJobName: name,
  RoleArn: ROLE,
  AppSpecification: { ImageUri: IMAGE },
  ProcessingResources: { ClusterConfig: clusterConfig },
  StoppingCondition: { MaxRuntimeInSeconds: 3600 },
  Environment: { SAGEMAKER_EMULATOR_RUN_SECONDS: String(runSeconds) },
});
const describeProcessing = (client, name) =>
  client.send(new DescribeProcessingJobCommand({ ProcessingJobName: name }));

// ------------------------------------------------------------------------------------ reading

const ms = (date) => {
  assert.ok(date instanceof Date, `a Date, not ${JSON.stringify(date)}`);
  return date.getTime();
};
// The job's TrainingJobStatus, SecondaryStatus and selection, in one comparable line.
const state = (job) => [
  job.TrainingJobStatus, job.SecondaryStatus, job.ResourceConfig.SelectedInstanceType,
  job.ResourceConfig.SelectedInstanceCount,
];
const transitions = (job) => job.SecondaryStatusTransitions.map((t) => t.Status);
// [Status, StartTime ms, EndTime ms or undefined] of each transition.
const transitionTimes = (job) =>
  job.SecondaryStatusTransitions.map((t) => [t.Status, ms(t.StartTime), t.EndTime && ms(t.EndTime)]);

// ------------------------------------------------------------------------------------ (a) fallback

// us-west-2a: ml.p5.48xlarge 0 on demand, ml.p4d.24xlarge 2; us-west-2b: ml.p4d.24xlarge 1.
// The region's on-demand p4d pool is 2 + 1 = 3.
const FALLBACK_CAPACITY = capacity({ [P5]: { on_demand: 0 }, [P4D]: { on_demand: 2 } }, { [P4D]: { on_demand: 1 } });

test('a two-option job falls back to the second type when the first pool is empty; DescribeTrainingJob shows the selection', async () => {
  await withEmulator(async ({ sm, url }) => {
    await createJob(sm, 'fallback', prefs([pref(P5), pref(P4D)], 3), { runSeconds: 100 });
    const job = await describeJob(sm, 'fallback');
    assert.equal(job.TrainingJobName, 'fallback');
    assert.equal(job.TrainingJobArn, trainingJobArn('fallback'));
    assert.deepEqual(state(job), ['InProgress', 'Starting', P4D, 3]);
    // The request's ResourceConfig is echoed as given, plus the selection.
    assert.deepEqual(job.ResourceConfig, {
      InstancePreferences: [{ InstanceType: P5 }, { InstanceType: P4D }],
      InstanceCount: 3,
      VolumeSizeInGB: 50,
      SelectedInstanceType: P4D,
      SelectedInstanceCount: 3,
    });
    assert.equal(ms(job.CreationTime), T0);
    assert.equal(ms(job.TrainingStartTime), T0, 'started at once, on the second preference');
    assert.equal(job.TrainingEndTime, undefined);
    assert.deepEqual(transitionTimes(job), [['Starting', T0, undefined]]);
    assert.deepEqual(job.StoppingCondition, { MaxRuntimeInSeconds: 86400 });

    // The 3 p4d of the region are taken: a job that wants one p5 or one p4d waits.
    await createJob(sm, 'second', prefs([pref(P5, 1), pref(P4D, 1)]), { runSeconds: 100 });
    let second = await describeJob(sm, 'second');
    assert.deepEqual(state(second), ['InProgress', 'Pending', undefined, undefined]);
    assert.equal(second.TrainingStartTime, undefined);

    // The first job ends at T0 + 100 s and gives the second its p4d.
    await advance(url, 100);
    assert.deepEqual(state(await describeJob(sm, 'fallback')), ['Completed', 'Completed', P4D, 3]);
    second = await describeJob(sm, 'second');
    assert.deepEqual(state(second), ['InProgress', 'Starting', P4D, 1]);
    assert.equal(ms(second.TrainingStartTime), T0 + 100 * SECOND);
    assert.deepEqual(transitionTimes(second), [['Pending', T0, T0 + 100 * SECOND], ['Starting', T0 + 100 * SECOND, undefined]]);
  }, { capacityFile: FALLBACK_CAPACITY });
});

// ------------------------------------------------------------------------------------ (b) scheduled plan

// us-west-2a: one reservable ml.p5.48xlarge (for the plan), none on demand.
const PLAN_CAPACITY = capacity({ [P5]: { reservable: 1, on_demand: 0 } });

test('a job on a Scheduled training plan waits (Pending, no pending time spent) and starts exactly at the plan start', async () => {
  await withEmulator(async ({ sm, url }) => {
    const start = P0 + 2 * DAY;  // 2027-01-22 11:30 UTC
    const { arn: plan } = await searchAndBuy(sm, 'later', { startMs: start, hours: 24, targets: ['training-job'] });
    assert.equal(plan, planArn('later'));
    // Just bought, the plan is Pending until its payment completes (30 s of clock time), then
    // Scheduled until its start.
    let p = await describePlan(sm, 'later');
    assert.deepEqual([p.Status, p.TotalInstanceCount, p.InUseInstanceCount, p.AvailableInstanceCount], ['Pending', 1, 0, 1]);
    await completePayment(url);
    const created = T0 + PAYMENT_SECONDS * SECOND;
    p = await describePlan(sm, 'later');
    assert.deepEqual([p.Status, p.TotalInstanceCount, p.InUseInstanceCount, p.AvailableInstanceCount], ['Scheduled', 1, 0, 1]);
    assert.deepEqual(p.TargetResources, ['training-job']);

    await createJob(sm, 'on-plan', prefs([pref(P5, 1, plan)]), {
      runSeconds: 600, stopping: { MaxPendingTimeInSeconds: 7200 },
    });
    let job = await describeJob(sm, 'on-plan');
    assert.deepEqual(state(job), ['InProgress', 'Pending', undefined, undefined]);
    assert.deepEqual(job.StoppingCondition, { MaxPendingTimeInSeconds: 7200, MaxRuntimeInSeconds: 86400 });
    assert.deepEqual(transitionTimes(job), [['Pending', created, undefined]]);

    // One second before the plan starts, 59 h 29 min 29 s of waiting: far more than 7200 s, but
    // none of it counts while the plan is Scheduled.
    await clockTo(url, start - SECOND);
    job = await describeJob(sm, 'on-plan');
    assert.deepEqual(state(job), ['InProgress', 'Pending', undefined, undefined]);
    assert.equal(job.FailureReason, undefined);
    p = await describePlan(sm, 'later');
    assert.deepEqual([p.Status, p.InUseInstanceCount], ['Scheduled', 0]);

    await clockTo(url, start);
    job = await describeJob(sm, 'on-plan');
    assert.deepEqual(state(job), ['InProgress', 'Starting', P5, 1]);
    assert.equal(ms(job.TrainingStartTime), start);
    assert.equal(ms(job.LastModifiedTime), start);
    assert.deepEqual(transitionTimes(job), [['Pending', created, start], ['Starting', start, undefined]]);
    p = await describePlan(sm, 'later');
    assert.deepEqual([p.Status, p.TotalInstanceCount, p.InUseInstanceCount, p.AvailableInstanceCount], ['Active', 1, 1, 0]);

    // ListTrainingJobs TrainingPlanArnEquals finds it, with its plan and secondary status.
    const listed = await listJobs(sm, { TrainingPlanArnEquals: plan });
    assert.deepEqual(listed.TrainingJobSummaries.map((s) => [s.TrainingJobName, s.TrainingJobArn, s.TrainingJobStatus, s.SecondaryStatus, s.TrainingPlanArn]),
      [['on-plan', trainingJobArn('on-plan'), 'InProgress', 'Starting', plan]]);
    const otherPlan = await listJobs(sm, { TrainingPlanArnEquals: planArn('another-plan') });
    assert.deepEqual(otherPlan.TrainingJobSummaries, []);

    // After its 600 s of run time the job is done and the plan's instance is free again.
    await advance(url, 600);
    job = await describeJob(sm, 'on-plan');
    assert.deepEqual(state(job), ['Completed', 'Completed', P5, 1]);
    assert.equal(ms(job.TrainingEndTime), start + 600 * SECOND);
    p = await describePlan(sm, 'later');
    assert.deepEqual([p.InUseInstanceCount, p.AvailableInstanceCount], [0, 1]);
  }, { capacityFile: PLAN_CAPACITY });
});

// us-west-2a: one reservable ml.p5.48xlarge, none on demand.
test('a job on a plan still running 30 minutes before the plan ends fails with the plan in its FailureReason', async () => {
  await withEmulator(async ({ sm, url }) => {
    // A day from 11:30 UTC today; the clock moves to its start, so the job starts at once.
    const { arn: plan } = await searchAndBuy(sm, 'one-day', { startMs: P0, hours: 24, targets: ['training-job'] });
    await clockTo(url, P0);
    // The plan-level member ResourceConfig.TrainingPlanArn with a plain instance type.
    await createJob(sm, 'too-long', { ...plain(P5, 1), TrainingPlanArn: plan }, {
      runSeconds: 2 * 86400, stopping: { MaxRuntimeInSeconds: 3 * 86400 },
    });
    assert.deepEqual(state(await describeJob(sm, 'too-long')), ['InProgress', 'Starting', P5, 1]);
    await advance(url, 3 * 86400);
    const job = await describeJob(sm, 'too-long');
    assert.deepEqual([job.TrainingJobStatus, job.SecondaryStatus], ['Failed', 'Failed']);
    // "When there are 30 minutes remaining in your Reserved Capacity, SageMaker training plans
    // begin the process of terminating any running instances within that Reserved Capacity."
    assert.equal(job.FailureReason,
      `The job was stopped 30 minutes before the end of training plan ${plan}, when the plan terminates its instances.`);
    assert.equal(ms(job.TrainingEndTime), P0 + DAY - 30 * 60 * SECOND);  // 2027-01-21 11:00 UTC
    assert.equal(ms(job.LastModifiedTime), P0 + DAY - 30 * 60 * SECOND);
    const p = await describePlan(sm, 'one-day');
    assert.deepEqual([p.Status, p.InUseInstanceCount], ['Expired', 0]);
  }, { capacityFile: PLAN_CAPACITY });
});

// ------------------------------------------------------------------------------------ (c) pending time

// us-west-2a: ml.p5.48xlarge, ml.g5.xlarge and ml.m5.xlarge, none of them on demand.
const EMPTY_CAPACITY = capacity({ [P5]: { on_demand: 0 }, [G5]: { on_demand: 0 }, [M5]: { on_demand: 0 } });

test('a GPU job fails when MaxPendingTimeInSeconds runs out; a CPU-only job is evaluated once and fails with a CapacityError', async () => {
  await withEmulator(async ({ sm, url }) => {
    await createJob(sm, 'gpu', prefs([pref(P5, 1), pref(G5, 2)]), { stopping: { MaxPendingTimeInSeconds: 7200 } });
    await createJob(sm, 'cpu', plain(M5, 1), { stopping: { MaxPendingTimeInSeconds: 7200 } });
    // "A CPU-only list is evaluated once: the job starts if one of the types has capacity, and
    // otherwise fails with a capacity error without being re-evaluated." (instance preferences)
    const cpu = await describeJob(sm, 'cpu');
    assert.deepEqual(state(cpu), ['Failed', 'Failed', undefined, undefined]);
    assert.equal(cpu.FailureReason,
      'InsufficientCapacityError: Unable to provision requested ML compute capacity. Please retry using a different ML instance type.');
    await advance(url, 7199);
    assert.deepEqual(state(await describeJob(sm, 'gpu')), ['InProgress', 'Pending', undefined, undefined]);

    await advance(url, 1001); // now T0 + 8200 s; the time ran out at T0 + 7200 s
    const gpu = await describeJob(sm, 'gpu');
    assert.deepEqual(state(gpu), ['Failed', 'Failed', undefined, undefined]);
    assert.equal(gpu.FailureReason, PENDING_RAN_OUT);
    assert.equal(ms(gpu.CreationTime), T0);
    assert.equal(ms(gpu.LastModifiedTime), T0 + 7200 * SECOND);
    assert.equal(gpu.TrainingStartTime, undefined);
    assert.equal(gpu.TrainingEndTime, undefined);
    assert.deepEqual(transitions(gpu), ['Pending', 'Failed']);
    assert.equal(ms(gpu.SecondaryStatusTransitions[0].EndTime), T0 + 7200 * SECOND);

    const failed = await listJobs(sm, { StatusEquals: 'Failed' });
    assert.deepEqual(failed.TrainingJobSummaries.map((s) => [s.TrainingJobName, s.SecondaryStatus, ms(s.LastModifiedTime)]),
      [['gpu', 'Failed', T0 + 7200 * SECOND], ['cpu', 'Failed', T0]]);
    await expectValidation(sm, stopJob(sm, 'gpu'), inStatus('Failed'));

  }, { capacityFile: EMPTY_CAPACITY });
});

// ------------------------------------------------------------------------------------ (d) processing

// us-west-2a: ml.g5.xlarge none on demand, ml.m5.xlarge 2 on demand.
const PROCESSING_CAPACITY = capacity({ [G5]: { on_demand: 0 }, [M5]: { on_demand: 2 } });

test('a processing job with InstancePreferences runs on the first type with capacity and completes after its run time', async () => {
  await withEmulator(async ({ sm, url }) => {
    const cluster = { VolumeSizeInGB: 30, InstanceCount: 2, InstancePreferences: [{ InstanceType: G5 }, { InstanceType: M5 }] };
    const created = await sm.send(new CreateProcessingJobCommand(processingJob('prep', cluster, { runSeconds: 300 })));
    assert.equal(created.ProcessingJobArn, processingJobArn('prep'));
    let job = await describeProcessing(sm, 'prep');
    assert.equal(job.ProcessingJobName, 'prep');
    assert.equal(job.ProcessingJobStatus, 'InProgress');
    assert.deepEqual(job.ProcessingResources.ClusterConfig, { ...cluster, SelectedInstanceType: M5, SelectedInstanceCount: 2 });
    assert.equal(ms(job.ProcessingStartTime), T0);
    assert.equal(job.ProcessingEndTime, undefined);

    // Per-preference counts; both m5 are taken, so it waits without a selection.
    await sm.send(new CreateProcessingJobCommand(processingJob('next', {
      VolumeSizeInGB: 30, InstancePreferences: [{ InstanceType: G5, InstanceCount: 1 }, { InstanceType: M5, InstanceCount: 1 }],
    }, { runSeconds: 100 })));
    let next = await describeProcessing(sm, 'next');
    assert.equal(next.ProcessingJobStatus, 'InProgress');
    assert.equal(next.ProcessingStartTime, undefined);
    assert.equal(next.ProcessingResources.ClusterConfig.SelectedInstanceType, undefined);

    await advance(url, 299);
    assert.equal((await describeProcessing(sm, 'prep')).ProcessingJobStatus, 'InProgress');
    await advance(url, 1);
    job = await describeProcessing(sm, 'prep');
    assert.equal(job.ProcessingJobStatus, 'Completed');
    assert.equal(ms(job.ProcessingEndTime), T0 + 300 * SECOND);
    assert.equal(ms(job.LastModifiedTime), T0 + 300 * SECOND);
    next = await describeProcessing(sm, 'next');
    assert.deepEqual([next.ProcessingResources.ClusterConfig.SelectedInstanceType, next.ProcessingResources.ClusterConfig.SelectedInstanceCount], [M5, 1]);
    assert.equal(ms(next.ProcessingStartTime), T0 + 300 * SECOND);

    const { ProcessingJobSummaries: summaries } = await sm.send(new ListProcessingJobsCommand({ SortBy: 'Name', SortOrder: 'Ascending' }));
    assert.deepEqual(summaries.map((s) => [s.ProcessingJobName, s.ProcessingJobArn, s.ProcessingJobStatus]),
      [['next', processingJobArn('next'), 'InProgress'], ['prep', processingJobArn('prep'), 'Completed']]);

    // The waiter returns at once for the completed job; StopProcessingJob stops the other.
    const done = await waitUntilProcessingJobCompletedOrStopped({ client: sm, ...FAST }, { ProcessingJobName: 'prep' });
    assert.equal(done.state, 'SUCCESS');
    await sm.send(new StopProcessingJobCommand({ ProcessingJobName: 'next' }));
    assert.equal((await describeProcessing(sm, 'next')).ProcessingJobStatus, 'Stopped');

    await expectValidation(sm, sm.send(new CreateProcessingJobCommand(processingJob('typed', {
      VolumeSizeInGB: 30, InstanceType: M5, InstanceCount: 1, InstancePreferences: [{ InstanceType: G5 }],
    }))), 'InstancePreferences cannot be combined with ClusterConfig.InstanceType.');
    await expectValidation(sm, describeProcessing(sm, 'nope'), 'Could not find requested job with name nope');
  }, { capacityFile: PROCESSING_CAPACITY });
});

// ------------------------------------------------------------------------------------ (e) FIFO

// us-west-2a: one on-demand ml.p5.48xlarge; ml.g5.xlarge none on demand.
const ONE_P5_CAPACITY = capacity({ [P5]: { on_demand: 1 }, [G5]: { on_demand: 0 } });

test('waiting jobs are served first come, first served when instances are freed', async () => {
  await withEmulator(async ({ sm, url }) => {
    await createJob(sm, 'holder', plain(P5, 1), { runSeconds: 100 });
    await advance(url, 1);
    await createJob(sm, 'first', prefs([pref(G5, 1), pref(P5, 1)]), { runSeconds: 100 });
    await advance(url, 1);
    await createJob(sm, 'second', plain(P5, 1), { runSeconds: 100 });
    assert.deepEqual(state(await describeJob(sm, 'first')), ['InProgress', 'Pending', undefined, undefined]);
    assert.deepEqual(state(await describeJob(sm, 'second')), ['InProgress', 'Pending', undefined, undefined]);

    // The holder ends at T0 + 100 s: the p5 goes to the job that asked first.
    await clockTo(url, T0 + 100 * SECOND);
    assert.deepEqual(state(await describeJob(sm, 'holder')), ['Completed', 'Completed', P5, 1]);
    const first = await describeJob(sm, 'first');
    assert.deepEqual(state(first), ['InProgress', 'Starting', P5, 1]);
    assert.equal(ms(first.TrainingStartTime), T0 + 100 * SECOND);
    assert.deepEqual(state(await describeJob(sm, 'second')), ['InProgress', 'Pending', undefined, undefined]);

    // One jump over two events: first ends at +200 s, second runs +200..+300 s.
    await advance(url, 1000);
    const second = await describeJob(sm, 'second');
    assert.deepEqual(state(second), ['Completed', 'Completed', P5, 1]);
    assert.equal(ms(second.TrainingStartTime), T0 + 200 * SECOND);
    assert.equal(ms(second.TrainingEndTime), T0 + 300 * SECOND);
    assert.deepEqual(transitionTimes(second)[0], ['Pending', T0 + 2 * SECOND, T0 + 200 * SECOND]);
    assert.deepEqual(transitions(second), ['Pending', 'Starting', 'Downloading', 'Training', 'Uploading', 'Completed']);
  }, { capacityFile: ONE_P5_CAPACITY });
});

// ------------------------------------------------------------------------------------ (f) validation

// us-west-2a: 2 reservable ml.p5.48xlarge (one for an endpoint plan, one for a training plan).
const VALIDATION_CAPACITY = capacity({ [P5]: { reservable: 2, on_demand: 1 } });

test('InstancePreferences rules are refused with the exact ValidationException texts', async () => {
  await withEmulator(async ({ sm, url }) => {
    const endpointPlan = await buyEndpointPlan(sm, 'for-endpoints', { hours: 24 });
    const { arn: trainingPlan } = await searchAndBuy(sm, 'for-training', { hours: 24, targets: ['training-job'] });
    const refused = (resourceConfig, message, extra = {}) => expectValidation(sm,
      sm.send(new CreateTrainingJobCommand({ ...trainingJob('refused', resourceConfig), ...extra })), message);

    await refused(prefs([pref(P5, 1), pref(G5, 1), pref(P5, 2)]),
      'Instance type ml.p5.48xlarge appears more than once in InstancePreferences.');
    await refused(prefs([pref(P5, 1), pref(G5, 1)], 1),
      'Specify InstanceCount either on every instance preference or in ResourceConfig, not both.');
    await refused(prefs([pref(P5, 1), pref(G5)]),
      'InstanceCount must be specified on every instance preference or on none of them.');
    await refused(prefs([pref(P5), pref(G5)]),
      'Specify InstanceCount on every instance preference or in ResourceConfig.');
    await refused({ ...prefs([pref(P5, 1)]), InstanceType: P5 },
      'InstancePreferences cannot be combined with ResourceConfig.InstanceType.');
    await refused(prefs([pref(P5, 1)]), 'InstancePreferences cannot be combined with EnableManagedSpotTraining.',
      { EnableManagedSpotTraining: true });
    await refused(prefs([pref(P5, 1, endpointPlan)]),
      `Training plan ${endpointPlan} was not bought for training jobs (its TargetResources do not include training-job).`);
    await refused(prefs([pref(G5, 1, trainingPlan)]),
      `Instance type ml.g5.xlarge does not match the instance type of training plan ${trainingPlan} (ml.p5.48xlarge).`);
    await refused(prefs([pref(P5, 2, trainingPlan)]),
      'Requested instance count (2) exceeds reserved capacity (1) for training plan.');
    // An unknown plan is CreateTrainingJob's modelled ResourceNotFound.
    await expectError(sm, sm.send(new CreateTrainingJobCommand(trainingJob('refused', prefs([pref(P5, 1, planArn('nope'))])))),
      'ResourceNotFound', `Training plan ${planArn('nope')} does not exist in this account and region.`);
    // Six preferences: the model's length constraint (1..5), checked before the handler.
    await refused(prefs([P5, G5, M5, C5, P4D, 'ml.c5.2xlarge'].map((t) => pref(t, 1))),
      /^1 validation error detected: Value .* at 'resourceConfig\.instancePreferences' failed to satisfy constraint: Member must have length less than or equal to 5$/);

    // Nothing was created by the refusals; a valid list on the training plan is accepted, and
    // starts on it at once from the plan's start.
    assert.deepEqual((await listJobs(sm)).TrainingJobSummaries, []);
    await clockTo(url, P0);
    await createJob(sm, 'accepted', prefs([pref(P5, 1, trainingPlan), pref(G5, 1)]));
    assert.deepEqual(state(await describeJob(sm, 'accepted')), ['InProgress', 'Starting', P5, 1]);
    assert.equal((await describePlan(sm, 'for-training')).InUseInstanceCount, 1);
  }, { capacityFile: VALIDATION_CAPACITY });
});

// ------------------------------------------------------------------------------------ (g) waiter

test('waitUntilTrainingJobCompletedOrStopped returns when a clock advance completes the job, and fails on a Failed job', async () => {
  await withEmulator(async ({ sm, url }) => {
    await createJob(sm, 'waited', plain(C5, 1), { runSeconds: 600 });
    const client = sagemaker(url);
    const seen = recordStatuses(client, { command: 'DescribeTrainingJobCommand', member: 'TrainingJobStatus' });
    const waiting = waitUntilTrainingJobCompletedOrStopped({ client, ...FAST }, { TrainingJobName: 'waited' });
    await eventually('the waiter to poll twice', () => seen.filter((s) => s === 'InProgress').length >= 2);
    await advance(url, 599);
    const polls = seen.length;
    await eventually('the waiter to poll again', () => seen.length >= polls + 2);
    assert.deepEqual(new Set(seen), new Set(['InProgress']), 'still running one second short of its run time');
    await advance(url, 1);
    const result = await waiting;
    assert.equal(result.state, 'SUCCESS');
    assert.equal(result.reason.TrainingJobStatus, 'Completed');
    assert.equal(result.reason.SecondaryStatus, 'Completed');
    assert.equal(seen.at(-1), 'Completed');
    assert.deepEqual(new Set(seen.slice(0, -1)), new Set(['InProgress']));

    // A job whose pending time runs out is Failed: the waiter's failure acceptor.
    await createJob(sm, 'starved', plain(P5, 1), { stopping: { MaxPendingTimeInSeconds: 7200 } });
    const failing = waitUntilTrainingJobCompletedOrStopped({ client: sagemaker(url), ...FAST }, { TrainingJobName: 'starved' });
    await advance(url, 7200);
    const failure = await expectWaiterFailure(failing);
    assert.equal(failure.reason.TrainingJobStatus, 'Failed');
    assert.equal(failure.reason.FailureReason, PENDING_RAN_OUT);
  }, { capacityFile: capacity({ [P5]: { on_demand: 0 } }) });
});

// ------------------------------------------------------------------------------------ (h) stop

// us-west-2a: one on-demand ml.p5.48xlarge.
test('StopTrainingJob stops a running job, frees its instances, and is refused on a stopped job', async () => {
  await withEmulator(async ({ sm, url }) => {
    await createJob(sm, 'long', plain(P5, 1), { runSeconds: 10000 });
    await createJob(sm, 'next', plain(P5, 1), { runSeconds: 100 });
    await advance(url, 30);
    const stopped = await stopJob(sm, 'long');
    assert.equal(stopped.$metadata.httpStatusCode, 200);
    const job = await describeJob(sm, 'long');
    assert.deepEqual(state(job), ['Stopped', 'Stopped', P5, 1]);
    assert.equal(ms(job.TrainingEndTime), T0 + 30 * SECOND);
    assert.equal(ms(job.LastModifiedTime), T0 + 30 * SECOND);
    assert.equal(job.TrainingTimeInSeconds, 30);
    // With no provisioning delay the Stopping step starts and ends at the stop.
    assert.deepEqual(transitions(job), ['Starting', 'Stopping', 'Stopped']);
    const stoppingStep = job.SecondaryStatusTransitions[1];
    assert.equal(ms(stoppingStep.StartTime), T0 + 30 * SECOND);
    assert.equal(ms(stoppingStep.EndTime), T0 + 30 * SECOND);
    const next = await describeJob(sm, 'next');
    assert.deepEqual(state(next), ['InProgress', 'Starting', P5, 1]);
    assert.equal(ms(next.TrainingStartTime), T0 + 30 * SECOND);

    await expectValidation(sm, stopJob(sm, 'long'), inStatus('Stopped'));
    await expectValidation(sm, stopJob(sm, 'missing'), NOT_FOUND);
    await expectValidation(sm, describeJob(sm, 'missing'), NOT_FOUND);
    await advance(url, 100);
    await expectValidation(sm, stopJob(sm, 'next'), inStatus('Completed'));

    // MaxRuntimeInSeconds stops a job too, with its own secondary status.
    await createJob(sm, 'capped', plain(P5, 1), { runSeconds: 1000, stopping: { MaxRuntimeInSeconds: 50 } });
    await advance(url, HOUR / SECOND);
    const capped = await describeJob(sm, 'capped');
    assert.deepEqual(state(capped), ['Stopped', 'MaxRuntimeExceeded', P5, 1]);
    assert.equal(ms(capped.TrainingEndTime), T0 + 180 * SECOND);
  }, { capacityFile: capacity({ [P5]: { on_demand: 1 } }) });
});
