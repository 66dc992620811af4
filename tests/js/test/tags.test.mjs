// AddTags / ListTags (and its paginator) / DeleteTags through @aws-sdk/client-sagemaker on every
// resource kind the emulator serves, the tags given at creation, the 50-tag limit, the reserved
// "aws:" prefix, unknown and foreign ARNs, and tags leaving with their resource.
//
// Every test starts its own emulator (frozen clock at 2027-01-20T00:00:00Z) on a small capacity file:
//   us-west-2  us-west-2a  ml.p5.48xlarge  2 reservable, 1 on demand  (55.00 per plan hour)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AddTagsCommand,
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateModelCommand,
  CreateProcessingJobCommand,
  CreateTrainingJobCommand,
  CreateTrainingPlanCommand,
  DeleteModelCommand,
  DeleteTagsCommand,
  ListTagsCommand,
  paginateListTags,
  SearchTrainingPlanOfferingsCommand,
} from '@aws-sdk/client-sagemaker';
import { modelArn } from '../lib/emulator.mjs';
import {
  G5, P5, P5_PRICES, ROLE, T0, createModel, expectValidation, onDemandVariant,
  withEmulator as withEmulatorOn, writeCapacityFile,
} from '../lib/fixtures.mjs';

const CAPACITY_FILE = writeCapacityFile({
  regions: { 'us-west-2': { 'us-west-2a': { [P5]: { reservable: 2, on_demand: 1 } } } },
  prices: { [P5]: P5_PRICES },
});
const withEmulator = (fn) => withEmulatorOn(fn, { capacityFile: CAPACITY_FILE });

const ARN_PREFIX = 'arn:aws:sagemaker:us-west-2:123456789012:';
const MALFORMED_TOKEN = 'Invalid pagination token because of a malformed NextToken.';
const notFound = (arn) => `Could not find resource "${arn}".`;
const reserved = (key) => `System prefix 'aws:' reserved for AWS usage in tag key: ${key}`;

const tagsOf = (pairs) => pairs.map(([Key, Value]) => ({ Key, Value }));
const numbered = (n, from = 0, prefix = 'v') =>
  Array.from({ length: n }, (_, i) => ({ Key: `k${from + i}`, Value: `${prefix}${from + i}` }));

const addTags = (client, arn, tags) => client.send(new AddTagsCommand({ ResourceArn: arn, Tags: tags }));
const deleteTags = (client, arn, keys) => client.send(new DeleteTagsCommand({ ResourceArn: arn, TagKeys: keys }));
const listTags = (client, arn, extra = {}) => client.send(new ListTagsCommand({ ResourceArn: arn, ...extra }));

// Every tag of `arn` through the SDK's paginator; returns { tags, pages }.
async function allTags(client, arn) {
  const tags = [];
  let pages = 0;
  for await (const page of paginateListTags({ client, pageSize: 50 }, { ResourceArn: arn })) {
    pages += 1;
    tags.push(...page.Tags);
  }
  return { tags, pages };
}

const JOB_ROLE = 'arn:aws:iam::123456789012:role/r';

// Creates one resource of each kind with the tag creator=<kind>; returns { kind: arn }.
async function createEveryKind(sm) {
  const tagged = (kind) => tagsOf([['creator', kind]]);
  const arns = {};
  arns.model = (await sm.send(new CreateModelCommand({
    ModelName: 'Tagged-Model', PrimaryContainer: { Image: 'img:1' }, ExecutionRoleArn: ROLE, Tags: tagged('model'),
  }))).ModelArn;
  arns['endpoint-config'] = (await sm.send(new CreateEndpointConfigCommand({
    EndpointConfigName: 'Tagged-Config', ProductionVariants: [onDemandVariant(G5, 1, { model: 'Tagged-Model' })],
    Tags: tagged('endpoint-config'),
  }))).EndpointConfigArn;
  arns.endpoint = (await sm.send(new CreateEndpointCommand({
    EndpointName: 'Tagged-Endpoint', EndpointConfigName: 'Tagged-Config', Tags: tagged('endpoint'),
  }))).EndpointArn;
  const [offering] = (await sm.send(new SearchTrainingPlanOfferingsCommand({
    InstanceType: P5, InstanceCount: 1, DurationHours: 24, StartTimeAfter: new Date(T0), TargetResources: ['endpoint'],
  }))).TrainingPlanOfferings;
  arns['training-plan'] = (await sm.send(new CreateTrainingPlanCommand({
    TrainingPlanName: 'Tagged-Plan', TrainingPlanOfferingId: offering.TrainingPlanOfferingId, Tags: tagged('training-plan'),
  }))).TrainingPlanArn;
  arns['training-job'] = (await sm.send(new CreateTrainingJobCommand({
    TrainingJobName: 'Tagged-Job', RoleArn: JOB_ROLE,
    AlgorithmSpecification: { TrainingImage: 'img:1', TrainingInputMode: 'File' },
    OutputDataConfig: { S3OutputPath: 's3://bucket/out' },
    ResourceConfig: { InstanceType: 'ml.m5.xlarge', InstanceCount: 1, VolumeSizeInGB: 5 },
    StoppingCondition: { MaxRuntimeInSeconds: 3600 },
    Tags: tagged('training-job'),
  }))).TrainingJobArn;
  arns['processing-job'] = (await sm.send(new CreateProcessingJobCommand({
    ProcessingJobName: 'Tagged-Processing', RoleArn: JOB_ROLE,
    AppSpecification: { ImageUri: 'img:1' },
    ProcessingResources: { ClusterConfig: { InstanceType: 'ml.m5.xlarge', InstanceCount: 1, VolumeSizeInGB: 5 } },
    StoppingCondition: { MaxRuntimeInSeconds: 3600 },
    Tags: tagged('processing-job'),
  }))).ProcessingJobArn;
  return arns;
}

