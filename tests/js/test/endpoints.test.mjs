// Endpoints through @aws-sdk/client-sagemaker and @aws-sdk/client-sagemaker-runtime:
// CreateEndpoint, DescribeEndpoint, ListEndpoints (and its paginator), DeleteEndpoint, the
// refusals of UpdateEndpoint and UpdateEndpointWeightsAndCapacities, the waiters
// waitUntilEndpointInService / waitUntilEndpointDeleted, and InvokeEndpoint; endpoints on the
// capacity of a training plan and on the region's on-demand pools, on the virtual clock.
//
// Every test starts its own emulator (frozen clock at 2027-01-20T00:00:00Z) on a small capacity
// file, so that plans bought, instances held and clock moves in one test cannot leak into another:
//   us-west-2  us-west-2a  ml.p5.48xlarge  2 reservable, 1 on demand  (55.00 per plan hour)
//              us-west-2b  ml.p5.48xlarge  1 reservable, 1 on demand
// so a 2-instance endpoint plan fits only in us-west-2a, and the region has 2 on-demand p5.
// ml.g5.xlarge is not in the file, so its on-demand capacity is unlimited.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateTrainingPlanCommand,
  DeleteEndpointCommand,
  DescribeEndpointCommand,
  DescribeTrainingPlanCommand,
  ListEndpointsCommand,
  ListTrainingPlansCommand,
  SearchTrainingPlanOfferingsCommand,
  UpdateEndpointCommand,
  UpdateEndpointWeightsAndCapacitiesCommand,
  paginateListEndpoints,
  waitUntilEndpointDeleted,
  waitUntilEndpointInService,
} from '@aws-sdk/client-sagemaker';
import { InvokeEndpointCommand } from '@aws-sdk/client-sagemaker-runtime';
import { runtime, errorOf, assertRawError } from '../lib/emulator.mjs';
import {
  T0, P0, MINUTE, HOUR, DAY, ACCOUNT, OTHER_ACCOUNT, P5, G5, P5_PRICES, IMAGE, FAST,
  PENDING_MESSAGE, SCHEDULED_MESSAGE,
  advance, buyEndpointPlan, clockTo, completePayment, configArn, createModel, endpointArn, expectError, expectValidation,
  expectWaiterFailure, onDemandVariant, planArn, reservedVariant, waitAcrossClockMove,
  withEmulator as withEmulatorOn, writeCapacityFile,
} from '../lib/fixtures.mjs';

const PROVISIONING = 600;  // --provisioning-seconds of the tests that use it
const ON_DEMAND_SHORTAGE =
  'Unable to provision requested ML compute capacity. Please retry using a different ML instance type.';
// An endpoint's FailureReason when provisioning finds no capacity.
const INSUFFICIENT_CAPACITY = 'Unable to provision requested ML compute capacity due to ' +
  'InsufficientInstanceCapacity error. Please retry using a different ML instance type or after some time.';
const RESERVATION_EXPIRED =
  'Endpoint capacity reservation has expired. Please update endpoint configuration.';

const CAPACITY_FILE = writeCapacityFile({
  regions: {
    'us-west-2': {
      'us-west-2a': { [P5]: { reservable: 2, on_demand: 1 } },
      'us-west-2b': { [P5]: { reservable: 1, on_demand: 1 } },
    },
  },
  prices: { [P5]: P5_PRICES },
});

// Runs `fn` against a fresh emulator. `fn` gets { url, sm, rt (123456789012, us-west-2),
// other (210987654321, us-west-2) }.
const withEmulator = (fn, { provisioningSeconds = 0 } = {}) =>
  withEmulatorOn(fn, { capacityFile: CAPACITY_FILE, provisioningSeconds });

const notFoundText = (name, opts) => `Could not find endpoint "${endpointArn(name, opts)}".`;
const inProgressText = (name) => `Cannot update in-progress endpoint "${endpointArn(name)}".`;

const createConfig = (client, name, variant) =>
  client.send(new CreateEndpointConfigCommand({ EndpointConfigName: name, ProductionVariants: [variant] }));
const createEndpoint = (client, name, config, extra = {}) =>
  client.send(new CreateEndpointCommand({ EndpointName: name, EndpointConfigName: config, ...extra }));
const describeEndpoint = (client, name) => client.send(new DescribeEndpointCommand({ EndpointName: name }));
const deleteEndpoint = (client, name) => client.send(new DeleteEndpointCommand({ EndpointName: name }));
const listEndpoints = (client, input = {}) => client.send(new ListEndpointsCommand(input));
const updateEndpoint = (client, name, config) =>
  client.send(new UpdateEndpointCommand({ EndpointName: name, EndpointConfigName: config }));
const scale = (client, name, desired) =>
  client.send(new UpdateEndpointWeightsAndCapacitiesCommand({ EndpointName: name, DesiredWeightsAndCapacities: desired }));
const describePlan = (client, name) => client.send(new DescribeTrainingPlanCommand({ TrainingPlanName: name }));
const invoke = (rt, name, body, extra = {}) => rt.send(new InvokeEndpointCommand({
  EndpointName: name, Body: new TextEncoder().encode(body), ...extra,
}));
const decode = (body) => {
  assert.ok(body instanceof Uint8Array, `the body is a Uint8Array, not ${body?.constructor?.name}`);
  return new TextDecoder().decode(body);
};

// Buys `count` ml.p5.48xlarge for endpoints, for a week from `startMs` (a plan day's 11:30 UTC; by
// default the first, 2027-01-20). Returns the plan ARN.
const buyPlan = (client, name, { count = 1, startMs = P0 } = {}) => buyEndpointPlan(client, name, { count, startMs });

// ------------------------------------------------------------------------------------ walkthrough

