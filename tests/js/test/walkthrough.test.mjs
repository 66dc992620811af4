// The AWS blog walkthrough of inference endpoints on training-plan capacity, as one end-to-end test
// through the AWS SDK for JavaScript v3: the same lifecycle as examples/walkthrough.sh (which runs
// it with the AWS CLI). Reserve a week of two ml.p5.48xlarge for endpoints, deploy model v1 on one
// of them, invoke, update to model v2, scale 1 -> 2 inside the plan (3 is refused), let the
// reservation expire (invocations become a ModelError), migrate to on-demand capacity, invoke
// again, and clean up; the plan stays listed, Expired, with its fee.
//
// The emulator runs on a capacity file of its own, with the clock frozen at 2027-01-15 and a
// provisioning delay, so that every waiter sees the endpoint Creating / Updating / Deleting first
// and returns only once the clock passed the delay:
//   us-west-2  us-west-2a  ml.p5.48xlarge  2 reservable, 1 on demand  (55.00 per plan hour)
//              us-west-2b  ml.p5.48xlarge  1 reservable, 0 on demand
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateModelCommand,
  CreateTrainingPlanCommand,
  DeleteEndpointCommand,
  DeleteEndpointConfigCommand,
  DescribeEndpointCommand,
  DescribeEndpointConfigCommand,
  DescribeTrainingPlanCommand,
  ListEndpointConfigsCommand,
  ListEndpointsCommand,
  ListTrainingPlansCommand,
  SearchTrainingPlanOfferingsCommand,
  UpdateEndpointCommand,
  UpdateEndpointWeightsAndCapacitiesCommand,
  waitUntilEndpointDeleted,
  waitUntilEndpointInService,
} from '@aws-sdk/client-sagemaker';
import { InvokeEndpointCommand } from '@aws-sdk/client-sagemaker-runtime';
import { assertRawError, modelArn } from '../lib/emulator.mjs';
import {
  HOUR, DAY, ACCOUNT, REGION, P5, P5_PRICES, PENDING_MESSAGE, ROLE, SCHEDULED_MESSAGE, clockTo, completePayment, configArn, endpointArn, expectError,
  expectValidation, onDemandVariant, planArn, reservedVariant, setClock, waitAcrossClockMove, withEmulator,
  writeCapacityFile,
} from '../lib/fixtures.mjs';

const CLOCK_START = '2027-01-15T00:00:00Z';
const WINDOW_START = Date.parse('2027-01-20T00:00:00Z');  // the blog's "starting between Jan 20 ..."
const WINDOW_END = Date.parse('2027-01-31T00:00:00Z');    // "... and ending before Jan 31"
// "Training Plans always end at 11:30 AM UTC on the final day of the reservation": the first plan
// day in the window starts at 11:30 UTC on Jan 20.
const FIRST_PLAN_DAY = Date.parse('2027-01-20T11:30:00Z');
const PROVISIONING = 600;
const PLAN = 'p5-endpoint-plan';
const ENDPOINT = 'demo-endpoint';
const FEE = '18480.00';  // 168 h x 2 x 55.00
const RESERVATION_EXPIRED = 'Endpoint capacity reservation has expired. Please update endpoint configuration.';

const CAPACITY_FILE = writeCapacityFile({
  regions: {
    [REGION]: {
      'us-west-2a': { [P5]: { reservable: 2, on_demand: 1 } },
      'us-west-2b': { [P5]: { reservable: 1, on_demand: 0 } },
    },
  },
  prices: { [P5]: P5_PRICES },
});

const iso = (ms) => new Date(ms).toISOString();
const image = (model) => `${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com/${model}:1`;
const decode = (body) => {
  assert.ok(body instanceof Uint8Array, `the body is a Uint8Array, not ${body?.constructor?.name}`);
  return new TextDecoder().decode(body);
};
const header = (raw, name) => raw.headers[name.toLowerCase()] ?? raw.headers[name];