test('every resource kind shows its creation tags and takes AddTags / DeleteTags', async () => {
  await withEmulator(async ({ sm }) => {
    const arns = await createEveryKind(sm);
    assert.deepEqual(Object.keys(arns).sort(),
      ['endpoint', 'endpoint-config', 'model', 'processing-job', 'training-job', 'training-plan']);
    for (const [kind, arn] of Object.entries(arns)) {
      assert.ok(arn.startsWith(`${ARN_PREFIX}${kind}/tagged-`), arn);
      const listed = await listTags(sm, arn);
      assert.deepEqual(listed.Tags, tagsOf([['creator', kind]]), `${kind}: tags from creation`);
      assert.equal(listed.NextToken, undefined);

      const added = await addTags(sm, arn, tagsOf([['env', 'test'], ['creator', 'overwritten']]));
      assert.deepEqual(added.Tags, tagsOf([['env', 'test'], ['creator', 'overwritten']]));
      assert.deepEqual((await allTags(sm, arn)).tags, tagsOf([['creator', 'overwritten'], ['env', 'test']]));

      const deleted = await deleteTags(sm, arn, ['creator', 'not-there']);
      assert.equal(deleted.$metadata.httpStatusCode, 200);
      assert.deepEqual((await listTags(sm, arn)).Tags, tagsOf([['env', 'test']]), `${kind}: after DeleteTags`);
    }
  });
});

test('the paginator reads 50 tags in one page; a 51st tag is refused', async () => {
  await withEmulator(async ({ sm }) => {
    await createModel(sm, 'full');
    const arn = modelArn('full');
    await addTags(sm, arn, numbered(50));
    const { tags, pages } = await allTags(sm, arn);
    assert.equal(pages, 1);
    assert.deepEqual(tags, numbered(50));
    // Overwriting on a full resource is fine; one new key is one too many.
    await addTags(sm, arn, numbered(2, 0, 'new'));
    await expectValidation(sm, addTags(sm, arn, tagsOf([['k3', 'x'], ['extra', 'y']])),
      'A resource can have at most 50 tags; with these tags it would have 51.');
    const after = (await listTags(sm, arn, { MaxResults: 50 })).Tags;
    assert.equal(after.length, 50);
    assert.deepEqual(after.slice(0, 4), tagsOf([['k0', 'new0'], ['k1', 'new1'], ['k2', 'v2'], ['k3', 'v3']]));
  });
});

test('refusals: the aws: prefix, unknown and foreign ARNs, tokens, MaxResults below 50', async () => {
  await withEmulator(async ({ sm, other, east }) => {
    await createModel(sm, 'mine');
    const arn = modelArn('mine');
    await addTags(sm, arn, tagsOf([['team', 'ml']]));

    await expectValidation(sm, addTags(sm, arn, tagsOf([['AWS:CloudFormation:stack-name', 's']])),
      reserved('AWS:CloudFormation:stack-name'));
    await expectValidation(sm, deleteTags(sm, arn, ['aws:cloudformation:stack-name']),
      reserved('aws:cloudformation:stack-name'));

    const missing = `${ARN_PREFIX}model/missing`;
    await expectValidation(sm, listTags(sm, missing), notFound(missing));
    await expectValidation(sm, addTags(sm, missing, tagsOf([['a', 'b']])), notFound(missing));
    await expectValidation(sm, deleteTags(sm, missing, ['a']), notFound(missing));
    const notebook = `${ARN_PREFIX}notebook-instance/mine`;
    await expectValidation(sm, listTags(sm, notebook), notFound(notebook));

    // Another account, or the same account in another region, does not see the model.
    await expectValidation(other, listTags(other, arn), notFound(arn));
    await expectValidation(other, addTags(other, arn, tagsOf([['a', 'b']])), notFound(arn));
    await expectValidation(east, deleteTags(east, arn, ['team']), notFound(arn));

    await expectValidation(sm, listTags(sm, arn, { NextToken: 'bm90IGEgdG9rZW4=' }), MALFORMED_TOKEN);
    await expectValidation(sm, listTags(sm, arn, { MaxResults: 10 }),
      /Member must have value greater than or equal to 50/);
    assert.deepEqual((await listTags(sm, arn)).Tags, tagsOf([['team', 'ml']]));
  });
});

test('tags leave with their resource', async () => {
  await withEmulator(async ({ sm }) => {
    await createModel(sm, 'short-lived');
    const arn = modelArn('short-lived');
    await addTags(sm, arn, tagsOf([['a', '1']]));
    await sm.send(new DeleteModelCommand({ ModelName: 'short-lived' }));
    await expectValidation(sm, listTags(sm, arn), notFound(arn));
    await createModel(sm, 'Short-Lived');
    assert.deepEqual((await listTags(sm, arn)).Tags, []);
  });
});
