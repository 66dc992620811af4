#!/usr/bin/env bash
# Real-client test of SageMaker HyperPod clusters and service quotas: the Debian AWS CLI v2
# (/usr/bin/aws) against a sagemaker-emulator binary serving a small capacity file of its own, on a
# frozen virtual clock moved with curl through the admin API.
#
#   tests/cli/clusters_cli_test.sh /path/to/sagemaker-emulator
#
# The flow: a training plan bought for hyperpod-cluster; create-cluster with a group on that plan
# and an on-demand controller group, Creating until the provisioning delay has passed;
# describe-cluster; list-cluster-nodes and describe-cluster-node as the plan's nodes go Pending ->
# Running -> ShuttingDown -> gone with the plan's window; list-clusters paged by the CLI
# (--page-size, --max-items / --starting-token) and filtered with --training-plan-arn;
# update-cluster; batch-delete-cluster-nodes; delete-cluster; the refusals; and a quota set with
# POST /_emulator/quotas refusing create-cluster with AWS's sentence.
#
# The Debian CLI's bundled botocore predates these operations' members, so it is pointed at the
# project's own model subset (api/ at the repo root) through AWS_DATA_PATH.
# Only /usr/bin/aws, /usr/bin/python3 and /usr/bin/curl are used (never whatever is first on PATH).
# Prints one "ok - ..." / "not ok - ..." line per check and ends with "N passed, M failed".
set -uo pipefail

CLI_TEST_TAG=clusters-cli
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ARN_PREFIX="arn:aws:sagemaker:$REGION:$ACCOUNT"
CURL=/usr/bin/curl
if [[ ! -x $CURL ]]; then
  echo "error: $CURL is missing (Debian package curl)" >&2
  exit 2
fi

P5=ml.p5.48xlarge
M5=ml.m5.xlarge
C5=ml.c5.xlarge  # not in the capacity file: unlimited on demand
TS='+00:00'      # how CLI v2 prints the UTC offset of a timestamp
ROLE="arn:aws:iam::$ACCOUNT:role/HyperPodExecution"
LIFECYCLE='{"OnCreate":"on_create.sh","SourceS3Uri":"s3://hyperpod-bucket/lifecycle/"}'  # keys sorted, as jget prints
PROVISIONING=60
CLUSTER_ARN_RE="^$ARN_PREFIX:cluster/[a-z0-9]{12}\$"

# set_clock JSON EXPECTED_NOW: moves the virtual clock with curl and checks the answer.
set_clock() {
  local answer
  answer=$("$CURL" -sS -X POST "$ENDPOINT/_emulator/clock" -H 'Content-Type: application/json' -d "$1" 2>&1)
  if [[ $answer == *"\"now\":\"$2\""* ]]; then ok "clock set to $2"; else not_ok "clock set to $2" "answer: $answer"; fi
}

# group NAME TYPE COUNT [PLAN_ARN]: one instance group specification as JSON.
group() {
  local plan=""
  [[ -n ${4:-} ]] && plan=",\"TrainingPlanArn\":\"$4\""
  printf '{"InstanceGroupName":"%s","InstanceType":"%s","InstanceCount":%s,"ExecutionRole":"%s","LifeCycleConfig":%s%s}' \
    "$1" "$2" "$3" "$ROLE" "$LIFECYCLE" "$plan"
}

# groups FILE: [name, CurrentCount, TargetCount, Status, TrainingPlanStatus] of each group of a
# describe-cluster answer.
groups() {
  jget "$1" '[[g["InstanceGroupName"], g["CurrentCount"], g["TargetCount"], g["Status"], g.get("TrainingPlanStatus")] for g in d["InstanceGroups"]]'
}

# nodes FILE: [group, status, LaunchTime] of each node of a list-cluster-nodes answer, in its order.
nodes() {
  jget "$1" '[[n["InstanceGroupName"], n["InstanceStatus"]["Status"], n["LaunchTime"]] for n in d["ClusterNodeSummaries"]]'
}

# ---------------------------------------------------------------- the tests
T0=$(date +%s.%N)
echo "# binary: $BIN"
echo "# AWS_DATA_PATH=$AWS_DATA_PATH"
echo "# $("$AWS" --version 2>&1)"

