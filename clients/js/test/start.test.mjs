// startEmulator and its handle, against the binary that run-tests.sh names in
// $SAGEMAKER_EMULATOR_BINARY: the AWS SDK configuration, the clock calls, admin errors, stop(), and
// how a start fails (binary not found, server exits, no listening line).
import assert from 'node:assert/strict';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { CreateModelCommand, ListModelsCommand, SageMakerClient } from '@aws-sdk/client-sagemaker';
import { EmulatorAdminError, startEmulator } from 'sagemaker-emulator';

const BINARY = process.env.SAGEMAKER_EMULATOR_BINARY;
const CHECKED = ['--check-responses'];
const START = '2027-01-15T00:00:00Z';

const createModel = (client, name, account) => client.send(new CreateModelCommand({
  ModelName: name,
  PrimaryContainer: { Image: `${account}.dkr.ecr.us-west-2.amazonaws.com/demo:1` },
  ExecutionRoleArn: `arn:aws:iam::${account}:role/demo`,
}));

test('the handle gives the AWS SDK a configuration for the started emulator, as its account and region', async (t) => {
  const emu = await startEmulator({ args: CHECKED, accountId: '210987654321', region: 'eu-west-1' });
  t.after(() => emu.stop());

  assert.match(emu.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.deepEqual(emu.clientConfig(), {
    endpoint: emu.url,
    region: 'eu-west-1',
    credentials: { accessKeyId: '210987654321', secretAccessKey: 'x' },
  });
  assert.deepEqual(emu.clientConfig({ region: 'us-east-1', maxAttempts: 1 }).region, 'us-east-1');

  const sm = new SageMakerClient(emu.clientConfig({ maxAttempts: 1 }));
  const { ModelArn } = await createModel(sm, 'demo', emu.accountId);
  assert.equal(ModelArn, 'arn:aws:sagemaker:eu-west-1:210987654321:model/demo');
  // Another account does not see it: the access key id is the account.
  const other = new SageMakerClient(emu.clientConfig({ credentials: { accessKeyId: '123456789012', secretAccessKey: 'x' } }));
  assert.deepEqual((await other.send(new ListModelsCommand({}))).Models, []);
});

test('the defaults are us-west-2 and account 123456789012; other account ids are refused', async (t) => {
  const emu = await startEmulator({ args: CHECKED });
  t.after(() => emu.stop());
  assert.equal(emu.region, 'us-west-2');
  assert.equal(emu.accountId, '123456789012');
  await assert.rejects(startEmulator({ accountId: 'AKIAEXAMPLE' }), /accountId must be 12 digits/);
});

test('clock(), setClock(), advance(), freeze() and reset() move the virtual clock', async (t) => {
  const emu = await startEmulator({ args: [...CHECKED, '--clock-start', START, '--frozen-clock'] });
  t.after(() => emu.stop());

  assert.deepEqual(await emu.clock(), { now: new Date(START), epoch: Date.parse(START) / 1000, frozen: true });
  assert.deepEqual((await emu.advance(3600)).now, new Date('2027-01-15T01:00:00Z'));
  assert.deepEqual((await emu.setClock(new Date('2027-01-20T00:00:00Z'))).now, new Date('2027-01-20T00:00:00Z'));
  assert.deepEqual((await emu.setClock('2027-01-21T00:00:00Z')).now, new Date('2027-01-21T00:00:00Z'));
  assert.equal((await emu.freeze(false)).frozen, false);
  assert.equal((await emu.freeze()).frozen, true);
  await emu.reset();
  assert.deepEqual((await emu.clock()).now, new Date(START));
});

test('an admin error rejects with the emulator\'s __type as name, its message and the status', async (t) => {
  const emu = await startEmulator({ args: [...CHECKED, '--clock-start', START] });
  t.after(() => emu.stop());
  // Time never runs backwards for a resource (with none, any date may be set).
  await new SageMakerClient(emu.clientConfig()).send(new CreateModelCommand({ ModelName: 'm' }));
  await assert.rejects(emu.setClock('2026-01-01T00:00:00Z'), (err) => {
    assert.ok(err instanceof EmulatorAdminError);
    assert.equal(err.name, 'ValidationException');
    assert.equal(err.status, 400);
    assert.match(err.message, /^The clock cannot move backwards: 2026-01-01T00:00:00Z is before the current 2027-01-15/);
    return true;
  });
  await assert.rejects(emu.setPool({ availabilityZone: 'us-west-2a' }),
    { name: 'ValidationException', status: 400, message: "'instance_type' is required (a string)." });
});

test('stop() ends the server, also through Symbol.asyncDispose, and can be called again', async () => {
  const health = (url) => fetch(`${url}/_emulator/health`).then((res) => res.status);
  const refused = (err) => err.cause?.code === 'ECONNREFUSED';
  const emu = await startEmulator({ args: CHECKED });
  assert.equal(await health(emu.url), 200);
  await emu.stop();
  await assert.rejects(health(emu.url), refused);
  await emu.stop();

  const disposable = await startEmulator({ args: CHECKED });
  await disposable[Symbol.asyncDispose]();
  await assert.rejects(health(disposable.url), refused);
});

test('the binary is found through the option, $SAGEMAKER_EMULATOR_BINARY or PATH, else the error names all three', async (t) => {
  const fromPath = await startEmulator({ env: { SAGEMAKER_EMULATOR_BINARY: '', PATH: dirname(BINARY) } });
  await fromPath.stop();

  const notFound = (why) => ({
    message: `sagemaker-emulator binary not found (${why}): pass the \`binary\` option, ` +
      'set SAGEMAKER_EMULATOR_BINARY, or put sagemaker-emulator on PATH',
  });
  const missing = '/nonexistent/sagemaker-emulator';
  await assert.rejects(startEmulator({ binary: missing }), notFound(`${missing} is not an executable file`));
  await assert.rejects(startEmulator({ env: { SAGEMAKER_EMULATOR_BINARY: missing } }),
    notFound(`${missing} is not an executable file`));
  const emptyDir = await mkdtemp(join(tmpdir(), 'smemu-path-'));
  t.after(() => rm(emptyDir, { recursive: true }));
  await assert.rejects(startEmulator({ env: { SAGEMAKER_EMULATOR_BINARY: '', PATH: emptyDir } }),
    notFound('no sagemaker-emulator on PATH'));
});

test('a server that exits at start-up rejects with its stderr', async () => {
  await assert.rejects(startEmulator({ args: ['--capacity', '/nonexistent/capacity.json'] }),
    /^Error: sagemaker-emulator did not start: it exited \(code \d+\)\ncommand: .*--capacity \/nonexistent\/capacity.json\nstderr \(tail\):\n.*File does not exist: \/nonexistent\/capacity.json/);
});

// Writes an executable shell script named sagemaker-emulator, removed after the test.
async function fakeBinary(t, script) {
  const dir = await mkdtemp(join(tmpdir(), 'smemu-fake-'));
  t.after(() => rm(dir, { recursive: true }));
  const path = join(dir, 'sagemaker-emulator');
  await writeFile(path, `#!/bin/sh\n${script}\n`);
  await chmod(path, 0o755);
  return path;
}

test('a server that never prints its listening line is killed after timeoutMs, with its stderr', async (t) => {
  const silent = await fakeBinary(t, 'echo "warming up" >&2\nexec sleep 30');
  const started = Date.now();
  await assert.rejects(startEmulator({ binary: silent, timeoutMs: 300 }),
    /did not start: no listening line on stdout in time\n.*\nstderr \(tail\):\nwarming up\n/);
  assert.ok(Date.now() - started < 5000);
});

test('a server that dies before it is healthy fails the start at once, not at the timeout', async (t) => {
  const dying = await fakeBinary(t,
    'echo "sagemaker-emulator listening on http://127.0.0.1:2"\nsleep 0.3\necho "out of memory" >&2\nexit 3');
  const started = Date.now();
  await assert.rejects(startEmulator({ binary: dying, timeoutMs: 10_000 }),
    /did not start: it exited \(code 3\)\n.*\nstderr \(tail\):\nout of memory\n/);
  assert.ok(Date.now() - started < 5000);
});
