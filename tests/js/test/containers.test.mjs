// Real inference containers behind endpoints (a model whose PrimaryContainer.Environment has
// SAGEMAKER_EMULATOR_UPSTREAM=http://host:port), through @aws-sdk/client-sagemaker and
// @aws-sdk/client-sagemaker-runtime: the GET /ping health check when an endpoint is provisioned,
// InvokeEndpoint forwarded as POST /invocations, the container's 4xx/5xx as a 424 ModelError with
// OriginalStatusCode / OriginalMessage / LogStreamArn, --container-timeout, and CreateModel's check
// of the URL. Then the traffic split between weighted variants (--routing-seed), TargetVariant,
// weights changed by UpdateEndpointWeightsAndCapacities, and invocations while Updating.
//
// The containers are node `http` servers in this process, on 127.0.0.1 and an ephemeral port; each
// records the pings and invocations it got. Every test starts its own emulator (frozen clock).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import {
  CreateEndpointCommand,
  CreateModelCommand,
  CreateEndpointConfigCommand,
  DescribeEndpointCommand,
  DescribeModelCommand,
  ListEndpointsCommand,
  UpdateEndpointCommand,
  UpdateEndpointWeightsAndCapacitiesCommand,
  waitUntilEndpointInService,
} from '@aws-sdk/client-sagemaker';
import { InvokeEndpointCommand } from '@aws-sdk/client-sagemaker-runtime';
import { modelArn, runtime, sagemaker } from '../lib/emulator.mjs';
import {
  ACCOUNT, REGION, IMAGE, ROLE, FAST, advance, createModel, eventually, expectError, expectValidation,
  expectWaiterFailure, recordStatuses, withEmulator,
} from '../lib/fixtures.mjs';

const PROVISIONING = 600;
const PING_FAILED =
  'The primary container for production variant AllTraffic did not pass the ping health check. ' +
  'Please check CloudWatch logs for this endpoint.';
const TIMED_OUT =
  'Your invocation timed out while waiting for a response from container primary. Review the ' +
  'latency metrics for each container in Amazon CloudWatch, resolve the issue, and try again.';
const BAD_UPSTREAM = (value) =>
  `SAGEMAKER_EMULATOR_UPSTREAM must be the URL of an inference container, http://host:port, not '${value}'.`;
const logGroup = (endpoint) => `/aws/sagemaker/Endpoints/${endpoint}`;
const containerErrorText = (kind, status, body, endpoint, { account = ACCOUNT, region = REGION } = {}) =>
  `Received ${kind} error (${status}) from primary with message "${body}". See ` +
  `https://${region}.console.aws.amazon.com/cloudwatch/home?region=${region}` +
  `#logEventViewer:group=${logGroup(endpoint)} in account ${account} for more information.`;
const logStreamArn = (endpoint, { account = ACCOUNT, region = REGION } = {}) =>
  `arn:aws:logs:${region}:${account}:log-group:${logGroup(endpoint)}`;

// ------------------------------------------------------------------------------------ containers

// A model container on 127.0.0.1: GET /ping answers `pingStatus`; POST /invocations is answered by
// `answer(request)` -> { status = 200, body = '', headers = {}, delayMs = 0 }. Everything it gets
// is recorded in `pings` and `invocations` ({ method, url, headers, body: Buffer }). Closed after
// the test.
async function startContainer(t, answer = () => ({ body: 'ok' }), { pingStatus = 200 } = {}) {
  const container = { pings: 0, invocations: [], requests: [] };
  const timers = new Set();
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks) };
      container.requests.push(request);
      if (req.method === 'GET' && req.url === '/ping') {
        container.pings += 1;
        res.writeHead(pingStatus, { 'Content-Type': 'text/plain' }).end(pingStatus === 200 ? '' : 'unhealthy');
        return;
      }
      if (req.method !== 'POST' || req.url !== '/invocations') {
        res.writeHead(404).end('not found');
        return;
      }
      container.invocations.push(request);
      const { status = 200, body = '', headers = {}, delayMs = 0 } = answer(request);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(status, { 'Content-Length': Buffer.byteLength(body), ...headers }).end(body);
      };
      if (delayMs > 0) {
        const timer = setTimeout(() => { timers.delete(timer); send(); }, delayMs);
        timers.add(timer);
      } else {
        send();
      }
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  container.url = `http://127.0.0.1:${server.address().port}`;
  container.close = () => new Promise((resolve) => {
    for (const timer of timers) clearTimeout(timer);
    server.closeAllConnections();
    server.close(() => resolve());
  });
  t.after(() => container.close());
  return container;
}