# us-west-2a: two reservable ml.p5.48xlarge (for the plan), none on demand; four on-demand
# ml.m5.xlarge.
CAPACITY=$WORK/capacity.json
cat >"$CAPACITY" <<'EOF'
{"regions": {"us-west-2": {"us-west-2a": {"ml.p5.48xlarge": {"reservable": 2, "on_demand": 0},
                                          "ml.m5.xlarge": {"on_demand": 4}}}},
 "prices": {"ml.p5.48xlarge": {"on_demand_hourly": 98.32, "plan_hourly": 55.0}}}
EOF

start_server_or_exit --clock-start 2027-01-20T00:00:00Z --frozen-clock --capacity "$CAPACITY" \
  --provisioning-seconds "$PROVISIONING"

# ================================================================ 1. a plan for HyperPod clusters
# "Training Plans always end at 11:30 AM UTC on the final day of the reservation": two plan days
# from 11:30 UTC on 21 January to 11:30 UTC on 23 January.
sm search-training-plan-offerings --target-resources hyperpod-cluster \
  --instance-type "$P5" --instance-count 2 --duration-hours 48 \
  --start-time-after 2027-01-21T11:30:00Z --end-time-before 2027-01-23T11:30:00Z
expect_success "search-training-plan-offerings --target-resources hyperpod-cluster succeeds"
expect_eq "one offering: 2 p5 in us-west-2a from 2027-01-21 11:30 for 48 h, for hyperpod-cluster" \
  "[[\"hyperpod-cluster\"],\"us-west-2a\",2,\"2027-01-21T11:30:00$TS\",\"2027-01-23T11:30:00$TS\"]" \
  "$(jget "$OUT" '[[o["TargetResources"], o["ReservedCapacityOfferings"][0]["AvailabilityZone"], o["ReservedCapacityOfferings"][0]["InstanceCount"], o["ReservedCapacityOfferings"][0]["StartTime"], o["ReservedCapacityOfferings"][0]["EndTime"]] for o in d["TrainingPlanOfferings"]][0] if len(d["TrainingPlanOfferings"]) == 1 else d')"
OFFERING_ID=$(jget "$OUT" 'd["TrainingPlanOfferings"][0]["TrainingPlanOfferingId"]')
sm create-training-plan --training-plan-name hp-plan --training-plan-offering-id "$OFFERING_ID"
expect_success "create-training-plan succeeds"
PLAN_ARN=$(jget "$OUT" 'd.get("TrainingPlanArn")')
expect_eq "the plan's ARN" "$ARN_PREFIX:training-plan/hp-plan" "$PLAN_ARN"

# ================================================================ 2. create-cluster, Creating -> InService
sm create-cluster --cluster-name hp-cluster \
  --instance-groups "[$(group workers "$P5" 1 "$PLAN_ARN"),$(group controller "$M5" 1)]"
expect_success "create-cluster with a plan group and an on-demand controller group succeeds"
CLUSTER_ARN=$(jget "$OUT" 'd.get("ClusterArn")')
expect_match "create-cluster returns the cluster's ARN (12 lower-case alphanumerics)" "$CLUSTER_ARN_RE" "$CLUSTER_ARN"

sm describe-cluster --cluster-name hp-cluster
expect_success "describe-cluster succeeds"
expect_eq "describe-cluster: Creating, created at the clock's start, NodeRecovery Automatic" \
  "[\"$CLUSTER_ARN\",\"hp-cluster\",\"Creating\",\"2027-01-20T00:00:00$TS\",\"Automatic\"]" \
  "$(jget "$OUT" '[d["ClusterArn"], d["ClusterName"], d["ClusterStatus"], d["CreationTime"], d.get("NodeRecovery")]')"
# The plan was bought at this instant: its payment is still processed ("When created, the plan
# initially enters a Pending state"), and the group may name it already.
expect_eq "its groups are Creating with no nodes; the plan group shows the plan Pending" \
  '[["workers",0,1,"Creating","Pending"],["controller",0,1,"Creating",null]]' "$(groups "$OUT")"
expect_eq "the plan group echoes its plan, role and lifecycle configuration" \
  "[\"$PLAN_ARN\",\"$ROLE\",$LIFECYCLE]" \
  "$(jget "$OUT" '[d["InstanceGroups"][0].get("TrainingPlanArn"), d["InstanceGroups"][0].get("ExecutionRole"), d["InstanceGroups"][0].get("LifeCycleConfig")]')"

