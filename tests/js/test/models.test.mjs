// CreateModel / DescribeModel / DeleteModel through @aws-sdk/client-sagemaker, and the
// awsJson1_1 error shapes the SDK decodes from the emulator.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CreateModelCommand,
  DeleteModelCommand,
  DescribeModelCommand,
  ListNotebookInstancesCommand,
  ListModelsCommand,
} from '@aws-sdk/client-sagemaker';
import { useEmulator, sagemaker, errorOf, assertRawError, modelArn, UUID } from '../lib/emulator.mjs';

const CLOCK_START = '2027-01-25T00:00:00Z';
const emu = await useEmulator(['--clock-start', CLOCK_START, '--frozen-clock']);
const sm = sagemaker(emu.url);

const ROLE = 'arn:aws:iam::123456789012:role/service-role/SageMakerExecution';
const CONTAINER = {
  Image: '123456789012.dkr.ecr.us-west-2.amazonaws.com/xgboost:1.7-1',
  ModelDataUrl: 's3://example-bucket/models/model.tar.gz',
  Environment: { SAGEMAKER_PROGRAM: 'inference.py', LOG_LEVEL: 'debug' },
};

// `err` is what the SDK threw for the last call made with `sm`.
// Note: @smithy/core 3.41.1 (decorateServiceException) deletes `err.Message` after copying the
// body into the error, so `err.Message` is undefined with these SDK versions whatever the server
// sends; the body's "Message" key is checked on the raw response instead.
function assertValidationException(err, message) {
  assert.equal(err.name, 'ValidationException', `unexpected error: ${err.stack}`);
  assert.equal(err.message, message);
  assert.equal(err.$fault, 'client');
  assert.equal(err.$metadata.httpStatusCode, 400);
  assert.match(err.$metadata.requestId ?? '', UUID);
  assertRawError(sm, { status: 400, code: 'ValidationException', message });
}

test('create, describe, list and delete a model round trip', async () => {
  const name = 'RoundTrip-Model-01';
  const created = await sm.send(new CreateModelCommand({
    ModelName: name,
    PrimaryContainer: CONTAINER,
    ExecutionRoleArn: ROLE,
    EnableNetworkIsolation: true,
    Tags: [{ Key: 'team', Value: 'ml' }],
  }));
  assert.equal(created.$metadata.httpStatusCode, 200);
  assert.match(created.$metadata.requestId ?? '', UUID);
  assert.equal(created.ModelArn, 'arn:aws:sagemaker:us-west-2:123456789012:model/roundtrip-model-01');

  const described = await sm.send(new DescribeModelCommand({ ModelName: name }));
  assert.equal(described.ModelName, name, 'ModelName keeps the caller\'s case');
  assert.equal(described.ModelArn, created.ModelArn);
  assert.equal(described.ExecutionRoleArn, ROLE);
  assert.equal(described.EnableNetworkIsolation, true);
  assert.equal(described.PrimaryContainer?.Image, CONTAINER.Image);
  assert.equal(described.PrimaryContainer?.ModelDataUrl, CONTAINER.ModelDataUrl);
  assert.deepEqual(described.PrimaryContainer?.Environment, CONTAINER.Environment);
  assert.ok(described.CreationTime instanceof Date, 'CreationTime is decoded as a Date');
  assert.equal(described.CreationTime.toISOString(), '2027-01-25T00:00:00.000Z');

  const listed = await sm.send(new ListModelsCommand({ NameContains: 'RoundTrip' }));
  assert.ok(Array.isArray(listed.Models));
  assert.equal(listed.Models.length, 1);
  assert.equal(listed.Models[0].ModelName, name);
  assert.equal(listed.Models[0].ModelArn, created.ModelArn);
  assert.ok(listed.Models[0].CreationTime instanceof Date);
  assert.equal(listed.Models[0].CreationTime.getTime(), described.CreationTime.getTime());
  assert.equal(listed.NextToken, undefined);

  const deleted = await sm.send(new DeleteModelCommand({ ModelName: name }));
  assert.equal(deleted.$metadata.httpStatusCode, 200);

  const err = await errorOf(sm.send(new DescribeModelCommand({ ModelName: name })));
  assertValidationException(err, `Could not find model "${modelArn(name)}".`);
  const after = await sm.send(new ListModelsCommand({ NameContains: 'RoundTrip' }));
  assert.deepEqual(after.Models, []);
});

test('CreationTime equals the frozen virtual clock exactly', async () => {
  const name = 'clock-check';
  await sm.send(new CreateModelCommand({ ModelName: name, PrimaryContainer: CONTAINER, ExecutionRoleArn: ROLE }));
  const { CreationTime } = await sm.send(new DescribeModelCommand({ ModelName: name }));
  assert.ok(CreationTime instanceof Date);
  assert.equal(CreationTime.getTime(), Date.parse(CLOCK_START));
  assert.deepEqual(CreationTime, new Date('2027-01-25T00:00:00.000Z'));
});

test('ARN uses the lower-cased name and lookups ignore case', async () => {
  const name = 'MixedCASE-Name';
  const { ModelArn } = await sm.send(new CreateModelCommand({ ModelName: name, ExecutionRoleArn: ROLE }));
  assert.equal(ModelArn, 'arn:aws:sagemaker:us-west-2:123456789012:model/mixedcase-name');
  const described = await sm.send(new DescribeModelCommand({ ModelName: 'mixedcase-NAME' }));
  assert.equal(described.ModelName, name);
  assert.equal(described.ModelArn, ModelArn);
});