// A port on 127.0.0.1 that nothing listens on (it was free a moment ago).
async function freePort() {
  const server = http.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// ------------------------------------------------------------------------------------ endpoints

const upstreamModel = (sm, name, url) =>
  createModel(sm, name, { Image: IMAGE, Environment: { SAGEMAKER_EMULATOR_UPSTREAM: url } });
const variant = (name, model, weight) => ({
  VariantName: name, ModelName: model, InstanceType: 'ml.m5.large', InitialInstanceCount: 1,
  ...(weight === undefined ? {} : { InitialVariantWeight: weight }),
});
const createConfig = (sm, name, variants) =>
  sm.send(new CreateEndpointConfigCommand({ EndpointConfigName: name, ProductionVariants: variants }));
const createEndpoint = (sm, name, config) =>
  sm.send(new CreateEndpointCommand({ EndpointName: name, EndpointConfigName: config }));
const describeEndpoint = (sm, name) => sm.send(new DescribeEndpointCommand({ EndpointName: name }));
const setWeights = (sm, name, weights) => sm.send(new UpdateEndpointWeightsAndCapacitiesCommand({
  EndpointName: name,
  DesiredWeightsAndCapacities: Object.entries(weights).map(([v, w]) => ({ VariantName: v, DesiredWeight: w })),
}));

// The model `name` on `url`, a one-variant (AllTraffic) config and an endpoint, all called `name`.
async function deploy(sm, name, url) {
  await upstreamModel(sm, name, url);
  await createConfig(sm, name, [variant('AllTraffic', name)]);
  await createEndpoint(sm, name, name);
  return describeEndpoint(sm, name);
}

// An endpoint `name` with one variant per entry of `weights` ({ VariantName: weight }), variant V
// on its own model `${name}-V` whose container is containers[V].
async function deploySplit(sm, name, containers, weights) {
  const variants = [];
  for (const [v, weight] of Object.entries(weights)) {
    await upstreamModel(sm, `${name}-${v}`, containers[v].url);
    variants.push(variant(v, `${name}-${v}`, weight));
  }
  await createConfig(sm, name, variants);
  await createEndpoint(sm, name, name);
  return describeEndpoint(sm, name);
}

const invoke = (rt, name, body, extra = {}) => rt.send(new InvokeEndpointCommand({
  EndpointName: name, Body: typeof body === 'string' ? new TextEncoder().encode(body) : body, ...extra,
}));
const text = (out) => new TextDecoder().decode(out.Body);

// Invokes `name` `count` times, one after the other; returns the variant of each answer.
async function routeMany(rt, name, count, extra = {}) {
  const variants = [];
  for (let i = 0; i < count; i += 1) variants.push((await invoke(rt, name, `${i}`, extra)).InvokedProductionVariant);
  return variants;
}
const tally = (names) => names.reduce((acc, n) => ({ ...acc, [n]: (acc[n] ?? 0) + 1 }), {});

// The ModelError of a container that answered `status` with `body`, as the SDK exposes it and as it
// went over the wire.
async function expectContainerError(rt, promise, status, body, endpoint, where) {
  const kind = status >= 500 ? 'server' : 'client';
  const err = await expectError(rt, promise, 'ModelError', containerErrorText(kind, status, body, endpoint, where),
    { status: 424 });
  // The modeled members of ModelError are fields of the exception.
  assert.equal(err.OriginalStatusCode, status);
  assert.equal(err.OriginalMessage, body);
  assert.equal(err.LogStreamArn, logStreamArn(endpoint, where));
  assert.equal(rt.lastRaw.json.OriginalStatusCode, status, 'a JSON number on the wire');
  assert.equal(rt.lastRaw.json.OriginalMessage, body);
  assert.equal(rt.lastRaw.json.LogStreamArn, logStreamArn(endpoint, where));
  assert.equal(rt.lastRaw.headers['x-amzn-errortype'], 'ModelError');
  return err;
}

// ------------------------------------------------------------------------------------ forwarding

test('an invocation is forwarded to the container as POST /invocations and its answer comes back', async (t) => {
  const container = await startContainer(t, (req) => ({
    body: JSON.stringify({ got: req.body.toString('utf8') }),
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'X-Amzn-SageMaker-Custom-Attributes': 'model=v1' },
  }));
  await withEmulator(async ({ sm, rt }) => {
    const described = await deploy(sm, 'real', container.url);
    assert.equal(described.EndpointStatus, 'InService');
    assert.equal(container.pings, 1, 'the health check ran once, when the endpoint was provisioned');
    assert.equal(container.invocations.length, 0);
    assert.deepEqual((await sm.send(new DescribeModelCommand({ ModelName: 'real' }))).PrimaryContainer.Environment,
      { SAGEMAKER_EMULATOR_UPSTREAM: container.url });

    const out = await invoke(rt, 'real', '1,2,3', {
      ContentType: 'text/csv', Accept: 'application/json', CustomAttributes: 'trace=1', InferenceId: 'inference-7',
      TargetVariant: 'AllTraffic',
    });
    assert.equal(out.$metadata.httpStatusCode, 200);
    assert.equal(text(out), '{"got":"1,2,3"}');
    assert.equal(out.ContentType, 'application/json; charset=utf-8');
    assert.equal(out.CustomAttributes, 'model=v1');
    assert.equal(out.InvokedProductionVariant, 'AllTraffic');

    assert.equal(container.invocations.length, 1);
    const [got] = container.invocations;
    assert.equal(got.method, 'POST');
    assert.equal(got.url, '/invocations');
    assert.equal(got.body.toString('utf8'), '1,2,3');
    assert.equal(got.headers['content-type'], 'text/csv');
    assert.equal(got.headers.accept, 'application/json');
    assert.equal(got.headers['x-amzn-sagemaker-custom-attributes'], 'trace=1');
    assert.equal(got.headers['x-amzn-sagemaker-inference-id'], 'inference-7');
    // The caller's credentials and SDK headers stay with the emulator.
    assert.equal(got.headers.authorization, undefined);
    assert.equal(got.headers['x-amz-date'], undefined);
    assert.equal(got.headers['x-amzn-sagemaker-target-variant'], undefined);
    assert.equal(container.pings, 1, 'no health check per invocation');

    // Bytes that are not UTF-8 go both ways unchanged; no custom attributes from the container,
    // none in the answer.
    const bytes = Uint8Array.from([0, 255, 128, 10, 13, 0x7f, 0xc3]);
    const binary = await startContainer(t, (req) => ({
      body: Buffer.concat([Buffer.from('echo:'), req.body]), headers: { 'Content-Type': 'application/octet-stream' },
    }));
    await deploy(sm, 'binary', binary.url);
    const echoed = await invoke(rt, 'binary', bytes, { ContentType: 'application/x-image' });
    assert.deepEqual(Buffer.from(echoed.Body), Buffer.concat([Buffer.from('echo:'), Buffer.from(bytes)]));
    assert.equal(echoed.ContentType, 'application/octet-stream');
    assert.equal(echoed.CustomAttributes, undefined);
    assert.deepEqual(binary.invocations[0].body, Buffer.from(bytes));
    assert.equal(binary.invocations[0].headers['content-type'], 'application/x-image');
    assert.equal(binary.invocations[0].headers.accept, undefined, 'no Accept when the caller sent none');
    assert.equal(container.invocations.length, 1, 'the other endpoint\'s container got nothing');
  });
});

