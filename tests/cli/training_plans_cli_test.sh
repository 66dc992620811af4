#!/usr/bin/env bash
# Real-client test of training plans: the Debian AWS CLI v2 (/usr/bin/aws) against a
# sagemaker-emulator binary serving a small capacity file of its own.
#
#   tests/cli/training_plans_cli_test.sh /path/to/sagemaker-emulator
#
# Covers the AWS blog walkthrough (search an offering, buy it, describe and list the plan,
# describe its reserved capacity), statuses that follow the virtual clock (Pending for the 30
# seconds of the payment, then Scheduled, Active, Expired), capacity running out, every error code
# of the training-plan operations, the ledger surviving a restart, and the documented plan windows
# (plans end at 11:30 UTC, start within 30 minutes or at 11:30 UTC, at most 56 days ahead, are
# paid by the minute, and their payment completes at least 5 minutes before they start); a search
# offers at most three plans, the soonest to start.
#
# The Debian CLI's bundled botocore predates the newer SageMaker operations, so it is pointed
# at the project's own model subset (api/ at the repo root) through AWS_DATA_PATH.
# Only /usr/bin/aws and /usr/bin/python3 are used (never whatever is first on PATH).
# Prints one "ok - ..." / "not ok - ..." line per check and ends with "N passed, M failed".
set -uo pipefail

CLI_TEST_TAG=tp-cli
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
PLAN_ARN_PREFIX="arn:aws:sagemaker:$REGION:$ACCOUNT:training-plan/"

# ---------------------------------------------------------------- helpers for training plans
# offers FILE: "zone@StartTime" of each offering in a search result, as compact JSON.
offers() {
  jget "$1" '[o["ReservedCapacityOfferings"][0]["AvailabilityZone"] + "@" + o["ReservedCapacityOfferings"][0]["StartTime"] for o in d["TrainingPlanOfferings"]]'
}
# offer_id FILE ZONE: the id of the first offering in ZONE ("<none>" if there is none).
offer_id() {
  jget "$1" '([o["TrainingPlanOfferingId"] for o in d["TrainingPlanOfferings"] if o["ReservedCapacityOfferings"][0]["AvailabilityZone"] == "'"$2"'"] + [None])[0]'
}
# search_day START END: a 24-hour search of ml.p5.48xlarge between START and END (ISO 8601).
# Plans end at 11:30 UTC, so a one-day plan is searched for from 11:30 UTC to 11:30 UTC.
search_day() {
  sm search-training-plan-offerings --instance-type ml.p5.48xlarge --duration-hours 24 \
    --start-time-after "$1" --end-time-before "$2"
}
# set_clock JSON EXPECTED_NOW: moves the virtual clock through the admin API and checks it.
set_clock() {
  local answer
  answer=$(admin POST /_emulator/clock "$1" 2>&1)
  if [[ $answer == *"\"now\":\"$2\""* ]]; then ok "clock set to $2"; else not_ok "clock set to $2" "answer: $answer"; fi
}
# plan_names FILE: the TrainingPlanName of each summary of a list-training-plans answer.
plan_names() { jget "$1" '[p["TrainingPlanName"] for p in d["TrainingPlanSummaries"]]'; }

TS='+00:00'  # how CLI v2 prints the UTC offset of a timestamp

# ---------------------------------------------------------------- the tests
T0=$(date +%s.%N)
echo "# binary: $BIN"
echo "# AWS_DATA_PATH=$AWS_DATA_PATH"
echo "# $("$AWS" --version 2>&1)"

# us-west-2a holds 2 reservable ml.p5.48xlarge, us-west-2b holds 1; a plan hour costs 55.00.
CAPACITY=$WORK/capacity.json
cat >"$CAPACITY" <<'EOF'
{"regions": {"us-west-2": {"us-west-2a": {"ml.p5.48xlarge": {"reservable": 2, "on_demand": 1}},
                           "us-west-2b": {"ml.p5.48xlarge": {"reservable": 1}}}},
 "prices": {"ml.p5.48xlarge": {"on_demand_hourly": 98.32, "plan_hourly": 55.0}}}
EOF

start_server_or_exit --clock-start 2027-01-20T00:00:00Z --frozen-clock --capacity "$CAPACITY"

# ================================================================ 1. the AWS blog walkthrough
# Search a week of one ml.p5.48xlarge for an endpoint within two weeks, exactly as typed by a user.
# "SageMaker training plans offerings may be available to start within 30 minutes of reservation"
# and "Training Plans always end at 11:30 AM UTC on the final day of the reservation": a search
# from now offers, per zone, a plan that starts 30 minutes from now and runs to the first 11:30
# UTC a week on, the same plan a day longer, then the week from 11:30 UTC. A search returns "up to
# three offerings of one or two segments" (Reserve training plans in the console): the three that
# start soonest, zones in order and the shorter plan first on a tie.
CALLS=$((CALLS + 1))
OFFERING_ID=$("$AWS" sagemaker search-training-plan-offerings --target-resources endpoint \
  --instance-type ml.p5.48xlarge --instance-count 1 --duration-hours 168 \
  --start-time-after 2027-01-20T00:00:00Z --end-time-before 2027-02-03T00:00:00Z \
  --endpoint-url "$ENDPOINT" --query 'TrainingPlanOfferings[0].TrainingPlanOfferingId' --output text \
  2>"$WORK/blog-search.err")
rc=$?
expect_eq "blog: search-training-plan-offerings --output text succeeds" 0 "$rc"
expect_match "blog: the first offering id is tpo- and 64 hex digits" '^tpo-[0-9a-f]{64}$' "$OFFERING_ID"

sm search-training-plan-offerings --target-resources endpoint --instance-type ml.p5.48xlarge \
  --instance-count 1 --duration-hours 168 --start-time-after 2027-01-20T00:00:00Z \
  --end-time-before 2027-02-03T00:00:00Z
expect_success "blog: the same search with JSON output succeeds"
expect_eq "blog: the same search gives the same first offering id" "$OFFERING_ID" \
  "$(jget "$OUT" 'd["TrainingPlanOfferings"][0]["TrainingPlanOfferingId"]')"
