#!/usr/bin/env bash
# Real-client test of training and processing jobs: the Debian AWS CLI v2 (/usr/bin/aws) against
# a sagemaker-emulator binary serving a small capacity file of its own, on a frozen virtual clock
# moved with curl through the admin API.
#
#   tests/cli/jobs_cli_test.sh /path/to/sagemaker-emulator
#
# The main flow: a job with two instance preferences falls back to the second type because the
# first type's on-demand pool is empty, and describe-training-job shows the selection; a job on a
# training plan bought to start two days later (Pending for its 30-second payment, then
# Scheduled) waits (Pending, its MaxPendingTimeInSeconds not running) and starts at the plan
# start; `aws sagemaker wait training-job-completed-or-stopped` (success, and its failure on a
# job whose pending time ran out); list-training-jobs (also
# --training-plan-arn-equals); a processing job with preferences and
# `wait processing-job-completed-or-stopped`; stop-training-job and its refusal; a job on the plan
# stopped 30 minutes before the plan ends. Plans run from 11:30 UTC to 11:30 UTC.
#
# The CLI waiters poll every 120 s (training) or 60 s (processing) of real time, so each wait
# here starts when the job has already ended on the virtual clock and returns at its first poll.
# The Debian CLI's bundled botocore predates these members, so it is pointed at the project's
# own model subset (api/ at the repo root) through AWS_DATA_PATH.
# Only /usr/bin/aws, /usr/bin/python3 and /usr/bin/curl are used (never whatever is first on PATH).
# Prints one "ok - ..." / "not ok - ..." line per check and ends with "N passed, M failed".
set -uo pipefail

CLI_TEST_TAG=jobs-cli
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ARN_PREFIX="arn:aws:sagemaker:$REGION:$ACCOUNT"
CURL=/usr/bin/curl
if [[ ! -x $CURL ]]; then
  echo "error: $CURL is missing (Debian package curl)" >&2
  exit 2
fi

P5=ml.p5.48xlarge
P4D=ml.p4d.24xlarge
TS='+00:00'  # how CLI v2 prints the UTC offset of a timestamp
ROLE="arn:aws:iam::$ACCOUNT:role/SageMakerExecution"
IMAGE="$ACCOUNT.dkr.ecr.$REGION.amazonaws.com/trainer:1"

# set_clock JSON EXPECTED_NOW: moves the virtual clock with curl and checks the answer.
set_clock() {
  local answer
  answer=$("$CURL" -sS -X POST "$ENDPOINT/_emulator/clock" -H 'Content-Type: application/json' -d "$1" 2>&1)
  if [[ $answer == *"\"now\":\"$2\""* ]]; then ok "clock set to $2"; else not_ok "clock set to $2" "answer: $answer"; fi
}

# create_job NAME RESOURCE_CONFIG_JSON RUN_SECONDS [STOPPING_CONDITION]: create-training-job.
create_job() {
  sm create-training-job --training-job-name "$1" --role-arn "$ROLE" \
    --algorithm-specification "TrainingImage=$IMAGE,TrainingInputMode=File" \
    --output-data-config S3OutputPath=s3://bucket/out \
    --resource-config "$2" --environment "SAGEMAKER_EMULATOR_RUN_SECONDS=$3" \
    --stopping-condition "${4:-MaxRuntimeInSeconds=86400}"
}

# job_state FILE: [TrainingJobStatus, SecondaryStatus, SelectedInstanceType, SelectedInstanceCount,
# TrainingStartTime] of a describe-training-job answer (absent members are null).
job_state() {
  jget "$1" '[d.get("TrainingJobStatus"), d.get("SecondaryStatus"), d["ResourceConfig"].get("SelectedInstanceType"), d["ResourceConfig"].get("SelectedInstanceCount"), d.get("TrainingStartTime")]'
}

# ---------------------------------------------------------------- the tests
T0=$(date +%s.%N)
echo "# binary: $BIN"
echo "# AWS_DATA_PATH=$AWS_DATA_PATH"
echo "# $("$AWS" --version 2>&1)"