test('the AWS walkthrough: reserve -> deploy -> invoke -> update -> scale -> expire -> on demand -> clean up', async () => {
  await withEmulator(async ({ url, sm, rt }) => {
    const describeEndpoint = () => sm.send(new DescribeEndpointCommand({ EndpointName: ENDPOINT }));
    const describePlan = () => sm.send(new DescribeTrainingPlanCommand({ TrainingPlanName: PLAN }));
    const createConfig = (name, variant) =>
      sm.send(new CreateEndpointConfigCommand({ EndpointConfigName: name, ProductionVariants: [variant] }));
    const updateEndpoint = (config) =>
      sm.send(new UpdateEndpointCommand({ EndpointName: ENDPOINT, EndpointConfigName: config }));
    const scaleTo = (count) => sm.send(new UpdateEndpointWeightsAndCapacitiesCommand({
      EndpointName: ENDPOINT, DesiredWeightsAndCapacities: [{ VariantName: 'AllTraffic', DesiredInstanceCount: count }],
    }));
    const invoke = (body) => rt.send(new InvokeEndpointCommand({
      EndpointName: ENDPOINT, Body: new TextEncoder().encode(body), ContentType: 'text/csv',
    }));
    // Invokes with `body` and checks the echo, its content type and the variant that answered,
    // as the SDK decodes them and as they went over the wire.
    const invokeEchoes = async (body) => {
      const answer = await invoke(body);
      assert.equal(answer.$metadata.httpStatusCode, 200);
      assert.equal(decode(answer.Body), body);
      assert.equal(answer.ContentType, 'text/csv');
      assert.equal(answer.InvokedProductionVariant, 'AllTraffic');
      assert.equal(rt.lastRaw.status, 200);
      assert.equal(header(rt.lastRaw, 'x-Amzn-Invoked-Production-Variant'), 'AllTraffic');
      assert.equal(rt.lastRaw.text, body);
    };
    // Runs the SDK waiter `waiterFn` on the endpoint while it is `pending`, moves the clock past
    // the provisioning delay, and checks that the waiter saw `pending` and then `last`.
    const waitThroughDelay = async (waiterFn, pending, last) => {
      const [{ result, seen }] = await waitAcrossClockMove(url, waiterFn, [ENDPOINT], pending, PROVISIONING);
      assert.equal(result.state, 'SUCCESS', JSON.stringify(result));
      assert.equal(seen.at(-1), last, seen.join());
      assert.ok(seen.length >= 3 && seen.slice(0, -1).every((s) => s === pending), seen.join());
    };
    const variantOf = async () => {
      const d = await describeEndpoint();
      assert.equal(d.ProductionVariants.length, 1);
      return d.ProductionVariants[0];
    };
    const reservation = (inUse, used) => ({
      MlReservationArn: planArn(PLAN), CapacityReservationPreference: 'capacity-reservations-only',
      TotalInstanceCount: 2, AvailableInstanceCount: 2 - inUse, UsedByCurrentEndpoint: used,
    });

    // 1. Search a week of two ml.p5.48xlarge for an endpoint, starting Jan 20-24.
    const { TrainingPlanOfferings: offerings } = await sm.send(new SearchTrainingPlanOfferingsCommand({
      TargetResources: ['endpoint'], InstanceType: P5, InstanceCount: 2, DurationHours: 168,
      StartTimeAfter: new Date(WINDOW_START), EndTimeBefore: new Date(WINDOW_END),
    }));
    // Only us-west-2a holds two; its earliest window and two more, a day apart each, all from
    // 11:30 UTC.
    assert.deepEqual(offerings.map((o) => {
      const [rc] = o.ReservedCapacityOfferings;
      return [rc.AvailabilityZone, iso(rc.StartTime), iso(rc.EndTime), rc.InstanceType, rc.InstanceCount];
    }), [0, 1, 2].map((day) =>
      ['us-west-2a', iso(FIRST_PLAN_DAY + day * DAY), iso(FIRST_PLAN_DAY + day * DAY + 168 * HOUR), P5, 2]));
    for (const o of offerings) {
      assert.deepEqual([o.UpfrontFee, o.CurrencyCode, o.DurationHours, o.TargetResources], [FEE, 'USD', 168, ['endpoint']]);
    }

    // 2. Buy the earliest one. "When created, the plan initially enters a Pending state and
    //    remains there until the reservation process is complete" (Reserve the best training
    //    plan): Pending while the payment is processed (30 s of clock time), then a plan that is
    //    Scheduled until Jan 20, 11:30 UTC.
    const bought = await sm.send(new CreateTrainingPlanCommand({
      TrainingPlanName: PLAN, TrainingPlanOfferingId: offerings[0].TrainingPlanOfferingId,
    }));
    assert.equal(bought.TrainingPlanArn, `arn:aws:sagemaker:${REGION}:${ACCOUNT}:training-plan/${PLAN}`);
    const plan = bought.TrainingPlanArn;
    let p = await describePlan();
    assert.deepEqual(
      [p.Status, p.StatusMessage, iso(p.StartTime), iso(p.EndTime), p.TotalInstanceCount, p.InUseInstanceCount, p.UpfrontFee, p.TargetResources],
      ['Pending', PENDING_MESSAGE, iso(FIRST_PLAN_DAY), iso(FIRST_PLAN_DAY + 7 * DAY), 2, 0, FEE, ['endpoint']]);
    assert.equal(p.ReservedCapacitySummaries[0].Status, 'Pending');
    assert.equal((await completePayment(url)).now, '2027-01-15T00:00:30Z');
    p = await describePlan();
    assert.deepEqual(
      [p.Status, p.StatusMessage, iso(p.StartTime), iso(p.EndTime), p.TotalInstanceCount, p.InUseInstanceCount, p.UpfrontFee, p.TargetResources],
      ['Scheduled', SCHEDULED_MESSAGE, iso(FIRST_PLAN_DAY), iso(FIRST_PLAN_DAY + 7 * DAY), 2, 0, FEE, ['endpoint']]);
    assert.equal(p.ReservedCapacitySummaries[0].Status, 'Scheduled');
    const planEnd = p.EndTime.getTime();
    assert.equal((await clockTo(url, FIRST_PLAN_DAY - 1000)).now, '2027-01-20T11:29:59Z');
    assert.equal((await describePlan()).Status, 'Scheduled');
    const clock = await clockTo(url, FIRST_PLAN_DAY);
    assert.equal(clock.now, '2027-01-20T11:30:00Z');
    assert.equal((await describePlan()).Status, 'Active');

    // 3. Models v1 and v2.
    for (const model of ['model-v1', 'model-v2']) {
      const created = await sm.send(new CreateModelCommand({
        ModelName: model, PrimaryContainer: { Image: image(model) }, ExecutionRoleArn: ROLE,
      }));
      assert.equal(created.ModelArn, modelArn(model));
    }

    // 4. An endpoint config whose variant takes one instance of the plan.
    const v1 = reservedVariant(plan, 1, { model: 'model-v1' });
    assert.deepEqual(v1.CapacityReservationConfig,
      { CapacityReservationPreference: 'capacity-reservations-only', MlReservationArn: plan });
    assert.equal((await createConfig('config-v1', v1)).EndpointConfigArn, configArn('config-v1'));

    // 5. The endpoint: Creating for the provisioning delay; the SDK waiter returns once InService.
    const created = await sm.send(new CreateEndpointCommand({ EndpointName: ENDPOINT, EndpointConfigName: 'config-v1' }));
    assert.equal(created.EndpointArn, endpointArn(ENDPOINT));
    assert.equal((await describeEndpoint()).EndpointStatus, 'Creating');
    await waitThroughDelay(waitUntilEndpointInService, 'Creating', 'InService');
    let d = await describeEndpoint();
    assert.deepEqual([d.EndpointStatus, d.EndpointConfigName, d.FailureReason], ['InService', 'config-v1', undefined]);
    assert.deepEqual(await variantOf(), {
      VariantName: 'AllTraffic', CurrentWeight: 1, DesiredWeight: 1, CurrentInstanceCount: 1, DesiredInstanceCount: 1,
      CapacityReservationConfig: reservation(1, 1),
    });

    // 6. Invoke: the model echoes the body with its content type, and names the variant.
    await invokeEchoes('1,2,3');

    // 7. Update to model v2, still on the plan. The endpoint is Updating on config-v1 until the
    //    delay is over, then InService on config-v2.
    await createConfig('config-v2', reservedVariant(plan, 1, { model: 'model-v2' }));
    assert.equal((await updateEndpoint('config-v2')).EndpointArn, endpointArn(ENDPOINT));
    d = await describeEndpoint();
    assert.deepEqual([d.EndpointStatus, d.EndpointConfigName], ['Updating', 'config-v1']);
    await waitThroughDelay(waitUntilEndpointInService, 'Updating', 'InService');
    d = await describeEndpoint();
    assert.deepEqual([d.EndpointStatus, d.EndpointConfigName, d.FailureReason], ['InService', 'config-v2', undefined]);
    assert.deepEqual((await variantOf()).CapacityReservationConfig, reservation(1, 1));
    await invokeEchoes('7,8,9');

    // 8. Scale 1 -> 2 inside the 2-instance plan.
    assert.equal((await scaleTo(2)).EndpointArn, endpointArn(ENDPOINT));
    let v = await variantOf();
    assert.deepEqual([(await describeEndpoint()).EndpointStatus, v.CurrentInstanceCount, v.DesiredInstanceCount],
      ['Updating', 1, 2]);
    await waitThroughDelay(waitUntilEndpointInService, 'Updating', 'InService');
    v = await variantOf();
    assert.deepEqual([v.CurrentInstanceCount, v.DesiredInstanceCount, v.CapacityReservationConfig],
      [2, 2, reservation(2, 2)]);
    p = await describePlan();
    assert.deepEqual([p.InUseInstanceCount, p.AvailableInstanceCount], [2, 0]);

    // 9. 3 is more than the plan holds: refused, and nothing changes.
    await expectValidation(sm, scaleTo(3), 'Requested instance count (3) exceeds reserved capacity (2) for training plan.');
    d = await describeEndpoint();
    assert.deepEqual([d.EndpointStatus, d.ProductionVariants[0].CurrentInstanceCount, d.ProductionVariants[0].DesiredInstanceCount],
      ['InService', 2, 2]);

    // 10. The reservation runs out: one second before its end the endpoint still answers; past its
    //     end it is still InService, but invocations are a ModelError (HTTP 424).
    await clockTo(url, planEnd - 1000);
    await invokeEchoes('4,5,6');
    const moved = await setClock(url, { advance_seconds: 3601 });
    assert.equal(moved.now, iso(planEnd + HOUR).replace('.000Z', 'Z'));
    assert.equal((await describePlan()).Status, 'Expired');
    assert.equal((await describeEndpoint()).EndpointStatus, 'InService');
    const expired = await expectError(rt, invoke('1,2,3'), 'ModelError', RESERVATION_EXPIRED, { status: 424 });
    assert.equal(expired.$metadata.httpStatusCode, 424);
    assertRawError(rt, { status: 424, code: 'ModelError', message: RESERVATION_EXPIRED });

    // 11. Migrate to on-demand capacity (model v2, one ml.p5.48xlarge of the region's pool).
    await createConfig('config-on-demand', onDemandVariant(P5, 1, { model: 'model-v2' }));
    assert.equal((await updateEndpoint('config-on-demand')).EndpointArn, endpointArn(ENDPOINT));
    assert.equal((await describeEndpoint()).EndpointStatus, 'Updating');
    await waitThroughDelay(waitUntilEndpointInService, 'Updating', 'InService');
    d = await describeEndpoint();
    assert.deepEqual([d.EndpointStatus, d.EndpointConfigName, d.FailureReason], ['InService', 'config-on-demand', undefined]);
    assert.deepEqual(d.ProductionVariants, [{
      VariantName: 'AllTraffic', CurrentWeight: 1, DesiredWeight: 1, CurrentInstanceCount: 1, DesiredInstanceCount: 1,
    }]);
    assert.equal((await describePlan()).InUseInstanceCount, 0, 'the plan\'s instances were given back');
    await invokeEchoes('4,5,6');

    // 12. Clean up: the endpoint is Deleting for the delay, then gone; then its configs.
    assert.equal((await sm.send(new DeleteEndpointCommand({ EndpointName: ENDPOINT }))).$metadata.httpStatusCode, 200);
    assert.equal((await describeEndpoint()).EndpointStatus, 'Deleting');
    const [{ result, seen }] = await waitAcrossClockMove(url, waitUntilEndpointDeleted, [ENDPOINT], 'Deleting', PROVISIONING);
    assert.equal(result.state, 'SUCCESS', JSON.stringify(result));
    assert.equal(seen.at(-1), 'error:ValidationException', seen.join());
    await expectValidation(sm, describeEndpoint(), `Could not find endpoint "${endpointArn(ENDPOINT)}".`);
    assert.deepEqual((await sm.send(new ListEndpointsCommand({}))).Endpoints, []);
    for (const config of ['config-v1', 'config-v2', 'config-on-demand']) {
      await sm.send(new DeleteEndpointConfigCommand({ EndpointConfigName: config }));
      await expectValidation(sm, sm.send(new DescribeEndpointConfigCommand({ EndpointConfigName: config })),
        `Could not find endpoint configuration "${configArn(config)}".`);
    }
    assert.deepEqual((await sm.send(new ListEndpointConfigsCommand({}))).EndpointConfigs, []);

    // 13. The plan stays listed, Expired, with its fee: nothing is refunded.
    const { TrainingPlanSummaries: plans } = await sm.send(new ListTrainingPlansCommand({}));
    assert.deepEqual(plans.map((s) => [s.TrainingPlanName, s.TrainingPlanArn, s.Status, s.UpfrontFee, s.CurrencyCode]),
      [[PLAN, plan, 'Expired', FEE, 'USD']]);
  }, { capacityFile: CAPACITY_FILE, clockStart: CLOCK_START, provisioningSeconds: PROVISIONING });
});