expect_eq "blog: the 3 soonest: us-west-2a from 00:30 (30 minutes on), the same a day longer, then us-west-2b from 00:30" \
  "[\"us-west-2a@2027-01-20T00:30:00$TS\",\"us-west-2a@2027-01-20T00:30:00$TS\",\"us-west-2b@2027-01-20T00:30:00$TS\"]" \
  "$(offers "$OUT")"
expect_eq "blog: the first offering's terms" \
  "[[\"endpoint\"],\"2027-01-20T00:00:00$TS\",\"2027-02-03T00:00:00$TS\",179,0,\"9845.00\",\"USD\"]" \
  "$(jget "$OUT" '[d["TrainingPlanOfferings"][0].get(k) for k in ["TargetResources", "RequestedStartTimeAfter", "RequestedEndTimeBefore", "DurationHours", "DurationMinutes", "UpfrontFee", "CurrencyCode"]]')"
expect_eq "blog: the first offering's reserved capacity runs from 00:30 to 11:30 UTC a week on" \
  "Instance|ml.p5.48xlarge|1|us-west-2a|179|0|2027-01-20T00:30:00$TS|2027-01-27T11:30:00$TS" \
  "$(jget "$OUT" '"|".join(str(d["TrainingPlanOfferings"][0]["ReservedCapacityOfferings"][0].get(k)) for k in ["ReservedCapacityType", "InstanceType", "InstanceCount", "AvailabilityZone", "DurationHours", "DurationMinutes", "StartTime", "EndTime"])')"
# "Training Plans always end at 11:30 AM UTC on the final day of the reservation."
expect_eq "blog: every offering ends at 11:30 UTC; the fee is its hours x 55.00 (179 h, 203 h, 179 h)" \
  "[\"us-west-2a|2027-01-27T11:30:00$TS|179|0|9845.00\",\"us-west-2a|2027-01-28T11:30:00$TS|203|0|11165.00\",\"us-west-2b|2027-01-27T11:30:00$TS|179|0|9845.00\"]" \
  "$(jget "$OUT" '["|".join([o["ReservedCapacityOfferings"][0]["AvailabilityZone"], o["ReservedCapacityOfferings"][0]["EndTime"], str(o["DurationHours"]), str(o["DurationMinutes"]), o["UpfrontFee"]]) for o in d["TrainingPlanOfferings"]]')"
expect_eq "blog: every offering is for 1 instance, at least a week, the endpoint, in USD" "true" \
  "$(jget "$OUT" 'all(o["CurrencyCode"] == "USD" and o["TargetResources"] == ["endpoint"] and o["DurationHours"] >= 168 and o["ReservedCapacityOfferings"][0]["InstanceCount"] == 1 for o in d["TrainingPlanOfferings"])')"
# The weeks from 11:30 UTC, cut from the search above by the limit of three, are the soonest of a
# search from 11:30 UTC: 168 h in each zone, then the week from the next 11:30.
sm search-training-plan-offerings --target-resources endpoint --instance-type ml.p5.48xlarge \
  --instance-count 1 --duration-hours 168 --start-time-after 2027-01-20T11:30:00Z \
  --end-time-before 2027-02-03T00:00:00Z
expect_eq "blog: from 11:30 UTC, the week in us-west-2a and us-west-2b (168 h, 9240.00), then the week from the next 11:30" \
  "[\"us-west-2a|2027-01-20T11:30:00$TS|2027-01-27T11:30:00$TS|168|0|9240.00\",\"us-west-2b|2027-01-20T11:30:00$TS|2027-01-27T11:30:00$TS|168|0|9240.00\",\"us-west-2a|2027-01-21T11:30:00$TS|2027-01-28T11:30:00$TS|168|0|9240.00\"]" \
  "$(jget "$OUT" '["|".join([o["ReservedCapacityOfferings"][0]["AvailabilityZone"], o["ReservedCapacityOfferings"][0]["StartTime"], o["ReservedCapacityOfferings"][0]["EndTime"], str(o["DurationHours"]), str(o["DurationMinutes"]), o["UpfrontFee"]]) for o in d["TrainingPlanOfferings"]]')"

sm create-training-plan --training-plan-name P5-Endpoint-Plan --training-plan-offering-id "$OFFERING_ID"
expect_success "blog: create-training-plan succeeds"
expect_eq "blog: create-training-plan returns the lower-cased TrainingPlanArn" \
  "${PLAN_ARN_PREFIX}p5-endpoint-plan" "$(jget "$OUT" 'd.get("TrainingPlanArn")')"

sm describe-training-plan --training-plan-name P5-Endpoint-Plan
expect_success "blog: describe-training-plan succeeds"
# "When created, the plan initially enters a Pending state and remains there until the
# reservation process is complete" (Reserve the best training plan, AWS developer guide): the
# payment takes 30 seconds of the frozen virtual clock.
expect_eq "blog: right after the purchase the plan and its reserved capacity are Pending" \
  "Pending|Payment is being processed.|Pending" \
  "$(jget "$OUT" 'd.get("Status") + "|" + d.get("StatusMessage") + "|" + d["ReservedCapacitySummaries"][0]["Status"]')"
set_clock '{"advance_seconds": 29}' 2027-01-20T00:00:29Z
sm describe-training-plan --training-plan-name P5-Endpoint-Plan
expect_eq "blog: 29 s after the purchase it is still Pending" "Pending|Pending" \
  "$(jget "$OUT" 'd.get("Status") + "|" + d["ReservedCapacitySummaries"][0]["Status"]')"
set_clock '{"advance_seconds": 1}' 2027-01-20T00:00:30Z
sm describe-training-plan --training-plan-name P5-Endpoint-Plan
expect_eq "blog: once paid (30 s), until its start at 00:30 the plan is Scheduled" \
  "Scheduled|Payment confirmed, training plan scheduled.|Scheduled" \
  "$(jget "$OUT" 'd.get("Status") + "|" + d.get("StatusMessage") + "|" + d["ReservedCapacitySummaries"][0]["Status"]')"
