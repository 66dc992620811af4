// ListModels through @aws-sdk/client-sagemaker: the paginator, sorting and filters.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CreateModelCommand,
  ListModelsCommand,
  paginateListModels,
} from '@aws-sdk/client-sagemaker';
import { useEmulator, sagemaker, admin, errorOf, modelArn } from '../lib/emulator.mjs';

const CLOCK_START = '2027-01-25T00:00:00Z';
const T0 = Date.parse(CLOCK_START);
const emu = await useEmulator(['--clock-start', CLOCK_START, '--frozen-clock']);
const sm = sagemaker(emu.url);

// Created in this order, one minute apart; the names are deliberately not in creation order.
const CREATED = ['delta-model', 'alpha-model', 'echo-model', 'charlie-model', 'bravo-model'];
const ROLE = 'arn:aws:iam::123456789012:role/SageMakerRole';

for (const [i, name] of CREATED.entries()) {
  if (i > 0) {
    const res = await admin(emu.url, '/_emulator/clock', { method: 'POST', body: { advance_seconds: 60 } });
    assert.equal(res.status, 200, `advancing the clock failed: ${res.text}`);
  }
  await sm.send(new CreateModelCommand({ ModelName: name, ExecutionRoleArn: ROLE }));
}
const createdAt = (name) => T0 + 60_000 * CREATED.indexOf(name);

async function collect(input, pageSize) {
  const pages = [];
  for await (const page of paginateListModels({ client: sm, pageSize }, input)) {
    pages.push(page);
  }
  return pages;
}

test('paginateListModels with MaxResults 2 walks 5 models by Name Ascending', async () => {
  const pages = await collect({ SortBy: 'Name', SortOrder: 'Ascending' }, 2);
  assert.deepEqual(pages.map((p) => p.Models.length), [2, 2, 1]);
  const names = pages.flatMap((p) => p.Models.map((m) => m.ModelName));
  assert.deepEqual(names, ['alpha-model', 'bravo-model', 'charlie-model', 'delta-model', 'echo-model']);
  // Every page but the last has a token, the tokens differ, and the last page has none.
  assert.equal(typeof pages[0].NextToken, 'string');
  assert.equal(typeof pages[1].NextToken, 'string');
  assert.notEqual(pages[0].NextToken, pages[1].NextToken);
  assert.equal(pages[2].NextToken, undefined);
  for (const m of pages.flatMap((p) => p.Models)) {
    assert.equal(m.ModelArn, modelArn(m.ModelName));
    assert.ok(m.CreationTime instanceof Date);
    assert.equal(m.CreationTime.getTime(), createdAt(m.ModelName), m.ModelName);
  }
});

test('paginateListModels with MaxResults 2 walks 5 models by Name Descending', async () => {
  const pages = await collect({ SortBy: 'Name', SortOrder: 'Descending' }, 2);
  assert.deepEqual(pages.map((p) => p.Models.length), [2, 2, 1]);
  const names = pages.flatMap((p) => p.Models.map((m) => m.ModelName));
  assert.deepEqual(names, ['echo-model', 'delta-model', 'charlie-model', 'bravo-model', 'alpha-model']);
});

test('paginateListModels with MaxResults 2 walks 5 models by CreationTime both ways', async () => {
  const asc = await collect({ SortBy: 'CreationTime', SortOrder: 'Ascending' }, 2);
  assert.deepEqual(asc.map((p) => p.Models.length), [2, 2, 1]);
  assert.deepEqual(asc.flatMap((p) => p.Models.map((m) => m.ModelName)), CREATED);

  const desc = await collect({ SortBy: 'CreationTime', SortOrder: 'Descending' }, 2);
  assert.deepEqual(desc.map((p) => p.Models.length), [2, 2, 1]);
  assert.deepEqual(desc.flatMap((p) => p.Models.map((m) => m.ModelName)), [...CREATED].reverse());
});

test('MaxResults caps a single page and NextToken resumes it', async () => {
  const first = await sm.send(new ListModelsCommand({ SortBy: 'Name', SortOrder: 'Ascending', MaxResults: 3 }));
  assert.deepEqual(first.Models.map((m) => m.ModelName), ['alpha-model', 'bravo-model', 'charlie-model']);
  assert.equal(typeof first.NextToken, 'string');
  assert.ok(first.NextToken.length > 0);
  const second = await sm.send(new ListModelsCommand({
    SortBy: 'Name', SortOrder: 'Ascending', MaxResults: 3, NextToken: first.NextToken,
  }));
  assert.deepEqual(second.Models.map((m) => m.ModelName), ['delta-model', 'echo-model']);
  assert.equal(second.NextToken, undefined);
});

test('MaxResults outside 1..100 is a ValidationException', async () => {
  const err = await errorOf(sm.send(new ListModelsCommand({ MaxResults: 0 })));
  assert.equal(err.name, 'ValidationException');
  assert.equal(err.$metadata.httpStatusCode, 400);
  assert.equal(err.message,
    "1 validation error detected: Value '0' at 'maxResults' failed to satisfy constraint: " +
    'Member must have value greater than or equal to 1');
  const err2 = await errorOf(sm.send(new ListModelsCommand({ MaxResults: 101 })));
  assert.equal(err2.name, 'ValidationException');
  assert.equal(err2.message,
    "1 validation error detected: Value '101' at 'maxResults' failed to satisfy constraint: " +
    'Member must have value less than or equal to 100');
});

test('NameContains filters, and combines with SortBy Name Ascending', async () => {
  const res = await sm.send(new ListModelsCommand({ NameContains: 'ha', SortBy: 'Name', SortOrder: 'Ascending' }));
  // 'alpha-model' and 'charlie-model' contain "ha"; nothing else does.
  assert.deepEqual(res.Models.map((m) => m.ModelName), ['alpha-model', 'charlie-model']);
  assert.equal(res.NextToken, undefined);

  const none = await sm.send(new ListModelsCommand({ NameContains: 'zulu' }));
  assert.deepEqual(none.Models, []);
});

test('NameContains with pagination', async () => {
  const pages = await collect({ NameContains: 'o-model', SortBy: 'Name', SortOrder: 'Ascending' }, 1);
  // bravo-model, echo-model
  assert.deepEqual(pages.map((p) => p.Models.map((m) => m.ModelName)), [['bravo-model'], ['echo-model']]);
});

test('CreationTimeAfter and CreationTimeBefore filter by creation time', async () => {
  // Between the 2nd (alpha, T0+60s) and 4th (charlie, T0+180s) creation: only echo (T0+120s).
  const res = await sm.send(new ListModelsCommand({
    CreationTimeAfter: new Date(T0 + 90_000),
    CreationTimeBefore: new Date(T0 + 150_000),
  }));
  assert.deepEqual(res.Models.map((m) => m.ModelName), ['echo-model']);

  const after = await sm.send(new ListModelsCommand({
    CreationTimeAfter: new Date(T0 + 150_500), SortBy: 'Name', SortOrder: 'Ascending',
  }));
  assert.deepEqual(after.Models.map((m) => m.ModelName), ['bravo-model', 'charlie-model']);

  const before = await sm.send(new ListModelsCommand({
    CreationTimeBefore: new Date(T0 + 30_250), SortBy: 'Name', SortOrder: 'Ascending',
  }));
  assert.deepEqual(before.Models.map((m) => m.ModelName), ['delta-model']);
});