// ------------------------------------------------------------------------------------ errors

test('a container\'s 500 and 400 are 424 ModelErrors with its status, message and log group', async (t) => {
  const container = await startContainer(t, (req) => {
    const body = req.body.toString('utf8');
    if (body === 'bad') return { status: 400, body: 'Unable to evaluate payload provided' };
    if (body === 'missing') return { status: 404, body: '{"error": "no such thing"}' };
    return { status: 500, body: 'boom' };
  });
  await withEmulator(async ({ url, sm, rt }) => {
    await deploy(sm, 'flaky', container.url);

    await expectContainerError(rt, invoke(rt, 'flaky', 'x', { ContentType: 'text/csv' }), 500, 'boom', 'flaky');
    await expectContainerError(rt, invoke(rt, 'flaky', 'bad', { ContentType: 'text/csv' }),
      400, 'Unable to evaluate payload provided', 'flaky');
    // The body goes into the message as it is, quotes and all.
    await expectContainerError(rt, invoke(rt, 'flaky', 'missing'), 404, '{"error": "no such thing"}', 'flaky');
    assert.equal(container.invocations.length, 3, 'each error came from the container, with no retry');

    // The region and account are the caller's.
    const other = sagemaker(url, { accessKeyId: '210987654321', region: 'eu-west-1' });
    const otherRt = runtime(url, { accessKeyId: '210987654321', region: 'eu-west-1' });
    await deploy(other, 'Flaky-Too', container.url);
    await expectContainerError(otherRt, invoke(otherRt, 'Flaky-Too', 'x'), 500, 'boom', 'Flaky-Too',
      { account: '210987654321', region: 'eu-west-1' });
  });
});