# us-west-2a: one reservable ml.p5.48xlarge (for the plan) and none on demand; one on-demand
# ml.p4d.24xlarge; no on-demand ml.g5.xlarge. Types not listed (ml.m5.xlarge, ml.c5.xlarge) have
# unlimited on-demand capacity.
CAPACITY=$WORK/capacity.json
cat >"$CAPACITY" <<'EOF'
{"regions": {"us-west-2": {"us-west-2a": {"ml.p5.48xlarge": {"reservable": 1, "on_demand": 0},
                                          "ml.p4d.24xlarge": {"on_demand": 1},
                                          "ml.g5.xlarge": {"on_demand": 0}}}},
 "prices": {"ml.p5.48xlarge": {"on_demand_hourly": 98.32, "plan_hourly": 55.0}}}
EOF

start_server_or_exit --clock-start 2027-01-20T00:00:00Z --frozen-clock --capacity "$CAPACITY"

# ================================================================ 1. fallback to the second preference
create_job fallback \
  '{"InstancePreferences":[{"InstanceType":"ml.p5.48xlarge"},{"InstanceType":"ml.p4d.24xlarge"}],"InstanceCount":1,"VolumeSizeInGB":50}' 600
expect_success "create-training-job with two instance preferences succeeds"
expect_eq "create-training-job returns the job's ARN" "$ARN_PREFIX:training-job/fallback" "$(jget "$OUT" 'd.get("TrainingJobArn")')"

sm describe-training-job --training-job-name fallback
expect_success "describe-training-job succeeds"
expect_eq "the empty p5 pool is skipped: the job runs on the p4d, from the clock's start" \
  "[\"InProgress\",\"Starting\",\"$P4D\",1,\"2027-01-20T00:00:00$TS\"]" "$(job_state "$OUT")"
expect_eq "ResourceConfig echoes the preferences and adds the selection" \
  "{\"InstanceCount\":1,\"InstancePreferences\":[{\"InstanceType\":\"$P5\"},{\"InstanceType\":\"$P4D\"}],\"SelectedInstanceCount\":1,\"SelectedInstanceType\":\"$P4D\",\"VolumeSizeInGB\":50}" \
  "$(jget "$OUT" 'd["ResourceConfig"]')"

# ================================================================ 2. a job that waits for its plan
# "Training Plans always end at 11:30 AM UTC on the final day of the reservation": the plan day of
# 22 January runs from 11:30 UTC to 11:30 UTC on 23 January.
CALLS=$((CALLS + 1))
OFFERING_ID=$("$AWS" sagemaker search-training-plan-offerings --target-resources training-job \
  --instance-type "$P5" --instance-count 1 --duration-hours 24 \
  --start-time-after 2027-01-22T11:30:00Z --end-time-before 2027-01-23T11:30:00Z \
  --endpoint-url "$ENDPOINT" --query 'TrainingPlanOfferings[0].TrainingPlanOfferingId' --output text \
  2>"$WORK/search.err")
expect_match "search-training-plan-offerings for a training-job plan two days later finds one" '^tpo-[0-9a-f]{64}$' "$OFFERING_ID"
sm create-training-plan --training-plan-name p5-training-day --training-plan-offering-id "$OFFERING_ID"
expect_success "create-training-plan succeeds"
PLAN_ARN=$(jget "$OUT" 'd.get("TrainingPlanArn")')
expect_eq "the plan's ARN" "$ARN_PREFIX:training-plan/p5-training-day" "$PLAN_ARN"
# "When created, the plan initially enters a Pending state and remains there until the
# reservation process is complete" (Reserve the best training plan, AWS developer guide): its
# payment takes 30 seconds of the frozen virtual clock.
sm describe-training-plan --training-plan-name p5-training-day
expect_eq "right after the purchase the plan is Pending (its payment is being processed)" \
  '["Pending","Payment is being processed."]' "$(jget "$OUT" '[d["Status"], d.get("StatusMessage")]')"
set_clock '{"advance_seconds": 30}' 2027-01-20T00:00:30Z
sm describe-training-plan --training-plan-name p5-training-day
expect_eq "paid 30 s later, the plan is Scheduled from 22 January 11:30 to 23 January 11:30 UTC" \
  "[\"Scheduled\",\"2027-01-22T11:30:00$TS\",\"2027-01-23T11:30:00$TS\"]" \
  "$(jget "$OUT" '[d["Status"], d["StartTime"], d["EndTime"]]')"