set_clock '{"now": "2027-01-20T00:30:00Z"}' 2027-01-20T00:30:00Z
sm describe-training-plan --training-plan-name P5-Endpoint-Plan
expect_success "blog: describe-training-plan at the plan's start succeeds"
expect_eq "blog: TrainingPlanArn and TrainingPlanName" "${PLAN_ARN_PREFIX}p5-endpoint-plan|P5-Endpoint-Plan" \
  "$(jget "$OUT" 'd["TrainingPlanArn"] + "|" + d["TrainingPlanName"]')"
expect_eq "blog: at its start the plan is Active" "Active" "$(jget "$OUT" 'd.get("Status")')"
expect_eq "blog: StartTime, EndTime, DurationHours, DurationMinutes" \
  "2027-01-20T00:30:00$TS|2027-01-27T11:30:00$TS|179|0" \
  "$(jget "$OUT" '"|".join(str(d.get(k)) for k in ["StartTime", "EndTime", "DurationHours", "DurationMinutes"])')"
expect_eq "blog: UpfrontFee 9845.00 USD" "9845.00|USD" "$(jget "$OUT" 'd.get("UpfrontFee") + "|" + d.get("CurrencyCode")')"
expect_eq "blog: Total/Available/InUse instance counts 1/1/0" "1|1|0" \
  "$(jget "$OUT" '"|".join(str(d.get(k)) for k in ["TotalInstanceCount", "AvailableInstanceCount", "InUseInstanceCount"])')"
expect_eq "blog: TargetResources is [\"endpoint\"]" '["endpoint"]' "$(jget "$OUT" 'd.get("TargetResources")')"
expect_eq "blog: one reserved capacity" 1 "$(jget "$OUT" 'len(d.get("ReservedCapacitySummaries", []))')"
RC_ARN=$(jget "$OUT" 'd["ReservedCapacitySummaries"][0]["ReservedCapacityArn"]')
expect_match "blog: ReservedCapacityArn is …:reserved-capacity/rc-<hex>" \
  "^arn:aws:sagemaker:us-west-2:$ACCOUNT:reserved-capacity/rc-[0-9a-f]+$" "$RC_ARN"
expect_eq "blog: the reserved capacity summary" \
  "Instance|ml.p5.48xlarge|1|Active|us-west-2a|179|0|2027-01-20T00:30:00$TS|2027-01-27T11:30:00$TS" \
  "$(jget "$OUT" '"|".join(str(d["ReservedCapacitySummaries"][0].get(k)) for k in ["ReservedCapacityType", "InstanceType", "TotalInstanceCount", "Status", "AvailabilityZone", "DurationHours", "DurationMinutes", "StartTime", "EndTime"])')"

sm describe-training-plan --training-plan-name p5-endpoint-PLAN
expect_eq "blog: describe-training-plan finds the plan under another letter case" "P5-Endpoint-Plan" \
  "$(jget "$OUT" 'd.get("TrainingPlanName")')"

sm list-training-plans
expect_success "blog: list-training-plans succeeds"
expect_eq "blog: list-training-plans lists the plan" '["P5-Endpoint-Plan"]' "$(plan_names "$OUT")"
expect_eq "blog: the summary carries ARN, status, times, fee and counts" \
  "${PLAN_ARN_PREFIX}p5-endpoint-plan|Active|2027-01-20T00:30:00$TS|2027-01-27T11:30:00$TS|179|9845.00|USD|1" \
  "$(jget "$OUT" '"|".join(str(d["TrainingPlanSummaries"][0].get(k)) for k in ["TrainingPlanArn", "Status", "StartTime", "EndTime", "DurationHours", "UpfrontFee", "CurrencyCode", "TotalInstanceCount"])')"

sm describe-reserved-capacity --reserved-capacity-arn "$RC_ARN"
expect_success "blog: describe-reserved-capacity with the ARN from the summary succeeds"
expect_eq "blog: describe-reserved-capacity" \
  "$RC_ARN|Instance|Active|us-west-2a|179|0|2027-01-20T00:30:00$TS|2027-01-27T11:30:00$TS|ml.p5.48xlarge|1|1|0" \
  "$(jget "$OUT" '"|".join(str(d.get(k)) for k in ["ReservedCapacityArn", "ReservedCapacityType", "Status", "AvailabilityZone", "DurationHours", "DurationMinutes", "StartTime", "EndTime", "InstanceType", "TotalInstanceCount", "AvailableInstanceCount", "InUseInstanceCount"])')"

# The week is sold in us-west-2a once, so 1 of its 2 instances is left; us-west-2b is untouched.
# Every week that ends by 28 January 11:30 overlaps the sold one.
sm search-training-plan-offerings --target-resources endpoint --instance-type ml.p5.48xlarge \
  --instance-count 2 --duration-hours 168 --start-time-after 2027-01-20T00:00:00Z \
  --end-time-before 2027-01-28T11:30:00Z
expect_success "blog: a search for two instances that week succeeds"
expect_eq "blog: two instances for that week are no longer offered anywhere" '[]' "$(offers "$OUT")"
sm search-training-plan-offerings --target-resources endpoint --instance-type ml.p5.48xlarge \
  --instance-count 2 --duration-hours 168 --start-time-after 2027-01-27T11:30:00Z \
  --end-time-before 2027-02-03T11:30:00Z
expect_eq "blog: two instances for the week after, from its end at 11:30, are offered in us-west-2a" \
  "[\"us-west-2a@2027-01-27T11:30:00$TS\"]" "$(offers "$OUT")"

# ================================================================ 2. capacity running out
# The plan day of 1 March runs from 11:30 UTC to 11:30 UTC on 2 March.
search_day 2027-03-01T11:30:00Z 2027-03-02T11:30:00Z
expect_eq "capacity: 1 March is offered in both zones" \
  "[\"us-west-2a@2027-03-01T11:30:00$TS\",\"us-west-2b@2027-03-01T11:30:00$TS\"]" "$(offers "$OUT")"
