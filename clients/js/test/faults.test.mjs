// Fault rules through the helper: a throttling rule the JS SDK v3 rides through with its retries,
// the same rule outlasting them, and a rule scoped to a block with `await using`-style disposal.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ListModelsCommand, SageMakerClient } from '@aws-sdk/client-sagemaker';
import { EmulatorAdminError, startEmulator } from 'sagemaker-emulator';

let emu;
before(async () => { emu = await startEmulator({ args: ['--check-responses'] }); });
after(() => emu?.stop());

test('the SDK retries a throttled call and succeeds; a rule that outlasts its attempts comes through', async () => {
  await emu.reset();
  const sm = new SageMakerClient(emu.clientConfig({ maxAttempts: 3 }));
  const [busy] = await emu.addFaults({ operation: 'ListModels', times: 2, error: 'ThrottlingException' });
  const answer = await sm.send(new ListModelsCommand({}));
  assert.deepEqual(answer.Models, []);
  assert.equal(answer.$metadata.attempts, 3);
  assert.equal(await emu.removeFaults(busy.id), 1);
  await emu.addFaults({ operation: 'ListModels', error: 'ServiceUnavailable' });
  await assert.rejects(sm.send(new ListModelsCommand({})), (err) => {
    assert.equal(err.name, 'ServiceUnavailable');
    assert.equal(err.$metadata.httpStatusCode, 503);
    assert.equal(err.$metadata.attempts, 3);
    return true;
  });
  assert.equal(await emu.removeFaults(), 1);
});

test('fault() holds a rule until it is disposed', async () => {
  await emu.reset();
  const sm = new SageMakerClient(emu.clientConfig({ maxAttempts: 1 }));
  const handle = await emu.fault({ operation: 'ListModels', error: 'ThrottlingException' });
  try {
    await assert.rejects(sm.send(new ListModelsCommand({})), (err) => err.name === 'ThrottlingException' && err.message === 'Rate exceeded');
    const [listed] = await emu.faults();
    assert.deepEqual([listed.id, listed.source, listed.matched, listed.fired], [handle.rule.id, 'api', 1, 1]);
  } finally {
    await handle[Symbol.asyncDispose]();
  }
  assert.deepEqual(await emu.faults(), []);
  await sm.send(new ListModelsCommand({}));
  await assert.rejects(emu.addFaults({ operation: 'ListModels', error: 'ModelError' }),
    (err) => err instanceof EmulatorAdminError && err.status === 400);
});