test('creating a model twice is a ValidationException naming the lower-cased ARN', async () => {
  const name = 'Dup-Model';
  await sm.send(new CreateModelCommand({ ModelName: name, ExecutionRoleArn: ROLE }));
  const err = await errorOf(sm.send(new CreateModelCommand({ ModelName: name, ExecutionRoleArn: ROLE })));
  assertValidationException(err,
    'Cannot create already existing model "arn:aws:sagemaker:us-west-2:123456789012:model/dup-model".');

  // A name that differs only in case maps to the same ARN, so it is a duplicate too.
  const err2 = await errorOf(sm.send(new CreateModelCommand({ ModelName: 'DUP-MODEL', ExecutionRoleArn: ROLE })));
  assertValidationException(err2,
    'Cannot create already existing model "arn:aws:sagemaker:us-west-2:123456789012:model/dup-model".');

  // The original is untouched.
  const described = await sm.send(new DescribeModelCommand({ ModelName: name }));
  assert.equal(described.ModelName, name);
});

test('DescribeModel of a missing model is a ValidationException', async () => {
  const err = await errorOf(sm.send(new DescribeModelCommand({ ModelName: 'No-Such-Model' })));
  assertValidationException(err,
    'Could not find model "arn:aws:sagemaker:us-west-2:123456789012:model/no-such-model".');
});

test('DeleteModel of a missing model is a ValidationException', async () => {
  const err = await errorOf(sm.send(new DeleteModelCommand({ ModelName: 'Never-Created' })));
  assertValidationException(err,
    'Could not find model "arn:aws:sagemaker:us-west-2:123456789012:model/never-created".');
});

test('deleting a model twice fails the second time', async () => {
  await sm.send(new CreateModelCommand({ ModelName: 'delete-twice', ExecutionRoleArn: ROLE }));
  await sm.send(new DeleteModelCommand({ ModelName: 'delete-twice' }));
  const err = await errorOf(sm.send(new DeleteModelCommand({ ModelName: 'delete-twice' })));
  assertValidationException(err,
    'Could not find model "arn:aws:sagemaker:us-west-2:123456789012:model/delete-twice".');
});

test('a 64-character ModelName fails length validation', async () => {
  const name = 'a'.repeat(64);
  const err = await errorOf(sm.send(new CreateModelCommand({ ModelName: name, ExecutionRoleArn: ROLE })));
  assertValidationException(err,
    `1 validation error detected: Value '${name}' at 'modelName' failed to satisfy constraint: ` +
    'Member must have length less than or equal to 63');
  // Nothing was created.
  const missing = await errorOf(sm.send(new DescribeModelCommand({ ModelName: name.slice(0, 63) })));
  assert.equal(missing.name, 'ValidationException');
});

test('a 63-character ModelName is accepted', async () => {
  const name = 'b'.repeat(63);
  const { ModelArn } = await sm.send(new CreateModelCommand({ ModelName: name, ExecutionRoleArn: ROLE }));
  assert.equal(ModelArn, modelArn(name));
});

test('a ModelName outside the pattern fails pattern validation', async () => {
  const err = await errorOf(sm.send(new CreateModelCommand({ ModelName: 'bad_name!', ExecutionRoleArn: ROLE })));
  assertValidationException(err,
    "1 validation error detected: Value 'bad_name!' at 'modelName' failed to satisfy constraint: " +
    'Member must satisfy regular expression pattern: [a-zA-Z0-9]([\\-a-zA-Z0-9]*[a-zA-Z0-9])?');
});

test('a ModelName ending in a hyphen fails pattern validation', async () => {
  const err = await errorOf(sm.send(new DescribeModelCommand({ ModelName: 'trailing-' })));
  assertValidationException(err,
    "1 validation error detected: Value 'trailing-' at 'modelName' failed to satisfy constraint: " +
    'Member must satisfy regular expression pattern: [a-zA-Z0-9]([\\-a-zA-Z0-9]*[a-zA-Z0-9])?');
});

test('an operation the emulator does not serve is UnknownOperationException', async () => {
  const err = await errorOf(sm.send(new ListNotebookInstancesCommand({})));
  assert.equal(err.name, 'UnknownOperationException', `unexpected error: ${err.stack}`);
  assert.equal(err.$fault, 'client');
  assert.equal(err.$metadata.httpStatusCode, 400);
  assert.match(err.$metadata.requestId ?? '', UUID);
  assert.equal(typeof err.message, 'string');
  assert.notEqual(err.message, '');
  assert.notEqual(err.message, 'UnknownError');
  assertRawError(sm, { status: 400, code: 'UnknownOperationException', message: err.message });
});

test('every response carries a distinct request id', async () => {
  const a = await sm.send(new ListModelsCommand({}));
  const b = await sm.send(new ListModelsCommand({}));
  assert.match(a.$metadata.requestId ?? '', UUID);
  assert.match(b.$metadata.requestId ?? '', UUID);
  assert.notEqual(a.$metadata.requestId, b.$metadata.requestId);
});