expect_eq "capacity: the 1 March offering is the plan day 11:30 to 11:30 UTC, 24 h, 1320.00" \
  "2027-03-02T11:30:00$TS|24|0|1320.00" \
  "$(jget "$OUT" '"|".join([d["TrainingPlanOfferings"][0]["ReservedCapacityOfferings"][0]["EndTime"], str(d["TrainingPlanOfferings"][0]["DurationHours"]), str(d["TrainingPlanOfferings"][0]["DurationMinutes"]), d["TrainingPlanOfferings"][0]["UpfrontFee"]])')"
MARCH_A=$(offer_id "$OUT" us-west-2a)
MARCH_B=$(offer_id "$OUT" us-west-2b)
sm create-training-plan --training-plan-name march-a-1 --training-plan-offering-id "$MARCH_A"
expect_success "capacity: buy 1 of the 2 instances of us-west-2a on 1 March"
search_day 2027-03-01T11:30:00Z 2027-03-02T11:30:00Z
expect_eq "capacity: with 1 of 2 sold, both zones are still offered" \
  "[\"us-west-2a@2027-03-01T11:30:00$TS\",\"us-west-2b@2027-03-01T11:30:00$TS\"]" "$(offers "$OUT")"
sm create-training-plan --training-plan-name march-a-2 --training-plan-offering-id "$MARCH_A"
expect_success "capacity: the same offering can be bought again while capacity lasts"
search_day 2027-03-01T11:30:00Z 2027-03-02T11:30:00Z
expect_eq "capacity: with us-west-2a sold out, only us-west-2b is offered" \
  "[\"us-west-2b@2027-03-01T11:30:00$TS\"]" "$(offers "$OUT")"
sm create-training-plan --training-plan-name march-b-1 --training-plan-offering-id "$MARCH_B"
expect_success "capacity: buy us-west-2b on 1 March"
search_day 2027-03-01T11:30:00Z 2027-03-02T11:30:00Z
expect_success "capacity: a search with nothing free still succeeds"
expect_eq "capacity: with every zone sold, the list is empty" '[]' "$(jget "$OUT" 'd.get("TrainingPlanOfferings")')"
# Two-day plans from 28 February to 3 March (28 Feb-2 Mar and 1-3 Mar) all overlap the sold day.
# "SageMaker training plans don't return a 'no capacity' result if a single continuous Reserved
# Capacity block meeting all criteria is unavailable. Instead, it automatically attempts to fulfill
# the request using two separate Reserved Capacity blocks": the day before and the day after.
sm search-training-plan-offerings --instance-type ml.p5.48xlarge --duration-hours 48 \
  --start-time-after 2027-02-28T11:30:00Z --end-time-before 2027-03-03T11:30:00Z
expect_success "capacity: a search of two-day plans around the sold day succeeds"
expect_eq "capacity: each zone offers the day before and the day after as two reserved capacities" \
  "[\"us-west-2a@2027-02-28T11:30:00$TS+us-west-2a@2027-03-02T11:30:00$TS\",\"us-west-2b@2027-02-28T11:30:00$TS+us-west-2b@2027-03-02T11:30:00$TS\"]" \
  "$(jget "$OUT" '["+".join(r["AvailabilityZone"] + "@" + r["StartTime"] for r in o["ReservedCapacityOfferings"]) for o in d["TrainingPlanOfferings"]]')"
search_day 2027-02-28T11:30:00Z 2027-03-01T11:30:00Z
expect_eq "capacity: the day before, ending when the sold one starts, is offered in both zones" \
  "[\"us-west-2a@2027-02-28T11:30:00$TS\",\"us-west-2b@2027-02-28T11:30:00$TS\"]" "$(offers "$OUT")"
search_day 2027-03-02T11:30:00Z 2027-03-03T11:30:00Z
expect_eq "capacity: the next day is offered in both zones again" \
  "[\"us-west-2a@2027-03-02T11:30:00$TS\",\"us-west-2b@2027-03-02T11:30:00$TS\"]" "$(offers "$OUT")"

# ================================================================ 3. errors
sm create-training-plan --training-plan-name no-such-offering \
  --training-plan-offering-id "tpo-0000000000000000000000000000000000000000000000000000000000000000"
expect_aws_code "errors: an unknown offering is ResourceNotFound" CreateTrainingPlan ResourceNotFound

search_day 2027-03-05T11:30:00Z 2027-03-06T11:30:00Z
MARCH5_B=$(offer_id "$OUT" us-west-2b)
sm create-training-plan --training-plan-name P5-Endpoint-Plan --training-plan-offering-id "$MARCH5_B"
expect_aws_code "errors: a name already used is ResourceInUse" CreateTrainingPlan ResourceInUse
sm create-training-plan --training-plan-name p5-ENDPOINT-plan --training-plan-offering-id "$MARCH5_B"
expect_aws_code "errors: a name used in another letter case is ResourceInUse" CreateTrainingPlan ResourceInUse
search_day 2027-03-05T11:30:00Z 2027-03-06T11:30:00Z
expect_eq "errors: the refused purchases sold nothing (us-west-2b is still offered)" \
  "[\"us-west-2a@2027-03-05T11:30:00$TS\",\"us-west-2b@2027-03-05T11:30:00$TS\"]" "$(offers "$OUT")"
sm describe-training-plan --training-plan-name P5-Endpoint-Plan
expect_eq "errors: the existing plan is unchanged" "us-west-2a|2027-01-20T00:30:00$TS" \
  "$(jget "$OUT" 'd["ReservedCapacitySummaries"][0]["AvailabilityZone"] + "|" + d["StartTime"]')"

# Capacity taken since the search: us-west-2a holds 2, so its offering sells twice, not three times.
search_day 2027-03-10T11:30:00Z 2027-03-11T11:30:00Z
MARCH10_A=$(offer_id "$OUT" us-west-2a)
sm create-training-plan --training-plan-name march10-1 --training-plan-offering-id "$MARCH10_A"
expect_success "errors: first purchase of the 10 March offering"
sm create-training-plan --training-plan-name march10-2 --training-plan-offering-id "$MARCH10_A"
expect_success "errors: second purchase of the 10 March offering"
sm create-training-plan --training-plan-name march10-3 --training-plan-offering-id "$MARCH10_A"
expect_aws_code "errors: a third purchase is ResourceLimitExceeded" CreateTrainingPlan ResourceLimitExceeded
sm describe-training-plan --training-plan-name march10-3
expect_aws_code "errors: the refused plan does not exist" DescribeTrainingPlan ResourceNotFound
search_day 2027-03-10T11:30:00Z 2027-03-11T11:30:00Z
expect_eq "errors: the refused purchase sold nothing (us-west-2b is still offered)" \
  "[\"us-west-2b@2027-03-10T11:30:00$TS\"]" "$(offers "$OUT")"

