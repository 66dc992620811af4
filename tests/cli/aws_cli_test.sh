#!/usr/bin/env bash
# Real-client test: the Debian AWS CLI v2 (/usr/bin/aws) against a sagemaker-emulator binary.
#
#   tests/cli/aws_cli_test.sh /path/to/sagemaker-emulator
#
# The Debian CLI's bundled botocore predates the newer SageMaker operations, so it is pointed
# at the project's own model subset (api/ at the repo root) through AWS_DATA_PATH.
# Only /usr/bin/aws and /usr/bin/python3 are used (never whatever is first on PATH).
# Prints one "ok - ..." / "not ok - ..." line per check and ends with "N passed, M failed".
set -uo pipefail

CLI_TEST_TAG=cli
CLI_PRELOAD=0  # this suite starts /usr/bin/aws afresh for every command, as a user's shell does
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ARN_PREFIX="arn:aws:sagemaker:$REGION:$ACCOUNT:model/"

# ---------------------------------------------------------------- the tests
T0=$(date +%s.%N)
echo "# binary: $BIN"
echo "# AWS_DATA_PATH=$AWS_DATA_PATH"
echo "# $("$AWS" --version 2>&1)"

start_server_or_exit --clock-start 2027-01-25T00:00:00Z --frozen-clock --account-id 000000000000 \
     --region us-east-1

# --- the CLI sees the api/ subset
"$AWS" sagemaker list-notebook-instances --endpoint-url "$ENDPOINT" >"$WORK/le.out" 2>"$WORK/le.err"
rc=$?
if [[ $rc -eq 252 ]] && grep -q 'Invalid choice' "$WORK/le.err" && grep -q 'create-model' "$WORK/le.err"; then
  ok "CLI loads the api/ subset via AWS_DATA_PATH (list-notebook-instances is not a command; create-model is)"
else
  not_ok "CLI loads the api/ subset via AWS_DATA_PATH" "exit=$rc" "stderr: $(head -c 800 "$WORK/le.err")"
fi

# --- create / describe round trip
sm create-model --model-name MyModel-A
expect_success "create-model MyModel-A succeeds"
expect_eq "create-model returns the lower-cased ModelArn" "${ARN_PREFIX}mymodel-a" "$(jget "$OUT" 'd["ModelArn"]')"

sm describe-model --model-name MyModel-A
expect_success "describe-model MyModel-A succeeds"
expect_eq "describe-model ModelName keeps the caller's case" "MyModel-A" "$(jget "$OUT" 'd["ModelName"]')"
expect_eq "describe-model ModelArn is lower-cased" "${ARN_PREFIX}mymodel-a" "$(jget "$OUT" 'd["ModelArn"]')"
CREATION_A=$(jget "$OUT" 'd.get("CreationTime")')
expect_match "describe-model CreationTime is the frozen virtual clock (2027-01-25T00:00:00)" \
  '^2027-01-25T00:00:00(\.0+)?(\+00:00|Z)?$' "$CREATION_A"

sm describe-model --model-name mymodel-a
expect_success "describe-model finds the model under a different letter case"
expect_eq "describe-model by other case returns the stored ModelName" "MyModel-A" "$(jget "$OUT" 'd.get("ModelName")')"

# --- region isolation: the same account in another region sees nothing
AWS_DEFAULT_REGION=us-east-1 sm describe-model --model-name MyModel-A
expect_aws_error "a model is not visible from another region" DescribeModel ValidationException \
  "Could not find model \"arn:aws:sagemaker:us-east-1:$ACCOUNT:model/mymodel-a\"."

# --- duplicate create
sm create-model --model-name MyModel-A
expect_aws_error "duplicate create-model fails with ValidationException" CreateModel ValidationException \
  "Cannot create already existing model \"${ARN_PREFIX}mymodel-a\"."
sm create-model --model-name MYMODEL-A
expect_aws_error "create-model with a name differing only in case is a duplicate" CreateModel ValidationException \
  "Cannot create already existing model \"${ARN_PREFIX}mymodel-a\"."

# --- missing model
sm describe-model --model-name no-such-model
expect_aws_error "describe-model on a missing model fails with ValidationException" DescribeModel \
  ValidationException "Could not find model \"${ARN_PREFIX}no-such-model\"."
sm delete-model --model-name no-such-model
expect_aws_error "delete-model on a missing model fails with ValidationException" DeleteModel \
  ValidationException "Could not find model \"${ARN_PREFIX}no-such-model\"."

# --- validation errors that reach the server (botocore checks neither max length nor pattern)
LONG=$(printf 'a%.0s' $(seq 1 64))
sm create-model --model-name "$LONG"
expect_aws_error "create-model with a 64-character name fails server-side validation" CreateModel \
  ValidationException \
  "1 validation error detected: Value '$LONG' at 'modelName' failed to satisfy constraint: Member must have length less than or equal to 63"
