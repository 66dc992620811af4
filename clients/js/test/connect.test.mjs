// connectEmulator: the handle over an emulator someone else runs (here: a binary this file starts
// with --admin-token, standing in for a container), the token on admin calls, the environment
// variables, and useEmulator in that mode.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, describe, test } from 'node:test';
import { CreateModelCommand, ListModelsCommand, SageMakerClient } from '@aws-sdk/client-sagemaker';
import { connectEmulator, startEmulator } from 'sagemaker-emulator';
import { useEmulator } from 'sagemaker-emulator/node-test';

const TOKEN = 'T';
const server = await startEmulator({ args: ['--check-responses', '--admin-token', TOKEN] });
after(() => server.stop());

const DENIED = {
  name: 'AccessDeniedException',
  status: 403,
  message: /^The admin API requires the token given with --admin-token/,
};
const modelNames = async (emu) =>
  (await new SageMakerClient(emu.clientConfig()).send(new ListModelsCommand({}))).Models.map((m) => m.ModelName);
const createModel = (emu, name) => new SageMakerClient(emu.clientConfig()).send(new CreateModelCommand({
  ModelName: name,
  PrimaryContainer: { Image: `${emu.accountId}.dkr.ecr.${emu.region}.amazonaws.com/demo:1` },
  ExecutionRoleArn: `arn:aws:iam::${emu.accountId}:role/demo`,
}));

// Sets environment variables for the duration of `fn`.
async function withEnv(vars, fn) {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

test('without the token, admin calls are refused with 403', async () => {
  await assert.rejects(server.clock(), DENIED);  // the starting handle was not given the token
  const anonymous = await connectEmulator(server.url);
  await assert.rejects(anonymous.reset(), DENIED);
  await assert.rejects(anonymous.setPool({ availabilityZone: 'us-west-2a', instanceType: 'ml.m5.xlarge', onDemand: 1 }), DENIED);
});

test('with the token, the connected handle drives the emulator, and stop() leaves it running', async () => {
  const emu = await connectEmulator(`${server.url}/`, { adminToken: TOKEN });
  assert.equal(emu.url, server.url);
  await createModel(emu, 'connected');
  assert.deepEqual(await modelNames(emu), ['connected']);
  await emu.reset();
  assert.deepEqual(await modelNames(emu), []);
  assert.equal((await emu.freeze()).frozen, true);
  await emu.stop();
  assert.equal((await emu.clock()).frozen, true);
});

test('the URL and the token can come from SAGEMAKER_EMULATOR_URL and SAGEMAKER_EMULATOR_ADMIN_TOKEN', async () => {
  const emu = await withEnv({ SAGEMAKER_EMULATOR_URL: server.url, SAGEMAKER_EMULATOR_ADMIN_TOKEN: TOKEN },
    () => connectEmulator());
  assert.equal(emu.url, server.url);
  await emu.reset();
  await assert.rejects(connectEmulator(), { message: 'connectEmulator: pass the emulator URL or set SAGEMAKER_EMULATOR_URL' });
});

test('an emulator that does not become healthy fails the connect after timeoutMs', async (t) => {
  // Stands in for a container whose server is not up yet.
  const starting = createServer((req, res) => res.writeHead(503).end());
  await new Promise((resolve) => starting.listen(0, '127.0.0.1', resolve));
  t.after(() => starting.close());
  const url = `http://127.0.0.1:${starting.address().port}`;
  await assert.rejects(connectEmulator(url, { timeoutMs: 200 }),
    { message: `${url}/_emulator/health did not answer 200 in time (last: HTTP 503)` });
});

test('startEmulator({ adminToken }) starts the server with the token and sends it', async (t) => {
  const emu = await startEmulator({ adminToken: 'secret' });
  t.after(() => emu.stop());
  await emu.advance(60);
  await assert.rejects((await connectEmulator(emu.url)).clock(), { name: 'AccessDeniedException' });
});

describe('useEmulator({ url, adminToken }) connects instead of starting', () => {
  const emu = useEmulator({ url: server.url, adminToken: TOKEN });

  test('it uses the running server', async () => {
    assert.equal(emu.url, server.url);
    await createModel(emu, 'from-use-emulator');
  });

  test('and resets it before each test', async () => {
    assert.deepEqual(await modelNames(emu), []);
  });
});