test('the AWS walkthrough: plan -> model -> config -> endpoint -> waiter -> invoke -> expiry -> delete', async () => {
  await withEmulator(async ({ url, sm, rt }) => {
    // 1. Find and buy a week of two ml.p5.48xlarge for endpoints, from 11:30 UTC today; move the
    //    clock to its start.
    const { TrainingPlanOfferings: offerings } = await sm.send(new SearchTrainingPlanOfferingsCommand({
      TargetResources: ['endpoint'], InstanceType: P5, InstanceCount: 2, DurationHours: 168,
      StartTimeAfter: new Date(P0), EndTimeBefore: new Date(P0 + 7 * DAY),
    }));
    assert.equal(offerings.length, 1, JSON.stringify(offerings));
    assert.equal(offerings[0].ReservedCapacityOfferings[0].AvailabilityZone, 'us-west-2a');
    assert.equal(offerings[0].ReservedCapacityOfferings[0].StartTime.getTime(), P0);
    assert.equal(offerings[0].UpfrontFee, '18480.00', '168 h x 2 x 55.00');
    const { TrainingPlanArn: plan } = await sm.send(new CreateTrainingPlanCommand({
      TrainingPlanName: 'p5-endpoint-week', TrainingPlanOfferingId: offerings[0].TrainingPlanOfferingId,
    }));
    assert.equal(plan, planArn('p5-endpoint-week'));
    // "When created, the plan initially enters a Pending state and remains there until the
    // reservation process is complete" (Reserve the best training plan): Pending for the payment's
    // 30 seconds of clock time, then Scheduled until its start.
    let p = await describePlan(sm, 'p5-endpoint-week');
    assert.deepEqual([p.Status, p.StatusMessage, p.StartTime.getTime(), p.EndTime.getTime()],
      ['Pending', PENDING_MESSAGE, P0, P0 + 7 * DAY]);
    await completePayment(url);
    p = await describePlan(sm, 'p5-endpoint-week');
    assert.deepEqual([p.Status, p.StatusMessage, p.StartTime.getTime(), p.EndTime.getTime()],
      ['Scheduled', SCHEDULED_MESSAGE, P0, P0 + 7 * DAY]);
    await clockTo(url, P0);
    p = await describePlan(sm, 'p5-endpoint-week');
    assert.deepEqual([p.Status, p.TotalInstanceCount, p.InUseInstanceCount, p.AvailableInstanceCount], ['Active', 2, 0, 2]);

    // 2. A model and an endpoint config whose variant reserves one instance of the plan.
    await createModel(sm, 'llm');
    await createConfig(sm, 'llm-on-plan', reservedVariant(plan, 1));

    // 3. The endpoint: Creating for the provisioning delay, holding nothing yet.
    const created = await createEndpoint(sm, 'LLM-Endpoint', 'llm-on-plan', { Tags: [{ Key: 'team', Value: 'ml' }] });
    assert.equal(created.EndpointArn, endpointArn('llm-endpoint'));
    let d = await describeEndpoint(sm, 'llm-endpoint');
    assert.equal(d.EndpointName, 'LLM-Endpoint');
    assert.equal(d.EndpointArn, endpointArn('llm-endpoint'));
    assert.equal(d.EndpointConfigName, 'llm-on-plan');
    assert.equal(d.EndpointStatus, 'Creating');
    assert.equal(d.FailureReason, undefined);
    assert.deepEqual([d.CreationTime.getTime(), d.LastModifiedTime.getTime()], [P0, P0]);
    assert.equal(d.ProductionVariants[0].CurrentInstanceCount, 0);
    assert.equal(d.ProductionVariants[0].DesiredInstanceCount, 1);
    await expectError(rt, invoke(rt, 'LLM-Endpoint', '{}', { ContentType: 'application/json' }),
      'ValidationError', /not in service/);

    // 4. waitUntilEndpointInService polls while the endpoint is Creating and returns once the
    //    clock passed the provisioning delay.
    const [inService] = await waitAcrossClockMove(url, waitUntilEndpointInService, ['LLM-Endpoint'], 'Creating', PROVISIONING);
    assert.equal(inService.result.state, 'SUCCESS');
    assert.equal(inService.result.reason.EndpointStatus, 'InService');
    assert.equal(inService.seen.at(-1), 'InService');
    assert.ok(inService.seen.slice(0, -1).every((s) => s === 'Creating'), inService.seen.join());

    d = await describeEndpoint(sm, 'LLM-Endpoint');
    assert.equal(d.EndpointStatus, 'InService');
    assert.equal(d.CreationTime.getTime(), P0);
    assert.equal(d.LastModifiedTime.getTime(), P0 + PROVISIONING * 1000, 'the time of the status change');
    assert.deepEqual(d.ProductionVariants, [{
      VariantName: 'AllTraffic',
      CurrentWeight: 1,
      DesiredWeight: 1,
      CurrentInstanceCount: 1,
      DesiredInstanceCount: 1,
      CapacityReservationConfig: {
        MlReservationArn: plan,
        CapacityReservationPreference: 'capacity-reservations-only',
        TotalInstanceCount: 2,
        AvailableInstanceCount: 1,
        UsedByCurrentEndpoint: 1,
      },
    }]);

    // 5. Invoke: the default model echoes the body with its content type.
    const payload = JSON.stringify({ inputs: 'What is a training plan?', parameters: { max_new_tokens: 64 } });
    const answer = await invoke(rt, 'LLM-Endpoint', payload, { ContentType: 'application/json', Accept: 'application/json' });
    assert.equal(answer.$metadata.httpStatusCode, 200);
    assert.equal(decode(answer.Body), payload);
    assert.equal(answer.ContentType, 'application/json');
    assert.equal(answer.InvokedProductionVariant, 'AllTraffic');
    const csv = await invoke(rt, 'llm-endpoint', '1,2,3\n4,5,6', { ContentType: 'text/csv' });
    assert.equal(decode(csv.Body), '1,2,3\n4,5,6');
    assert.equal(csv.ContentType, 'text/csv');

    // 6. The plan shows the instance in use.
    p = await describePlan(sm, 'p5-endpoint-week');
    assert.deepEqual([p.InUseInstanceCount, p.AvailableInstanceCount], [1, 1]);

    // 7. A second endpoint takes the plan's other instance; a third finds nothing left.
    await createEndpoint(sm, 'llm-endpoint-2', 'llm-on-plan');
    await createEndpoint(sm, 'llm-endpoint-3', 'llm-on-plan');
    await advance(url, PROVISIONING);
    const second = await describeEndpoint(sm, 'llm-endpoint-2');
    assert.equal(second.EndpointStatus, 'InService');
    assert.deepEqual(second.ProductionVariants[0].CapacityReservationConfig,
      { MlReservationArn: plan, CapacityReservationPreference: 'capacity-reservations-only',
        TotalInstanceCount: 2, AvailableInstanceCount: 0, UsedByCurrentEndpoint: 1 });
    const third = await describeEndpoint(sm, 'llm-endpoint-3');
    assert.equal(third.EndpointStatus, 'Failed');
    assert.match(third.FailureReason ?? '', /exceeds available capacity/);
    assert.equal(third.ProductionVariants[0].CurrentInstanceCount, 0);
    assert.equal(third.ProductionVariants[0].CapacityReservationConfig.UsedByCurrentEndpoint, 0);
    assert.equal(third.LastModifiedTime.getTime(), P0 + 2 * PROVISIONING * 1000);
    const firstNow = await describeEndpoint(sm, 'LLM-Endpoint');
    assert.equal(firstNow.ProductionVariants[0].CapacityReservationConfig.AvailableInstanceCount, 0,
      'AvailableInstanceCount counts what every endpoint holds');
    p = await describePlan(sm, 'p5-endpoint-week');
    assert.deepEqual([p.InUseInstanceCount, p.AvailableInstanceCount], [2, 0]);
    const failed = await expectWaiterFailure(waitUntilEndpointInService({ client: sm, ...FAST }, { EndpointName: 'llm-endpoint-3' }));
    assert.equal(failed.reason.EndpointStatus, 'Failed');
    assert.deepEqual((await listEndpoints(sm, { StatusEquals: 'Failed' })).Endpoints.map((e) => e.EndpointName), ['llm-endpoint-3']);
    assert.deepEqual((await listEndpoints(sm, { StatusEquals: 'InService', SortBy: 'Name', SortOrder: 'Ascending' }))
      .Endpoints.map((e) => e.EndpointName), ['LLM-Endpoint', 'llm-endpoint-2']);

    // 8. Past the plan's end the endpoint is still there, but invocations are a ModelError (424).
    await clockTo(url, P0 + 7 * DAY + HOUR);
    assert.equal((await describePlan(sm, 'p5-endpoint-week')).Status, 'Expired');
    const expired = await errorOf(invoke(rt, 'LLM-Endpoint', payload, { ContentType: 'application/json' }));
    assert.equal(expired.name, 'ModelError', `unexpected error: ${expired.stack}`);
    assert.equal(expired.$metadata.httpStatusCode, 424);
    assert.equal(expired.message, RESERVATION_EXPIRED);
    assertRawError(rt, { status: 424, code: 'ModelError', message: RESERVATION_EXPIRED });

    // 9. Delete the endpoints: Deleting for the provisioning delay, then gone.
    for (const name of ['LLM-Endpoint', 'llm-endpoint-2', 'llm-endpoint-3']) {
      const res = await deleteEndpoint(sm, name);
      assert.equal(res.$metadata.httpStatusCode, 200);
      assert.equal((await describeEndpoint(sm, name)).EndpointStatus, 'Deleting', name);
    }
    await expectError(rt, invoke(rt, 'llm-endpoint-2', 'x', { ContentType: 'text/plain' }), 'ValidationError', /not in service/);
    const deleted = await waitAcrossClockMove(url, waitUntilEndpointDeleted,
      ['LLM-Endpoint', 'llm-endpoint-2', 'llm-endpoint-3'], 'Deleting', PROVISIONING);
    for (const { result, seen } of deleted) {
      assert.equal(result.state, 'SUCCESS');
      assert.equal(result.reason.name, 'ValidationException');
      assert.equal(seen.at(-1), 'error:ValidationException');
      assert.ok(seen.slice(0, -1).every((s) => s === 'Deleting'), seen.join());
    }
    for (const name of ['LLM-Endpoint', 'llm-endpoint-2', 'llm-endpoint-3']) {
      await expectValidation(sm, describeEndpoint(sm, name), notFoundText(name));
    }
    assert.deepEqual((await listEndpoints(sm)).Endpoints, []);

    // 10. The plan is still listed, with its fee: deleting endpoints refunds nothing.
    const { TrainingPlanSummaries: plans } = await sm.send(new ListTrainingPlansCommand({}));
    assert.deepEqual(plans.map((s) => [s.TrainingPlanName, s.TrainingPlanArn, s.Status, s.UpfrontFee, s.CurrencyCode]),
      [['p5-endpoint-week', plan, 'Expired', '18480.00', 'USD']]);
    p = await describePlan(sm, 'p5-endpoint-week');
    assert.equal(p.UpfrontFee, '18480.00');
    assert.equal(p.InUseInstanceCount, 0);
  }, { provisioningSeconds: PROVISIONING });
});