sm update-cluster --cluster-name hp-cluster --instance-groups "[$(group controller "$M5" 2)]"
expect_aws_error "update-cluster while Creating is a ConflictException" UpdateCluster ConflictException \
  "Cluster $CLUSTER_ARN is Creating; it can be updated only while it is InService."
sm create-cluster --cluster-name hp-cluster --instance-groups "[$(group controller "$C5" 1)]"
expect_aws_error "create-cluster with a taken name is ResourceInUse" CreateCluster ResourceInUse \
  "Cluster hp-cluster already exists."

set_clock '{"advance_seconds": 60}' 2027-01-20T00:01:00Z
sm describe-cluster --cluster-name "$CLUSTER_ARN"
expect_eq "after the provisioning delay it is InService (describe-cluster by ARN)" "InService" \
  "$(jget "$OUT" 'd["ClusterStatus"]')"
expect_eq "both groups are InService with their nodes" \
  '[["workers",1,1,"InService","Scheduled"],["controller",1,1,"InService",null]]' "$(groups "$OUT")"

# ================================================================ 3. nodes follow the plan
sm list-cluster-nodes --cluster-name hp-cluster --sort-by NAME
expect_success "list-cluster-nodes succeeds"
expect_eq "before the plan starts the worker is Pending (with the reason) and the controller Running" \
  "[[\"controller\",\"Running\",null],[\"workers\",\"Pending\",\"Waiting for training plan $PLAN_ARN to become Active.\"]]" \
  "$(jget "$OUT" 'sorted([n["InstanceGroupName"], n["InstanceStatus"]["Status"], n["InstanceStatus"].get("Message")] for n in d["ClusterNodeSummaries"])')"
expect_eq "node ids are i- and 17 hex digits" "true" \
  "$(jget "$OUT" 'all(__import__("re").fullmatch("i-[0-9a-f]{17}", n["InstanceId"]) is not None for n in d["ClusterNodeSummaries"])')"
WORKER=$(jget "$OUT" '[n["InstanceId"] for n in d["ClusterNodeSummaries"] if n["InstanceGroupName"] == "workers"][0]')
CONTROLLER=$(jget "$OUT" '[n["InstanceId"] for n in d["ClusterNodeSummaries"] if n["InstanceGroupName"] == "controller"][0]')

sm describe-cluster-node --cluster-name hp-cluster --node-id "$WORKER"
expect_success "describe-cluster-node succeeds"
expect_eq "describe-cluster-node: the worker's group, type, status, zone and lifecycle configuration" \
  "[\"workers\",\"$WORKER\",\"$P5\",\"Pending\",\"us-west-2a\",$LIFECYCLE]" \
  "$(jget "$OUT" '[d["NodeDetails"]["InstanceGroupName"], d["NodeDetails"]["InstanceId"], d["NodeDetails"]["InstanceType"], d["NodeDetails"]["InstanceStatus"]["Status"], d["NodeDetails"]["Placement"]["AvailabilityZone"], d["NodeDetails"].get("LifeCycleConfig")]')"
sm describe-cluster-node --cluster-name hp-cluster --node-id i-0123456789abcdef0
expect_aws_error "describe-cluster-node of an unknown node is ResourceNotFound" DescribeClusterNode ResourceNotFound \
  "Node i-0123456789abcdef0 not found in cluster hp-cluster."

set_clock '{"now": "2027-01-21T11:29:59Z"}' 2027-01-21T11:29:59Z
sm list-cluster-nodes --cluster-name hp-cluster --sort-by NAME
expect_eq "one second before the plan starts the worker is still Pending" \
  '[["controller","Running"],["workers","Pending"]]' \
  "$(jget "$OUT" 'sorted([n["InstanceGroupName"], n["InstanceStatus"]["Status"]] for n in d["ClusterNodeSummaries"])')"
set_clock '{"advance_seconds": 1}' 2027-01-21T11:30:00Z
sm list-cluster-nodes --cluster-name hp-cluster
expect_eq "at the plan's start the worker runs, launched then (listed by launch time)" \
  "[[\"controller\",\"Running\",\"2027-01-20T00:01:00$TS\"],[\"workers\",\"Running\",\"2027-01-21T11:30:00$TS\"]]" \
  "$(nodes "$OUT")"

