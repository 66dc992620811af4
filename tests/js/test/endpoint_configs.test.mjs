// Endpoint configs through @aws-sdk/client-sagemaker: CreateEndpointConfig,
// DescribeEndpointConfig, ListEndpointConfigs (and its paginator), DeleteEndpointConfig, the
// ValidationException texts of the service, and production variants that reserve the capacity of
// a training plan (CapacityReservationConfig.MlReservationArn).
//
// Every test starts its own emulator (frozen clock at 2027-01-20T00:00:00Z) on a small capacity file, so
// that plans bought and clock moves in one test cannot leak into another:
//   us-west-2  us-west-2a  ml.p5.48xlarge  8 reservable  (55.00 per plan hour)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CreateEndpointConfigCommand,
  DeleteEndpointConfigCommand,
  DescribeEndpointConfigCommand,
  DescribeTrainingPlanCommand,
  ListEndpointConfigsCommand,
  paginateListEndpointConfigs,
} from '@aws-sdk/client-sagemaker';
import { modelArn, UUID } from '../lib/emulator.mjs';
import {
  T0, P0, DAY, OTHER_ACCOUNT, P5, P5_PRICES, ROLE, advance, buyEndpointPlan, clockTo, configArn, createModel,
  expectValidation, planArn, reservedVariant, withEmulator as withEmulatorOn, writeCapacityFile,
} from '../lib/fixtures.mjs';

// The pattern of the MlReservationArn shape in the SageMaker model (resource type <= 14 chars).
const ML_RESERVATION_ARN_PATTERN = 'arn:aws[a-z\\-]*:sagemaker:[a-z0-9\\-]*:[0-9]{12}:[a-z0-9\\-]{1,14}/.*';

const CAPACITY_FILE = writeCapacityFile({
  regions: { 'us-west-2': { 'us-west-2a': { [P5]: { reservable: 8 } } } },
  prices: { [P5]: P5_PRICES },
});

// Runs `fn` against a fresh emulator. `fn` gets { url, sm (123456789012, us-west-2),
// east (123456789012, us-east-1), other (210987654321, us-west-2) }.
const withEmulator = (fn) => withEmulatorOn(fn, { capacityFile: CAPACITY_FILE });

const notFoundText = (name) => `Could not find endpoint configuration "${configArn(name)}".`;
const withoutMetadata = ({ $metadata, ...rest }) => rest;

const createConfig = (client, input) => client.send(new CreateEndpointConfigCommand(input));
const describeConfig = (client, name) => client.send(new DescribeEndpointConfigCommand({ EndpointConfigName: name }));
const deleteConfig = (client, name) => client.send(new DeleteEndpointConfigCommand({ EndpointConfigName: name }));
const listConfigs = (client, input = {}) => client.send(new ListEndpointConfigsCommand(input));

// Buys a week of `count` ml.p5.48xlarge from the first plan day (2027-01-20 11:30 UTC to
// 2027-01-27 11:30 UTC), for `targets`, from the one offering the search finds. Returns the plan
// ARN.
const buyPlan = (client, name, { count = 1, targets = ['endpoint'] } = {}) =>
  buyEndpointPlan(client, name, { count, targets, offeringCount: 1 });

// One variant of `count` instances of `type` that reserves the capacity named by `arn`.
const reserved = (client, name, arn, count, opts) =>
  createConfig(client, { EndpointConfigName: name, ProductionVariants: [reservedVariant(arn, count, opts)] });

// ------------------------------------------------------------------------------------ round trip