// ------------------------------------------------------------------------------------ errors

test('missing and duplicate endpoints get the service texts; accounts do not see each other', async () => {
  await withEmulator(async ({ url, sm, rt, other }) => {
    await createModel(sm, 'llm');
    await expectValidation(sm, createEndpoint(sm, 'orphan', 'Nope-Config'),
      `Could not find endpoint configuration "${configArn('nope-config')}".`);
    await expectValidation(sm, describeEndpoint(sm, 'orphan'), notFoundText('orphan'));

    await createConfig(sm, 'cpu', onDemandVariant(G5, 1));
    assert.equal((await createEndpoint(sm, 'Dup-Endpoint', 'cpu')).EndpointArn, endpointArn('dup-endpoint'));
    for (const name of ['Dup-Endpoint', 'dup-endpoint', 'DUP-ENDPOINT']) {
      await expectValidation(sm, createEndpoint(sm, name, 'cpu'),
        `Cannot create already existing endpoint "${endpointArn('dup-endpoint')}".`);
    }
    const d = await describeEndpoint(sm, 'DUP-endpoint');
    assert.equal(d.EndpointName, 'Dup-Endpoint', 'the first endpoint is untouched');
    assert.equal(d.EndpointStatus, 'InService', 'with --provisioning-seconds 0, InService at once');
    assert.equal(d.ProductionVariants[0].CapacityReservationConfig, undefined);
    assert.deepEqual((await listEndpoints(sm)).Endpoints.map((e) => e.EndpointName), ['Dup-Endpoint']);

    await expectValidation(sm, describeEndpoint(sm, 'Never-Created'), notFoundText('never-created'));
    await expectValidation(sm, deleteEndpoint(sm, 'Never-Created'), notFoundText('never-created'));
    await expectError(rt, invoke(rt, 'Never-Created', 'x', { ContentType: 'text/plain' }),
      'ValidationError', `Endpoint Never-Created of account ${ACCOUNT} not found.`);

    // Another account: nothing to see, invoke or delete.
    await expectValidation(other, describeEndpoint(other, 'Dup-Endpoint'),
      notFoundText('dup-endpoint', { account: OTHER_ACCOUNT }));
    await expectValidation(other, deleteEndpoint(other, 'Dup-Endpoint'),
      notFoundText('dup-endpoint', { account: OTHER_ACCOUNT }));
    assert.deepEqual((await listEndpoints(other)).Endpoints, []);
    const otherRt = runtime(url, { accessKeyId: OTHER_ACCOUNT });
    await expectError(otherRt, invoke(otherRt, 'Dup-Endpoint', 'x'),
      'ValidationError', `Endpoint Dup-Endpoint of account ${OTHER_ACCOUNT} not found.`);

    // Deleting twice: the second delete finds nothing (gone at once with no provisioning delay).
    await deleteEndpoint(sm, 'dup-endpoint');
    await expectValidation(sm, describeEndpoint(sm, 'Dup-Endpoint'), notFoundText('dup-endpoint'));
    await expectValidation(sm, deleteEndpoint(sm, 'Dup-Endpoint'), notFoundText('dup-endpoint'));
    // The name is free again.
    assert.equal((await createEndpoint(sm, 'dup-endpoint', 'cpu')).EndpointArn, endpointArn('dup-endpoint'));
  });
});