create_job on-plan \
  "{\"InstancePreferences\":[{\"InstanceType\":\"$P5\",\"InstanceCount\":1,\"TrainingPlanArns\":[\"$PLAN_ARN\"]}],\"VolumeSizeInGB\":50}" \
  600 MaxRuntimeInSeconds=86400,MaxPendingTimeInSeconds=7200
expect_success "create-training-job on the Scheduled plan succeeds"
sm describe-training-job --training-job-name on-plan
expect_eq "the job on the Scheduled plan is Pending, with no selection" \
  '["InProgress","Pending",null,null,null]' "$(job_state "$OUT")"

set_clock '{"now": "2027-01-22T11:29:59Z"}' 2027-01-22T11:29:59Z
sm describe-training-job --training-job-name on-plan
expect_eq "one second before the plan starts (~59.5 h > 7200 s) it is still Pending: no pending time counted" \
  '["InProgress","Pending",null,null,null]' "$(job_state "$OUT")"

set_clock '{"advance_seconds": 1}' 2027-01-22T11:30:00Z
sm describe-training-job --training-job-name on-plan
expect_eq "at the plan's start the job starts on the plan's p5" \
  "[\"InProgress\",\"Starting\",\"$P5\",1,\"2027-01-22T11:30:00$TS\"]" "$(job_state "$OUT")"
expect_eq "its transitions: Pending from creation (00:00:30) to the plan start, then Starting" \
  "[[\"Pending\",\"2027-01-20T00:00:30$TS\",\"2027-01-22T11:30:00$TS\"],[\"Starting\",\"2027-01-22T11:30:00$TS\",null]]" \
  "$(jget "$OUT" '[[t["Status"], t["StartTime"], t.get("EndTime")] for t in d["SecondaryStatusTransitions"]]')"
sm describe-training-plan --training-plan-name p5-training-day
expect_eq "the plan is Active with its instance in use by the job" '["Active",1,1,0]' \
  "$(jget "$OUT" '[d["Status"], d["TotalInstanceCount"], d["InUseInstanceCount"], d["AvailableInstanceCount"]]')"

# ================================================================ 3. the waiter
set_clock '{"advance_seconds": 600}' 2027-01-22T11:40:00Z
CALLS=$((CALLS + 1))
"$AWS" sagemaker wait training-job-completed-or-stopped --training-job-name on-plan \
  --endpoint-url "$ENDPOINT" >"$WORK/wait.out" 2>"$WORK/wait.err"
rc=$?
expect_eq "wait training-job-completed-or-stopped returns 0 once the job completed" "0:" "$rc:$(cat "$WORK/wait.err")"
sm describe-training-job --training-job-name on-plan
expect_eq "the job completed after its 600 s of run time" \
  "[\"Completed\",\"Completed\",\"2027-01-22T11:40:00$TS\",600]" \
  "$(jget "$OUT" '[d["TrainingJobStatus"], d["SecondaryStatus"], d.get("TrainingEndTime"), d.get("BillableTimeInSeconds")]')"

# A GPU job with no capacity anywhere (the plan is not in its list): its pending time runs out.
create_job starved "{\"InstanceType\":\"$P5\",\"InstanceCount\":1,\"VolumeSizeInGB\":50}" 600 \
  MaxRuntimeInSeconds=86400,MaxPendingTimeInSeconds=7200
expect_success "create-training-job for a p5 on demand succeeds (it waits)"
set_clock '{"advance_seconds": 7300}' 2027-01-22T13:41:40Z
CALLS=$((CALLS + 1))
"$AWS" sagemaker wait training-job-completed-or-stopped --training-job-name starved \
  --endpoint-url "$ENDPOINT" >"$WORK/wait2.out" 2>"$WORK/wait2.err"
rc=$?
expect_eq "the waiter fails (exit 255) on a job whose pending time ran out" \
  "255:Waiter TrainingJobCompletedOrStopped failed: Waiter encountered a terminal failure state: For expression \"TrainingJobStatus\" we matched expected path: \"Failed\"" \
  "$rc:$(tr -d '\n' <"$WORK/wait2.err")"
sm describe-training-job --training-job-name starved
expect_eq "its FailureReason and LastModifiedTime (the moment the time ran out, 100 s before now)" \
  "[\"Failed\",\"Failed\",\"InsufficientCapacityError: No instance preference got capacity within MaxPendingTimeInSeconds (7200 seconds).\",\"2027-01-22T13:40:00$TS\"]" \
  "$(jget "$OUT" '[d["TrainingJobStatus"], d["SecondaryStatus"], d.get("FailureReason"), d["LastModifiedTime"]]')"

