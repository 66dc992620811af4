// SageMaker HyperPod clusters and account service quotas through @aws-sdk/client-sagemaker:
// a training plan bought for `hyperpod-cluster`, CreateCluster with a group on that plan and an
// on-demand controller group, DescribeCluster polled the way a user would (the SDK has no cluster
// waiter), ListClusterNodes / DescribeClusterNode as nodes go Pending -> Running -> ShuttingDown
// -> gone with the plan's window, UpdateCluster, BatchDeleteClusterNodes, DeleteCluster, the
// paginators paginateListClusters / paginateListClusterNodes, the refusals, and quotas set with
// POST /_emulator/quotas refusing CreateCluster, UpdateCluster and CreateEndpoint.
//
// Every test starts its own emulator (frozen clock at 2027-01-20T00:00:00Z) on this capacity file
// (plans start and end at 11:30 UTC):
//   us-west-2  us-west-2a  ml.p5.48xlarge  2 reservable, none on demand  (55.00 per plan hour)
//                          ml.m5.xlarge    4 on demand
// ml.c5.xlarge is not in the file, so its on-demand capacity is unlimited.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BatchDeleteClusterNodesCommand,
  CreateClusterCommand,
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  DeleteClusterCommand,
  DescribeClusterCommand,
  DescribeClusterNodeCommand,
  DescribeEndpointCommand,
  DescribeTrainingPlanCommand,
  ListClusterNodesCommand,
  ListClustersCommand,
  ListEndpointsCommand,
  ListTagsCommand,
  UpdateClusterCommand,
  paginateListClusterNodes,
  paginateListClusters,
} from '@aws-sdk/client-sagemaker';
import { admin, sagemaker } from '../lib/emulator.mjs';
import {
  T0, P0, MINUTE, HOUR, DAY, ACCOUNT, REGION, P5, P5_PRICES,
  advance, clockTo, createModel, eventually, expectError, expectValidation, onDemandVariant, planArn,
  recordStatuses, searchAndBuy, withEmulator as withEmulatorOn, writeCapacityFile,
} from '../lib/fixtures.mjs';

const M5 = 'ml.m5.xlarge';
const C5 = 'ml.c5.xlarge';
const PROVISIONING = 60;  // --provisioning-seconds of the tests that use it
const CLUSTER_ARN = /^arn:aws:sagemaker:us-west-2:[0-9]{12}:cluster\/[a-z0-9]{12}$/;
const INSTANCE_ID = /^i-[0-9a-f]{17}$/;
const ROLE = `arn:aws:iam::${ACCOUNT}:role/HyperPodExecution`;
const LIFECYCLE = { SourceS3Uri: 's3://hyperpod-bucket/lifecycle/', OnCreate: 'on_create.sh' };
const NO_CAPACITY =
  'We currently do not have sufficient capacity for the requested instance type(s). Please try again.';
const quotaText = (name, limit, used, delta) =>
  `The account-level service limit '${name}' is ${limit} Instances, with current utilization of ${used} ` +
  `Instances and a request delta of ${delta} Instances. Please use AWS Service Quotas to request an ` +
  'increase for this quota. If AWS Service Quotas is not available, contact AWS support to request ' +
  'an increase for this quota.';

const CAPACITY_FILE = writeCapacityFile({
  regions: { 'us-west-2': { 'us-west-2a': { [P5]: { reservable: 2, on_demand: 0 }, [M5]: { on_demand: 4 } } } },
  prices: { [P5]: P5_PRICES },
});

const withEmulator = (fn, { provisioningSeconds = 0 } = {}) =>
  withEmulatorOn(fn, { capacityFile: CAPACITY_FILE, provisioningSeconds });

// ------------------------------------------------------------------------------------ requests

// An instance group specification: `count` instances of `type`, on `plan` when given.
const group = (name, type, count, plan) => ({
  InstanceGroupName: name,
  InstanceType: type,
  InstanceCount: count,
  ExecutionRole: ROLE,
  LifeCycleConfig: LIFECYCLE,
  ...(plan === undefined ? {} : { TrainingPlanArn: plan }),
});

async function createCluster(client, name, groups, extra = {}) {
  const res = await client.send(new CreateClusterCommand({ ClusterName: name, InstanceGroups: groups, ...extra }));
  assert.equal(res.$metadata.httpStatusCode, 200);
  assert.match(res.ClusterArn, CLUSTER_ARN);
  return res.ClusterArn;
}
const describeCluster = (client, name) => client.send(new DescribeClusterCommand({ ClusterName: name }));
const updateCluster = (client, name, input) =>
  client.send(new UpdateClusterCommand({ ClusterName: name, ...input }));
const deleteCluster = (client, name) => client.send(new DeleteClusterCommand({ ClusterName: name }));
const listClusters = (client, input = {}) => client.send(new ListClustersCommand(input));
const listNodes = async (client, name, input = {}) =>
  (await client.send(new ListClusterNodesCommand({ ClusterName: name, ...input }))).ClusterNodeSummaries;