test('UpdateEndpoint and UpdateEndpointWeightsAndCapacities on a missing endpoint name its ARN', async () => {
  await withEmulator(async ({ sm, other }) => {
    await createModel(sm, 'llm');
    await createConfig(sm, 'cpu', onDemandVariant(G5, 1));
    await createConfig(sm, 'cpu-v2', onDemandVariant(G5, 1));
    const twice = [{ VariantName: 'AllTraffic', DesiredInstanceCount: 2 }];

    await expectValidation(sm, updateEndpoint(sm, 'Never-Created', 'cpu-v2'), notFoundText('never-created'));
    // The endpoint is looked up before the config: a missing config does not change the answer.
    await expectValidation(sm, updateEndpoint(sm, 'Never-Created', 'No-Such-Config'), notFoundText('never-created'));
    await expectValidation(sm, scale(sm, 'Never-Created', twice), notFoundText('never-created'));

    // Another account's endpoint is missing for this one.
    await createEndpoint(sm, 'Mine', 'cpu');
    await expectValidation(other, updateEndpoint(other, 'Mine', 'cpu-v2'), notFoundText('mine', { account: OTHER_ACCOUNT }));
    await expectValidation(other, scale(other, 'Mine', twice), notFoundText('mine', { account: OTHER_ACCOUNT }));

    // An existing endpoint, a missing config.
    await expectValidation(sm, updateEndpoint(sm, 'mine', 'No-Such-Config'),
      `Could not find endpoint configuration "${configArn('no-such-config')}".`);

    // A deleted endpoint (gone at once with no provisioning delay).
    await createEndpoint(sm, 'short-lived', 'cpu');
    await deleteEndpoint(sm, 'short-lived');
    await expectValidation(sm, updateEndpoint(sm, 'short-lived', 'cpu-v2'), notFoundText('short-lived'));
    await expectValidation(sm, scale(sm, 'short-lived', twice), notFoundText('short-lived'));

    // None of the refusals changed anything.
    const d = await describeEndpoint(sm, 'mine');
    assert.deepEqual([d.EndpointName, d.EndpointStatus, d.EndpointConfigName, d.FailureReason],
      ['Mine', 'InService', 'cpu', undefined]);
    assert.deepEqual([d.ProductionVariants[0].CurrentInstanceCount, d.ProductionVariants[0].DesiredInstanceCount], [1, 1]);
    assert.deepEqual((await listEndpoints(sm)).Endpoints.map((e) => e.EndpointName), ['Mine']);
    assert.deepEqual((await listEndpoints(other)).Endpoints, []);
  });
});

test('an endpoint that is Creating, Updating or Failed cannot be updated or scaled; a Deleting one is gone', async () => {
  await withEmulator(async ({ url, sm }) => {
    await createModel(sm, 'llm');
    await createConfig(sm, 'cpu', onDemandVariant(G5, 1));
    await createConfig(sm, 'cpu-v2', onDemandVariant(G5, 1));
    await createConfig(sm, 'p5-three', onDemandVariant(P5, 3));  // more than the region's 2 on demand
    const to = (count) => [{ VariantName: 'AllTraffic', DesiredInstanceCount: count }];
    const refusedWhile = async (name, status) => {
      assert.equal((await describeEndpoint(sm, name)).EndpointStatus, status);
      await expectValidation(sm, updateEndpoint(sm, name, 'cpu-v2'), inProgressText(name));
      await expectValidation(sm, scale(sm, name, to(3)), inProgressText(name));
    };

    // Creating: for the provisioning delay.
    await createEndpoint(sm, 'Busy', 'cpu');
    await refusedWhile('Busy', 'Creating');
    let d = await describeEndpoint(sm, 'busy');
    assert.deepEqual([d.EndpointConfigName, d.LastModifiedTime.getTime()], ['cpu', T0]);
    assert.deepEqual([d.ProductionVariants[0].CurrentInstanceCount, d.ProductionVariants[0].DesiredInstanceCount], [0, 1]);

    // Updating to another config: the endpoint stays on the old config until the update is done.
    await advance(url, PROVISIONING);
    assert.equal((await updateEndpoint(sm, 'busy', 'cpu-v2')).EndpointArn, endpointArn('busy'));
    await refusedWhile('busy', 'Updating');
    d = await describeEndpoint(sm, 'busy');
    assert.deepEqual([d.EndpointConfigName, d.LastModifiedTime.getTime()], ['cpu', T0 + PROVISIONING * 1000]);
    await advance(url, PROVISIONING);
    d = await describeEndpoint(sm, 'busy');
    assert.deepEqual([d.EndpointStatus, d.EndpointConfigName, d.LastModifiedTime.getTime()],
      ['InService', 'cpu-v2', T0 + 2 * PROVISIONING * 1000]);

    // Updating its capacity: the same.
    assert.equal((await scale(sm, 'busy', to(2))).EndpointArn, endpointArn('busy'));
    await refusedWhile('busy', 'Updating');
    d = await describeEndpoint(sm, 'busy');
    assert.deepEqual([d.ProductionVariants[0].CurrentInstanceCount, d.ProductionVariants[0].DesiredInstanceCount], [1, 2]);
    await advance(url, PROVISIONING);
    d = await describeEndpoint(sm, 'busy');
    assert.deepEqual([d.EndpointStatus, d.EndpointConfigName], ['InService', 'cpu-v2']);
    assert.deepEqual([d.ProductionVariants[0].CurrentInstanceCount, d.ProductionVariants[0].DesiredInstanceCount], [2, 2]);

    // Failed: the emulator gives the in-progress text here too (the service's text for a Failed
    // endpoint is not documented).
    await createEndpoint(sm, 'broken', 'p5-three');
    await advance(url, PROVISIONING);
    assert.equal((await describeEndpoint(sm, 'broken')).FailureReason, INSUFFICIENT_CAPACITY);
    await refusedWhile('broken', 'Failed');

    // Deleting: updates find no endpoint, as DeleteEndpoint does.
    await deleteEndpoint(sm, 'busy');
    assert.equal((await describeEndpoint(sm, 'busy')).EndpointStatus, 'Deleting');
    await expectValidation(sm, updateEndpoint(sm, 'busy', 'cpu'), notFoundText('busy'));
    await expectValidation(sm, scale(sm, 'busy', to(1)), notFoundText('busy'));
    assert.equal((await describeEndpoint(sm, 'busy')).EndpointStatus, 'Deleting');
  }, { provisioningSeconds: PROVISIONING });
});