# ================================================================ 4. listing
sm list-training-jobs --sort-by Name --sort-order Ascending
expect_success "list-training-jobs succeeds"
expect_eq "list-training-jobs: every job by name, with statuses and the plan of the one on a plan" \
  "[[\"fallback\",\"Completed\",\"Completed\",null],[\"on-plan\",\"Completed\",\"Completed\",\"$PLAN_ARN\"],[\"starved\",\"Failed\",\"Failed\",null]]" \
  "$(jget "$OUT" '[[s["TrainingJobName"], s["TrainingJobStatus"], s.get("SecondaryStatus"), s.get("TrainingPlanArn")] for s in d["TrainingJobSummaries"]]')"
sm list-training-jobs --training-plan-arn-equals "$PLAN_ARN"
expect_eq "list-training-jobs --training-plan-arn-equals lists only the job on the plan" \
  "[[\"on-plan\",\"$ARN_PREFIX:training-job/on-plan\",\"2027-01-22T11:40:00$TS\"]]" \
  "$(jget "$OUT" '[[s["TrainingJobName"], s["TrainingJobArn"], s.get("TrainingEndTime")] for s in d["TrainingJobSummaries"]]')"

# ================================================================ 5. a processing job with preferences
sm create-processing-job --processing-job-name prep --role-arn "$ROLE" \
  --app-specification "ImageUri=$IMAGE" \
  --processing-resources '{"ClusterConfig":{"VolumeSizeInGB":30,"InstanceCount":2,"InstancePreferences":[{"InstanceType":"ml.g5.xlarge"},{"InstanceType":"ml.m5.xlarge"}]}}' \
  --stopping-condition MaxRuntimeInSeconds=3600 --environment SAGEMAKER_EMULATOR_RUN_SECONDS=300
expect_success "create-processing-job with two instance preferences succeeds"
expect_eq "create-processing-job returns the job's ARN" "$ARN_PREFIX:processing-job/prep" "$(jget "$OUT" 'd.get("ProcessingJobArn")')"
sm describe-processing-job --processing-job-name prep
expect_eq "describe-processing-job: InProgress on 2 ml.m5.xlarge (no on-demand g5)" \
  "[\"InProgress\",\"ml.m5.xlarge\",2,\"2027-01-22T13:41:40$TS\"]" \
  "$(jget "$OUT" '[d["ProcessingJobStatus"], d["ProcessingResources"]["ClusterConfig"].get("SelectedInstanceType"), d["ProcessingResources"]["ClusterConfig"].get("SelectedInstanceCount"), d.get("ProcessingStartTime")]')"
set_clock '{"advance_seconds": 300}' 2027-01-22T13:46:40Z
CALLS=$((CALLS + 1))
"$AWS" sagemaker wait processing-job-completed-or-stopped --processing-job-name prep \
  --endpoint-url "$ENDPOINT" >"$WORK/wait3.out" 2>"$WORK/wait3.err"
rc=$?
expect_eq "wait processing-job-completed-or-stopped returns 0 once the job completed" "0:" "$rc:$(cat "$WORK/wait3.err")"
sm describe-processing-job --processing-job-name prep
expect_eq "the processing job completed after its 300 s of run time" \
  "[\"Completed\",\"2027-01-22T13:46:40$TS\"]" "$(jget "$OUT" '[d["ProcessingJobStatus"], d.get("ProcessingEndTime")]')"

# ================================================================ 6. stop-training-job
create_job to-stop '{"InstanceType":"ml.c5.xlarge","InstanceCount":1,"VolumeSizeInGB":50}' 600
expect_success "create-training-job on an unlimited on-demand type succeeds"
set_clock '{"advance_seconds": 30}' 2027-01-22T13:47:10Z
sm stop-training-job --training-job-name to-stop
expect_success "stop-training-job succeeds"
expect_eq "stop-training-job prints nothing" "" "$(cat "$OUT")"
sm describe-training-job --training-job-name to-stop
expect_eq "the job is Stopped at the moment of the stop" \
  "[\"Stopped\",\"Stopped\",\"2027-01-22T13:47:10$TS\",30]" \
  "$(jget "$OUT" '[d["TrainingJobStatus"], d["SecondaryStatus"], d.get("TrainingEndTime"), d.get("TrainingTimeInSeconds")]')"