test('create, describe and delete an endpoint config with every member echoed back', async () => {
  await withEmulator(async ({ sm }) => {
    for (const name of ['Model-A', 'model-b', 'model-shadow']) await createModel(sm, name);
    const variants = [
      { VariantName: 'Primary', ModelName: 'Model-A', InstanceType: 'ml.g5.xlarge', InitialInstanceCount: 2,
        InitialVariantWeight: 0.75, VolumeSizeInGB: 64, ContainerStartupHealthCheckTimeoutInSeconds: 600 },
      { VariantName: 'Canary', ModelName: 'model-b', InstanceType: 'ml.g5.2xlarge', InitialInstanceCount: 1 },
    ];
    const input = {
      EndpointConfigName: 'Round-Trip-Config',
      ProductionVariants: variants,
      ShadowProductionVariants: [
        { VariantName: 'Shadow', ModelName: 'model-shadow', InstanceType: 'ml.g5.xlarge', InitialInstanceCount: 1,
          InitialVariantWeight: 0.5 },
      ],
      DataCaptureConfig: {
        EnableCapture: true, InitialSamplingPercentage: 20, DestinationS3Uri: 's3://example-bucket/capture',
        CaptureOptions: [{ CaptureMode: 'Input' }, { CaptureMode: 'Output' }],
        CaptureContentTypeHeader: { JsonContentTypes: ['application/json'] },
      },
      KmsKeyId: 'arn:aws:kms:us-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab',
      AsyncInferenceConfig: {
        ClientConfig: { MaxConcurrentInvocationsPerInstance: 4 },
        OutputConfig: { S3OutputPath: 's3://example-bucket/async-out', S3FailurePath: 's3://example-bucket/async-fail' },
      },
      ExplainerConfig: {
        ClarifyExplainerConfig: {
          EnableExplanations: '`true`',
          ShapConfig: { ShapBaselineConfig: { MimeType: 'text/csv', ShapBaseline: '1,2,3' }, NumberOfSamples: 100 },
        },
      },
      ExecutionRoleArn: ROLE,
      VpcConfig: { SecurityGroupIds: ['sg-0123456789abcdef0'], Subnets: ['subnet-0123456789abcdef0', 'subnet-0fedcba9876543210'] },
      EnableNetworkIsolation: true,
      MetricsConfig: { EnableEnhancedMetrics: true },
      Tags: [{ Key: 'team', Value: 'inference' }],
    };
    const created = await createConfig(sm, input);
    assert.equal(created.$metadata.httpStatusCode, 200);
    assert.match(created.$metadata.requestId ?? '', UUID);
    assert.equal(created.EndpointConfigArn, 'arn:aws:sagemaker:us-west-2:123456789012:endpoint-config/round-trip-config');

    const described = await describeConfig(sm, 'round-trip-CONFIG');
    assert.equal(described.$metadata.httpStatusCode, 200);
    assert.ok(described.CreationTime instanceof Date, 'CreationTime is decoded as a Date');
    assert.equal(described.CreationTime.toISOString(), '2027-01-20T00:00:00.000Z');
    const { Tags, ...echoed } = input;
    assert.deepEqual(withoutMetadata(described), {
      ...echoed,
      EndpointConfigName: 'Round-Trip-Config',  // the caller's case, whatever case looked it up
      EndpointConfigArn: created.EndpointConfigArn,
      CreationTime: new Date(T0),
      // A variant without InitialVariantWeight is described with weight 1.0.
      ProductionVariants: [variants[0], { ...variants[1], InitialVariantWeight: 1 }],
    });

    const deleted = await deleteConfig(sm, 'ROUND-TRIP-config');
    assert.equal(deleted.$metadata.httpStatusCode, 200);
    await expectValidation(sm, describeConfig(sm, 'Round-Trip-Config'), notFoundText('Round-Trip-Config'));
    assert.deepEqual((await listConfigs(sm)).EndpointConfigs, []);
  });
});

test('a config is only seen by its own account and region', async () => {
  await withEmulator(async ({ sm, east, other }) => {
    await createModel(sm, 'mine');
    await createConfig(sm, {
      EndpointConfigName: 'Private-Config',
      ProductionVariants: [{ VariantName: 'v', ModelName: 'mine', InstanceType: 'ml.g5.xlarge', InitialInstanceCount: 1 }],
    });
    await expectValidation(other, describeConfig(other, 'Private-Config'),
      `Could not find endpoint configuration "${configArn('private-config', { account: OTHER_ACCOUNT })}".`);
    await expectValidation(east, describeConfig(east, 'Private-Config'),
      `Could not find endpoint configuration "${configArn('private-config', { region: 'us-east-1' })}".`);
    assert.deepEqual((await listConfigs(other)).EndpointConfigs, []);
    assert.deepEqual((await listConfigs(east)).EndpointConfigs, []);
    // The other account's model namespace is its own too: "mine" does not exist there.
    await expectValidation(other, createConfig(other, {
      EndpointConfigName: 'Private-Config',
      ProductionVariants: [{ VariantName: 'v', ModelName: 'mine', InstanceType: 'ml.g5.xlarge', InitialInstanceCount: 1 }],
    }), `Could not find model "${modelArn('mine', { account: OTHER_ACCOUNT })}".`);
    assert.equal((await describeConfig(sm, 'Private-Config')).EndpointConfigName, 'Private-Config');
  });
});

