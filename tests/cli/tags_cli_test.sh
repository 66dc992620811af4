#!/usr/bin/env bash
# Real-client test of tags: the Debian AWS CLI v2 (/usr/bin/aws) against a sagemaker-emulator
# binary.
#
#   tests/cli/tags_cli_test.sh /path/to/sagemaker-emulator
#
# Covers the tags given at creation as list-tags shows them (the CLI pages through list-tags with
# the paginator from api/paginators-1.json), add-tags overwriting a value, delete-tags of a key
# that is not there, the 50-tag limit, the reserved "aws:" prefix, an unknown ARN, a malformed
# page token, MaxResults below the model's minimum, and tags leaving with their resource.
# Each aws call costs 1-2 s, so there are few of them and each is checked closely.
#
# The Debian CLI's bundled botocore predates the newer SageMaker operations, so it is pointed
# at the project's own model subset (api/ at the repo root) through AWS_DATA_PATH.
# Only /usr/bin/aws and /usr/bin/python3 are used (never whatever is first on PATH).
# Prints one "ok - ..." / "not ok - ..." line per check and ends with "N passed, M failed".
set -uo pipefail

CLI_TEST_TAG=tags-cli
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ARN_PREFIX="arn:aws:sagemaker:$REGION:$ACCOUNT"

# tags FILE: the [Key, Value] pairs of a list-tags or add-tags answer.
tags() { jget "$1" '[[t["Key"], t["Value"]] for t in d["Tags"]]'; }

T0=$(date +%s.%N)
echo "# binary: $BIN"
echo "# AWS_DATA_PATH=$AWS_DATA_PATH"
echo "# $("$AWS" --version 2>&1)"

start_server_or_exit --clock-start 2027-01-20T00:00:00Z --frozen-clock

# ================================================================ 1. tags from creation, add, delete
sm create-model --model-name Tagged-Model --primary-container Image=img:1 \
  --tags Key=team,Value=ml Key=cost-center,Value=42
expect_success "create-model with two tags succeeds"
MODEL_ARN=$ARN_PREFIX:model/tagged-model

sm list-tags --resource-arn "$MODEL_ARN"
expect_success "list-tags succeeds"
expect_eq "list-tags shows the creation tags in the order given" \
  '[["team","ml"],["cost-center","42"]]' "$(tags "$OUT")"

sm add-tags --resource-arn "$MODEL_ARN" --tags Key=team,Value=platform Key=env,Value=test
expect_success "add-tags succeeds"
expect_eq "add-tags answers with the tags it was given" '[["team","platform"],["env","test"]]' "$(tags "$OUT")"

sm delete-tags --resource-arn "$MODEL_ARN" --tag-keys cost-center never-there
expect_success "delete-tags of a present and a missing key succeeds"
expect_eq "delete-tags prints nothing" "" "$(cat "$OUT")"

sm list-tags --resource-arn "$MODEL_ARN"
expect_eq "team was overwritten in place, env added, cost-center deleted" \
  '[["team","platform"],["env","test"]]' "$(tags "$OUT")"

# A training job, another kind, with its creation tags.
sm create-training-job --training-job-name Tagged-Job --role-arn "arn:aws:iam::$ACCOUNT:role/r" \
  --algorithm-specification TrainingImage=img:1,TrainingInputMode=File \
  --output-data-config S3OutputPath=s3://bucket/out \
  --resource-config InstanceType=ml.m5.xlarge,InstanceCount=1,VolumeSizeInGB=5 \
  --stopping-condition MaxRuntimeInSeconds=3600 --tags Key=job,Value=yes
expect_success "create-training-job with a tag succeeds"
sm list-tags --resource-arn "$ARN_PREFIX:training-job/tagged-job"
expect_eq "list-tags on the training job shows its creation tag" '[["job","yes"]]' "$(tags "$OUT")"

# ================================================================ 2. 50 tags, one page; the 51st
FORTY_EIGHT=$("$PY" -c 'import json; print(json.dumps([{"Key": "k%d" % i, "Value": "v"} for i in range(48)]))')
sm add-tags --resource-arn "$MODEL_ARN" --tags "$FORTY_EIGHT"
expect_success "add-tags of 48 more tags (50 in all) succeeds"
sm list-tags --resource-arn "$MODEL_ARN"
expect_eq "list-tags pages through all 50 tags" 50 "$(jget "$OUT" 'len(d["Tags"])')"
expect_eq "no NextToken is left over" '<none>' "$(jget "$OUT" 'd.get("NextToken")')"
sm add-tags --resource-arn "$MODEL_ARN" --tags Key=one-too-many,Value=x
expect_aws_error "a 51st tag is refused" AddTags ValidationException \
  "A resource can have at most 50 tags; with these tags it would have 51."

# ================================================================ 3. refusals
sm add-tags --resource-arn "$MODEL_ARN" --tags Key=aws:cloudformation:stack-name,Value=s
expect_aws_error "add-tags with the aws: prefix is refused with the service text" AddTags \
  ValidationException "System prefix 'aws:' reserved for AWS usage in tag key: aws:cloudformation:stack-name"

sm list-tags --resource-arn "$ARN_PREFIX:model/missing"
expect_aws_error "list-tags of a missing model names the ARN" ListTags ValidationException \
  "Could not find resource \"$ARN_PREFIX:model/missing\"."

sm list-tags --resource-arn "$MODEL_ARN" --no-paginate --next-token bm90IGEgdG9rZW4=
expect_aws_error "a malformed NextToken is refused" ListTags ValidationException \
  "Invalid pagination token because of a malformed NextToken."

sm list-tags --resource-arn "$MODEL_ARN" --no-paginate --max-results 10
expect_match "MaxResults below 50 is refused by the CLI (exit 252) before it is sent" \
  '^252 .*Invalid value for parameter MaxResults, value: 10, valid min value: 50' "$RC $(tr '\n' ' ' <"$ERR")"

# ================================================================ 4. tags leave with the model
sm delete-model --model-name tagged-model
expect_success "delete-model succeeds"
sm list-tags --resource-arn "$MODEL_ARN"
expect_aws_error "list-tags of the deleted model is refused" ListTags ValidationException \
  "Could not find resource \"$MODEL_ARN\"."

expect_eq "server printed exactly one line on stdout" 1 "$(wc -l <"$SERVER_OUT" | tr -d ' ')"
stop_server
expect_eq "SIGTERM stops the server with exit status 0" 0 "$STOP_STATUS"

summarize