test('no answer within --container-timeout is a ModelError, and the control plane answers meanwhile', async (t) => {
  const container = await startContainer(t, () => ({ body: 'late', delayMs: 3000 }));
  await withEmulator(async ({ sm, rt }) => {
    await deploy(sm, 'slow', container.url);
    const started = Date.now();
    let settledAt = null;
    const pending = invoke(rt, 'slow', 'x', { ContentType: 'text/plain' });
    pending.then(() => { settledAt = Date.now(); }, () => { settledAt = Date.now(); });
    await eventually('the container to get the invocation', () => container.invocations.length === 1);

    const listed = await sm.send(new ListEndpointsCommand({}));
    assert.deepEqual(listed.Endpoints.map((e) => e.EndpointName), ['slow']);
    assert.equal((await describeEndpoint(sm, 'slow')).EndpointStatus, 'InService');
    assert.equal(settledAt, null, 'the control plane answered while the invocation was still waiting');

    // As the service reports it: a server error with status 0 wrapping the timeout sentence.
    const err = await expectError(rt, pending, 'ModelError',
      containerErrorText('server', 0, TIMED_OUT, 'slow'), { status: 424 });
    const seconds = (Date.now() - started) / 1000;
    assert.ok(seconds >= 0.9 && seconds < 2.5, `timed out after ${seconds} s, not about 1 s`);
    assert.equal(err.OriginalStatusCode, 0);
    assert.equal(err.OriginalMessage, TIMED_OUT);
    assert.equal(err.LogStreamArn, `arn:aws:logs:${REGION}:${ACCOUNT}:log-group:${logGroup('slow')}`);
    assert.equal(container.invocations.length, 1, 'no retry');
  }, { args: ['--container-timeout', '1'] });
});

test('a container that fails its ping fails the endpoint, and waitUntilEndpointInService fails', async (t) => {
  const sick = await startContainer(t, () => ({ body: 'never asked' }), { pingStatus: 503 });
  await withEmulator(async ({ sm, rt }) => {
    const described = await deploy(sm, 'sick', sick.url);
    assert.equal(described.EndpointStatus, 'Failed');
    assert.equal(described.FailureReason, PING_FAILED);
    assert.equal(sick.pings, 1);
    const started = Date.now();
    const failed = await expectWaiterFailure(
      waitUntilEndpointInService({ client: sm, ...FAST, maxWaitTime: 30 }, { EndpointName: 'sick' }));
    assert.ok(Date.now() - started < 2000, 'a Failed endpoint stops the waiter at once');
    assert.equal(failed.reason.EndpointStatus, 'Failed');
    assert.equal(failed.reason.FailureReason, PING_FAILED);
    assert.equal(sick.pings, 1, 'describing a Failed endpoint does not ping again');
    await expectError(rt, invoke(rt, 'sick', 'x'), 'ValidationError', 'Endpoint sick is not in service (Failed).');
    assert.equal(sick.invocations.length, 0);

    // Nothing listening on the port fails the same way.
    const nobody = await deploy(sm, 'nobody', `http://127.0.0.1:${await freePort()}`);
    assert.equal(nobody.EndpointStatus, 'Failed');
    assert.equal(nobody.FailureReason, PING_FAILED);
  });
});