// ------------------------------------------------------------------------------------ errors

test('a name already used, in any letter case, is refused with the service text', async () => {
  await withEmulator(async ({ sm }) => {
    await createModel(sm, 'model-v1');
    await createModel(sm, 'model-v2');
    const variant = (model, type) => [{ VariantName: 'AllTraffic', ModelName: model, InstanceType: type, InitialInstanceCount: 1 }];
    await createConfig(sm, { EndpointConfigName: 'Dup-Config', ProductionVariants: variant('model-v1', 'ml.g5.xlarge') });
    for (const name of ['Dup-Config', 'dup-config', 'DUP-CONFIG']) {
      await expectValidation(sm,
        createConfig(sm, { EndpointConfigName: name, ProductionVariants: variant('model-v2', 'ml.g5.2xlarge') }),
        'Cannot create already existing endpoint configuration "arn:aws:sagemaker:us-west-2:123456789012:endpoint-config/dup-config".');
    }
    // The first config is untouched.
    const d = await describeConfig(sm, 'dup-config');
    assert.equal(d.EndpointConfigName, 'Dup-Config');
    assert.deepEqual(d.ProductionVariants.map((v) => [v.ModelName, v.InstanceType]), [['model-v1', 'ml.g5.xlarge']]);
    assert.deepEqual((await listConfigs(sm)).EndpointConfigs.map((c) => c.EndpointConfigName), ['Dup-Config']);
  });
});

test('describing or deleting a missing config is a ValidationException naming its ARN', async () => {
  await withEmulator(async ({ sm }) => {
    await expectValidation(sm, describeConfig(sm, 'Never-Created'),
      'Could not find endpoint configuration "arn:aws:sagemaker:us-west-2:123456789012:endpoint-config/never-created".');
    await expectValidation(sm, deleteConfig(sm, 'Never-Created'),
      'Could not find endpoint configuration "arn:aws:sagemaker:us-west-2:123456789012:endpoint-config/never-created".');
    // Deleting twice: the second delete finds nothing.
    await createModel(sm, 'm');
    await createConfig(sm, {
      EndpointConfigName: 'once',
      ProductionVariants: [{ VariantName: 'v', ModelName: 'm', InstanceType: 'ml.g5.xlarge', InitialInstanceCount: 1 }],
    });
    await deleteConfig(sm, 'once');
    await expectValidation(sm, deleteConfig(sm, 'once'), notFoundText('once'));
  });
});

test('every model a config names must exist: ModelName, shadow variants, ModelNameOverride', async () => {
  await withEmulator(async ({ sm }) => {
    await createModel(sm, 'present');
    const ok = { VariantName: 'v', ModelName: 'present', InstanceType: 'ml.g5.xlarge', InitialInstanceCount: 1 };
    const missingText = (name) => `Could not find model "arn:aws:sagemaker:us-west-2:123456789012:model/${name}".`;
    await expectValidation(sm, createConfig(sm, {
      EndpointConfigName: 'no-model', ProductionVariants: [ok, { ...ok, VariantName: 'w', ModelName: 'Missing-Model' }],
    }), missingText('missing-model'));
    await expectValidation(sm, createConfig(sm, {
      EndpointConfigName: 'no-model',
      ProductionVariants: [ok],
      ShadowProductionVariants: [{ ...ok, VariantName: 'shadow', ModelName: 'Shadow-Missing' }],
    }), missingText('shadow-missing'));
    await expectValidation(sm, createConfig(sm, {
      EndpointConfigName: 'no-model',
      ProductionVariants: [{
        VariantName: 'pools', ModelName: 'present', InitialInstanceCount: 1,
        InstancePools: [
          { InstanceType: 'ml.g5.xlarge', Priority: 1 },
          { InstanceType: 'ml.g5.2xlarge', Priority: 2, ModelNameOverride: 'Override-Missing' },
        ],
      }],
    }), missingText('override-missing'));
    // None of the refused requests created anything.
    await expectValidation(sm, describeConfig(sm, 'no-model'), notFoundText('no-model'));
    // With the override model present, the same pools are accepted and echoed.
    await createModel(sm, 'Override-Missing');
    await createConfig(sm, {
      EndpointConfigName: 'pools-ok',
      ProductionVariants: [{
        VariantName: 'pools', ModelName: 'present', InitialInstanceCount: 1,
        InstancePools: [
          { InstanceType: 'ml.g5.xlarge', Priority: 1 },
          { InstanceType: 'ml.g5.2xlarge', Priority: 2, ModelNameOverride: 'Override-Missing' },
        ],
      }],
    });
    const d = await describeConfig(sm, 'pools-ok');
    assert.deepEqual(d.ProductionVariants[0].InstancePools.map((p) => p.ModelNameOverride ?? null), [null, 'Override-Missing']);
  });
});