sm describe-training-plan --training-plan-name never-bought
expect_aws_code "errors: describe-training-plan of a missing plan is ResourceNotFound" DescribeTrainingPlan \
  ResourceNotFound
sm describe-reserved-capacity \
  --reserved-capacity-arn "arn:aws:sagemaker:us-west-2:$ACCOUNT:reserved-capacity/rc-0123456789abcdef"
expect_aws_code "errors: describe-reserved-capacity of an unknown ARN is ResourceNotFound" \
  DescribeReservedCapacity ResourceNotFound
# "The DurationHour is rounded up to the nearest multiple of 24." "The reservation instance quantity
# options are 1, 2, 4, 8, 16, 32 or 64 instances." (developer guide, search offerings)
# A plan from 11:30 UTC lasts whole days; a plan that starts at once (01:00, 30 minutes from now)
# runs to the first 11:30 UTC that gives it the hours, and is paid by the minute.
sm search-training-plan-offerings --instance-type ml.p5.48xlarge --duration-hours 25 \
  --start-time-after 2027-02-01T11:30:00Z
expect_eq "search: --duration-hours 25 from 11:30 UTC is rounded up to 48 (11:30 to 11:30)" \
  "48|0|2027-02-01T11:30:00$TS|2027-02-03T11:30:00$TS" \
  "$(jget "$OUT" '"|".join([str(d["TrainingPlanOfferings"][0]["DurationHours"]), str(d["TrainingPlanOfferings"][0]["DurationMinutes"]), d["TrainingPlanOfferings"][0]["ReservedCapacityOfferings"][0]["StartTime"], d["TrainingPlanOfferings"][0]["ReservedCapacityOfferings"][0]["EndTime"]])')"
sm search-training-plan-offerings --instance-type ml.p5.48xlarge --duration-hours 25
expect_success "search: --duration-hours 25 from now succeeds"
# At most three offerings, the soonest to start: the 48 h from 11:30 UTC start later.
expect_eq "search: from now, the 3 soonest: us-west-2a 01:00 to the first 11:30 25 h on, the same a day longer, then us-west-2b 01:00 (fees by the minute)" \
  "[\"us-west-2a|2027-01-20T01:00:00$TS|2027-01-21T11:30:00$TS|34|30|1897.50\",\"us-west-2a|2027-01-20T01:00:00$TS|2027-01-22T11:30:00$TS|58|30|3217.50\",\"us-west-2b|2027-01-20T01:00:00$TS|2027-01-21T11:30:00$TS|34|30|1897.50\"]" \
  "$(jget "$OUT" '["|".join([o["ReservedCapacityOfferings"][0]["AvailabilityZone"], o["ReservedCapacityOfferings"][0]["StartTime"], o["ReservedCapacityOfferings"][0]["EndTime"], str(o["DurationHours"]), str(o["DurationMinutes"]), o["UpfrontFee"]]) for o in d["TrainingPlanOfferings"]]')"
expect_eq "search: without --end-time-before no RequestedEndTimeBefore is echoed; RequestedStartTimeAfter is now" \
  "[false,\"2027-01-20T00:30:00$TS\"]" \
  "$(jget "$OUT" '["RequestedEndTimeBefore" in d["TrainingPlanOfferings"][0], d["TrainingPlanOfferings"][0].get("RequestedStartTimeAfter")]')"
sm search-training-plan-offerings --instance-type ml.p5.48xlarge --instance-count 3
expect_aws_code "errors: --instance-count 3 is a ValidationException" SearchTrainingPlanOfferings \
  ValidationException
sm search-training-plan-offerings --instance-type ml.p5.48xlarge --duration-hours 4369
expect_aws_code "errors: --duration-hours 4369 (past 182 days) is a ValidationException" \
  SearchTrainingPlanOfferings ValidationException
# "You can reserve a training plan up to 8 weeks (56 days) in advance of the start date." It is
# 2027-01-20T00:30:00Z, so no plan starts after 2027-03-17T00:30:00Z.
sm search-training-plan-offerings --instance-type ml.p5.48xlarge --start-time-after 2027-03-16T00:00:00Z
expect_eq "search: the last plan day that starts within 56 days (16 March 11:30) is offered, none later" \
  "[\"us-west-2a@2027-03-16T11:30:00$TS\",\"us-west-2b@2027-03-16T11:30:00$TS\"]" "$(offers "$OUT")"
sm search-training-plan-offerings --instance-type ml.p5.48xlarge --start-time-after 2027-03-17T00:30:00Z
expect_success "search: --start-time-after exactly 56 days ahead is accepted"
expect_eq "search: ... but its first 11:30 UTC is past 56 days, so nothing is offered" '[]' "$(offers "$OUT")"
sm search-training-plan-offerings --instance-type ml.p5.48xlarge --start-time-after 2027-03-17T00:30:01Z
expect_aws_code "errors: --start-time-after more than 56 days ahead is a ValidationException" \
  SearchTrainingPlanOfferings ValidationException

# Offerings can be bought for 30 minutes of virtual time. A week from 12 March ends on 19 March,
# more than 57 days from now.
sm search-training-plan-offerings --instance-type ml.p5.48xlarge --duration-hours 168 \
  --start-time-after 2027-03-12T11:30:00Z --end-time-before 2027-03-19T11:30:00Z
expect_eq "errors: the week from 12 March is offered in both zones" \
  "[\"us-west-2a@2027-03-12T11:30:00$TS\",\"us-west-2b@2027-03-12T11:30:00$TS\"]" "$(offers "$OUT")"
