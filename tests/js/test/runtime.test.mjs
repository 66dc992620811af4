// sagemaker-runtime (restJson1) through @aws-sdk/client-sagemaker-runtime.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InvokeEndpointCommand } from '@aws-sdk/client-sagemaker-runtime';
import { useEmulator, runtime, errorOf, assertRawError, UUID } from '../lib/emulator.mjs';

const emu = await useEmulator();

test('InvokeEndpoint on a missing endpoint is ValidationError 400', async () => {
  const rt = runtime(emu.url);
  const err = await errorOf(rt.send(new InvokeEndpointCommand({
    EndpointName: 'missing-endpoint',
    ContentType: 'application/json',
    Accept: 'application/json',
    Body: new TextEncoder().encode('{"instances":[[1,2,3]]}'),
  })));
  assert.equal(err.name, 'ValidationError', `unexpected error: ${err.stack}`);
  assert.equal(err.message, 'Endpoint missing-endpoint of account 123456789012 not found.');
  assert.equal(err.$fault, 'client');
  assert.equal(err.$metadata.httpStatusCode, 400);
  assert.match(err.$metadata.requestId ?? '', UUID);
  // err.Message is deleted by @smithy/core 3.41.1 whatever the body holds; check the wire instead.
  assertRawError(rt, {
    status: 400, code: 'ValidationError', message: 'Endpoint missing-endpoint of account 123456789012 not found.',
  });
});

test('the runtime error names the caller\'s account', async () => {
  const rt = runtime(emu.url, { accessKeyId: '210987654321', region: 'ap-southeast-2' });
  const err = await errorOf(rt.send(new InvokeEndpointCommand({
    EndpointName: 'Other-Endpoint',
    ContentType: 'text/csv',
    Body: '1,2,3',
  })));
  assert.equal(err.name, 'ValidationError');
  assert.equal(err.$metadata.httpStatusCode, 400);
  assert.equal(err.message, 'Endpoint Other-Endpoint of account 210987654321 not found.');
});