test('UpdateEndpointWeightsAndCapacities: a variant the endpoint does not have is refused, and nothing changes', async () => {
  await withEmulator(async ({ sm }) => {
    await createModel(sm, 'llm');
    await sm.send(new CreateEndpointConfigCommand({
      EndpointConfigName: 'blue-green',
      ProductionVariants: [onDemandVariant(G5, 1, { name: 'Blue' }), onDemandVariant(G5, 1, { name: 'Green' })],
    }));
    await createEndpoint(sm, 'Canary', 'blue-green');
    const unknown = `The variant Red is not part of endpoint ${endpointArn('canary')}.`;
    await expectValidation(sm, scale(sm, 'canary', [{ VariantName: 'Red', DesiredInstanceCount: 2 }]), unknown);
    await expectValidation(sm, scale(sm, 'canary', [{ VariantName: 'Red', DesiredWeight: 0.5 }]), unknown);
    // All or nothing: Blue is not scaled when Red is refused in the same request.
    await expectValidation(sm, scale(sm, 'canary', [
      { VariantName: 'Blue', DesiredInstanceCount: 3 }, { VariantName: 'Red', DesiredInstanceCount: 2 },
    ]), unknown);
    let d = await describeEndpoint(sm, 'canary');
    assert.equal(d.EndpointStatus, 'InService');
    assert.deepEqual(d.ProductionVariants.map((v) => [v.VariantName, v.CurrentInstanceCount, v.DesiredInstanceCount]),
      [['Blue', 1, 1], ['Green', 1, 1]]);

    // The same request with a variant it has goes through.
    assert.equal((await scale(sm, 'canary', [{ VariantName: 'Blue', DesiredInstanceCount: 3 }])).EndpointArn,
      endpointArn('canary'));
    d = await describeEndpoint(sm, 'canary');
    assert.equal(d.EndpointStatus, 'InService');
    assert.deepEqual(d.ProductionVariants.map((v) => [v.VariantName, v.CurrentInstanceCount, v.DesiredInstanceCount]),
      [['Blue', 3, 3], ['Green', 1, 1]]);
  });
});

test('scaling past a plan: its size is a ValidationException, what other endpoints hold is ResourceLimitExceeded', async () => {
  await withEmulator(async ({ url, sm }) => {
    await createModel(sm, 'llm');
    const plan = await buyPlan(sm, 'pair', { count: 2 });
    await clockTo(url, P0);  // the plan's start: its endpoints are InService at once
    await createConfig(sm, 'on-pair', reservedVariant(plan, 1));
    await createEndpoint(sm, 'first', 'on-pair');
    await createEndpoint(sm, 'second', 'on-pair');
    const to = (count) => [{ VariantName: 'AllTraffic', DesiredInstanceCount: count }];

    await expectValidation(sm, scale(sm, 'first', to(3)),
      'Requested instance count (3) exceeds reserved capacity (2) for training plan.');
    await expectError(sm, scale(sm, 'first', to(2)), 'ResourceLimitExceeded',
      `Requested instance count (2) exceeds available capacity (1) in training plan ${plan}.`);
    let p = await describePlan(sm, 'pair');
    assert.deepEqual([p.InUseInstanceCount, p.AvailableInstanceCount], [2, 0]);

    // Once the other endpoint is gone, its instance is free for this one.
    await deleteEndpoint(sm, 'second');
    await scale(sm, 'first', to(2));
    const d = await describeEndpoint(sm, 'first');
    assert.equal(d.EndpointStatus, 'InService');
    assert.equal(d.ProductionVariants[0].CurrentInstanceCount, 2);
    assert.equal(d.ProductionVariants[0].CapacityReservationConfig.UsedByCurrentEndpoint, 2);
    p = await describePlan(sm, 'pair');
    assert.deepEqual([p.InUseInstanceCount, p.AvailableInstanceCount], [2, 0]);

    // After the plan's end, nothing can be scaled on it.
    await clockTo(url, P0 + 7 * DAY);
    await expectValidation(sm, scale(sm, 'first', to(1)), `The capacity reservation ${plan} has expired.`);
    assert.equal((await describeEndpoint(sm, 'first')).ProductionVariants[0].DesiredInstanceCount, 2);
  });
});