# ================================================================ 4. listing clusters
# Four more clusters a minute apart (each in service before the next is created), one of them on
# the plan's second instance.
minute=0
for name in c-delta c-bravo c-alpha c-charlie; do
  if [[ $name == c-bravo ]]; then
    sm create-cluster --cluster-name $name --instance-groups "[$(group w "$P5" 1 "$PLAN_ARN")]"
  else
    sm create-cluster --cluster-name $name --instance-groups "[$(group g "$C5" 1)]"
  fi
  expect_success "create-cluster $name succeeds"
  minute=$((minute + 1))
  set_clock '{"advance_seconds": 60}' "2027-01-21T11:3$minute:00Z"
done
sm create-cluster --cluster-name c-echo --instance-groups "[$(group w "$P5" 1 "$PLAN_ARN")]"
expect_aws_error "a group asking for more of the plan than is free is ResourceLimitExceeded" CreateCluster \
  ResourceLimitExceeded \
  "Requested instance count (1) of instance group w exceeds available capacity (0) in training plan $PLAN_ARN."

ALL_BY_NAME='["c-alpha","c-bravo","c-charlie","c-delta","hp-cluster"]'
sm list-clusters --sort-by NAME
expect_eq "list-clusters --sort-by NAME lists every cluster" "$ALL_BY_NAME" \
  "$(jget "$OUT" '[c["ClusterName"] for c in d["ClusterSummaries"]]')"
expect_eq "every summary is InService" '["InService"]' "$(jget "$OUT" 'sorted(set(c["ClusterStatus"] for c in d["ClusterSummaries"]))')"
sm list-clusters --sort-by NAME --sort-order Descending --page-size 1
expect_eq "list-clusters --sort-by NAME --sort-order Descending --page-size 1 pages through all" \
  '["hp-cluster","c-delta","c-charlie","c-bravo","c-alpha"]' \
  "$(jget "$OUT" '[c["ClusterName"] for c in d["ClusterSummaries"]]')"
sm list-clusters --page-size 100
WHOLE=$(jget "$OUT" '[c["ClusterName"] for c in d["ClusterSummaries"]]')
expect_eq "list-clusters by creation time (the default, ascending)" \
  '["hp-cluster","c-delta","c-bravo","c-alpha","c-charlie"]' "$WHOLE"

sm list-clusters --max-items 2 --page-size 1
expect_eq "list-clusters --max-items 2 returns the first 2" '["hp-cluster","c-delta"]' \
  "$(jget "$OUT" '[c["ClusterName"] for c in d["ClusterSummaries"]]')"
TOKEN=$(jget "$OUT" 'd.get("NextToken")')
expect_match "list-clusters --max-items 2 returns a NextToken" '^[^<].+' "$TOKEN"
sm list-clusters --max-items 2 --page-size 1 --starting-token "$TOKEN"
expect_eq "--starting-token resumes with the next 2" '["c-bravo","c-alpha"]' \
  "$(jget "$OUT" '[c["ClusterName"] for c in d["ClusterSummaries"]]')"
TOKEN=$(jget "$OUT" 'd.get("NextToken")')
sm list-clusters --max-items 2 --page-size 1 --starting-token "$TOKEN"
expect_eq "the last page has the last cluster and no NextToken" '["c-charlie"]|<none>' \
  "$(jget "$OUT" '[c["ClusterName"] for c in d["ClusterSummaries"]]')|$(jget "$OUT" 'd.get("NextToken")')"

sm list-clusters --training-plan-arn "$PLAN_ARN" --sort-by NAME
expect_eq "list-clusters --training-plan-arn lists the clusters on the plan, with the plan" \
  "[[\"c-bravo\",[\"$PLAN_ARN\"]],[\"hp-cluster\",[\"$PLAN_ARN\"]]]" \
  "$(jget "$OUT" '[[c["ClusterName"], c.get("TrainingPlanArns")] for c in d["ClusterSummaries"]]')"
sm list-clusters --training-plan-arn "$PLAN_ARN" --page-size 1
expect_success "list-clusters --training-plan-arn --page-size 1 pages to the end"
expect_eq "paged one at a time (the filter applies to each page) it finds the same two" \
  '["hp-cluster","c-bravo"]' "$(jget "$OUT" '[c["ClusterName"] for c in d["ClusterSummaries"]]')"
