// What a TypeScript user writes, compiled by types.test.mjs against the installed package and the
// pinned SDK: it must type-check, and every @ts-expect-error line must really be an error.
import { SageMakerClient } from '@aws-sdk/client-sagemaker';
import { SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { EmulatorAdminError, connectEmulator, startEmulator } from 'sagemaker-emulator';
import type { CapacityView, Clock, EmulatorHandle, Pool } from 'sagemaker-emulator';
import { useEmulator } from 'sagemaker-emulator/node-test';

export async function typical(): Promise<void> {
  const emu: EmulatorHandle = await startEmulator({ args: ['--frozen-clock'], env: { TZ: 'UTC' }, timeoutMs: 1000 });
  const sm = new SageMakerClient(emu.clientConfig());
  const runtime = new SageMakerRuntimeClient(emu.clientConfig({ maxAttempts: 1 }));
  const clock: Clock = await emu.setClock(new Date());
  const later: Date = (await emu.advance(60)).now;
  const pool: Pool = await emu.setPool({ availabilityZone: 'us-west-2a', instanceType: 'ml.m5.xlarge', onDemand: 1 });
  const view: CapacityView = await emu.capacity({ instanceType: pool.instance_type });
  const plan: string | undefined = view.in_use[0]?.training_plan_arn;
  try {
    await emu.reset();
  } catch (err) {
    if (err instanceof EmulatorAdminError) console.log(err.name, err.status, err.message);
  }
  await emu.stop({ timeoutMs: 100 });
  await emu[Symbol.asyncDispose]();
  console.log(sm, runtime, clock.frozen, later, plan);
}

export async function connected(): Promise<string> {
  const emu = await connectEmulator('http://127.0.0.1:4577', { adminToken: 't', region: 'eu-west-1' });
  const fromEnv = await connectEmulator();
  return emu.url + fromEnv.accountId;
}

export const fromHooks: EmulatorHandle = useEmulator({ url: 'http://127.0.0.1:4577', args: ['--check-responses'] });

export async function mistakes(emu: EmulatorHandle): Promise<void> {
  // @ts-expect-error the clock takes a Date or an ISO 8601 string
  await emu.setClock(1_800_000_000);
  // @ts-expect-error a pool needs its availability zone
  await emu.setPool({ instanceType: 'ml.m5.xlarge' });
  // @ts-expect-error overrides keep their own type
  const region: number = emu.clientConfig({ region: 'us-east-1' }).region;
  // @ts-expect-error the handle's identity is read-only
  emu.url = 'http://elsewhere';
  console.log(region);
}