test('scaling on demand past the region\'s pools is ResourceLimitExceeded with the service reason', async () => {
  await withEmulator(async ({ sm }) => {
    await createModel(sm, 'llm');
    await createConfig(sm, 'p5-one', onDemandVariant(P5, 1));
    await createEndpoint(sm, 'grows', 'p5-one');
    const to = (count) => [{ VariantName: 'AllTraffic', DesiredInstanceCount: count }];
    await expectError(sm, scale(sm, 'grows', to(3)), 'ResourceLimitExceeded', ON_DEMAND_SHORTAGE);
    await scale(sm, 'grows', to(2));  // the two zones hold one on-demand p5 each
    const d = await describeEndpoint(sm, 'grows');
    assert.deepEqual([d.EndpointStatus, d.ProductionVariants[0].CurrentInstanceCount], ['InService', 2]);
    await expectError(sm, scale(sm, 'grows', to(3)), 'ResourceLimitExceeded', ON_DEMAND_SHORTAGE);
  });
});

// ------------------------------------------------------------------------------------ invoke

test('InvokeEndpoint: a fixed model response, TargetVariant, and the variant that answered', async () => {
  await withEmulator(async ({ sm, rt }) => {
    const fixed = '{"generated_text":"A training plan reserves GPUs."}';
    await createModel(sm, 'fixed-model', { Image: IMAGE, Environment: { SAGEMAKER_EMULATOR_RESPONSE: fixed } });
    await createConfig(sm, 'fixed', onDemandVariant(G5, 1, { model: 'fixed-model', name: 'Blue' }));
    await createEndpoint(sm, 'fixed', 'fixed');
    const answer = await invoke(rt, 'fixed', '{"inputs":"anything"}', { ContentType: 'application/json', Accept: 'application/json' });
    assert.equal(decode(answer.Body), fixed);
    assert.equal(answer.InvokedProductionVariant, 'Blue');
    const targeted = await invoke(rt, 'fixed', 'x', { ContentType: 'text/plain', TargetVariant: 'Blue' });
    assert.equal(decode(targeted.Body), fixed);
    assert.equal(targeted.InvokedProductionVariant, 'Blue');
    await expectError(rt, invoke(rt, 'fixed', 'x', { ContentType: 'text/plain', TargetVariant: 'Green' }),
      'ValidationError', /Green/);
  });
});

// ------------------------------------------------------------------------------------ capacity

test('on-demand variants share the region\'s pools; a shortage fails with the service reason', async () => {
  await withEmulator(async ({ sm, rt }) => {
    await createModel(sm, 'llm');
    await createConfig(sm, 'p5-two', onDemandVariant(P5, 2));
    await createConfig(sm, 'p5-one', onDemandVariant(P5, 1));
    await createConfig(sm, 'p5-three', onDemandVariant(P5, 3));

    await createEndpoint(sm, 'too-big', 'p5-three');  // 3 > 1 + 1 on demand in the region
    let d = await describeEndpoint(sm, 'too-big');
    assert.equal(d.EndpointStatus, 'Failed');
    assert.equal(d.FailureReason, INSUFFICIENT_CAPACITY);
    assert.equal(d.ProductionVariants[0].CurrentInstanceCount, 0);
    assert.equal(d.ProductionVariants[0].DesiredInstanceCount, 3);

    await createEndpoint(sm, 'both-zones', 'p5-two');  // the zones' pools add up to 2
    d = await describeEndpoint(sm, 'both-zones');
    assert.equal(d.EndpointStatus, 'InService');
    assert.equal(d.FailureReason, undefined);
    assert.equal(d.ProductionVariants[0].CurrentInstanceCount, 2);
    assert.equal(d.ProductionVariants[0].CapacityReservationConfig, undefined);

    await createEndpoint(sm, 'one-more', 'p5-one');  // the pools are held by both-zones
    d = await describeEndpoint(sm, 'one-more');
    assert.equal(d.EndpointStatus, 'Failed');
    assert.equal(d.FailureReason, INSUFFICIENT_CAPACITY);
    await expectError(rt, invoke(rt, 'one-more', 'x', { ContentType: 'text/plain' }), 'ValidationError', /not in service/);
    const started = Date.now();
    const failed = await expectWaiterFailure(waitUntilEndpointInService({ client: sm, ...FAST, maxWaitTime: 30 }, { EndpointName: 'one-more' }));
    assert.ok(Date.now() - started < 2000, 'a Failed endpoint stops the waiter at once');
    assert.equal(failed.reason.FailureReason, INSUFFICIENT_CAPACITY);

    // Deleting the holder frees its instances.
    await deleteEndpoint(sm, 'both-zones');
    await createEndpoint(sm, 'after-delete', 'p5-one');
    assert.equal((await describeEndpoint(sm, 'after-delete')).EndpointStatus, 'InService');

    // An instance type the capacity file does not list is unlimited.
    await createConfig(sm, 'g5-many', onDemandVariant(G5, 100));
    await createEndpoint(sm, 'g5-many', 'g5-many');
    d = await describeEndpoint(sm, 'g5-many');
    assert.equal(d.EndpointStatus, 'InService');
    assert.equal(d.ProductionVariants[0].CurrentInstanceCount, 100);
  });
});