sm list-clusters --name-contains c- --creation-time-after 2027-01-21T11:30:00Z --sort-by NAME
expect_eq "list-clusters --creation-time-after is exclusive (c-delta was created at 11:30)" \
  '["c-alpha","c-bravo","c-charlie"]' \
  "$(jget "$OUT" '[c["ClusterName"] for c in d["ClusterSummaries"]]')"
sm list-clusters --name-contains c- --creation-time-after 2027-01-21T11:29:59Z --sort-by NAME
expect_eq "list-clusters --name-contains c- created after 11:29:59" '["c-alpha","c-bravo","c-charlie","c-delta"]' \
  "$(jget "$OUT" '[c["ClusterName"] for c in d["ClusterSummaries"]]')"

# ================================================================ 5. update-cluster, batch-delete-cluster-nodes
sm update-cluster --cluster-name hp-cluster --instance-groups "[$(group controller "$M5" 3)]"
expect_success "update-cluster scaling the controller group to 3 succeeds"
expect_eq "update-cluster returns the cluster's ARN" "$CLUSTER_ARN" "$(jget "$OUT" 'd.get("ClusterArn")')"
sm describe-cluster --cluster-name hp-cluster
expect_eq "the cluster is Updating, the controller group Updating towards 3" \
  '["Updating",["controller",1,3,"Updating",null]]' \
  "$(jget "$OUT" '[d["ClusterStatus"], [[g["InstanceGroupName"], g["CurrentCount"], g["TargetCount"], g["Status"], g.get("TrainingPlanStatus")] for g in d["InstanceGroups"]][1]]')"
sm update-cluster --cluster-name hp-cluster --instance-groups "[$(group controller "$M5" 4)]"
expect_aws_error "a second update-cluster while Updating is a ConflictException" UpdateCluster ConflictException \
  "Cluster $CLUSTER_ARN is Updating; it can be updated only while it is InService."
set_clock '{"advance_seconds": 60}' 2027-01-21T11:35:00Z
sm describe-cluster --cluster-name hp-cluster
expect_eq "after the delay: InService with 3 controllers" \
  '[["workers",1,1,"InService","Active"],["controller",3,3,"InService",null]]' "$(groups "$OUT")"
sm update-cluster --cluster-name hp-cluster --instance-groups "[$(group controller "$M5" 5)]"
expect_aws_error "growing beyond the on-demand pool is ResourceLimitExceeded" UpdateCluster ResourceLimitExceeded \
  "Unable to provision requested ML compute capacity. Please retry using a different ML instance type."

sm list-cluster-nodes --cluster-name hp-cluster --instance-group-name-contains contr --page-size 1
expect_success "list-cluster-nodes --instance-group-name-contains --page-size 1 pages to the end"
expect_eq "three controllers, the two new ones launched at the update" \
  "[[\"controller\",\"Running\",\"2027-01-20T00:01:00$TS\"],[\"controller\",\"Running\",\"2027-01-21T11:35:00$TS\"],[\"controller\",\"Running\",\"2027-01-21T11:35:00$TS\"]]" \
  "$(nodes "$OUT")"
CONTROLLERS=$(jget "$OUT" '[n["InstanceId"] for n in d["ClusterNodeSummaries"]]')
sm list-cluster-nodes --cluster-name hp-cluster --max-items 2 --page-size 1
TOKEN=$(jget "$OUT" 'd.get("NextToken")')
FIRST=$(jget "$OUT" '[n["InstanceId"] for n in d["ClusterNodeSummaries"]]')
sm list-cluster-nodes --cluster-name hp-cluster --max-items 2 --page-size 1 --starting-token "$TOKEN"
REST=$(jget "$OUT" '[n["InstanceId"] for n in d["ClusterNodeSummaries"]]')
sm list-cluster-nodes --cluster-name hp-cluster --page-size 100
expect_eq "list-cluster-nodes --max-items 2 then --starting-token lists the 4 nodes in order, once each" \
  "$(jget "$OUT" '[n["InstanceId"] for n in d["ClusterNodeSummaries"]]')|4" \
  "$("$PY" -c 'import json,sys; a=json.loads(sys.argv[1])+json.loads(sys.argv[2]); print(json.dumps(a, separators=(",", ":")) + "|" + str(len(set(a))))' "$FIRST" "$REST")"