sm describe-model --model-name "$LONG"
expect_aws_error "describe-model with a 64-character name fails server-side validation" DescribeModel \
  ValidationException \
  "1 validation error detected: Value '$LONG' at 'modelName' failed to satisfy constraint: Member must have length less than or equal to 63"
sm create-model --model-name bad_name
if [[ $RC -eq 254 ]] && grep -q "^An error occurred (ValidationException) when calling the CreateModel operation.*: 1 validation error detected: Value 'bad_name' at 'modelName' failed to satisfy constraint: Member must satisfy regular expression pattern: " "$ERR"; then
  ok "create-model with an underscore in the name fails the pattern check"
else
  not_ok "create-model with an underscore in the name fails the pattern check" "$(call_context)"
fi
sm list-models --name-contains pg-x --max-results 101
expect_aws_error "list-models --max-results 101 fails server-side validation" ListModels ValidationException \
  "1 validation error detected: Value '101' at 'maxResults' failed to satisfy constraint: Member must have value less than or equal to 100"

# --- list-models and pagination over 5 models
for i in 1 2 3 4 5; do
  sm create-model --model-name "pg-$i"
  expect_success "create-model pg-$i succeeds"
done

sm list-models
expect_success "list-models succeeds"
expect_eq "list-models lists all 6 models" \
  '["MyModel-A","pg-1","pg-2","pg-3","pg-4","pg-5"]' "$(jget "$OUT" 'sorted(m["ModelName"] for m in d["Models"])')"
expect_eq "list-models entries carry ModelArn and CreationTime" "true" \
  "$(jget "$OUT" 'all(m["ModelArn"] == "'"$ARN_PREFIX"'" + m["ModelName"].lower() and m["CreationTime"].startswith("2027-01-25T00:00:00") for m in d["Models"])')"

"$AWS" sagemaker list-models --name-contains pg- --page-size 2 --endpoint-url "$ENDPOINT" --output json \
  --debug >"$WORK/paged.out" 2>"$WORK/paged.err"
rc=$?
expect_eq "list-models --page-size 2 succeeds" 0 "$rc"
expect_eq "list-models --page-size 2 returns each of the 5 models exactly once" \
  '["pg-1","pg-2","pg-3","pg-4","pg-5"]' "$(jget "$WORK/paged.out" 'sorted(m["ModelName"] for m in d["Models"])')"
expect_eq "list-models --page-size 2 output has no NextToken" "<none>" "$(jget "$WORK/paged.out" 'd.get("NextToken")')"
expect_eq "list-models --page-size 2 took 3 ListModels requests (2+2+1)" 3 \
  "$(grep -c 'Making request for OperationModel(name=ListModels)' "$WORK/paged.err")"

sm list-models --name-contains pg- --no-paginate --max-results 2
expect_eq "list-models --no-paginate --max-results 2 returns 2 models" 2 "$(jget "$OUT" 'len(d["Models"])')"
expect_match "list-models --no-paginate --max-results 2 returns a NextToken" '^[^<].+' "$(jget "$OUT" 'd.get("NextToken")')"

sm list-models --name-contains pg- --max-items 3 --page-size 2
expect_eq "list-models --max-items 3 returns 3 models" 3 "$(jget "$OUT" 'len(d["Models"])')"
TOKEN=$(jget "$OUT" 'd.get("NextToken")')
FIRST3=$(jget "$OUT" '[m["ModelName"] for m in d["Models"]]')
expect_match "list-models --max-items 3 returns a NextToken" '^[^<].+' "$TOKEN"
sm list-models --name-contains pg- --max-items 3 --page-size 2 --starting-token "$TOKEN"
expect_success "list-models --starting-token resumes"
REST=$(jget "$OUT" '[m["ModelName"] for m in d["Models"]]')
expect_eq "the resumed listing has the other 2 models and no NextToken" \
  '["pg-1","pg-2","pg-3","pg-4","pg-5"]|<none>' \
  "$("$PY" -c 'import json,sys; print(json.dumps(sorted(json.loads(sys.argv[1]) + json.loads(sys.argv[2])), separators=(",", ":")))' "$FIRST3" "$REST")|$(jget "$OUT" 'd.get("NextToken")')"

sm list-models --name-contains pg- --sort-by Name --sort-order Ascending
expect_eq "list-models --sort-by Name --sort-order Ascending" '["pg-1","pg-2","pg-3","pg-4","pg-5"]' \
  "$(jget "$OUT" '[m["ModelName"] for m in d["Models"]]')"
