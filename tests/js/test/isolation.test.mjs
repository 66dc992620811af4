// Account (from a 12-digit access key id, else --account-id) and region (from the SigV4
// credential scope) partition every resource.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CreateModelCommand,
  DeleteModelCommand,
  DescribeModelCommand,
  ListModelsCommand,
} from '@aws-sdk/client-sagemaker';
import { useEmulator, sagemaker, errorOf } from '../lib/emulator.mjs';

const emu = await useEmulator(['--account-id', '444455556666', '--region', 'us-east-1']);
const home = sagemaker(emu.url); // account 123456789012, us-west-2
const otherAccount = sagemaker(emu.url, { accessKeyId: '210987654321' });
const otherRegion = sagemaker(emu.url, { region: 'eu-central-1' });
const ROLE = 'arn:aws:iam::123456789012:role/SageMakerRole';

test('a model of one account is invisible to another account', async () => {
  await home.send(new CreateModelCommand({ ModelName: 'Acct-Private', ExecutionRoleArn: ROLE }));

  const err = await errorOf(otherAccount.send(new DescribeModelCommand({ ModelName: 'Acct-Private' })));
  assert.equal(err.name, 'ValidationException');
  assert.equal(err.$metadata.httpStatusCode, 400);
  assert.equal(err.message, 'Could not find model "arn:aws:sagemaker:us-west-2:210987654321:model/acct-private".');

  const listed = await otherAccount.send(new ListModelsCommand({}));
  assert.ok(!listed.Models.some((m) => m.ModelName === 'Acct-Private'), JSON.stringify(listed.Models));

  const delErr = await errorOf(otherAccount.send(new DeleteModelCommand({ ModelName: 'Acct-Private' })));
  assert.equal(delErr.name, 'ValidationException');

  // The same name is free in the other account, with that account in its ARN.
  const created = await otherAccount.send(new CreateModelCommand({ ModelName: 'Acct-Private', ExecutionRoleArn: ROLE }));
  assert.equal(created.ModelArn, 'arn:aws:sagemaker:us-west-2:210987654321:model/acct-private');

  // The owner still sees its own model with its own ARN.
  const mine = await home.send(new DescribeModelCommand({ ModelName: 'Acct-Private' }));
  assert.equal(mine.ModelArn, 'arn:aws:sagemaker:us-west-2:123456789012:model/acct-private');
  const myList = await home.send(new ListModelsCommand({ NameContains: 'Acct-Private' }));
  assert.deepEqual(myList.Models.map((m) => m.ModelArn),
    ['arn:aws:sagemaker:us-west-2:123456789012:model/acct-private']);
});

test('a model of one region is invisible in another region', async () => {
  await home.send(new CreateModelCommand({ ModelName: 'Region-Private', ExecutionRoleArn: ROLE }));

  const err = await errorOf(otherRegion.send(new DescribeModelCommand({ ModelName: 'Region-Private' })));
  assert.equal(err.name, 'ValidationException');
  assert.equal(err.message, 'Could not find model "arn:aws:sagemaker:eu-central-1:123456789012:model/region-private".');

  const listed = await otherRegion.send(new ListModelsCommand({}));
  assert.ok(!listed.Models.some((m) => m.ModelName === 'Region-Private'), JSON.stringify(listed.Models));

  const created = await otherRegion.send(new CreateModelCommand({ ModelName: 'Region-Private', ExecutionRoleArn: ROLE }));
  assert.equal(created.ModelArn, 'arn:aws:sagemaker:eu-central-1:123456789012:model/region-private');

  // Deleting in one region leaves the other region's model in place.
  await otherRegion.send(new DeleteModelCommand({ ModelName: 'Region-Private' }));
  const still = await home.send(new DescribeModelCommand({ ModelName: 'Region-Private' }));
  assert.equal(still.ModelArn, 'arn:aws:sagemaker:us-west-2:123456789012:model/region-private');
});

test('an access key id that is not 12 digits uses --account-id', async () => {
  const keyed = sagemaker(emu.url, { accessKeyId: 'AKIAIOSFODNN7EXAMPLE' });
  const { ModelArn } = await keyed.send(new CreateModelCommand({ ModelName: 'Default-Account', ExecutionRoleArn: ROLE }));
  assert.equal(ModelArn, 'arn:aws:sagemaker:us-west-2:444455556666:model/default-account');

  // Another non-numeric key lands in the same account.
  const keyed2 = sagemaker(emu.url, { accessKeyId: 'test' });
  const seen = await keyed2.send(new DescribeModelCommand({ ModelName: 'Default-Account' }));
  assert.equal(seen.ModelArn, ModelArn);

  // ... which is not the 12-digit key's account.
  const err = await errorOf(home.send(new DescribeModelCommand({ ModelName: 'Default-Account' })));
  assert.equal(err.name, 'ValidationException');
});