NEWEST=$(jget <(echo "$CONTROLLERS") 'd[2]')
sm batch-delete-cluster-nodes --cluster-name hp-cluster --node-ids "$NEWEST" i-0123456789abcdef0
expect_success "batch-delete-cluster-nodes succeeds"
expect_eq "batch-delete-cluster-nodes: the newest controller is deleted, the unknown id fails" \
  "{\"Failed\":[{\"Code\":\"NodeIdNotFound\",\"Message\":\"Node i-0123456789abcdef0 was not found in cluster $CLUSTER_ARN.\",\"NodeId\":\"i-0123456789abcdef0\"}],\"Successful\":[\"$NEWEST\"]}" \
  "$(jget "$OUT" 'd')"
sm batch-delete-cluster-nodes --cluster-name hp-cluster --node-ids "$NEWEST"
expect_eq "deleting it again: InvalidNodeStatus" \
  "{\"Failed\":[{\"Code\":\"InvalidNodeStatus\",\"Message\":\"Node $NEWEST is already being deleted.\",\"NodeId\":\"$NEWEST\"}]}" \
  "$(jget "$OUT" 'd')"
sm describe-cluster-node --cluster-name hp-cluster --node-id "$NEWEST"
expect_eq "the deleted node is ShuttingDown" "ShuttingDown" "$(jget "$OUT" 'd["NodeDetails"]["InstanceStatus"]["Status"]')"
sm describe-cluster --cluster-name hp-cluster
expect_eq "the controller group's target drops to 2" '["controller",2,2,"InService",null]' \
  "$(jget "$OUT" '[[g["InstanceGroupName"], g["CurrentCount"], g["TargetCount"], g["Status"], g.get("TrainingPlanStatus")] for g in d["InstanceGroups"]][1]')"
set_clock '{"advance_seconds": 60}' 2027-01-21T11:36:00Z
sm list-cluster-nodes --cluster-name hp-cluster --instance-group-name-contains controller
expect_eq "after the delay the deleted node is gone" "$(jget <(echo "$CONTROLLERS") 'd[:2]')" \
  "$(jget "$OUT" '[n["InstanceId"] for n in d["ClusterNodeSummaries"]]')"

# ================================================================ 6. the plan ends
# The plan ends at 11:30 UTC on 23 January; its nodes are shut down an hour before.
set_clock '{"now": "2027-01-23T10:29:59Z"}' 2027-01-23T10:29:59Z
sm list-cluster-nodes --cluster-name hp-cluster --instance-group-name-contains workers
expect_eq "an hour and a second before the plan ends the worker still runs" '["Running"]' \
  "$(jget "$OUT" '[n["InstanceStatus"]["Status"] for n in d["ClusterNodeSummaries"]]')"
set_clock '{"advance_seconds": 1}' 2027-01-23T10:30:00Z
sm list-cluster-nodes --cluster-name hp-cluster --instance-group-name-contains workers
expect_eq "one hour before the plan ends the worker is ShuttingDown" '["ShuttingDown"]' \
  "$(jget "$OUT" '[n["InstanceStatus"]["Status"] for n in d["ClusterNodeSummaries"]]')"
set_clock '{"now": "2027-01-23T11:30:00Z"}' 2027-01-23T11:30:00Z
sm list-cluster-nodes --cluster-name hp-cluster --instance-group-name-contains workers
expect_eq "when the plan ends the worker is gone" '[]' \
  "$(jget "$OUT" '[n["InstanceId"] for n in d["ClusterNodeSummaries"]]')"
sm describe-cluster --cluster-name hp-cluster
expect_eq "the cluster stays InService; its plan group is empty with the plan Expired" \
  '["InService",["workers",0,1,"InService","Expired"]]' \
  "$(jget "$OUT" '[d["ClusterStatus"], [[g["InstanceGroupName"], g["CurrentCount"], g["TargetCount"], g["Status"], g.get("TrainingPlanStatus")] for g in d["InstanceGroups"]][0]]')"

