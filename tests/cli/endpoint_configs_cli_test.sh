#!/usr/bin/env bash
# Real-client test of endpoint configs: the Debian AWS CLI v2 (/usr/bin/aws) against a
# sagemaker-emulator binary serving a small capacity file of its own.
#
#   tests/cli/endpoint_configs_cli_test.sh /path/to/sagemaker-emulator
#
# Covers the AWS blog walkthrough for endpoints on a training plan (search an endpoint offering,
# buy it, create a model, create an endpoint config whose variant reserves the plan's capacity),
# describe-endpoint-config, a variant asking for more instances than the plan holds,
# list-endpoint-configs, and delete-endpoint-config with the error for a missing config.
# Each aws call costs 1-2 s, so there are few of them and each is checked closely.
#
# The Debian CLI's bundled botocore predates the newer SageMaker operations, so it is pointed
# at the project's own model subset (api/ at the repo root) through AWS_DATA_PATH.
# Only /usr/bin/aws and /usr/bin/python3 are used (never whatever is first on PATH).
# Prints one "ok - ..." / "not ok - ..." line per check and ends with "N passed, M failed".
set -uo pipefail

CLI_TEST_TAG=ec-cli
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ARN_PREFIX="arn:aws:sagemaker:$REGION:$ACCOUNT"

# config_names FILE: the EndpointConfigName of each summary of a list-endpoint-configs answer.
config_names() { jget "$1" '[c["EndpointConfigName"] for c in d["EndpointConfigs"]]'; }

# production_variants COUNT: the blog's variant list, with InitialInstanceCount COUNT.
production_variants() {
  printf '[{"VariantName":"AllTraffic","ModelName":"%s","InstanceType":"ml.p5.48xlarge","InitialInstanceCount":%s,"CapacityReservationConfig":{"CapacityReservationPreference":"capacity-reservations-only","MlReservationArn":"%s"}}]' \
    "$MODEL" "$1" "$PLAN_ARN"
}

TS='+00:00'  # how CLI v2 prints the UTC offset of a timestamp

# ---------------------------------------------------------------- the tests
T0=$(date +%s.%N)
echo "# binary: $BIN"
echo "# AWS_DATA_PATH=$AWS_DATA_PATH"
echo "# $("$AWS" --version 2>&1)"

# us-west-2a holds 2 reservable ml.p5.48xlarge; a plan hour costs 55.00.
CAPACITY=$WORK/capacity.json
cat >"$CAPACITY" <<'EOF'
{"regions": {"us-west-2": {"us-west-2a": {"ml.p5.48xlarge": {"reservable": 2}}}},
 "prices": {"ml.p5.48xlarge": {"on_demand_hourly": 98.32, "plan_hourly": 55.0}}}
EOF

start_server_or_exit --clock-start 2027-01-20T00:00:00Z --frozen-clock --capacity "$CAPACITY"

# ================================================================ 1. the AWS blog walkthrough
# A week of two ml.p5.48xlarge for an inference endpoint, as typed by a user. "Training Plans
# always end at 11:30 AM UTC on the final day of the reservation", so the week is searched for up
# to 11:30 UTC on 27 January; the first offering starts 30 minutes from now and ends then.
CALLS=$((CALLS + 1))
OFFERING_ID=$("$AWS" sagemaker search-training-plan-offerings --target-resources endpoint \
  --instance-type ml.p5.48xlarge --instance-count 2 --duration-hours 168 \
  --start-time-after 2027-01-20T00:00:00Z --end-time-before 2027-01-27T11:30:00Z \
  --endpoint-url "$ENDPOINT" --query 'TrainingPlanOfferings[0].TrainingPlanOfferingId' --output text \
  2>"$WORK/blog-search.err")
rc=$?
expect_eq "blog: search-training-plan-offerings --output text succeeds" 0 "$rc"
expect_match "blog: the offering id is tpo- and 64 hex digits" '^tpo-[0-9a-f]{64}$' "$OFFERING_ID"

sm create-training-plan --training-plan-name P5-Endpoint-Plan --training-plan-offering-id "$OFFERING_ID"
expect_success "blog: create-training-plan succeeds"
PLAN_ARN=$(jget "$OUT" 'd.get("TrainingPlanArn")')
expect_eq "blog: the plan's ARN" "$ARN_PREFIX:training-plan/p5-endpoint-plan" "$PLAN_ARN"

MODEL=Llama-Serving-Model
sm create-model --model-name "$MODEL" \
  --primary-container "Image=$ACCOUNT.dkr.ecr.$REGION.amazonaws.com/llm-serving:1" \
  --execution-role-arn "arn:aws:iam::$ACCOUNT:role/SageMakerExecution"
expect_success "blog: create-model succeeds"

sm create-endpoint-config --endpoint-config-name P5-Endpoint-Config --production-variants "$(production_variants 1)"
expect_success "blog: create-endpoint-config with a variant on the plan's capacity succeeds"
expect_eq "blog: create-endpoint-config returns the lower-cased EndpointConfigArn" \
  "$ARN_PREFIX:endpoint-config/p5-endpoint-config" "$(jget "$OUT" 'd.get("EndpointConfigArn")')"