test('the ping happens when the provisioning delay is over; a waiter polling meanwhile then fails', async (t) => {
  const sick = await startContainer(t, () => ({ body: 'never asked' }), { pingStatus: 500 });
  await withEmulator(async ({ url, sm }) => {
    assert.equal((await deploy(sm, 'sick-later', sick.url)).EndpointStatus, 'Creating');
    assert.equal(sick.pings, 0, 'no health check while Creating');
    const client = sagemaker(url);
    const seen = recordStatuses(client);
    const waiting = waitUntilEndpointInService({ client, ...FAST }, { EndpointName: 'sick-later' });
    await eventually('the waiter to poll twice', () => seen.filter((s) => s === 'Creating').length >= 2);
    assert.equal(sick.pings, 0);
    await advance(url, PROVISIONING);
    const failed = await expectWaiterFailure(waiting);
    assert.equal(failed.reason.FailureReason, PING_FAILED);
    assert.equal(seen.at(-1), 'Failed');
    assert.deepEqual(new Set(seen.slice(0, -1)), new Set(['Creating']));
    assert.equal(sick.pings, 1);
  }, { provisioningSeconds: PROVISIONING });
});

test('CreateModel refuses an upstream that is not http://host[:port]', async (t) => {
  await withEmulator(async ({ sm }) => {
    for (const value of [
      '127.0.0.1:8080', 'https://127.0.0.1:8080', 'http://127.0.0.1:8080/invocations', 'http://127.0.0.1:0',
      'http://127.0.0.1:65536', 'http://127.0.0.1:port', 'http://user@127.0.0.1:8080', 'http://', '',
    ]) {
      await expectValidation(sm, upstreamModel(sm, 'bad-upstream', value), BAD_UPSTREAM(value));
      await expectValidation(sm, sm.send(new DescribeModelCommand({ ModelName: 'bad-upstream' })),
        `Could not find model "${modelArn('bad-upstream')}".`);
    }
    // Also in a Containers list.
    await expectValidation(sm, sm.send(new CreateModelCommand({
      ModelName: 'bad-upstream', ExecutionRoleArn: ROLE,
      Containers: [{ Image: IMAGE, Environment: { SAGEMAKER_EMULATOR_UPSTREAM: 'ftp://host:21' } }],
    })), BAD_UPSTREAM('ftp://host:21'));

    // What it accepts; nothing is contacted before an endpoint is provisioned.
    for (const [i, value] of ['http://127.0.0.1:8080', 'http://localhost:1/', 'http://model-host', 'http://[::1]:8080']
      .entries()) {
      const created = await upstreamModel(sm, `good-upstream-${i}`, value);
      assert.equal(created.ModelArn, modelArn(`good-upstream-${i}`));
    }
  });
});

// ------------------------------------------------------------------------------------ traffic split

// Two containers, A and B, behind variants A and B of `name` with the given weights.
async function splitEndpoint(t, sm, name, weights) {
  const containers = {};
  for (const v of Object.keys(weights)) {
    containers[v] = await startContainer(t, () => ({ body: v, headers: { 'Content-Type': 'text/plain' } }));
  }
  const described = await deploySplit(sm, name, containers, weights);
  assert.equal(described.EndpointStatus, 'InService');
  return containers;
}

test('weights 1 and 3 split 400 invocations about 1:3, each answered by its variant\'s container', async (t) => {
  await withEmulator(async ({ sm, rt }) => {
    const containers = await splitEndpoint(t, sm, 'split', { A: 1, B: 3 });
    const described = await describeEndpoint(sm, 'split');
    assert.deepEqual(described.ProductionVariants.map((v) => [v.VariantName, v.CurrentWeight, v.DesiredWeight]),
      [['A', 1, 1], ['B', 3, 3]]);
    const routed = [];
    for (let i = 0; i < 400; i += 1) {
      const out = await invoke(rt, 'split', `${i}`);
      assert.equal(text(out), out.InvokedProductionVariant, 'the answer came from the variant named');
      routed.push(out.InvokedProductionVariant);
    }
    const counts = tally(routed);
    assert.deepEqual(Object.keys(counts).sort(), ['A', 'B']);
    // Expected 100 : 300; a standard deviation is about 8.7.
    assert.ok(counts.A >= 60 && counts.A <= 140, `A got ${counts.A} of 400`);
    assert.equal(containers.A.invocations.length, counts.A);
    assert.equal(containers.B.invocations.length, counts.B);
    // Not simply alternating or in blocks: both variants follow each other somewhere.
    const changes = routed.slice(1).filter((v, i) => v !== routed[i]).length;
    assert.ok(changes > 50, `the variant changed only ${changes} times`);
  });
});