MARCH12_A=$(offer_id "$OUT" us-west-2a)
MARCH12_B=$(offer_id "$OUT" us-west-2b)
set_clock '{"advance_seconds": 1740}' 2027-01-20T00:59:00Z
sm create-training-plan --training-plan-name in-time --training-plan-offering-id "$MARCH12_A"
expect_success "errors: an offering can still be bought 29 minutes after the search"
set_clock '{"advance_seconds": 120}' 2027-01-20T01:01:00Z
sm create-training-plan --training-plan-name too-late --training-plan-offering-id "$MARCH12_B"
expect_aws_code "errors: 31 minutes after the search the offering is ResourceNotFound" CreateTrainingPlan \
  ResourceNotFound
sm describe-training-plan --training-plan-name too-late
expect_aws_code "errors: the expired purchase created nothing" DescribeTrainingPlan ResourceNotFound
# "Extensions can be requested up to a minimum of 1 hour or a maximum of 57 days before the plan
# expires." The 12 March plan ends on 19 March at 11:30, about 58 days from now.
sm describe-training-plan --training-plan-name in-time
IN_TIME_ARN=$(jget "$OUT" 'd.get("TrainingPlanArn")')
expect_eq "errors: the in-time plan ends on 19 March at 11:30 UTC" "2027-03-19T11:30:00$TS" \
  "$(jget "$OUT" 'd.get("EndTime")')"
sm search-training-plan-offerings --training-plan-arn "$IN_TIME_ARN"
expect_aws_code "errors: a plan ending more than 57 days from now cannot be extended yet" \
  SearchTrainingPlanOfferings ValidationException

# ================================================================ 4. Scheduled -> Active -> Expired
CALLS=$((CALLS + 1))
"$AWS" sagemaker search-training-plan-offerings --instance-type ml.p5.48xlarge --duration-hours 48 \
  --start-time-after 2027-02-10T11:30:00Z --end-time-before 2027-02-12T11:30:00Z \
  --endpoint-url "$ENDPOINT" --query 'TrainingPlanOfferings[0].TrainingPlanOfferingId' --output text \
  >"$WORK/life.id" 2>"$WORK/life.err"
expect_match "status: an offering for 10-12 February (11:30 to 11:30 UTC) is found" '^tpo-[0-9a-f]{64}$' "$(cat "$WORK/life.id")"
sm create-training-plan --training-plan-name lifecycle-plan --training-plan-offering-id "$(cat "$WORK/life.id")"
expect_success "status: buy 48 hours from 10 February"
sm describe-training-plan --training-plan-name lifecycle-plan
expect_eq "status: the plan runs from 10 February 11:30 to 12 February 11:30 UTC" \
  "2027-02-10T11:30:00$TS|2027-02-12T11:30:00$TS|48|0" \
  "$(jget "$OUT" '"|".join(str(d.get(k)) for k in ["StartTime", "EndTime", "DurationHours", "DurationMinutes"])')"

# check_status STATUS WHAT [rc]: describe-training-plan and its reserved-capacity summary say
# STATUS; with "rc", describe-reserved-capacity is asked as well. The Status filter of
# list-training-plans is checked once per status below.
check_status() {
  local want=$1 expected got rc_arn
  sm describe-training-plan --training-plan-name lifecycle-plan
  got=$(jget "$OUT" 'd.get("Status") + "|" + d["ReservedCapacitySummaries"][0]["Status"]')
  expected="$want|$want"
  if [[ ${3:-} == rc ]]; then
    rc_arn=$(jget "$OUT" 'd["ReservedCapacitySummaries"][0]["ReservedCapacityArn"]')
    sm describe-reserved-capacity --reserved-capacity-arn "$rc_arn"
    got="$got|$(jget "$OUT" 'd.get("Status")')"
    expected="$expected|$want"
  fi
  expect_eq "status: $2" "$expected" "$got"
}
# "When created, the plan initially enters a Pending state and remains there until the
# reservation process is complete": 30 seconds of the frozen clock for the payment.
check_status Pending "right after the purchase the plan is Pending" rc
sm list-training-plans --filters Name=Status,Value=Pending
expect_eq "status: the plan is listed as Pending" '["lifecycle-plan"]' "$(plan_names "$OUT")"
set_clock '{"advance_seconds": 29}' 2027-01-20T01:01:29Z
check_status Pending "29 s after the purchase it is still Pending"
set_clock '{"advance_seconds": 1}' 2027-01-20T01:01:30Z
check_status Scheduled "once paid (30 s), before it starts the plan is Scheduled" rc
sm list-training-plans --filters Name=Status,Value=Scheduled --start-time-before 2027-03-01T00:00:00Z
expect_eq "status: the plan is listed as Scheduled" '["lifecycle-plan"]' "$(plan_names "$OUT")"
sm list-training-plans --filters Name=Status,Value=Pending
expect_eq "status: no plan is Pending any more" '[]' "$(plan_names "$OUT")"
set_clock '{"now": "2027-02-10T11:29:59Z"}' 2027-02-10T11:29:59Z
check_status Scheduled "one second before StartTime it is still Scheduled"
set_clock '{"now": "2027-02-10T11:30:00Z"}' 2027-02-10T11:30:00Z
check_status Active "at StartTime it is Active" rc
sm list-training-plans --filters Name=Status,Value=Active
expect_eq "status: only the running plan is listed as Active" '["lifecycle-plan"]' "$(plan_names "$OUT")"
sm list-training-plans --filters Name=Status,Value=Expired
expect_eq "status: the blog plan has expired" '["P5-Endpoint-Plan"]' "$(plan_names "$OUT")"
set_clock '{"advance_seconds": 172799}' 2027-02-12T11:29:59Z
check_status Active "one second before EndTime it is still Active"
set_clock '{"advance_seconds": 1}' 2027-02-12T11:30:00Z
check_status Expired "at EndTime it is Expired" rc
sm list-training-plans --filters Name=Status,Value=Expired
expect_eq "status: both ended plans are listed as Expired, by StartTime" '["P5-Endpoint-Plan","lifecycle-plan"]' \
  "$(plan_names "$OUT")"
