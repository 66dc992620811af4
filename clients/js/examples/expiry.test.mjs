// Buy a week of GPU capacity, deploy an endpoint on it, and see what callers get once the
// reservation runs out, on the emulator's virtual clock (frozen, so nothing moves unless told).
// Run: SAGEMAKER_EMULATOR_BINARY=/path/to/sagemaker-emulator node --test expiry.test.mjs
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  CreateEndpointCommand, CreateEndpointConfigCommand, CreateModelCommand, CreateTrainingPlanCommand,
  SageMakerClient, SearchTrainingPlanOfferingsCommand, waitUntilEndpointInService,
} from '@aws-sdk/client-sagemaker';
import { InvokeEndpointCommand, SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { useEmulator } from 'sagemaker-emulator/node-test';

// --check-responses: the emulator also checks its own answers against the AWS API models.
const emu = useEmulator({ args: ['--clock-start', '2027-01-15T00:00:00Z', '--frozen-clock', '--check-responses'] });

test('an endpoint on a training plan fails with ModelError once the plan expires', async () => {
  const sm = new SageMakerClient(emu.clientConfig());
  const runtime = new SageMakerRuntimeClient(emu.clientConfig());

  const { TrainingPlanOfferings: [offering] } = await sm.send(new SearchTrainingPlanOfferingsCommand({
    TargetResources: ['endpoint'], InstanceType: 'ml.p5.48xlarge', InstanceCount: 1, DurationHours: 168,
    StartTimeAfter: new Date('2027-01-20T00:00:00Z'), EndTimeBefore: new Date('2027-01-31T00:00:00Z'),
  }));
  const { TrainingPlanArn } = await sm.send(new CreateTrainingPlanCommand({
    TrainingPlanName: 'p5-week', TrainingPlanOfferingId: offering.TrainingPlanOfferingId,
  }));
  await emu.setClock(offering.ReservedCapacityOfferings[0].StartTime);  // the plan is Active now

  await sm.send(new CreateModelCommand({
    ModelName: 'demo',
    PrimaryContainer: { Image: `${emu.accountId}.dkr.ecr.${emu.region}.amazonaws.com/demo:1` },
    ExecutionRoleArn: `arn:aws:iam::${emu.accountId}:role/demo`,
  }));
  await sm.send(new CreateEndpointConfigCommand({
    EndpointConfigName: 'demo',
    ProductionVariants: [{
      VariantName: 'AllTraffic', ModelName: 'demo', InstanceType: 'ml.p5.48xlarge', InitialInstanceCount: 1,
      CapacityReservationConfig: { CapacityReservationPreference: 'capacity-reservations-only', MlReservationArn: TrainingPlanArn },
    }],
  }));
  await sm.send(new CreateEndpointCommand({ EndpointName: 'demo', EndpointConfigName: 'demo' }));
  await waitUntilEndpointInService({ client: sm, maxWaitTime: 60 }, { EndpointName: 'demo' });

  const invoke = () => runtime.send(new InvokeEndpointCommand({ EndpointName: 'demo', ContentType: 'text/csv', Body: '1,2,3' }));
  assert.equal(new TextDecoder().decode((await invoke()).Body), '1,2,3');  // without a real container, it echoes

  await emu.advance(7 * 24 * 3600);
  await assert.rejects(invoke(), {
    name: 'ModelError',
    message: 'Endpoint capacity reservation has expired. Please update endpoint configuration.',
  });
});