sm describe-endpoint-config --endpoint-config-name p5-ENDPOINT-config
expect_success "describe-endpoint-config under another letter case succeeds"
expect_eq "describe-endpoint-config echoes the config, with weight 1.0 and the creation time" \
  "{\"CreationTime\":\"2027-01-20T00:00:00$TS\",\"EndpointConfigArn\":\"$ARN_PREFIX:endpoint-config/p5-endpoint-config\",\"EndpointConfigName\":\"P5-Endpoint-Config\",\"ProductionVariants\":[{\"CapacityReservationConfig\":{\"CapacityReservationPreference\":\"capacity-reservations-only\",\"MlReservationArn\":\"$PLAN_ARN\"},\"InitialInstanceCount\":1,\"InitialVariantWeight\":1.0,\"InstanceType\":\"ml.p5.48xlarge\",\"ModelName\":\"$MODEL\",\"VariantName\":\"AllTraffic\"}]}" \
  "$(jget "$OUT" 'd')"

# ================================================================ 2. more instances than the plan holds
sm create-endpoint-config --endpoint-config-name P5-Three-Instances --production-variants "$(production_variants 3)"
expect_aws_error "3 instances on a 2-instance plan are refused with the service text" CreateEndpointConfig \
  ValidationException "Requested instance count (3) exceeds reserved capacity (2) for training plan."

# "You can use exactly one plan per inference endpoint." A second plan, for the week after (from
# 11:30 UTC on 27 January, when the first one ends), and a configuration whose two variants name
# the two plans.
CALLS=$((CALLS + 1))
LATER_OFFERING=$("$AWS" sagemaker search-training-plan-offerings --target-resources endpoint \
  --instance-type ml.p5.48xlarge --instance-count 1 --duration-hours 168 \
  --start-time-after 2027-01-27T11:30:00Z --endpoint-url "$ENDPOINT" \
  --query 'TrainingPlanOfferings[0].TrainingPlanOfferingId' --output text 2>"$WORK/later.err")
expect_match "an offering for the week after is found" '^tpo-[0-9a-f]{64}$' "$LATER_OFFERING"
sm create-training-plan --training-plan-name p5-later-week --training-plan-offering-id "$LATER_OFFERING"
LATER_ARN=$(jget "$OUT" 'd.get("TrainingPlanArn")')
expect_eq "the later plan's ARN" "$ARN_PREFIX:training-plan/p5-later-week" "$LATER_ARN"
sm create-endpoint-config --endpoint-config-name P5-Two-Plans --production-variants "[
  {\"VariantName\":\"A\",\"ModelName\":\"$MODEL\",\"InstanceType\":\"ml.p5.48xlarge\",\"InitialInstanceCount\":1,\"CapacityReservationConfig\":{\"CapacityReservationPreference\":\"capacity-reservations-only\",\"MlReservationArn\":\"$PLAN_ARN\"}},
  {\"VariantName\":\"B\",\"ModelName\":\"$MODEL\",\"InstanceType\":\"ml.p5.48xlarge\",\"InitialInstanceCount\":1,\"CapacityReservationConfig\":{\"CapacityReservationPreference\":\"capacity-reservations-only\",\"MlReservationArn\":\"$LATER_ARN\"}}]"
expect_aws_error "variants on two plans are refused: exactly one plan per endpoint" CreateEndpointConfig \
  ValidationException "An endpoint can use exactly one training plan, but the variants of this endpoint configuration name 2: $PLAN_ARN and $LATER_ARN."

# A plain config, so that the list has two entries to order.
sm create-endpoint-config --endpoint-config-name a-plain-config \
  --production-variants "VariantName=AllTraffic,ModelName=$MODEL,InstanceType=ml.g5.xlarge,InitialInstanceCount=1,InitialVariantWeight=0.5"
expect_success "create-endpoint-config with shorthand syntax and no reservation succeeds"

# ================================================================ 3. listing and deleting
sm list-endpoint-configs --sort-by Name --sort-order Ascending
expect_success "list-endpoint-configs succeeds"
expect_eq "list-endpoint-configs lists both configs by name; the refused one is not there" \
  "[[\"a-plain-config\",\"$ARN_PREFIX:endpoint-config/a-plain-config\",\"2027-01-20T00:00:00$TS\"],[\"P5-Endpoint-Config\",\"$ARN_PREFIX:endpoint-config/p5-endpoint-config\",\"2027-01-20T00:00:00$TS\"]]" \
  "$(jget "$OUT" '[[c["EndpointConfigName"], c["EndpointConfigArn"], c["CreationTime"]] for c in d["EndpointConfigs"]]')"

sm delete-endpoint-config --endpoint-config-name P5-ENDPOINT-CONFIG
expect_success "delete-endpoint-config under another letter case succeeds"
expect_eq "delete-endpoint-config prints nothing" "" "$(cat "$OUT")"

sm delete-endpoint-config --endpoint-config-name P5-Endpoint-Config
expect_aws_error "deleting it again names the missing config" DeleteEndpointConfig ValidationException \
  "Could not find endpoint configuration \"$ARN_PREFIX:endpoint-config/p5-endpoint-config\"."

sm list-endpoint-configs --name-contains CONFIG
expect_eq "list-endpoint-configs --name-contains CONFIG lists only the config that is left" \
  '["a-plain-config"]' "$(config_names "$OUT")"

expect_eq "server printed exactly one line on stdout" 1 "$(wc -l <"$SERVER_OUT" | tr -d ' ')"
stop_server
expect_eq "SIGTERM stops the server with exit status 0" 0 "$STOP_STATUS"

summarize
