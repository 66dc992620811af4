#!/usr/bin/env bash
# The AWS blog walkthrough of inference endpoints on training-plan capacity, end to end, with the
# Debian AWS CLI against sagemaker-emulator: reserve a week of two ml.p5.48xlarge, deploy a model on
# it, invoke, update to model v2, scale within the reservation, watch the reservation expire,
# migrate to on-demand capacity and clean up. CI runs it (ctest: client.example_walkthrough).
#
#   examples/walkthrough.sh [path/to/sagemaker-emulator]      (default: build/sagemaker-emulator)
#
# It starts its own server on a free port with an in-memory database and a virtual clock frozen at
# 2027-01-15, and exits non-zero at the first step that does not do what AWS would. The server
# checks its own answers against the service model (--check-responses).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
binary="${1:-$root/build/sagemaker-emulator}"
aws_cli=/usr/bin/aws  # Debian's awscli; it learns the newer operations from api/ below

export AWS_DATA_PATH="$root/api" AWS_ACCESS_KEY_ID=123456789012 AWS_SECRET_ACCESS_KEY=x
export AWS_DEFAULT_REGION=us-west-2 AWS_PAGER="" AWS_MAX_ATTEMPTS=1
export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null

work="$(mktemp -d)"
server_pid=""
cleanup() {
  [[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

"$binary" --port 0 --db :memory: --clock-start 2027-01-15T00:00:00Z --frozen-clock --check-responses \
  >"$work/stdout" 2>"$work/server.log" &
server_pid=$!
for _ in $(seq 100); do grep -q listening "$work/stdout" && break; sleep 0.05; done
url="$(sed -n 's/^sagemaker-emulator listening on //p' "$work/stdout")"
[[ -n "$url" ]] || { echo "the server did not start"; cat "$work/server.log"; exit 1; }

sm() { "$aws_cli" --endpoint-url "$url" sagemaker "$@"; }
runtime() { "$aws_cli" --endpoint-url "$url" sagemaker-runtime "$@"; }
clock() { python3 -c 'import sys, urllib.request; urllib.request.urlopen(urllib.request.Request(sys.argv[1] + "/_emulator/clock", data=sys.argv[2].encode(), method="POST"))' "$url" "$1"; }
step() { echo "== $*"; }
expect() {  # expect <description> <actual> <wanted>
  if [[ "$2" != "$3" ]]; then echo "FAILED: $1: got [$2], wanted [$3]"; exit 1; fi
  echo "   ok: $1"
}
variant() {  # variant <model> <count> [plan ARN]
  local reservation=""
  [[ -n "${3:-}" ]] && reservation=",\"CapacityReservationConfig\":{\"CapacityReservationPreference\":\"capacity-reservations-only\",\"MlReservationArn\":\"$3\"}"
  echo "[{\"VariantName\":\"AllTraffic\",\"ModelName\":\"$1\",\"InstanceType\":\"ml.p5.48xlarge\",\"InitialInstanceCount\":$2$reservation}]"
}

step "search a week of 2 x ml.p5.48xlarge for an endpoint, starting Jan 20-24, and buy it"
offer=$(sm search-training-plan-offerings --target-resources endpoint --instance-type ml.p5.48xlarge \
  --instance-count 2 --duration-hours 168 --start-time-after 2027-01-20T00:00:00Z \
  --end-time-before 2027-01-31T00:00:00Z --query 'TrainingPlanOfferings[0].TrainingPlanOfferingId' \
  --output text)
plan=$(sm create-training-plan --training-plan-name p5-endpoint-plan --training-plan-offering-id "$offer" \
  --query TrainingPlanArn --output text)
expect "plan ARN" "$plan" "arn:aws:sagemaker:us-west-2:123456789012:training-plan/p5-endpoint-plan"
# "When created, the plan initially enters a Pending state": its payment takes 30 seconds of the clock.
expect "plan status" "$(sm describe-training-plan --training-plan-name p5-endpoint-plan --query Status --output text)" "Pending"
clock '{"advance_seconds": 30}'
expect "plan status once paid" "$(sm describe-training-plan --training-plan-name p5-endpoint-plan --query Status --output text)" "Scheduled"

step "the reservation starts (11:30 UTC); deploy model v1 on one of its instances"
clock '{"now": "2027-01-20T11:30:00Z"}'  # plan days start at 11:30 UTC
for model in model-v1 model-v2; do
  sm create-model --model-name "$model" \
    --primary-container "Image=123456789012.dkr.ecr.us-west-2.amazonaws.com/$model:1" \
    --execution-role-arn arn:aws:iam::123456789012:role/demo >/dev/null
done
sm create-endpoint-config --endpoint-config-name config-v1 --production-variants "$(variant model-v1 1 "$plan")" >/dev/null
sm create-endpoint --endpoint-name demo-endpoint --endpoint-config-name config-v1 >/dev/null
sm wait endpoint-in-service --endpoint-name demo-endpoint
expect "endpoint status" "$(sm describe-endpoint --endpoint-name demo-endpoint --query EndpointStatus --output text)" "InService"

step "invoke it"
runtime invoke-endpoint --endpoint-name demo-endpoint --content-type text/csv --body '1,2,3' \
  --cli-binary-format raw-in-base64-out "$work/out.txt" >/dev/null
expect "echoed body" "$(cat "$work/out.txt")" "1,2,3"

step "update to model v2, still on the plan"
sm create-endpoint-config --endpoint-config-name config-v2 --production-variants "$(variant model-v2 1 "$plan")" >/dev/null
sm update-endpoint --endpoint-name demo-endpoint --endpoint-config-name config-v2 >/dev/null
sm wait endpoint-in-service --endpoint-name demo-endpoint
expect "endpoint config" "$(sm describe-endpoint --endpoint-name demo-endpoint --query EndpointConfigName --output text)" "config-v2"

step "scale 1 -> 2 inside the 2-instance reservation; 3 is refused"
sm update-endpoint-weights-and-capacities --endpoint-name demo-endpoint \
  --desired-weights-and-capacities VariantName=AllTraffic,DesiredInstanceCount=2 >/dev/null
sm wait endpoint-in-service --endpoint-name demo-endpoint
expect "instances" "$(sm describe-endpoint --endpoint-name demo-endpoint --query 'ProductionVariants[0].CurrentInstanceCount' --output text)" "2"
expect "plan in use" "$(sm describe-training-plan --training-plan-name p5-endpoint-plan --query InUseInstanceCount --output text)" "2"
if sm update-endpoint-weights-and-capacities --endpoint-name demo-endpoint \
  --desired-weights-and-capacities VariantName=AllTraffic,DesiredInstanceCount=3 2>"$work/err" >/dev/null; then
  echo "FAILED: scaling to 3 was accepted"; exit 1
fi
expect "refusal" "$(grep -o 'ValidationException.*' "$work/err" | sed 's/ when calling.*: /: /')" \
  "ValidationException): Requested instance count (3) exceeds reserved capacity (2) for training plan."

step "a week later the reservation has expired: invocations fail"
clock '{"advance_seconds": 604800}'
if runtime invoke-endpoint --endpoint-name demo-endpoint --content-type text/csv --body '1,2,3' \
  --cli-binary-format raw-in-base64-out "$work/out.txt" 2>"$work/err" >/dev/null; then
  echo "FAILED: invoking after the reservation expired worked"; exit 1
fi
expect "ModelError" "$(grep -o 'ModelError.*' "$work/err" | sed 's/ when calling.*: /: /')" \
  "ModelError): Endpoint capacity reservation has expired. Please update endpoint configuration."

step "migrate to on-demand capacity: invocations work again"
sm create-endpoint-config --endpoint-config-name config-on-demand --production-variants "$(variant model-v2 1)" >/dev/null
sm update-endpoint --endpoint-name demo-endpoint --endpoint-config-name config-on-demand >/dev/null
sm wait endpoint-in-service --endpoint-name demo-endpoint
runtime invoke-endpoint --endpoint-name demo-endpoint --content-type text/csv --body '4,5,6' \
  --cli-binary-format raw-in-base64-out "$work/out.txt" >/dev/null
expect "echoed body" "$(cat "$work/out.txt")" "4,5,6"

step "clean up; the plan stays listed with its fee"
sm delete-endpoint --endpoint-name demo-endpoint
sm wait endpoint-deleted --endpoint-name demo-endpoint
for config in config-v1 config-v2 config-on-demand; do sm delete-endpoint-config --endpoint-config-name "$config"; done
expect "plan listed" "$(sm list-training-plans --query 'TrainingPlanSummaries[0].[TrainingPlanName,Status,UpfrontFee]' --output text)" \
  "p5-endpoint-plan	Expired	18480.00"
echo "walkthrough passed"