const describeNode = (client, name, id) =>
  client.send(new DescribeClusterNodeCommand({ ClusterName: name, NodeId: id }));
const batchDelete = (client, name, ids) =>
  client.send(new BatchDeleteClusterNodesCommand({ ClusterName: name, NodeIds: ids }));

// Buys `count` ml.p5.48xlarge for HyperPod clusters for `hours` from `startMs` (a plan day's 11:30
// UTC; by default the second, 2027-01-21) and checks the plan's targets as DescribeTrainingPlan
// reports them. Returns the plan ARN.
async function buyClusterPlan(client, name, { startMs = P0 + DAY, hours = 48, count = 2 } = {}) {
  const { arn, offering } = await searchAndBuy(client, name, {
    startMs, hours, count, targets: ['hyperpod-cluster'],
  });
  assert.deepEqual(offering.TargetResources, ['hyperpod-cluster']);
  const plan = await client.send(new DescribeTrainingPlanCommand({ TrainingPlanName: name }));
  assert.equal(plan.TrainingPlanArn, arn);
  assert.deepEqual(plan.TargetResources, ['hyperpod-cluster']);
  assert.equal(plan.TotalInstanceCount, count);
  return arn;
}

// ------------------------------------------------------------------------------------ reading

const ms = (date) => {
  assert.ok(date instanceof Date, `a Date, not ${JSON.stringify(date)}`);
  return date.getTime();
};
// [name, CurrentCount, TargetCount, Status, TrainingPlanStatus] of each instance group.
const groupStates = (cluster) => cluster.InstanceGroups.map((g) =>
  [g.InstanceGroupName, g.CurrentCount, g.TargetCount, g.Status, g.TrainingPlanStatus]);
// [group, status, launch time ms] of each node, in the listing's order (launch time, then id).
const nodeStates = (nodes) => nodes.map((n) => [n.InstanceGroupName, n.InstanceStatus.Status, ms(n.LaunchTime)]);
const idsOf = (nodes, groupName) =>
  nodes.filter((n) => groupName === undefined || n.InstanceGroupName === groupName).map((n) => n.InstanceId);