sm list-models --name-contains pg- --sort-by Name --sort-order Descending
expect_eq "list-models --sort-by Name --sort-order Descending" '["pg-5","pg-4","pg-3","pg-2","pg-1"]' \
  "$(jget "$OUT" '[m["ModelName"] for m in d["Models"]]')"

# --- creation-time filters: advance the virtual clock by an hour, create one more model
admin POST /_emulator/clock '{"advance_seconds": 3600}' >"$WORK/clock.json" 2>&1
expect_eq "admin clock advance moves the frozen clock to 01:00" "2027-01-25T01:00:00Z|true" \
  "$(jget "$WORK/clock.json" 'd["now"] + "|" + str(d["frozen"]).lower()')"
sm create-model --model-name later-model
expect_success "create-model later-model succeeds"
sm list-models --creation-time-after 2027-01-25T00:30:00Z
expect_eq "list-models --creation-time-after 00:30 returns only the later model" '["later-model"]' \
  "$(jget "$OUT" '[m["ModelName"] for m in d["Models"]]')"
sm list-models --creation-time-before 2027-01-25T00:30:00Z --name-contains MyModel
expect_eq "list-models --creation-time-before 00:30 --name-contains MyModel" '["MyModel-A"]' \
  "$(jget "$OUT" '[m["ModelName"] for m in d["Models"]]')"
sm list-models --sort-by CreationTime --sort-order Descending --max-results 1 --no-paginate
expect_eq "list-models sorted by CreationTime descending starts with the newest model" '["later-model"]' \
  "$(jget "$OUT" '[m["ModelName"] for m in d["Models"]]')"
sm describe-model --model-name later-model
expect_match "later-model CreationTime is the advanced virtual clock" \
  '^2027-01-25T01:00:00(\.0+)?(\+00:00|Z)?$' "$(jget "$OUT" 'd.get("CreationTime")')"

# --- delete
sm delete-model --model-name pg-5
expect_success "delete-model pg-5 succeeds"
expect_eq "delete-model prints nothing" "" "$(tr -d '[:space:]' <"$OUT")"
sm describe-model --model-name pg-5
expect_aws_error "describe-model after delete fails with ValidationException" DescribeModel \
  ValidationException "Could not find model \"${ARN_PREFIX}pg-5\"."
sm list-models --name-contains pg-
expect_eq "list-models no longer lists the deleted model" '["pg-1","pg-2","pg-3","pg-4"]' \
  "$(jget "$OUT" 'sorted(m["ModelName"] for m in d["Models"])')"

# --- restart: state survives in the database file
sm create-model --model-name Restart-Model
expect_success "create-model Restart-Model succeeds"
sm describe-model --model-name Restart-Model
BEFORE=$(jget "$OUT" 'd["ModelArn"] + " " + d["CreationTime"]')
expect_match "Restart-Model was created at 01:00 virtual time" \
  "^${ARN_PREFIX}restart-model 2027-01-25T01:00:00" "$BEFORE"
expect_eq "server printed exactly one line on stdout" 1 "$(wc -l <"$SERVER_OUT" | tr -d ' ')"

stop_server
expect_eq "SIGTERM stops the server with exit status 0" 0 "$STOP_STATUS"

# Restart with a different clock start, so a re-stamped CreationTime could not pass.
if start_server --clock-start 2030-06-01T12:00:00Z --frozen-clock --account-id 000000000000 \
   --region us-east-1; then
  ok "server restarts on the same database file (port $PORT)"
else
  not_ok "server restarts on the same database file"
fi
sm describe-model --model-name Restart-Model
expect_success "describe-model Restart-Model after restart succeeds"
expect_eq "ModelArn and CreationTime are unchanged after restart" "$BEFORE" \
  "$(jget "$OUT" 'd["ModelArn"] + " " + d["CreationTime"]')"
sm describe-model --model-name MyModel-A
expect_eq "MyModel-A CreationTime is unchanged after restart" "$CREATION_A" "$(jget "$OUT" 'd.get("CreationTime")')"
sm list-models
expect_eq "list-models after restart lists the surviving models" \
  '["MyModel-A","Restart-Model","later-model","pg-1","pg-2","pg-3","pg-4"]' \
  "$(jget "$OUT" 'sorted(m["ModelName"] for m in d["Models"])')"
sm create-model --model-name after-restart
sm describe-model --model-name after-restart
expect_match "a model created after restart gets the new virtual clock time" \
  '^2030-06-01T12:00:00(\.0+)?(\+00:00|Z)?$' "$(jget "$OUT" 'd.get("CreationTime")')"

stop_server
expect_eq "second SIGTERM also exits with status 0" 0 "$STOP_STATUS"

summarize
