// What a TypeScript user writes, compiled by types.test.mjs against the installed package and the
// pinned SDK: it must type-check, and every @ts-expect-error line must really be an error.
import { SageMakerClient } from '@aws-sdk/client-sagemaker';
import { SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { EmulatorAdminError, connectEmulator, startEmulator } from 'sagemaker-emulator';
import type { CapacityView, Clock, CostLedger, EmulatorHandle, Pool } from 'sagemaker-emulator';
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
  const ledger: CostLedger = await emu.costs({ from: new Date(), to: '2027-01-16T00:00:00Z', account: '123456789012' });
  const spent: number = ledger.totals.overall.total_cost;
  const onDemand: number | null = ledger.holders[0]?.cost ?? null;
  const csv: string = await emu.costsCsv();
  const html: string = await emu.report();
  try {
    await emu.reset();
  } catch (err) {
    if (err instanceof EmulatorAdminError) console.log(err.name, err.status, err.message);
  }
  await emu.stop({ timeoutMs: 100 });
  await emu[Symbol.asyncDispose]();
  console.log(sm, runtime, clock.frozen, later, plan, spent, onDemand, csv.length, html.length);
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
  // @ts-expect-error the range takes Dates or ISO 8601 strings, not epoch numbers
  await emu.costs({ from: 1_800_000_000 });
  // @ts-expect-error a plan's use is paid by its fee: a holder's cost may be null
  const cost: number = (await emu.costs()).holders[0].cost;
  // @ts-expect-error overrides keep their own type
  const region: number = emu.clientConfig({ region: 'us-east-1' }).region;
  // @ts-expect-error the handle's identity is read-only
  emu.url = 'http://elsewhere';
  console.log(region, cost);
}