// What a user writes for lack of a cluster waiter: DescribeCluster every `delayMs` until the
// cluster is in `wanted`; a Failed cluster (when not wanted) or `maxWaitMs` without getting there
// throws. Resolves with the last DescribeCluster answer.
async function pollClusterStatus(client, name, wanted, { delayMs = 50, maxWaitMs = 10_000 } = {}) {
  const deadline = Date.now() + maxWaitMs;
  for (;;) {
    const cluster = await describeCluster(client, name);
    if (cluster.ClusterStatus === wanted) return cluster;
    if (cluster.ClusterStatus === 'Failed') {
      throw new Error(`cluster ${name} failed: ${cluster.FailureMessage}`);
    }
    if (Date.now() > deadline) {
      throw new Error(`cluster ${name} still ${cluster.ClusterStatus} after ${maxWaitMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, delayMs));
  }
}

// Polls `name` on a client of its own (123456789012, us-west-2) until it is `wanted`; once the poller has seen `pending`
// twice, moves the clock by `seconds`. Returns the final answer and every status the poller saw.
async function pollAcrossClockMove(url, name, pending, wanted, seconds) {
  const client = sagemaker(url);
  const seen = recordStatuses(client, { command: 'DescribeClusterCommand', member: 'ClusterStatus' });
  const polling = pollClusterStatus(client, name, wanted);
  polling.catch(() => {});  // awaited below; a failure must not be unhandled meanwhile
  await eventually(`the poller to see ${name} ${pending} twice`, () => seen.filter((s) => s === pending).length >= 2);
  await advance(url, seconds);
  const cluster = await polling;
  return { cluster, seen };
}

// GET /_emulator/capacity's `in_use` entries of kind cluster, as "type count plan-or-on-demand".
async function clusterHoldings(url) {
  const res = await admin(url, '/_emulator/capacity');
  assert.equal(res.status, 200, res.text);
  return res.json.in_use.filter((h) => h.kind === 'cluster')
    .map((h) => `${h.instance_type} ${h.count} ${h.training_plan_arn ?? (h.on_demand ? 'on-demand' : '?')}`)
    .sort();
}

async function setQuotas(url, quotas) {
  const res = await admin(url, '/_emulator/quotas', { method: 'POST', body: { quotas } });
  assert.equal(res.status, 200, res.text);
  return res.json;
}

// ------------------------------------------------------------------------------------ the flow

test('a cluster on a hyperpod-cluster plan: Creating, InService, nodes Pending -> Running -> ShuttingDown -> gone, scaled, nodes deleted, deleted', async () => {
  await withEmulator(async ({ url, sm }) => {
    const plan = await buyClusterPlan(sm, 'hp-plan');  // 2 x p5, 2027-01-21 11:30 to 2027-01-23 11:30
    const planStart = P0 + DAY;
    const planEnd = P0 + 3 * DAY;
    const arn = await createCluster(sm, 'hp-cluster', [
      { ...group('workers', P5, 2, plan), ThreadsPerCore: 1 },
      group('controller', M5, 1),
    ], { Tags: [{ Key: 'team', Value: 'ml' }] });
    assert.match(arn, /^arn:aws:sagemaker:us-west-2:123456789012:cluster\/[a-z0-9]{12}$/);

    const creating = await describeCluster(sm, 'hp-cluster');
    assert.equal(creating.ClusterArn, arn);
    assert.equal(creating.ClusterName, 'hp-cluster');
    assert.equal(creating.ClusterStatus, 'Creating');
    assert.equal(ms(creating.CreationTime), T0);
    assert.equal(creating.NodeRecovery, 'Automatic');
    // The plan was bought this instant: its payment is still processed (Pending, as
    // DescribeTrainingPlan says), and the group may already name it.
    assert.deepEqual(groupStates(creating), [
      ['workers', 0, 2, 'Creating', 'Pending'],
      ['controller', 0, 1, 'Creating', undefined],
    ]);
    assert.deepEqual(creating.InstanceGroups[0], {
      CurrentCount: 0, TargetCount: 2, InstanceGroupName: 'workers', InstanceType: P5,
      LifeCycleConfig: LIFECYCLE, ExecutionRole: ROLE, ThreadsPerCore: 1, Status: 'Creating',
      TrainingPlanArn: plan, TrainingPlanStatus: 'Pending',
    });
    assert.deepEqual(await listNodes(sm, 'hp-cluster'), [], 'no nodes while Creating');
    assert.deepEqual((await sm.send(new ListTagsCommand({ ResourceArn: arn }))).Tags, [{ Key: 'team', Value: 'ml' }]);
    await expectError(sm, updateCluster(sm, 'hp-cluster', { InstanceGroups: [group('controller', M5, 2)] }),
      'ConflictException', `Cluster ${arn} is Creating; it can be updated only while it is InService.`);

    // The poller sees Creating until the clock passes the provisioning delay.
    const { cluster: ready, seen } =
      await pollAcrossClockMove(url, 'hp-cluster', 'Creating', 'InService', PROVISIONING);
    assert.deepEqual([...new Set(seen)], ['Creating', 'InService']);
    assert.deepEqual(groupStates(ready), [
      ['workers', 2, 2, 'InService', 'Scheduled'],
      ['controller', 1, 1, 'InService', undefined],
    ]);
    const provisioned = T0 + PROVISIONING * 1000;

    // The plan has not started: its nodes are Pending with the reason; the controller runs.
    let nodes = await listNodes(sm, 'hp-cluster');
    assert.deepEqual(nodes.map((n) => [n.InstanceGroupName, n.InstanceStatus.Status]).sort(),
      [['controller', 'Running'], ['workers', 'Pending'], ['workers', 'Pending']]);
    for (const node of nodes) {
      assert.match(node.InstanceId, INSTANCE_ID);
      assert.equal(ms(node.LaunchTime), provisioned);
      if (node.InstanceGroupName === 'workers') {
        assert.equal(node.InstanceType, P5);
        assert.deepEqual(node.InstanceStatus,
          { Status: 'Pending', Message: `Waiting for training plan ${plan} to become Active.` });
      } else {
        assert.equal(node.InstanceType, M5);
        assert.deepEqual(node.InstanceStatus, { Status: 'Running' });
      }
    }
    assert.equal(new Set(idsOf(nodes)).size, 3, 'every node has its own id');
    const [worker] = idsOf(nodes, 'workers');
    const { NodeDetails: details } = await describeNode(sm, 'hp-cluster', worker);
    assert.equal(details.InstanceId, worker);
    assert.equal(details.InstanceGroupName, 'workers');
    assert.equal(details.InstanceType, P5);
    assert.equal(details.InstanceStatus.Status, 'Pending');
    assert.deepEqual(details.LifeCycleConfig, LIFECYCLE);
    assert.equal(details.ThreadsPerCore, 1);
    assert.deepEqual(details.Placement, { AvailabilityZone: 'us-west-2a', AvailabilityZoneId: 'usw2-az1' });
    assert.match(details.PrivatePrimaryIp, /^10\.\d{1,3}\.\d{1,3}\.\d{1,3}$/);
    assert.equal(details.PrivateDnsHostname,
      `ip-${details.PrivatePrimaryIp.replaceAll('.', '-')}.us-west-2.compute.internal`);
    // The cluster holds the plan's instances and one on-demand m5.
    assert.deepEqual(await clusterHoldings(url), [`${M5} 1 on-demand`, `${P5} 2 ${plan}`]);

    // The plan's window opens: its nodes run, launched at the plan's start.
    await clockTo(url, planStart);
    nodes = await listNodes(sm, 'hp-cluster');
    assert.deepEqual(nodeStates(nodes), [
      ['controller', 'Running', provisioned], ['workers', 'Running', planStart], ['workers', 'Running', planStart],
    ]);
    assert.ok(nodes.every((n) => n.InstanceStatus.Message === undefined), JSON.stringify(nodes));
    assert.deepEqual(groupStates(await describeCluster(sm, 'hp-cluster')), [
      ['workers', 2, 2, 'InService', 'Active'],
      ['controller', 1, 1, 'InService', undefined],
    ]);

    // Scale the controller group to 3: Updating until the delay has passed, refusing a second update.
    assert.equal((await updateCluster(sm, 'hp-cluster', { InstanceGroups: [group('controller', M5, 3)] })).ClusterArn, arn);
    const updating = await describeCluster(sm, 'hp-cluster');
    assert.equal(updating.ClusterStatus, 'Updating');
    assert.deepEqual(groupStates(updating)[1], ['controller', 1, 3, 'Updating', undefined]);
    await expectError(sm, updateCluster(sm, 'hp-cluster', { InstanceGroups: [group('controller', M5, 4)] }),
      'ConflictException', `Cluster ${arn} is Updating; it can be updated only while it is InService.`);
    const { cluster: scaled, seen: seenScaling } =
      await pollAcrossClockMove(url, 'hp-cluster', 'Updating', 'InService', PROVISIONING);
    assert.deepEqual([...new Set(seenScaling)], ['Updating', 'InService']);
    assert.deepEqual(groupStates(scaled)[1], ['controller', 3, 3, 'InService', undefined]);
    nodes = await listNodes(sm, 'hp-cluster');
    const scaledAt = planStart + PROVISIONING * 1000;
    assert.deepEqual(nodeStates(nodes).filter(([g]) => g === 'controller'),
      [['controller', 'Running', provisioned], ['controller', 'Running', scaledAt], ['controller', 'Running', scaledAt]]);
    assert.deepEqual(await clusterHoldings(url), [`${M5} 3 on-demand`, `${P5} 2 ${plan}`]);

    // The plan has no third instance, and the m5 pool (4) no two more.
    await expectError(sm, updateCluster(sm, 'hp-cluster', { InstanceGroups: [group('workers', P5, 3, plan)] }),
      'ResourceLimitExceeded', `Requested instance count (3) exceeds available capacity (2) in training plan ${plan}.`);
    await expectError(sm, updateCluster(sm, 'hp-cluster', { InstanceGroups: [group('controller', M5, 5)] }),
      'ResourceLimitExceeded',
      'Unable to provision requested ML compute capacity. Please retry using a different ML instance type.');
    await expectValidation(sm, updateCluster(sm, 'hp-cluster', { InstanceGroups: [group('controller', C5, 3)] }),
      `The instance type of instance group controller cannot be changed from ${M5} to ${C5}.`);
    assert.equal((await describeCluster(sm, 'hp-cluster')).ClusterStatus, 'InService', 'refusals change nothing');

    // BatchDeleteClusterNodes: one of the two new controllers goes, an unknown id fails, a repeat fails.
    const newest = idsOf(nodes, 'controller')[2];
    const unknown = 'i-0123456789abcdef0';
    const deleted = await batchDelete(sm, 'hp-cluster', [newest, unknown]);
    assert.deepEqual(deleted.Successful, [newest]);
    assert.deepEqual(deleted.Failed, [{
      Code: 'NodeIdNotFound', NodeId: unknown, Message: `Node ${unknown} was not found in cluster ${arn}.`,
    }]);
    const again = await batchDelete(sm, 'hp-cluster', [newest]);
    assert.equal(again.Successful, undefined);
    assert.deepEqual(again.Failed,
      [{ Code: 'InvalidNodeStatus', NodeId: newest, Message: `Node ${newest} is already being deleted.` }]);
    assert.equal((await describeNode(sm, 'hp-cluster', newest)).NodeDetails.InstanceStatus.Status, 'ShuttingDown');
    assert.deepEqual(groupStates(await describeCluster(sm, 'hp-cluster'))[1], ['controller', 2, 2, 'InService', undefined]);
    await advance(url, PROVISIONING);
    assert.deepEqual(idsOf(await listNodes(sm, 'hp-cluster'), 'controller'), idsOf(nodes, 'controller').slice(0, 2));
    await expectError(sm, describeNode(sm, 'hp-cluster', newest), 'ResourceNotFound',
      `Node ${newest} not found in cluster hp-cluster.`);

    // One hour before the plan ends its nodes shut down; at its end they are gone.
    await clockTo(url, planEnd - HOUR - 1000);
    assert.deepEqual((await listNodes(sm, 'hp-cluster', { InstanceGroupNameContains: 'work' }))
      .map((n) => n.InstanceStatus.Status), ['Running', 'Running']);
    await clockTo(url, planEnd - HOUR);
    assert.deepEqual((await listNodes(sm, 'hp-cluster', { InstanceGroupNameContains: 'work' }))
      .map((n) => n.InstanceStatus.Status), ['ShuttingDown', 'ShuttingDown']);
    assert.deepEqual(groupStates(await describeCluster(sm, 'hp-cluster'))[0], ['workers', 0, 2, 'InService', 'Active']);
    await clockTo(url, planEnd);
    assert.deepEqual(await listNodes(sm, 'hp-cluster', { InstanceGroupNameContains: 'work' }), []);
    const afterPlan = await describeCluster(sm, 'hp-cluster');
    assert.equal(afterPlan.ClusterStatus, 'InService');
    assert.deepEqual(groupStates(afterPlan)[0], ['workers', 0, 2, 'InService', 'Expired']);
    assert.deepEqual(await clusterHoldings(url), [`${M5} 2 on-demand`]);

    // DeleteCluster: Deleting (a second delete is refused), then gone.
    assert.equal((await deleteCluster(sm, 'hp-cluster')).ClusterArn, arn);
    const deleting = await describeCluster(sm, 'hp-cluster');
    assert.equal(deleting.ClusterStatus, 'Deleting');
    assert.deepEqual(groupStates(deleting).map((g) => g[3]), ['Deleting', 'Deleting']);
    assert.deepEqual((await listNodes(sm, 'hp-cluster')).map((n) => n.InstanceStatus.Status), ['ShuttingDown', 'ShuttingDown']);
    await expectError(sm, deleteCluster(sm, 'hp-cluster'), 'ConflictException', `Cluster ${arn} is already being deleted.`);
    assert.deepEqual((await listClusters(sm)).ClusterSummaries.map((c) => c.ClusterStatus), ['Deleting']);
    await advance(url, PROVISIONING);
    await expectError(sm, describeCluster(sm, 'hp-cluster'), 'ResourceNotFound', 'Cluster hp-cluster not found.');
    assert.deepEqual((await listClusters(sm)).ClusterSummaries, []);
    assert.deepEqual(await clusterHoldings(url), []);
  }, { provisioningSeconds: PROVISIONING });
});

test('DescribeCluster takes the ARN; ListClusters summarizes status and plans; other accounts see nothing', async () => {
  await withEmulator(async ({ url, sm, other }) => {
    // A plan from 11:30 today, and the clock moved to its start: the plan is Active.
    const plan = await buyClusterPlan(sm, 'hp-plan', { startMs: P0 });
    await clockTo(url, P0);
    const arn = await createCluster(sm, 'on-plan', [group('workers', P5, 1, plan), group('controller', M5, 1)]);
    const d = await describeCluster(sm, arn);
    assert.equal(d.ClusterName, 'on-plan');
    assert.equal(d.ClusterStatus, 'InService', 'no provisioning delay: in service at once');
    assert.deepEqual(groupStates(d), [['workers', 1, 1, 'InService', 'Active'], ['controller', 1, 1, 'InService', undefined]]);
    assert.deepEqual((await listNodes(sm, arn)).map((n) => n.InstanceStatus.Status), ['Running', 'Running']);
    const { ClusterSummaries: [summary], NextToken } = await listClusters(sm);
    assert.equal(NextToken, undefined);
    assert.deepEqual(summary, {
      ClusterArn: arn, ClusterName: 'on-plan', CreationTime: new Date(P0), ClusterStatus: 'InService',
      TrainingPlanArns: [plan],
    });
    assert.deepEqual((await listClusters(other)).ClusterSummaries, []);
    await expectError(other, describeCluster(other, 'on-plan'), 'ResourceNotFound', 'Cluster on-plan not found.');
    await expectError(other, describeCluster(other, arn), 'ResourceNotFound', `Cluster ${arn} not found.`);
    // The plan is this account's: another account cannot put a group on it.
    await expectValidation(other, createCluster(other, 'theirs', [group('workers', P5, 1, plan)]),
      `Training plan ${plan} does not exist in this account and region.`);
  });
});

test('a cluster whose on-demand instances are taken while it is Creating fails with FailureMessage', async () => {
  await withEmulator(async ({ url, sm }) => {
    await createCluster(sm, 'first', [group('controller', M5, 3)]);
    await createCluster(sm, 'second', [group('controller', M5, 3)]);  // the pool has 4
    await advance(url, PROVISIONING);
    assert.equal((await describeCluster(sm, 'first')).ClusterStatus, 'InService');
    const failed = await describeCluster(sm, 'second');
    assert.equal(failed.ClusterStatus, 'Failed');
    assert.equal(failed.FailureMessage, NO_CAPACITY);
    assert.deepEqual(groupStates(failed), [['controller', 0, 3, 'Failed', undefined]]);
    await assert.rejects(pollClusterStatus(sm, 'second', 'InService'), { message: `cluster second failed: ${NO_CAPACITY}` });
    assert.deepEqual(await clusterHoldings(url), [`${M5} 3 on-demand`]);
    // A failed cluster can be deleted.
    await deleteCluster(sm, 'second');
    await advance(url, PROVISIONING);
    assert.deepEqual((await listClusters(sm)).ClusterSummaries.map((c) => c.ClusterName), ['first']);
  }, { provisioningSeconds: PROVISIONING });
});

// ------------------------------------------------------------------------------------ paging

const clusterNames = (pages) => pages.flatMap((p) => p.ClusterSummaries.map((c) => c.ClusterName));
async function clusterPages(client, input, pageSize) {
  const pages = [];
  for await (const page of paginateListClusters({ client, pageSize }, input)) pages.push(page);
  return pages;
}
async function nodePages(client, input, pageSize) {
  const pages = [];
  for await (const page of paginateListClusterNodes({ client, pageSize }, input)) pages.push(page);
  return pages;
}

test('paginateListClusters pages through every cluster by creation time and name, both ways, and filters by plan', async () => {
  await withEmulator(async ({ url, sm }) => {
    const plan = await buyClusterPlan(sm, 'hp-plan', { startMs: P0, count: 2 });
    // Created in an order unlike their names; c-delta and c-alpha tie on their creation time.
    const created = ['c-echo', 'c-charlie', 'c-delta', 'c-alpha', 'c-bravo'];
    const onPlan = new Set(['c-charlie', 'c-alpha']);
    for (const [i, name] of created.entries()) {
      if (i !== 3) await advance(url, 60);
      await createCluster(sm, name, [group('g', C5, 1), ...(onPlan.has(name) ? [group('w', P5, 1, plan)] : [])]);
    }
    const byName = [...created].sort();
    for (const pageSize of [1, 2, 3]) {
      const pages = await clusterPages(sm, {}, pageSize);
      assert.equal(pages.length, Math.ceil(created.length / pageSize), `pageSize ${pageSize}`);
      assert.ok(pages.every((p) => p.ClusterSummaries.length <= pageSize));
      assert.equal(pages.at(-1).NextToken, undefined);
      const names = clusterNames(pages);
      assert.deepEqual([...names].sort(), byName, 'every cluster exactly once');
      assert.deepEqual(names, (await listClusters(sm, { MaxResults: 100 })).ClusterSummaries.map((c) => c.ClusterName));
    }
    // CREATION_TIME (the default), ascending by default: the tie keeps one order both ways.
    const asc = clusterNames(await clusterPages(sm, { SortBy: 'CREATION_TIME' }, 2));
    assert.deepEqual([asc[0], asc[1], asc[4]], ['c-echo', 'c-charlie', 'c-bravo']);
    assert.deepEqual(asc.slice(2, 4).sort(), ['c-alpha', 'c-delta']);
    const desc = clusterNames(await clusterPages(sm, { SortBy: 'CREATION_TIME', SortOrder: 'Descending' }, 2));
    assert.deepEqual(desc, [...asc].reverse());
    assert.deepEqual(clusterNames(await clusterPages(sm, { SortBy: 'NAME' }, 2)), byName);
    assert.deepEqual(clusterNames(await clusterPages(sm, { SortBy: 'NAME', SortOrder: 'Descending' }, 3)),
      [...byName].reverse());
    // NameContains and creation-time bounds (exclusive).
    assert.deepEqual(clusterNames(await clusterPages(sm, { NameContains: 'ha', SortBy: 'NAME' }, 1)),
      ['c-alpha', 'c-charlie']);
    assert.deepEqual(clusterNames(await clusterPages(sm, {
      SortBy: 'NAME', CreationTimeAfter: new Date(T0 + 2 * MINUTE), CreationTimeBefore: new Date(T0 + 4 * MINUTE),
    }, 1)), ['c-alpha', 'c-delta']);

    // TrainingPlanArn: without MaxResults exactly the clusters on the plan; with it (as the
    // paginator sends it) each page holds the matching clusters of MaxResults evaluated ones.
    const filtered = await listClusters(sm, { TrainingPlanArn: plan, SortBy: 'NAME' });
    assert.deepEqual(filtered.ClusterSummaries.map((c) => c.ClusterName), ['c-alpha', 'c-charlie']);
    assert.ok(filtered.ClusterSummaries.every((c) => c.TrainingPlanArns.length === 1 && c.TrainingPlanArns[0] === plan));
    const planPages = await clusterPages(sm, { TrainingPlanArn: plan, SortBy: 'NAME' }, 2);
    assert.deepEqual(planPages.map((p) => p.ClusterSummaries.map((c) => c.ClusterName)),
      [['c-alpha'], ['c-charlie'], []]);
    assert.deepEqual((await listClusters(sm, { TrainingPlanArn: planArn('no-such-plan') })).ClusterSummaries, []);
  });
});

test('paginateListClusterNodes pages through every node by launch time and id, with group and time filters', async () => {
  await withEmulator(async ({ url, sm }) => {
    await createCluster(sm, 'big', [group('alpha', C5, 3), group('beta', M5, 2)]);
    await advance(url, 600);
    await updateCluster(sm, 'big', { InstanceGroups: [group('alpha', C5, 5)] });  // two more at T0 + 10 min
    const all = await listNodes(sm, 'big', { MaxResults: 100 });
    assert.equal(all.length, 7);
    assert.deepEqual(all.map((n) => ms(n.LaunchTime)), [T0, T0, T0, T0, T0, T0 + 10 * MINUTE, T0 + 10 * MINUTE]);
    for (const pageSize of [1, 2, 3, 7]) {
      const pages = await nodePages(sm, { ClusterName: 'big' }, pageSize);
      assert.equal(pages.length, Math.ceil(7 / pageSize), `pageSize ${pageSize}`);
      assert.equal(pages.at(-1).NextToken, undefined);
      assert.deepEqual(pages.flatMap((p) => idsOf(p.ClusterNodeSummaries)), idsOf(all));
    }
    const ids = idsOf(all);
    assert.equal(new Set(ids).size, 7);
    const flat = async (input, size) =>
      (await nodePages(sm, { ClusterName: 'big', ...input }, size)).flatMap((p) => idsOf(p.ClusterNodeSummaries));
    assert.deepEqual(await flat({ SortBy: 'NAME' }, 2), [...ids].sort());
    assert.deepEqual(await flat({ SortBy: 'NAME', SortOrder: 'Descending' }, 3), [...ids].sort().reverse());
    assert.deepEqual(await flat({ SortBy: 'CREATION_TIME', SortOrder: 'Descending' }, 2),
      [...(await flat({ SortBy: 'CREATION_TIME' }, 2))].reverse());
    assert.deepEqual(await flat({ InstanceGroupNameContains: 'bet' }, 1), idsOf(all, 'beta'));
    assert.deepEqual(await flat({ CreationTimeAfter: new Date(T0) }, 1), ids.slice(5), 'after is exclusive');
    assert.deepEqual(await flat({ CreationTimeBefore: new Date(T0 + 10 * MINUTE) }, 2), ids.slice(0, 5));
    assert.deepEqual(await flat({ InstanceGroupNameContains: 'gamma' }, 2), []);
  });
});

// ------------------------------------------------------------------------------------ refusals

test('refusals: ResourceNotFound, ResourceInUse, ValidationException, ResourceLimitExceeded', async () => {
  await withEmulator(async ({ url, sm }) => {
    const missing = 'Cluster nope not found.';
    await expectError(sm, describeCluster(sm, 'nope'), 'ResourceNotFound', missing);
    await expectError(sm, updateCluster(sm, 'nope', { InstanceGroups: [group('g', C5, 1)] }), 'ResourceNotFound', missing);
    await expectError(sm, deleteCluster(sm, 'nope'), 'ResourceNotFound', missing);
    await expectError(sm, listNodes(sm, 'nope'), 'ResourceNotFound', missing);
    await expectError(sm, describeNode(sm, 'nope', 'i-0123456789abcdef0'), 'ResourceNotFound', missing);
    await expectError(sm, batchDelete(sm, 'nope', ['i-0123456789abcdef0']), 'ResourceNotFound', missing);

    await createCluster(sm, 'taken', [group('g', C5, 1)]);
    await expectError(sm, createCluster(sm, 'taken', [group('g', C5, 1)]), 'ResourceInUse', 'Cluster taken already exists.');
    await expectError(sm, createCluster(sm, 'TAKEN', [group('g', C5, 1)]), 'ResourceInUse', 'Cluster TAKEN already exists.');

    // Plans: one for training jobs, one for clusters of 2 p5.
    const { arn: jobPlan } = await searchAndBuy(sm, 'job-plan', { startMs: P0 + 10 * DAY, count: 1, targets: ['training-job'] });
    const plan = await buyClusterPlan(sm, 'hp-plan', { startMs: P0, count: 1 });
    await expectValidation(sm, createCluster(sm, 'bad', [group('w', P5, 1, jobPlan)]),
      `Training plan ${jobPlan} was not bought for HyperPod clusters (its TargetResources do not include hyperpod-cluster).`);
    await expectValidation(sm, createCluster(sm, 'bad', [group('w', 'ml.p4d.24xlarge', 1, plan)]),
      `Instance type ml.p4d.24xlarge of instance group w does not match the instance type of training plan ${plan} (${P5}).`);
    await expectValidation(sm, createCluster(sm, 'bad', [group('w', P5, 2, plan)]),
      `Requested instance count (2) of instance group w exceeds reserved capacity (1) for training plan ${plan}.`);
    await expectValidation(sm, createCluster(sm, 'bad', [group('w', C5, 1), group('w', C5, 2)]),
      'Instance group name w appears more than once in InstanceGroups.');
    await expectValidation(sm, createCluster(sm, 'bad', [group('w', P5, 1, planArn('no-such-plan'))]),
      `Training plan ${planArn('no-such-plan')} does not exist in this account and region.`);
    // The model requires ExecutionRole in a group.
    const { ExecutionRole: _, ...noRole } = group('w', C5, 1);
    await expectValidation(sm, createCluster(sm, 'bad', [noRole]));
    await expectValidation(sm, updateCluster(sm, 'taken', {}),
      'The update changes nothing: give InstanceGroups, InstanceGroupsToDelete or NodeRecovery.');

    // The plan's one instance is held by one cluster; a second cannot have it.
    await createCluster(sm, 'holder', [group('w', P5, 1, plan)]);
    await expectError(sm, createCluster(sm, 'late', [group('w', P5, 1, plan)]), 'ResourceLimitExceeded',
      `Requested instance count (1) of instance group w exceeds available capacity (0) in training plan ${plan}.`);
    assert.deepEqual((await listClusters(sm, { SortBy: 'NAME' })).ClusterSummaries.map((c) => c.ClusterName),
      ['holder', 'taken'], 'no refused cluster was created');

    // Once the plan has expired it takes no group, and its cluster's group has no nodes.
    await clockTo(url, P0 + 2 * DAY);
    await expectValidation(sm, createCluster(sm, 'late', [group('w', P5, 1, plan)]),
      `Training plan ${plan} has expired.`);
    assert.deepEqual(groupStates(await describeCluster(sm, 'holder')), [['w', 0, 1, 'InService', 'Expired']]);
  });
});

// ------------------------------------------------------------------------------------ quotas

test('quotas: CreateCluster, UpdateCluster and CreateEndpoint beyond a quota are ResourceLimitExceeded and change nothing', async () => {
  await withEmulator(async ({ url, sm, other }) => {
    const perType = `${C5} for cluster usage`;
    const total = 'Total number of instances allowed across SageMaker HyperPod clusters';
    const perCluster = 'Maximum number instances allowed per SageMaker HyperPod cluster';
    const endpointQuota = `${M5} for endpoint usage`;
    const answer = await setQuotas(url, [
      { name: perType, value: 3, account: ACCOUNT },
      { name: total, value: 5 },
      { name: perCluster, value: 4 },
      { name: endpointQuota, value: 1, region: REGION },
    ]);
    assert.equal(answer.quotas.length, 4, JSON.stringify(answer));

    await expectError(sm, createCluster(sm, 'too-big', [group('g', C5, 4)]), 'ResourceLimitExceeded',
      quotaText(perType, 3, 0, 4));
    assert.deepEqual((await listClusters(sm)).ClusterSummaries, [], 'the refused cluster does not exist');
    await createCluster(sm, 'fits', [group('g', C5, 2)]);
    await expectError(sm, updateCluster(sm, 'fits', { InstanceGroups: [group('g', C5, 4)] }), 'ResourceLimitExceeded',
      quotaText(perType, 3, 2, 2));
    assert.equal((await describeCluster(sm, 'fits')).ClusterStatus, 'InService');
    assert.equal((await describeCluster(sm, 'fits')).InstanceGroups[0].TargetCount, 2);
    // Another type counts against the total (2 held + 4 > 5), and the per-cluster size.
    await expectError(sm, createCluster(sm, 'm5s', [group('g', M5, 4)]), 'ResourceLimitExceeded',
      quotaText(total, 5, 2, 4));
    await expectError(sm, updateCluster(sm, 'fits', { InstanceGroups: [group('h', M5, 3)] }), 'ResourceLimitExceeded',
      quotaText(perCluster, 4, 2, 3));
    // The per-type quota was set for this account only: another account may use 4 c5.
    await createCluster(other, 'theirs', [group('g', C5, 4)]);

    const used = await admin(url, `/_emulator/quotas?account=${ACCOUNT}&region=${REGION}`);
    assert.equal(used.status, 200, used.text);
    assert.equal(used.json.account, ACCOUNT);
    assert.equal(used.json.region, REGION);
    const usedOf = (name) => used.json.quotas.find((q) => q.name === name);
    assert.deepEqual(usedOf(perType), { name: perType, value: 3, used: 2, set_for_account: ACCOUNT });
    assert.equal(usedOf(total).used, 2);

    // Endpoints: 2 ml.m5.xlarge against a quota of 1.
    await createModel(sm, 'llm');
    await sm.send(new CreateEndpointConfigCommand({ EndpointConfigName: 'two', ProductionVariants: [onDemandVariant(M5, 2)] }));
    await expectError(sm, sm.send(new CreateEndpointCommand({ EndpointName: 'two', EndpointConfigName: 'two' })),
      'ResourceLimitExceeded', quotaText(endpointQuota, 1, 0, 2));
    assert.deepEqual((await sm.send(new ListEndpointsCommand({}))).Endpoints, []);
    await expectError(sm, sm.send(new DescribeEndpointCommand({ EndpointName: 'two' })), 'ValidationException');

    // Removing the quotas (value null) lets the same requests through.
    await setQuotas(url, [{ name: perType, value: null, account: ACCOUNT }, { name: total, value: null },
      { name: perCluster, value: null }, { name: endpointQuota, value: null, region: REGION }]);
    await createCluster(sm, 'too-big', [group('g', C5, 4)]);
    await sm.send(new CreateEndpointCommand({ EndpointName: 'two', EndpointConfigName: 'two' }));
  });
});