test('an endpoint on a plan that has not started stays Creating until the plan\'s StartTime', async () => {
  await withEmulator(async ({ url, sm, rt }) => {
    await createModel(sm, 'llm');
    const start = P0 + 2 * DAY;
    const plan = await buyPlan(sm, 'later-plan', { count: 1, startMs: start });
    // Just bought, the plan is Pending (its payment takes 30 s of clock time); it can be named
    // already, and the endpoint waits for its start as it would on a Scheduled plan.
    let p = await describePlan(sm, 'later-plan');
    assert.equal(p.Status, 'Pending');
    assert.equal(p.StartTime.getTime(), start);
    await createConfig(sm, 'later', reservedVariant(plan, 1));
    await createEndpoint(sm, 'early-bird', 'later');

    let d = await describeEndpoint(sm, 'early-bird');
    assert.equal(d.EndpointStatus, 'Creating');
    assert.equal(d.ProductionVariants[0].CurrentInstanceCount, 0);
    await completePayment(url);
    p = await describePlan(sm, 'later-plan');
    assert.equal(p.Status, 'Scheduled');
    d = await describeEndpoint(sm, 'early-bird');
    assert.equal(d.EndpointStatus, 'Creating', 'paid, the plan has still not started');
    assert.equal(d.ProductionVariants[0].CurrentInstanceCount, 0);
    // The waiter keeps polling and gives up at maxWaitTime.
    const timedOut = await errorOf(waitUntilEndpointInService(
      { client: sm, minDelay: 0.1, maxDelay: 0.2, maxWaitTime: 1 }, { EndpointName: 'early-bird' }));
    assert.equal(timedOut.name, 'TimeoutError', timedOut.message);
    await expectError(rt, invoke(rt, 'early-bird', 'x', { ContentType: 'text/plain' }), 'ValidationError', /not in service/);

    await clockTo(url, start - 1000);
    assert.equal((await describeEndpoint(sm, 'early-bird')).EndpointStatus, 'Creating');
    assert.deepEqual((await listEndpoints(sm, { StatusEquals: 'Creating' })).Endpoints.map((e) => e.EndpointName), ['early-bird']);
    await advance(url, 1);
    d = await describeEndpoint(sm, 'early-bird');
    assert.equal(d.EndpointStatus, 'InService');
    assert.equal(d.CreationTime.getTime(), T0);
    assert.equal(d.LastModifiedTime.getTime(), start);
    assert.equal(d.ProductionVariants[0].CurrentInstanceCount, 1);
    assert.equal(d.ProductionVariants[0].CapacityReservationConfig.UsedByCurrentEndpoint, 1);
    p = await describePlan(sm, 'later-plan');
    assert.deepEqual([p.Status, p.InUseInstanceCount, p.AvailableInstanceCount], ['Active', 1, 0]);
    const answer = await invoke(rt, 'early-bird', 'ready?', { ContentType: 'text/plain' });
    assert.equal(decode(answer.Body), 'ready?');
    const waited = await waitUntilEndpointInService({ client: sm, ...FAST }, { EndpointName: 'early-bird' });
    assert.equal(waited.state, 'SUCCESS');
  });
});

// ------------------------------------------------------------------------------------ listing

// Eight endpoints created one minute apart: on demand (InService), on-demand p5 beyond the pools
// (Failed) and on a plan that starts the next plan day, 2027-01-21 11:30 UTC (Creating until then).
const LISTED = [
  ['web-b', 'cpu'], ['api-a', 'short'], ['web-a', 'cpu'], ['batch-x', 'later'],
  ['api-b', 'cpu'], ['batch-y', 'short'], ['web-c', 'cpu'], ['api-c', 'later'],
];
const createdAt = (name) => T0 + MINUTE * LISTED.findIndex(([n]) => n === name);
const withConfig = (config) => LISTED.filter(([, c]) => c === config).map(([n]) => n);
const newestFirst = (names) => [...names].sort((a, b) => createdAt(b) - createdAt(a));

async function createListed(url, sm) {
  await createModel(sm, 'llm');
  const plan = await buyPlan(sm, 'tomorrow', { count: 2, startMs: P0 + DAY });
  await createConfig(sm, 'cpu', onDemandVariant(G5, 1));
  await createConfig(sm, 'short', onDemandVariant(P5, 3));
  await createConfig(sm, 'later', reservedVariant(plan, 1));
  for (const [i, [name, config]] of LISTED.entries()) {
    if (i > 0) await advance(url, 60);
    await createEndpoint(sm, name, config);
  }
}

async function collect(client, input, pageSize) {
  const pages = [];
  for await (const page of paginateListEndpoints({ client, pageSize }, input)) pages.push(page);
  return pages;
}
const names = (pages) => pages.flatMap((p) => p.Endpoints.map((e) => e.EndpointName));

test('ListEndpoints: StatusEquals, pages, sorting and name filter', async () => {
  await withEmulator(async ({ url, sm }) => {
    await createListed(url, sm);

    const inService = await collect(sm, { StatusEquals: 'InService' }, 3);
    assert.deepEqual(inService.map((p) => p.Endpoints.length), [3, 1]);
    assert.deepEqual(names(inService), newestFirst(withConfig('cpu')));
    assert.equal(typeof inService[0].NextToken, 'string');
    assert.equal(inService[1].NextToken, undefined);
    for (const e of inService.flatMap((p) => p.Endpoints)) {
      assert.equal(e.EndpointArn, endpointArn(e.EndpointName));
      assert.equal(e.EndpointStatus, 'InService');
      assert.equal(e.CreationTime.getTime(), createdAt(e.EndpointName), e.EndpointName);
      assert.equal(e.LastModifiedTime.getTime(), createdAt(e.EndpointName), e.EndpointName);
    }
    const failed = await collect(sm, { StatusEquals: 'Failed' }, 1);
    assert.deepEqual(failed.map((p) => p.Endpoints.length), [1, 1]);
    assert.deepEqual(names(failed), ['batch-y', 'api-a']);
    assert.deepEqual(names(await collect(sm, { StatusEquals: 'Creating', SortOrder: 'Ascending' }, 5)), ['batch-x', 'api-c']);
    assert.deepEqual(names(await collect(sm, { StatusEquals: 'Deleting' }, 5)), []);

    // Every endpoint once, by name, in pages of 3; and newest first by default.
    const byName = await collect(sm, { SortBy: 'Name', SortOrder: 'Ascending' }, 3);
    assert.deepEqual(byName.map((p) => p.Endpoints.length), [3, 3, 2]);
    assert.deepEqual(names(byName), LISTED.map(([n]) => n).sort());
    assert.deepEqual(names(await collect(sm, { SortBy: 'Name', SortOrder: 'Descending' }, 5)), LISTED.map(([n]) => n).sort().reverse());
    assert.deepEqual(names(await collect(sm, {}, 4)), newestFirst(LISTED.map(([n]) => n)));
    const first = await listEndpoints(sm, { MaxResults: 5 });
    assert.deepEqual(first.Endpoints.map((e) => e.EndpointName), newestFirst(LISTED.map(([n]) => n)).slice(0, 5));
    const rest = await listEndpoints(sm, { MaxResults: 5, NextToken: first.NextToken });
    assert.deepEqual(rest.Endpoints.map((e) => e.EndpointName), newestFirst(LISTED.map(([n]) => n)).slice(5));
    assert.equal(rest.NextToken, undefined);

    const byStatus = await collect(sm, { SortBy: 'Status', SortOrder: 'Ascending' }, 3);
    assert.deepEqual(byStatus.flatMap((p) => p.Endpoints.map((e) => e.EndpointStatus)),
      ['Creating', 'Creating', 'Failed', 'Failed', 'InService', 'InService', 'InService', 'InService']);
    assert.deepEqual([...names(byStatus)].sort(), LISTED.map(([n]) => n).sort(), 'every endpoint exactly once');
    const byStatusDesc = await listEndpoints(sm, { SortBy: 'Status', SortOrder: 'Descending' });
    assert.deepEqual(byStatusDesc.Endpoints.map((e) => e.EndpointStatus),
      ['InService', 'InService', 'InService', 'InService', 'Failed', 'Failed', 'Creating', 'Creating']);

    const list = async (input) => (await listEndpoints(sm, input)).Endpoints.map((e) => e.EndpointName);
    assert.deepEqual(await list({ NameContains: 'API' }), ['api-c', 'api-b', 'api-a']);
    assert.deepEqual(await list({ NameContains: 'ch-Y', SortBy: 'Name', SortOrder: 'Ascending' }), ['batch-y']);
    assert.deepEqual(await list({ NameContains: 'b-', SortBy: 'Name', SortOrder: 'Ascending' }), ['web-a', 'web-b', 'web-c']);
    assert.deepEqual(await list({ NameContains: 'api', StatusEquals: 'InService' }), ['api-b']);
    assert.deepEqual(await list({ NameContains: 'nothing-like-this' }), []);
  });
});