sm list-training-plans --filters Name=Status,Value=Active
expect_eq "status: no plan is Active now" '[]' "$(plan_names "$OUT")"

# ================================================================ 5. listing
# Names compare case-insensitively (they are case-insensitive identifiers), so P5-Endpoint-Plan
# sorts among the p's.
ALL_BY_NAME='["in-time","lifecycle-plan","march-a-1","march-a-2","march-b-1","march10-1","march10-2","P5-Endpoint-Plan"]'
"$AWS" sagemaker list-training-plans --sort-by TrainingPlanName --page-size 3 --endpoint-url "$ENDPOINT" \
  --output json --debug >"$WORK/paged.out" 2>"$WORK/paged.err"
rc=$?
expect_eq "list: --page-size 3 succeeds" 0 "$rc"
expect_eq "list: --sort-by TrainingPlanName --page-size 3 returns all 8 plans in name order" "$ALL_BY_NAME" \
  "$(plan_names "$WORK/paged.out")"
expect_eq "list: the paginated output has no NextToken" "<none>" "$(jget "$WORK/paged.out" 'd.get("NextToken")')"
expect_eq "list: --page-size 3 took 3 ListTrainingPlans requests (3+3+2)" 3 \
  "$(grep -c 'Making request for OperationModel(name=ListTrainingPlans)' "$WORK/paged.err")"
sm list-training-plans --sort-by TrainingPlanName --sort-order Descending
expect_eq "list: --sort-order Descending reverses the name order" \
  "$(jget "$WORK/paged.out" '[p["TrainingPlanName"] for p in d["TrainingPlanSummaries"]][::-1]')" "$(plan_names "$OUT")"
sm list-training-plans
expect_eq "list: by default the plans are sorted by StartTime ascending" "true" \
  "$(jget "$OUT" 'len(d["TrainingPlanSummaries"]) == 8 and [p["StartTime"] for p in d["TrainingPlanSummaries"]] == sorted(p["StartTime"] for p in d["TrainingPlanSummaries"])')"
expect_eq "list: the first two by StartTime" '["P5-Endpoint-Plan","lifecycle-plan"]' \
  "$(jget "$OUT" '[p["TrainingPlanName"] for p in d["TrainingPlanSummaries"]][:2]')"
sm list-training-plans --max-items 5 --page-size 2
expect_eq "list: --max-items 5 returns 5 plans" 5 "$(jget "$OUT" 'len(d["TrainingPlanSummaries"])')"
TOKEN=$(jget "$OUT" 'd.get("NextToken")')
FIRST5=$(plan_names "$OUT")
sm list-training-plans --max-items 5 --page-size 2 --starting-token "$TOKEN"
expect_eq "list: --starting-token resumes with the other 3 plans" \
  "8|true|<none>" \
  "$("$PY" -c 'import json,sys; a=json.loads(sys.argv[1]); b=json.loads(sys.argv[2]); print("%d|%s" % (len(a+b), str(sorted(a+b)==sorted(json.loads(sys.argv[3]))).lower()))' "$FIRST5" "$(plan_names "$OUT")" "$ALL_BY_NAME")|$(jget "$OUT" 'd.get("NextToken")')"
sm list-training-plans --start-time-after 2027-03-01T11:30:00Z --sort-by TrainingPlanName
expect_eq "list: --start-time-after is exclusive" '["in-time","march10-1","march10-2"]' "$(plan_names "$OUT")"
sm list-training-plans --start-time-before 2027-03-01T11:30:00Z --sort-by TrainingPlanName
expect_eq "list: --start-time-before is exclusive" '["lifecycle-plan","P5-Endpoint-Plan"]' "$(plan_names "$OUT")"
sm list-training-plans --start-time-after 2027-03-01T11:29:59Z --start-time-before 2027-03-01T11:30:01Z \
  --sort-by TrainingPlanName
expect_eq "list: both bounds together" '["march-a-1","march-a-2","march-b-1"]' "$(plan_names "$OUT")"
AWS_ACCESS_KEY_ID=210987654321 sm list-training-plans
expect_eq "list: another account sees none of these plans" '[]' "$(plan_names "$OUT")"
AWS_ACCESS_KEY_ID=210987654321 search_day 2027-03-01T11:30:00Z 2027-03-02T11:30:00Z
expect_eq "capacity: another account finds 1 March sold out too (capacity is shared)" '[]' "$(offers "$OUT")"

# ================================================================ 6. the ledger survives a restart
expect_eq "server printed exactly one line on stdout" 1 "$(wc -l <"$SERVER_OUT" | tr -d ' ')"
stop_server
expect_eq "SIGTERM stops the server with exit status 0" 0 "$STOP_STATUS"
if start_server --frozen-clock --capacity "$CAPACITY"; then
  ok "server restarts on the same database file (port $PORT)"
else
  not_ok "server restarts on the same database file"
fi
search_day 2027-03-01T11:30:00Z 2027-03-02T11:30:00Z
expect_eq "restart: 1 March is still sold out" '[]' "$(offers "$OUT")"
search_day 2027-03-10T11:30:00Z 2027-03-11T11:30:00Z
expect_eq "restart: on 10 March only us-west-2b is still offered" \
  "[\"us-west-2b@2027-03-10T11:30:00$TS\"]" "$(offers "$OUT")"
sm describe-training-plan --training-plan-name march-b-1
expect_eq "restart: a sold plan is still there, Scheduled" "Scheduled|us-west-2b|2027-03-01T11:30:00$TS" \
  "$(jget "$OUT" 'd.get("Status") + "|" + d["ReservedCapacitySummaries"][0]["AvailabilityZone"] + "|" + d["StartTime"]')"
sm describe-training-plan --training-plan-name lifecycle-plan
expect_eq "restart: the clock continued, so the lifecycle plan is still Expired" "Expired" \
  "$(jget "$OUT" 'd.get("Status")')"
sm list-training-plans --sort-by TrainingPlanName
expect_eq "restart: list-training-plans lists the same 8 plans" "$ALL_BY_NAME" "$(plan_names "$OUT")"