test('the split is reproducible for a --routing-seed and differs for another seed', async (t) => {
  const run = (args) => {
    let routed;
    return withEmulator(async ({ sm, rt }) => {
      await splitEndpoint(t, sm, 'seeded', { A: 1, B: 3 });
      routed = await routeMany(rt, 'seeded', 100);
    }, { args }).then(() => routed);
  };
  const first = await run(['--routing-seed', '42']);
  const again = await run(['--routing-seed', '42']);
  const other = await run(['--routing-seed', '43']);
  const byDefault = await run([]);
  const zero = await run(['--routing-seed', '0']);
  assert.deepEqual(again, first);
  assert.notDeepEqual(other, first);
  assert.deepEqual(zero, byDefault, 'the default seed is 0');
  assert.notDeepEqual(byDefault, first);
  for (const routed of [first, other, byDefault]) assert.deepEqual(Object.keys(tally(routed)).sort(), ['A', 'B']);
});

test('a weight-0 variant gets no traffic but TargetVariant reaches it; all weights 0 need TargetVariant', async (t) => {
  await withEmulator(async ({ sm, rt }) => {
    const containers = await splitEndpoint(t, sm, 'canary', { A: 0, B: 1 });
    assert.deepEqual(tally(await routeMany(rt, 'canary', 50)), { B: 50 });
    assert.equal(containers.A.invocations.length, 0);

    // TargetVariant (X-Amzn-SageMaker-Target-Variant) picks a variant whatever its weight.
    const targeted = await invoke(rt, 'canary', 'x', { TargetVariant: 'A' });
    assert.equal(targeted.InvokedProductionVariant, 'A');
    assert.equal(text(targeted), 'A');
    assert.equal(containers.A.invocations.length, 1);
    assert.deepEqual(tally(await routeMany(rt, 'canary', 20, { TargetVariant: 'B' })), { B: 20 });
    await expectError(rt, invoke(rt, 'canary', 'x', { TargetVariant: 'C' }), 'ValidationError',
      'The variant C is not part of endpoint canary.');

    const zeros = await splitEndpoint(t, sm, 'all-zero', { A: 0, B: 0 });
    await expectError(rt, invoke(rt, 'all-zero', 'x'), 'ValidationError',
      'Endpoint all-zero has no variant with a weight above zero; name one with TargetVariant.');
    assert.equal(text(await invoke(rt, 'all-zero', 'x', { TargetVariant: 'B' })), 'B');
    assert.equal(zeros.A.invocations.length + zeros.B.invocations.length, 1);
  });
});

test('TargetVariant overrides the weights of a 1:3 split', async (t) => {
  await withEmulator(async ({ sm, rt }) => {
    const containers = await splitEndpoint(t, sm, 'targeted', { A: 1, B: 3 });
    assert.deepEqual(tally(await routeMany(rt, 'targeted', 40, { TargetVariant: 'A' })), { A: 40 });
    assert.equal(containers.A.invocations.length, 40);
    assert.equal(containers.B.invocations.length, 0);
  });
});

test('UpdateEndpointWeightsAndCapacities moves the traffic once the update is done', async (t) => {
  await withEmulator(async ({ url, sm, rt }) => {
    const containers = {
      A: await startContainer(t, () => ({ body: 'A' })), B: await startContainer(t, () => ({ body: 'B' })),
    };
    await deploySplit(sm, 'shift', containers, { A: 1, B: 1 });
    await advance(url, PROVISIONING);
    assert.equal((await describeEndpoint(sm, 'shift')).EndpointStatus, 'InService');
    assert.deepEqual(Object.keys(tally(await routeMany(rt, 'shift', 40))).sort(), ['A', 'B']);

    // All traffic to B. Until the update is done the old weights hold.
    await setWeights(sm, 'shift', { A: 0, B: 1 });
    const updating = await describeEndpoint(sm, 'shift');
    assert.equal(updating.EndpointStatus, 'Updating');
    assert.deepEqual(updating.ProductionVariants.map((v) => [v.VariantName, v.CurrentWeight, v.DesiredWeight]),
      [['A', 1, 0], ['B', 1, 1]]);
    assert.deepEqual(Object.keys(tally(await routeMany(rt, 'shift', 40))).sort(), ['A', 'B']);
    await advance(url, PROVISIONING);
    const done = await describeEndpoint(sm, 'shift');
    assert.equal(done.EndpointStatus, 'InService');
    assert.deepEqual(done.ProductionVariants.map((v) => [v.VariantName, v.CurrentWeight, v.DesiredWeight]),
      [['A', 0, 0], ['B', 1, 1]]);
    assert.deepEqual(tally(await routeMany(rt, 'shift', 40)), { B: 40 });

    // Then all to A, naming only the variants that change.
    await setWeights(sm, 'shift', { A: 3, B: 0 });
    await advance(url, PROVISIONING);
    assert.deepEqual(tally(await routeMany(rt, 'shift', 40)), { A: 40 });

    // Both 0: only TargetVariant gets through.
    await setWeights(sm, 'shift', { A: 0 });
    await advance(url, PROVISIONING);
    await expectError(rt, invoke(rt, 'shift', 'x'), 'ValidationError',
      'Endpoint shift has no variant with a weight above zero; name one with TargetVariant.');
    assert.equal(text(await invoke(rt, 'shift', 'x', { TargetVariant: 'A' })), 'A');
  }, { provisioningSeconds: PROVISIONING });
});

