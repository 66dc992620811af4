// Every paginator of the JS SDK v3 over resources whose creation times, start times and statuses
// tie (a frozen clock): for every SortBy, both orders and page sizes 1 to 4, the paginator must
// yield exactly what one large page lists, with a fresh token on every page and none on the last.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateModelCommand,
  CreateProcessingJobCommand,
  CreateTrainingJobCommand,
  CreateTrainingPlanCommand,
  ListEndpointConfigsCommand,
  ListEndpointsCommand,
  ListModelsCommand,
  ListProcessingJobsCommand,
  ListTrainingJobsCommand,
  ListTrainingPlansCommand,
  SearchTrainingPlanOfferingsCommand,
  StopTrainingJobCommand,
  paginateListEndpointConfigs,
  paginateListEndpoints,
  paginateListModels,
  paginateListProcessingJobs,
  paginateListTrainingJobs,
  paginateListTrainingPlans,
} from '@aws-sdk/client-sagemaker';
import { useEmulator, sagemaker, admin } from '../lib/emulator.mjs';
import { P5, P5_PRICES, ROLE, writeCapacityFile } from '../lib/fixtures.mjs';

const CLOCK_START = '2027-01-25T00:00:00Z';
const capacity = writeCapacityFile({
  regions: { 'us-west-2': { 'us-west-2a': { [P5]: { reservable: 10, on_demand: 0 } } } },
  prices: { [P5]: P5_PRICES },
});
const emu = await useEmulator(['--clock-start', CLOCK_START, '--frozen-clock', '--capacity', capacity]);
const sm = sagemaker(emu.url);
const NAMES = ['Zeta', 'alpha', 'Bravo', 'charlie-1', 'charlie-2'];

async function advance(seconds) {
  const res = await admin(emu.url, '/_emulator/clock', { method: 'POST', body: { advance_seconds: seconds } });
  assert.equal(res.status, 200, res.text);
}

for (const [i, name] of NAMES.entries()) {
  if (i === 3) await advance(1);
  await sm.send(new CreateModelCommand({ ModelName: name, ExecutionRoleArn: ROLE }));
  await sm.send(new CreateEndpointConfigCommand({
    EndpointConfigName: name,
    ProductionVariants: [{ VariantName: 'v', ModelName: name, InstanceType: 'ml.m5.large', InitialInstanceCount: 1 }],
  }));
  await sm.send(new CreateEndpointCommand({ EndpointName: name, EndpointConfigName: name }));
  const runSeconds = String(i % 2 ? 1 : 100000);
  await sm.send(new CreateTrainingJobCommand({
    TrainingJobName: name,
    RoleArn: ROLE,
    AlgorithmSpecification: { TrainingImage: 'img:1', TrainingInputMode: 'File' },
    OutputDataConfig: { S3OutputPath: 's3://bucket/out' },
    ResourceConfig: { InstanceType: 'ml.m5.xlarge', InstanceCount: 1, VolumeSizeInGB: 50 },
    StoppingCondition: { MaxRuntimeInSeconds: 86400 },
    Environment: { SAGEMAKER_EMULATOR_RUN_SECONDS: runSeconds },
  }));
  if (i === 4) await sm.send(new StopTrainingJobCommand({ TrainingJobName: name }));
  await sm.send(new CreateProcessingJobCommand({
    ProcessingJobName: name,
    RoleArn: ROLE,
    AppSpecification: { ImageUri: 'img:1' },
    ProcessingResources: { ClusterConfig: { InstanceType: 'ml.m5.xlarge', InstanceCount: 1, VolumeSizeInGB: 30 } },
    StoppingCondition: { MaxRuntimeInSeconds: 86400 },
    Environment: { SAGEMAKER_EMULATOR_RUN_SECONDS: runSeconds },
  }));
  const { TrainingPlanOfferings } = await sm.send(new SearchTrainingPlanOfferingsCommand({
    InstanceType: P5,
    InstanceCount: 1,
    DurationHours: 24,
    TargetResources: ['training-job'],
    StartTimeAfter: new Date(CLOCK_START),
    EndTimeBefore: new Date(Date.parse(CLOCK_START) + 20 * 86400_000),
  }));
  await sm.send(new CreateTrainingPlanCommand({
    TrainingPlanName: name,
    TrainingPlanOfferingId: TrainingPlanOfferings[0].TrainingPlanOfferingId,
  }));
}
await advance(10);

const LISTINGS = [
  ['ListModels', ListModelsCommand, paginateListModels, 'Models', 'ModelName', ['Name', 'CreationTime']],
  ['ListEndpointConfigs', ListEndpointConfigsCommand, paginateListEndpointConfigs, 'EndpointConfigs',
    'EndpointConfigName', ['Name', 'CreationTime']],
  ['ListEndpoints', ListEndpointsCommand, paginateListEndpoints, 'Endpoints', 'EndpointName',
    ['Name', 'CreationTime', 'Status']],
  ['ListTrainingJobs', ListTrainingJobsCommand, paginateListTrainingJobs, 'TrainingJobSummaries',
    'TrainingJobName', ['Name', 'CreationTime', 'Status']],
  ['ListProcessingJobs', ListProcessingJobsCommand, paginateListProcessingJobs, 'ProcessingJobSummaries',
    'ProcessingJobName', ['Name', 'CreationTime', 'Status']],
  ['ListTrainingPlans', ListTrainingPlansCommand, paginateListTrainingPlans, 'TrainingPlanSummaries',
    'TrainingPlanName', ['TrainingPlanName', 'StartTime', 'Status']],
];

for (const [operation, Command, paginate, resultKey, nameKey, sortKeys] of LISTINGS) {
  test(`${operation}: its paginator yields exactly the sorted set for every SortBy, order and page size`, async () => {
    for (const SortBy of sortKeys) {
      for (const SortOrder of ['Ascending', 'Descending']) {
        const all = await sm.send(new Command({ SortBy, SortOrder, MaxResults: 100 }));
        const expected = all[resultKey].map((item) => item[nameKey]);
        assert.deepEqual([...expected].sort(), [...NAMES].sort(), `${SortBy} ${SortOrder}`);
        for (let pageSize = 1; pageSize <= 4; pageSize++) {
          const pages = [];
          for await (const page of paginate({ client: sm, pageSize }, { SortBy, SortOrder })) pages.push(page);
          const got = pages.flatMap((page) => page[resultKey].map((item) => item[nameKey]));
          assert.deepEqual(got, expected, `${SortBy} ${SortOrder} pageSize ${pageSize}`);
          assert.equal(pages.length, Math.ceil(expected.length / pageSize));
          assert.equal(pages.at(-1).NextToken, undefined);
          const tokens = pages.slice(0, -1).map((page) => page.NextToken);
          assert.equal(new Set(tokens).size, tokens.length, 'a token repeated');
        }
      }
    }
  });
}

test('the data behind the paginators ties on times and statuses', async () => {
  const plans = (await sm.send(new ListTrainingPlansCommand({ MaxResults: 100 }))).TrainingPlanSummaries;
  assert.ok(new Set(plans.map((p) => p.StartTime.getTime())).size < plans.length, 'start times tie');
  const jobs = (await sm.send(new ListTrainingJobsCommand({ MaxResults: 100 }))).TrainingJobSummaries;
  const statuses = jobs.map((j) => j.TrainingJobStatus);
  assert.ok(new Set(statuses).size >= 2 && new Set(statuses).size < statuses.length, statuses.join());
  assert.ok(new Set(jobs.map((j) => j.CreationTime.getTime())).size < jobs.length, 'creation times tie');
});