// ------------------------------------------------------------------------------------ listing

// Twelve configs created one minute apart, in an order unlike their names.
const CREATED = [
  'web-prod-b', 'batch-dev', 'web-prod-a', 'web-staging', 'batch-prod', 'api-prod',
  'api-dev', 'cron-dev', 'api-staging', 'cron-prod', 'web-dev', 'batch-staging',
];
const createdAt = (name) => T0 + 60_000 * CREATED.indexOf(name);

async function createListed(url, sm) {
  await createModel(sm, 'listed-model');
  for (const [i, name] of CREATED.entries()) {
    if (i > 0) await advance(url, 60);
    await createConfig(sm, {
      EndpointConfigName: name,
      ProductionVariants: [{ VariantName: 'v', ModelName: 'listed-model', InstanceType: 'ml.g5.xlarge', InitialInstanceCount: 1 }],
    });
  }
}

async function collect(client, input, pageSize) {
  const pages = [];
  for await (const page of paginateListEndpointConfigs({ client, pageSize }, input)) pages.push(page);
  return pages;
}
const names = (pages) => pages.flatMap((p) => p.EndpointConfigs.map((c) => c.EndpointConfigName));

test('paginateListEndpointConfigs walks the configs by name and by creation time, both ways', async () => {
  await withEmulator(async ({ url, sm }) => {
    await createListed(url, sm);
    const byName = [...CREATED].sort();

    const asc = await collect(sm, { SortBy: 'Name', SortOrder: 'Ascending' }, 5);
    assert.deepEqual(asc.map((p) => p.EndpointConfigs.length), [5, 5, 2]);
    assert.deepEqual(names(asc), byName);
    assert.equal(typeof asc[0].NextToken, 'string');
    assert.equal(typeof asc[1].NextToken, 'string');
    assert.notEqual(asc[0].NextToken, asc[1].NextToken);
    assert.equal(asc[2].NextToken, undefined);
    for (const c of asc.flatMap((p) => p.EndpointConfigs)) {
      assert.equal(c.EndpointConfigArn, configArn(c.EndpointConfigName));
      assert.ok(c.CreationTime instanceof Date);
      assert.equal(c.CreationTime.getTime(), createdAt(c.EndpointConfigName), c.EndpointConfigName);
    }

    const desc = await collect(sm, { SortBy: 'Name', SortOrder: 'Descending' }, 4);
    assert.deepEqual(desc.map((p) => p.EndpointConfigs.length), [4, 4, 4]);
    assert.deepEqual(names(desc), [...byName].reverse());

    assert.deepEqual(names(await collect(sm, { SortBy: 'CreationTime', SortOrder: 'Ascending' }, 3)), CREATED);
    // The defaults: SortBy CreationTime, SortOrder Descending.
    const byDefault = await collect(sm, {}, 7);
    assert.deepEqual(byDefault.map((p) => p.EndpointConfigs.length), [7, 5]);
    assert.deepEqual(names(byDefault), [...CREATED].reverse());
  });
});

