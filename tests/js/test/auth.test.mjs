// Strict authentication (--credentials FILE) with real SigV4 signatures from the AWS SDK for
// JavaScript v3: the right key and secret work on both protocols (awsJson1_1 control plane,
// restJson1 runtime) in the key's account; a wrong secret, an unknown key, an unsigned request
// and a clock 20 minutes off are refused with AWS's codes, texts and statuses (400 on the control
// plane, 403 on the runtime). Refusals carry a Date header, from which the SDK corrects its clock.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateModelCommand,
  DescribeEndpointCommand,
  ListModelsCommand,
  SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import { InvokeEndpointCommand, SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { admin, assertRawError, errorOf, recordRawResponses, useEmulator } from '../lib/emulator.mjs';

const KEY = 'AKIAEMULATORTEST';
const SECRET = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY';
const ACCOUNT = '111122223333';
const REGION = 'us-west-2';
const MINUTE = 60_000;

const MISMATCH = 'The request signature we calculated does not match the signature you provided. ' +
  'Check your AWS Secret Access Key and signing method. Consult the service documentation for details.';
const UNKNOWN_KEY = 'The security token included in the request is invalid.';
const AMZ_DATE = '(\\d{8}T\\d{6}Z)';

const dir = mkdtempSync(join(tmpdir(), 'smemu-credentials-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const credentialsFile = join(dir, 'credentials.json');
writeFileSync(credentialsFile, JSON.stringify({
  credentials: [
    { access_key_id: KEY, secret_access_key: SECRET, account_id: ACCOUNT },
    { access_key_id: '123456789012', secret_access_key: 'another secret' },
  ],
}));

const emu = await useEmulator(['--credentials', credentialsFile]);

// Both clients, signing with the given key and secret. `systemClockOffset` skews the SDK's clock.
function clients({ accessKeyId = KEY, secretAccessKey = SECRET, systemClockOffset, maxAttempts = 1 } = {}) {
  const config = {
    endpoint: emu.url,
    region: REGION,
    credentials: { accessKeyId, secretAccessKey },
    maxAttempts,
    requestHandler: { connectionTimeout: 5000, requestTimeout: 15000 },
    ...(systemClockOffset === undefined ? {} : { systemClockOffset }),
  };
  return {
    sm: recordRawResponses(new SageMakerClient(config)),
    rt: recordRawResponses(new SageMakerRuntimeClient(config)),
  };
}

const invoke = (rt, body = '1,2,3') => rt.send(new InvokeEndpointCommand({
  EndpointName: 'auth-endpoint', ContentType: 'text/csv', Body: new TextEncoder().encode(body),
}));

// The raw error's Date header: the server's real time, as AWS sends it.
function serverDate(client) {
  const date = client.lastRaw.headers.date ?? client.lastRaw.headers.Date;
  assert.match(date ?? '', /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
  return Date.parse(date);
}

const amzDate = (ms) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/[-:]|\.\d{3}/g, '');
const fromAmzDate = (text) => Date.parse(`${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6, 8)}T` +
  `${text.slice(9, 11)}:${text.slice(11, 13)}:${text.slice(13, 15)}Z`);

test('the right key and secret: ListModels and InvokeEndpoint work, in the key\'s account', async () => {
  const { sm, rt } = clients();
  await sm.send(new CreateModelCommand({
    ModelName: 'auth-model',
    PrimaryContainer: { Image: `${ACCOUNT}.dkr.ecr.${REGION}.amazonaws.com/demo:1` },
    ExecutionRoleArn: `arn:aws:iam::${ACCOUNT}:role/demo`,
  }));
  const listed = await sm.send(new ListModelsCommand({}));
  assert.deepEqual(listed.Models.map((m) => m.ModelArn),
    [`arn:aws:sagemaker:${REGION}:${ACCOUNT}:model/auth-model`]);
  await sm.send(new CreateEndpointConfigCommand({
    EndpointConfigName: 'auth-config',
    ProductionVariants: [{
      VariantName: 'AllTraffic', ModelName: 'auth-model', InstanceType: 'ml.m5.xlarge', InitialInstanceCount: 1,
    }],
  }));
  await sm.send(new CreateEndpointCommand({ EndpointName: 'auth-endpoint', EndpointConfigName: 'auth-config' }));
  const endpoint = await sm.send(new DescribeEndpointCommand({ EndpointName: 'auth-endpoint' }));
  assert.equal(endpoint.EndpointStatus, 'InService');
  assert.equal(endpoint.EndpointArn, `arn:aws:sagemaker:${REGION}:${ACCOUNT}:endpoint/auth-endpoint`);

  const answer = await invoke(rt);
  assert.equal(new TextDecoder().decode(answer.Body), '1,2,3');
  assert.equal(answer.InvokedProductionVariant, 'AllTraffic');

  // A 12-digit key without an account in the file acts in its own account, which has no models.
  const own = clients({ accessKeyId: '123456789012', secretAccessKey: 'another secret' });
  assert.deepEqual((await own.sm.send(new ListModelsCommand({}))).Models, []);
});

test('a wrong secret is InvalidSignatureException, 400 on the control plane and 403 on the runtime', async () => {
  const { sm, rt } = clients({ secretAccessKey: 'not the secret' });
  const err = await errorOf(sm.send(new ListModelsCommand({})));
  assert.equal(err.name, 'InvalidSignatureException', `unexpected error: ${err.stack}`);
  assert.equal(err.$fault, 'client');
  assert.equal(err.$metadata.httpStatusCode, 400);
  assertRawError(sm, { status: 400, code: 'InvalidSignatureException' });
  // AWS's text, then what the server signed, so a client can find its mistake.
  const message = sm.lastRaw.json.message;
  assert.ok(message.startsWith(`${MISMATCH}\n\nThe Canonical String for this request should have been\n'POST\n/\n\n`),
    message);
  assert.match(message, /\nx-amz-target:SageMaker\.ListModels\n/);
  assert.match(message, new RegExp(`\\n\\nThe String-to-Sign should have been\\n'AWS4-HMAC-SHA256\\n${AMZ_DATE}\\n` +
    `\\d{8}/${REGION}/sagemaker/aws4_request\\n[0-9a-f]{64}'\\n$`));
  assert.equal(err.message, message);

  const rtErr = await errorOf(invoke(rt));
  assert.equal(rtErr.name, 'InvalidSignatureException', `unexpected error: ${rtErr.stack}`);
  assert.equal(rtErr.$metadata.httpStatusCode, 403);
  assertRawError(rt, { status: 403, code: 'InvalidSignatureException' });
  assert.ok(rt.lastRaw.json.message.startsWith(
    `${MISMATCH}\n\nThe Canonical String for this request should have been\n'POST\n/endpoints/auth-endpoint/invocations\n`));
});

test('an unknown access key is UnrecognizedClientException', async () => {
  const { sm, rt } = clients({ accessKeyId: 'AKIANOBODYKNOWS', secretAccessKey: SECRET });
  const err = await errorOf(sm.send(new ListModelsCommand({})));
  assert.equal(err.name, 'UnrecognizedClientException', `unexpected error: ${err.stack}`);
  assert.equal(err.message, UNKNOWN_KEY);
  assert.equal(err.$metadata.httpStatusCode, 400);
  assertRawError(sm, { status: 400, code: 'UnrecognizedClientException', message: UNKNOWN_KEY });

  const rtErr = await errorOf(invoke(rt));
  assert.equal(rtErr.name, 'UnrecognizedClientException');
  assert.equal(rtErr.$metadata.httpStatusCode, 403);
  assertRawError(rt, { status: 403, code: 'UnrecognizedClientException', message: UNKNOWN_KEY });
});

test('a request signed 20 minutes in the past has an expired signature', async () => {
  const { sm } = clients({ systemClockOffset: -20 * MINUTE });
  const before = Date.now();
  const err = await errorOf(sm.send(new ListModelsCommand({})));
  const afterCall = Date.now();
  assert.equal(err.name, 'InvalidSignatureException', `unexpected error: ${err.stack}`);
  assert.equal(err.$metadata.httpStatusCode, 400);
  assertRawError(sm, { status: 400, code: 'InvalidSignatureException' });
  const m = new RegExp(`^Signature expired: ${AMZ_DATE} is now earlier than ${AMZ_DATE} \\(${AMZ_DATE} - 15 min\\.\\)$`)
    .exec(sm.lastRaw.json.message);
  assert.ok(m, sm.lastRaw.json.message);
  const [, signedAt, earliest, now] = m;
  // The server's now is the real time (not the virtual clock), and the SDK signed 20 minutes before it.
  assert.ok(now >= amzDate(before) && now <= amzDate(afterCall), `${now} not within the call`);
  assert.equal(earliest, amzDate(fromAmzDate(now) - 15 * MINUTE));
  assert.ok(signedAt >= amzDate(before - 20 * MINUTE - 1000) && signedAt <= amzDate(afterCall - 20 * MINUTE), signedAt);
  assert.ok(Math.abs(serverDate(sm) - afterCall) < 5000);

  // As with AWS, the SDK takes the server's time from the refusal's Date header and corrects its
  // clock: the next call is signed with the right time.
  assert.ok(Math.abs(sm.config.systemClockOffset) < 5000, `offset now ${sm.config.systemClockOffset}`);
  assert.deepEqual(Object.keys(await sm.send(new ListModelsCommand({}))).sort(), ['$metadata', 'Models']);

  // With retries allowed, that correction happens within one call: a refusal, then success.
  const retrying = clients({ systemClockOffset: -20 * MINUTE, maxAttempts: 3 });
  const listed = await retrying.sm.send(new ListModelsCommand({}));
  assert.equal(listed.$metadata.attempts, 2);
});

test('a clock 20 minutes ahead is not yet current; the runtime answers 403', async () => {
  const { rt } = clients({ systemClockOffset: 20 * MINUTE });
  const err = await errorOf(invoke(rt));
  assert.equal(err.name, 'InvalidSignatureException', `unexpected error: ${err.stack}`);
  assert.equal(err.$metadata.httpStatusCode, 403);
  assertRawError(rt, { status: 403, code: 'InvalidSignatureException' });
  assert.match(rt.lastRaw.json.message, new RegExp(
    `^Signature not yet current: ${AMZ_DATE} is still later than ${AMZ_DATE} \\(${AMZ_DATE} \\+ 15 min\\.\\)$`));
});

test('unsigned requests are refused; the admin API needs no signature', async () => {
  const res = await fetch(emu.url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-amz-json-1.1', 'X-Amz-Target': 'SageMaker.ListModels' },
    body: '{}',
    signal: AbortSignal.timeout(15000),
  });
  assert.equal(res.status, 400);
  assert.equal(res.headers.get('x-amzn-errortype'), 'MissingAuthenticationTokenException');
  assert.deepEqual(await res.json(), {
    __type: 'MissingAuthenticationTokenException',
    message: 'Missing Authentication Token',
    Message: 'Missing Authentication Token',
  });

  const runtimeRes = await fetch(new URL('/endpoints/auth-endpoint/invocations', emu.url), {
    method: 'POST', headers: { 'Content-Type': 'text/csv' }, body: '1', signal: AbortSignal.timeout(15000),
  });
  assert.equal(runtimeRes.status, 403);
  assert.equal((await runtimeRes.json()).__type, 'MissingAuthenticationTokenException');

  const clock = await admin(emu.url, '/_emulator/clock');
  assert.equal(clock.status, 200);
  assert.equal(typeof clock.json.now, 'string');
});