sm stop-training-job --training-job-name to-stop
expect_aws_error "stopping it again is refused with its status" StopTrainingJob ValidationException \
  "The request was rejected because the training job is in status Stopped."
sm stop-training-job --training-job-name no-such-job
expect_aws_error "stopping a missing job" StopTrainingJob ValidationException "Requested resource not found."

# ================================================================ 7. paging through ties
# The CLI pages by itself (--page-size sets MaxResults): with one job a page, every sort key and
# both orders, it must list exactly what one page of 100 lists. Several jobs above share a
# creation time and a status, so this also proves that ties neither repeat nor vanish (botocore
# stops with "The same next token was received twice" on a token that does not move).
for family in training processing; do
  for sort_by in Name CreationTime Status; do
    for order in Ascending Descending; do
      sm "list-$family-jobs" --sort-by $sort_by --sort-order $order --page-size 100
      whole=$(jget "$OUT" '[j.get("TrainingJobName", j.get("ProcessingJobName")) for j in d.get("TrainingJobSummaries", d.get("ProcessingJobSummaries", []))]')
      sm "list-$family-jobs" --sort-by $sort_by --sort-order $order --page-size 1
      expect_success "list-$family-jobs --sort-by $sort_by --sort-order $order --page-size 1 pages to the end"
      expect_eq "list-$family-jobs by $sort_by $order: one a page lists what one page of 100 lists" \
        "$whole" "$(jget "$OUT" '[j.get("TrainingJobName", j.get("ProcessingJobName")) for j in d.get("TrainingJobSummaries", d.get("ProcessingJobSummaries", []))]')"
    done
  done
done

# ================================================================ 8. the plan's last 30 minutes
# "You have full access to all reserved instances until 30 minutes before the Reserved Capacity end
# time. When there are 30 minutes remaining in your Reserved Capacity, SageMaker training plans
# begin the process of terminating any running instances within that Reserved Capacity." A job on
# the plan that would run a day is stopped at 11:00 UTC on 23 January, 30 minutes before the plan
# ends at 11:30.
create_job cut-short \
  "{\"InstancePreferences\":[{\"InstanceType\":\"$P5\",\"InstanceCount\":1,\"TrainingPlanArns\":[\"$PLAN_ARN\"]}],\"VolumeSizeInGB\":50}" \
  86400 MaxRuntimeInSeconds=172800
expect_success "create-training-job for a day on the Active plan succeeds"
sm describe-training-job --training-job-name cut-short
expect_eq "it starts at once on the plan's p5" \
  "[\"InProgress\",\"Starting\",\"$P5\",1,\"2027-01-22T13:47:10$TS\"]" "$(job_state "$OUT")"
set_clock '{"now": "2027-01-23T10:59:59Z"}' 2027-01-23T10:59:59Z
sm describe-training-job --training-job-name cut-short
expect_eq "31 minutes before the plan ends it is still running" "InProgress" "$(jget "$OUT" 'd.get("TrainingJobStatus")')"
set_clock '{"advance_seconds": 1}' 2027-01-23T11:00:00Z
sm describe-training-job --training-job-name cut-short
expect_eq "30 minutes before the plan ends the job is stopped (Failed, with the reason, ended at 11:00)" \
  "[\"Failed\",\"The job was stopped 30 minutes before the end of training plan $PLAN_ARN, when the plan terminates its instances.\",\"2027-01-23T11:00:00$TS\"]" \
  "$(jget "$OUT" '[d["TrainingJobStatus"], d.get("FailureReason"), d.get("TrainingEndTime")]')"
sm describe-training-plan --training-plan-name p5-training-day
expect_eq "the plan is still Active, its instance no longer in use" '["Active",1,0,1]' \
  "$(jget "$OUT" '[d["Status"], d["TotalInstanceCount"], d["InUseInstanceCount"], d["AvailableInstanceCount"]]')"

expect_eq "server printed exactly one line on stdout" 1 "$(wc -l <"$SERVER_OUT" | tr -d ' ')"
stop_server
expect_eq "SIGTERM stops the server with exit status 0" 0 "$STOP_STATUS"

summarize