test('ListEndpointConfigs returns 10 per page by default, newest first; NextToken resumes', async () => {
  await withEmulator(async ({ url, sm }) => {
    await createListed(url, sm);
    const newestFirst = [...CREATED].reverse();
    const first = await listConfigs(sm);
    assert.deepEqual(first.EndpointConfigs.map((c) => c.EndpointConfigName), newestFirst.slice(0, 10));
    assert.equal(typeof first.NextToken, 'string');
    const second = await listConfigs(sm, { NextToken: first.NextToken });
    assert.deepEqual(second.EndpointConfigs.map((c) => c.EndpointConfigName), newestFirst.slice(10));
    assert.equal(second.NextToken, undefined);
    const three = await listConfigs(sm, { MaxResults: 3, SortBy: 'Name' });
    assert.deepEqual(three.EndpointConfigs.map((c) => c.EndpointConfigName), ['web-staging', 'web-prod-b', 'web-prod-a']);
  });
});

test('ListEndpointConfigs NameContains is case-insensitive; CreationTimeAfter/Before are exclusive', async () => {
  await withEmulator(async ({ url, sm }) => {
    await createListed(url, sm);
    const list = async (input) => (await listConfigs(sm, input)).EndpointConfigs.map((c) => c.EndpointConfigName);
    assert.deepEqual(await list({ NameContains: 'PROD' }), ['cron-prod', 'api-prod', 'batch-prod', 'web-prod-a', 'web-prod-b']);
    assert.deepEqual(await list({ NameContains: 'Api-', SortBy: 'Name', SortOrder: 'Ascending' }),
      ['api-dev', 'api-prod', 'api-staging']);
    assert.deepEqual(await list({ NameContains: 'nothing-like-this' }), []);
    const prodPages = await collect(sm, { NameContains: 'prod', SortBy: 'Name', SortOrder: 'Ascending' }, 2);
    assert.deepEqual(prodPages.map((p) => p.EndpointConfigs.length), [2, 2, 1]);
    assert.deepEqual(names(prodPages), ['api-prod', 'batch-prod', 'cron-prod', 'web-prod-a', 'web-prod-b']);

    const at = (name, deltaMs = 0) => new Date(createdAt(name) + deltaMs);
    const asc = { SortOrder: 'Ascending' };
    assert.deepEqual(await list({ ...asc, CreationTimeBefore: at('web-staging') }), CREATED.slice(0, 3));
    assert.deepEqual(await list({ ...asc, CreationTimeBefore: at('web-staging', 1000) }), CREATED.slice(0, 4));
    assert.deepEqual(await list({ ...asc, CreationTimeAfter: at('api-staging') }), CREATED.slice(9));
    assert.deepEqual(await list({ ...asc, CreationTimeAfter: at('api-staging', -1000) }), CREATED.slice(8));
    assert.deepEqual(await list({ ...asc, CreationTimeAfter: at('web-prod-a'), CreationTimeBefore: at('api-prod') }),
      ['web-staging', 'batch-prod']);
    assert.deepEqual(await list({ CreationTimeAfter: at('batch-staging') }), []);
    assert.deepEqual(await list({ NameContains: 'DEV', CreationTimeAfter: at('batch-dev') }), ['web-dev', 'cron-dev', 'api-dev']);
  });
});

// ------------------------------------------------------------------------------------ reservations

test('a variant on reserved capacity fits a 2-instance endpoint plan, up to its size', async () => {
  await withEmulator(async ({ sm }) => {
    await createModel(sm, 'llm');
    const plan = await buyPlan(sm, 'P5-Endpoint-Plan', { count: 2 });
    assert.equal(plan, planArn('p5-endpoint-plan'));

    const one = await reserved(sm, 'on-plan-1', plan, 1);
    assert.equal(one.EndpointConfigArn, configArn('on-plan-1'));
    const two = await reserved(sm, 'On-Plan-2', plan, 2);
    assert.equal(two.EndpointConfigArn, configArn('on-plan-2'));
    const d = await describeConfig(sm, 'on-plan-2');
    assert.deepEqual(d.ProductionVariants, [{ ...reservedVariant(plan, 2), InitialVariantWeight: 1 }]);

    await expectValidation(sm, reserved(sm, 'on-plan-3', plan, 3),
      'Requested instance count (3) exceeds reserved capacity (2) for training plan.');
    await expectValidation(sm, describeConfig(sm, 'on-plan-3'), notFoundText('on-plan-3'));
  });
});