// ------------------------------------------------------------------------------------ updating

test('the endpoint keeps serving while Updating, on its old config until the update is done', async (t) => {
  const v1 = await startContainer(t, () => ({ body: 'v1' }));
  const v2 = await startContainer(t, () => ({ body: 'v2' }));
  const broken = await startContainer(t, () => ({ body: 'never asked' }), { pingStatus: 503 });
  await withEmulator(async ({ url, sm, rt }) => {
    assert.equal((await deploy(sm, 'live', v1.url)).EndpointStatus, 'Creating');
    await expectError(rt, invoke(rt, 'live', 'x'), 'ValidationError', 'Endpoint live is not in service (Creating).');
    await advance(url, PROVISIONING);
    assert.equal(text(await invoke(rt, 'live', 'x')), 'v1');

    // UpdateEndpointWeightsAndCapacities: Updating for the provisioning delay, serving all along.
    await setWeights(sm, 'live', { AllTraffic: 2 });
    assert.equal((await describeEndpoint(sm, 'live')).EndpointStatus, 'Updating');
    for (let i = 0; i < 3; i += 1) assert.equal(text(await invoke(rt, 'live', `${i}`)), 'v1');
    assert.equal((await describeEndpoint(sm, 'live')).EndpointStatus, 'Updating');
    await advance(url, PROVISIONING);
    assert.equal((await describeEndpoint(sm, 'live')).EndpointStatus, 'InService');
    assert.equal(v1.pings, 1, 'a weight change does not ping again');

    // UpdateEndpoint to a config on container v2: v1 answers until the update is done, then v2.
    await upstreamModel(sm, 'live-v2', v2.url);
    await createConfig(sm, 'live-v2', [variant('AllTraffic', 'live-v2')]);
    await sm.send(new UpdateEndpointCommand({ EndpointName: 'live', EndpointConfigName: 'live-v2' }));
    assert.equal((await describeEndpoint(sm, 'live')).EndpointStatus, 'Updating');
    assert.equal(text(await invoke(rt, 'live', 'x')), 'v1');
    assert.equal(v2.pings, 0);
    await advance(url, PROVISIONING);
    const updated = await describeEndpoint(sm, 'live');
    assert.equal(updated.EndpointStatus, 'InService');
    assert.equal(updated.EndpointConfigName, 'live-v2');
    assert.equal(v2.pings, 1);
    assert.equal(text(await invoke(rt, 'live', 'x')), 'v2');
    assert.equal(v1.invocations.length, 5);

    // An update to a container that fails its ping leaves the endpoint on the old config.
    await upstreamModel(sm, 'live-v3', broken.url);
    await createConfig(sm, 'live-v3', [variant('AllTraffic', 'live-v3')]);
    await sm.send(new UpdateEndpointCommand({ EndpointName: 'live', EndpointConfigName: 'live-v3' }));
    assert.equal(text(await invoke(rt, 'live', 'x')), 'v2');
    await advance(url, PROVISIONING);
    const rolledBack = await describeEndpoint(sm, 'live');
    assert.equal(rolledBack.EndpointStatus, 'InService');
    assert.equal(rolledBack.EndpointConfigName, 'live-v2');
    assert.equal(rolledBack.FailureReason, PING_FAILED);
    assert.equal(broken.pings, 1);
    assert.equal(text(await invoke(rt, 'live', 'x')), 'v2');
    assert.equal(broken.invocations.length, 0);
  }, { provisioningSeconds: PROVISIONING });
});