# ================================================================ 7. the developer guide's sample
# The guide searches 15 hours at 19:08:27 UTC and is offered 15 h 51 min and 39 h 51 min from
# 19:39 ("offerings may be available to start within 30 minutes of reservation", on the next whole
# minute, to the first 11:30 UTC that gives the hours), then 24 h from 11:30 UTC the next day.
# With two zones, the three that start soonest ("up to three offerings of one or two segments")
# are the 19:39 ones: both of us-west-2a, then the first of us-west-2b; the 24 h from 11:30 UTC
# are the soonest of a search from 11:30 UTC.
set_clock '{"now": "2027-02-12T19:08:27Z"}' 2027-02-12T19:08:27Z
sm search-training-plan-offerings --instance-type ml.p5.48xlarge --duration-hours 15
expect_success "guide: a 15-hour search at 19:08:27 succeeds"
expect_eq "guide: us-west-2a 19:39 to 11:30 (15 h 51 min) and 19:39 to 11:30 a day later (39 h 51 min), then us-west-2b 19:39 to 11:30" \
  "[\"us-west-2a|2027-02-12T19:39:00$TS|2027-02-13T11:30:00$TS|15|51\",\"us-west-2a|2027-02-12T19:39:00$TS|2027-02-14T11:30:00$TS|39|51\",\"us-west-2b|2027-02-12T19:39:00$TS|2027-02-13T11:30:00$TS|15|51\"]" \
  "$(jget "$OUT" '["|".join([o["ReservedCapacityOfferings"][0]["AvailabilityZone"], o["ReservedCapacityOfferings"][0]["StartTime"], o["ReservedCapacityOfferings"][0]["EndTime"], str(o["DurationHours"]), str(o["DurationMinutes"])]) for o in d["TrainingPlanOfferings"]]')"
expect_eq "guide: the reserved capacity offerings carry the same hours and minutes" "true" \
  "$(jget "$OUT" 'all([o["DurationHours"], o["DurationMinutes"]] == [o["ReservedCapacityOfferings"][0]["DurationHours"], o["ReservedCapacityOfferings"][0]["DurationMinutes"]] for o in d["TrainingPlanOfferings"])')"
expect_eq "guide: UpfrontFee is charged by the minute (15.85 h, 39.85 h, 15.85 h x 55.00)" \
  '["871.75","2191.75","871.75"]' \
  "$(jget "$OUT" '[o["UpfrontFee"] for o in d["TrainingPlanOfferings"]]')"
GUIDE_A=$(offer_id "$OUT" us-west-2a)
GUIDE_B=$(offer_id "$OUT" us-west-2b)
sm search-training-plan-offerings --instance-type ml.p5.48xlarge --duration-hours 15 \
  --start-time-after 2027-02-13T11:30:00Z
expect_eq "guide: from 11:30 UTC the next day, 24 h (rounded up from 15) in each zone, 1320.00" \
  "[\"us-west-2a|2027-02-13T11:30:00$TS|2027-02-14T11:30:00$TS|24|0|1320.00\",\"us-west-2b|2027-02-13T11:30:00$TS|2027-02-14T11:30:00$TS|24|0|1320.00\"]" \
  "$(jget "$OUT" '["|".join([o["ReservedCapacityOfferings"][0]["AvailabilityZone"], o["ReservedCapacityOfferings"][0]["StartTime"], o["ReservedCapacityOfferings"][0]["EndTime"], str(o["DurationHours"]), str(o["DurationMinutes"]), o["UpfrontFee"]]) for o in d["TrainingPlanOfferings"]][:2]')"
# "To ensure timely activation, the payment transaction must successfully complete at least 5
# minutes before the desired start time." The payment takes 30 seconds, so the 19:39 plan can be
# bought until 19:33:30 (paid at 19:34:00, 5 minutes before it starts).
set_clock '{"now": "2027-02-12T19:33:30Z"}' 2027-02-12T19:33:30Z
sm create-training-plan --training-plan-name guide-b --training-plan-offering-id "$GUIDE_B"
expect_success "guide: the 19:39 plan can be bought at 19:33:30, its payment done 5 minutes before it starts"
set_clock '{"advance_seconds": 1}' 2027-02-12T19:33:31Z
sm create-training-plan --training-plan-name guide-a --training-plan-offering-id "$GUIDE_A"
expect_aws_code "guide: at 19:33:31, paid less than 5 minutes before its start, it is a ValidationException" \
  CreateTrainingPlan ValidationException
set_clock '{"now": "2027-02-12T19:34:00Z"}' 2027-02-12T19:34:00Z
sm create-training-plan --training-plan-name guide-a --training-plan-offering-id "$GUIDE_A"
expect_aws_code "guide: at 19:34, 5 minutes before its start but 4.5 once paid, it is a ValidationException" \
  CreateTrainingPlan ValidationException
sm describe-training-plan --training-plan-name guide-a
expect_aws_code "guide: the refused purchases created nothing" DescribeTrainingPlan ResourceNotFound
sm describe-training-plan --training-plan-name guide-b
expect_eq "guide: paid at 19:34, the plan is Scheduled, 19:39 to 11:30 UTC, 15 h 51 min, 871.75 USD" \
  "Scheduled|us-west-2b|2027-02-12T19:39:00$TS|2027-02-13T11:30:00$TS|15|51|871.75|USD" \
  "$(jget "$OUT" '"|".join(str(x) for x in [d.get("Status"), d["ReservedCapacitySummaries"][0]["AvailabilityZone"]] + [d.get(k) for k in ["StartTime", "EndTime", "DurationHours", "DurationMinutes", "UpfrontFee", "CurrencyCode"]])')"
set_clock '{"now": "2027-02-12T19:39:00Z"}' 2027-02-12T19:39:00Z
sm describe-training-plan --training-plan-name guide-b
expect_eq "guide: at 19:39 the plan and its reserved capacity are Active" "Active|Active" \
  "$(jget "$OUT" 'd.get("Status") + "|" + d["ReservedCapacitySummaries"][0]["Status"]')"

stop_server
expect_eq "second SIGTERM also exits with status 0" 0 "$STOP_STATUS"

summarize