# ================================================================ 7. delete-cluster
sm delete-cluster --cluster-name hp-cluster
expect_success "delete-cluster succeeds"
expect_eq "delete-cluster returns the cluster's ARN" "$CLUSTER_ARN" "$(jget "$OUT" 'd.get("ClusterArn")')"
sm describe-cluster --cluster-name hp-cluster
expect_eq "the cluster and its groups are Deleting" '["Deleting",["Deleting","Deleting"]]' \
  "$(jget "$OUT" '[d["ClusterStatus"], [g["Status"] for g in d["InstanceGroups"]]]')"
sm list-cluster-nodes --cluster-name hp-cluster
expect_eq "its nodes are ShuttingDown" '["ShuttingDown","ShuttingDown"]' \
  "$(jget "$OUT" '[n["InstanceStatus"]["Status"] for n in d["ClusterNodeSummaries"]]')"
sm delete-cluster --cluster-name hp-cluster
expect_aws_error "deleting it again is a ConflictException" DeleteCluster ConflictException \
  "Cluster $CLUSTER_ARN is already being deleted."
set_clock '{"advance_seconds": 60}' 2027-01-23T11:31:00Z
sm describe-cluster --cluster-name hp-cluster
expect_aws_error "after the delay it is gone" DescribeCluster ResourceNotFound "Cluster hp-cluster not found."
for op in list-cluster-nodes delete-cluster; do
  sm $op --cluster-name hp-cluster
  expect_aws_error "$op of a missing cluster is ResourceNotFound" \
    "$(echo "$op" | "$PY" -c 'import sys; print("".join(w.title() for w in sys.stdin.read().strip().split("-")))')" \
    ResourceNotFound "Cluster hp-cluster not found."
done
sm batch-delete-cluster-nodes --cluster-name hp-cluster --node-ids "$CONTROLLER"
expect_aws_error "batch-delete-cluster-nodes of a missing cluster is ResourceNotFound" BatchDeleteClusterNodes \
  ResourceNotFound "Cluster hp-cluster not found."
sm list-clusters --sort-by NAME
expect_eq "list-clusters no longer lists it" '["c-alpha","c-bravo","c-charlie","c-delta"]' \
  "$(jget "$OUT" '[c["ClusterName"] for c in d["ClusterSummaries"]]')"

# ================================================================ 8. a quota
QUOTA_NAME="$M5 for cluster usage"
answer=$(admin POST /_emulator/quotas "{\"quotas\":[{\"name\":\"$QUOTA_NAME\",\"value\":2}]}")
expect_eq "POST /_emulator/quotas answers with the setting" "{\"quotas\":[{\"name\":\"$QUOTA_NAME\",\"value\":2}]}" \
  "$(echo "$answer" | "$PY" -c 'import json,sys; print(json.dumps(json.load(sys.stdin), separators=(",", ":")))')"
sm create-cluster --cluster-name over-quota --instance-groups "[$(group controller "$M5" 3)]"
expect_aws_error "create-cluster beyond the quota is ResourceLimitExceeded with AWS's sentence" CreateCluster \
  ResourceLimitExceeded \
  "The account-level service limit '$QUOTA_NAME' is 2 Instances, with current utilization of 0 Instances and a request delta of 3 Instances. Please use AWS Service Quotas to request an increase for this quota. If AWS Service Quotas is not available, contact AWS support to request an increase for this quota."
sm describe-cluster --cluster-name over-quota
expect_aws_error "the refused cluster does not exist" DescribeCluster ResourceNotFound "Cluster over-quota not found."
sm create-cluster --cluster-name within-quota --instance-groups "[$(group controller "$M5" 2)]"
expect_success "create-cluster within the quota succeeds"
answer=$(admin GET "/_emulator/quotas?account=$ACCOUNT&region=$REGION")
expect_eq "GET /_emulator/quotas counts the 2 instances the Creating cluster asked for as used" \
  "[\"$QUOTA_NAME\",2,2]" \
  "$(echo "$answer" | "$PY" -c 'import json,sys; q=json.load(sys.stdin)["quotas"][0]; print(json.dumps([q["name"], q["value"], q["used"]], separators=(",", ":")))')"

expect_eq "server printed exactly one line on stdout" 1 "$(wc -l <"$SERVER_OUT" | tr -d ' ')"
stop_server
expect_eq "SIGTERM stops the server with exit status 0" 0 "$STOP_STATUS"

summarize