test('ListEndpoints: CreationTime and LastModifiedTime bounds are exclusive and follow status changes', async () => {
  await withEmulator(async ({ url, sm }) => {
    await createListed(url, sm);
    const list = async (input) => (await listEndpoints(sm, { SortOrder: 'Ascending', ...input })).Endpoints.map((e) => e.EndpointName);
    const all = LISTED.map(([n]) => n);
    const at = (name, deltaMs = 0) => new Date(createdAt(name) + deltaMs);
    assert.deepEqual(await list({ CreationTimeBefore: at('batch-x') }), all.slice(0, 3));
    assert.deepEqual(await list({ CreationTimeBefore: at('batch-x', 1000) }), all.slice(0, 4));
    assert.deepEqual(await list({ CreationTimeAfter: at('batch-y') }), all.slice(6));
    assert.deepEqual(await list({ CreationTimeAfter: at('batch-y', -1000) }), all.slice(5));
    assert.deepEqual(await list({ CreationTimeAfter: at('web-a'), CreationTimeBefore: at('web-c') }), ['batch-x', 'api-b', 'batch-y']);

    // The plan starts: the two Creating endpoints turn InService, which moves their LastModifiedTime.
    const start = P0 + DAY;
    await clockTo(url, start);
    assert.deepEqual(await list({ StatusEquals: 'Creating' }), []);
    assert.deepEqual(await list({ StatusEquals: 'InService' }),
      ['web-b', 'web-a', 'batch-x', 'api-b', 'web-c', 'api-c']);
    assert.deepEqual(await list({ LastModifiedTimeAfter: new Date(start - 1000) }), ['batch-x', 'api-c']);
    assert.deepEqual(await list({ LastModifiedTimeAfter: new Date(start) }), []);
    assert.deepEqual(await list({ LastModifiedTimeBefore: new Date(start) }), ['web-b', 'api-a', 'web-a', 'api-b', 'batch-y', 'web-c']);
    assert.deepEqual(await list({ LastModifiedTimeBefore: new Date(start + 1000), StatusEquals: 'InService', NameContains: 'BATCH' }), ['batch-x']);
    const d = await describeEndpoint(sm, 'api-c');
    assert.equal(d.LastModifiedTime.getTime(), start);
    assert.equal(d.ProductionVariants[0].CapacityReservationConfig.AvailableInstanceCount, 0);
    assert.deepEqual((await describePlan(sm, 'tomorrow')).InUseInstanceCount, 2);
  });
});

test('LastModifiedTime is when the status changed, also when the clock jumps past that moment', async () => {
  // Statuses settle at the start of each request, but the change happened when the provisioning
  // delay ran out or the plan started, not when a later request noticed it.
  await withEmulator(async ({ url, sm }) => {
    await createModel(sm, 'llm');
    const start = P0 + DAY;
    const plan = await buyPlan(sm, 'tomorrow', { count: 1, startMs: start });
    await createConfig(sm, 'cpu', onDemandVariant(G5, 1));
    await createConfig(sm, 'later', reservedVariant(plan, 1));
    await createEndpoint(sm, 'quick', 'cpu');        // InService at T0 + 600 s
    await createEndpoint(sm, 'on-plan', 'later');    // InService at the plan's start, 2027-01-21 11:30

    await clockTo(url, T0 + HOUR);  // well past the provisioning delay
    let d = await describeEndpoint(sm, 'quick');
    assert.equal(d.EndpointStatus, 'InService');
    assert.equal(d.LastModifiedTime.toISOString(), new Date(T0 + PROVISIONING * 1000).toISOString(),
      'InService since T0 + 600 s');

    await clockTo(url, start + 3 * HOUR);  // well past the plan's start
    const listed = (await listEndpoints(sm, { SortBy: 'Name', SortOrder: 'Ascending' })).Endpoints;
    assert.deepEqual(listed.map((e) => [e.EndpointName, e.EndpointStatus, e.LastModifiedTime.toISOString()]), [
      ['on-plan', 'InService', new Date(start).toISOString()],
      ['quick', 'InService', new Date(T0 + PROVISIONING * 1000).toISOString()],
    ]);
    d = await describeEndpoint(sm, 'on-plan');
    assert.equal(d.LastModifiedTime.toISOString(), new Date(start).toISOString(), 'InService since the plan started');
    const names = async (input) => (await listEndpoints(sm, input)).Endpoints.map((e) => e.EndpointName);
    assert.deepEqual(await names({ LastModifiedTimeAfter: new Date(start) }), []);
    assert.deepEqual(await names({ LastModifiedTimeBefore: new Date(start + 1000), SortBy: 'Name' }), ['quick', 'on-plan']);
  }, { provisioningSeconds: PROVISIONING });
});