test('a reserved variant must use the plan\'s instance type', async () => {
  await withEmulator(async ({ sm }) => {
    await createModel(sm, 'llm');
    const plan = await buyPlan(sm, 'typed-plan', { count: 2 });
    const err = await expectValidation(sm, reserved(sm, 'wrong-type', plan, 1, { type: 'ml.p4d.24xlarge' }),
      /must be ml\.p5\.48xlarge/);
    assert.doesNotMatch(err.message, /exceeds reserved capacity/);
    await expectValidation(sm, describeConfig(sm, 'wrong-type'), notFoundText('wrong-type'));
  });
});

test('a plan bought for training jobs cannot back an endpoint', async () => {
  await withEmulator(async ({ sm }) => {
    await createModel(sm, 'llm');
    const plan = await buyPlan(sm, 'training-plan', { count: 2, targets: ['training-job'] });
    await expectValidation(sm, reserved(sm, 'on-training-plan', plan, 1), /was not bought for endpoints/);
    await expectValidation(sm, describeConfig(sm, 'on-training-plan'), notFoundText('on-training-plan'));
  });
});

test('an MlReservationArn that names no plan of this account is refused', async () => {
  await withEmulator(async ({ sm, other }) => {
    await createModel(sm, 'llm');
    await expectValidation(sm, reserved(sm, 'no-plan', planArn('never-bought'), 1), /does not name a training plan/);
    // A real endpoint plan, but another account's.
    const theirs = await buyPlan(other, 'their-plan', { count: 2 });
    assert.equal(theirs, planArn('their-plan', { account: OTHER_ACCOUNT }));
    await expectValidation(sm, reserved(sm, 'their-plan', theirs, 1), /does not name a training plan/);
    // ... which its own account can use.
    await createModel(other, 'llm');
    assert.equal((await reserved(other, 'their-config', theirs, 2)).EndpointConfigArn,
      configArn('their-config', { account: OTHER_ACCOUNT }));
    assert.deepEqual((await listConfigs(sm)).EndpointConfigs, []);
  });
});

test('a reserved-capacity ARN does not fit the MlReservationArn pattern', async () => {
  await withEmulator(async ({ sm }) => {
    await createModel(sm, 'llm');
    await buyPlan(sm, 'rc-plan', { count: 2 });
    const plan = await sm.send(new DescribeTrainingPlanCommand({ TrainingPlanName: 'rc-plan' }));
    const rcArn = plan.ReservedCapacitySummaries[0].ReservedCapacityArn;
    assert.match(rcArn, /^arn:aws:sagemaker:us-west-2:123456789012:reserved-capacity\/rc-[0-9a-f]+$/);
    await expectValidation(sm, reserved(sm, 'by-capacity-arn', rcArn, 1),
      `1 validation error detected: Value '${rcArn}' at ` +
      '\'productionVariants.1.member.capacityReservationConfig.mlReservationArn\' failed to satisfy constraint: ' +
      `Member must satisfy regular expression pattern: ${ML_RESERVATION_ARN_PATTERN}`);
    await expectValidation(sm, describeConfig(sm, 'by-capacity-arn'), notFoundText('by-capacity-arn'));
  });
});

test('an expired plan cannot back a new endpoint config', async () => {
  await withEmulator(async ({ url, sm }) => {
    await createModel(sm, 'llm');
    const plan = await buyPlan(sm, 'week-plan', { count: 2 });
    await clockTo(url, P0 + 7 * DAY - 1000);  // one second before the plan ends: still usable
    await reserved(sm, 'last-second', plan, 2);
    await advance(url, 3601);  // an hour past the plan's EndTime
    await expectValidation(sm, reserved(sm, 'too-late', plan, 1), /has expired/);
    await expectValidation(sm, describeConfig(sm, 'too-late'), notFoundText('too-late'));
    // A config made while the plan lasted is still there.
    assert.equal((await describeConfig(sm, 'last-second')).ProductionVariants[0].CapacityReservationConfig.MlReservationArn, plan);
  });
});
