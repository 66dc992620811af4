#!/usr/bin/env bash
# AWS's own AWS CLI examples of training plans, run as the developer guide writes them, with the
# Debian AWS CLI v2 (/usr/bin/aws) against a sagemaker-emulator binary.
#
#   tests/cli/aws_examples_cli_test.sh /path/to/sagemaker-emulator
#
# The pages: "Search training plan offerings", "Reserve the best training plan", "View training
# plan details", "List training plans", "Search for extension offerings", "Purchase an
# extension" and "View extension history" (Amazon SageMaker AI developer guide). Each command is
# the page's, with only its dates shifted and ids carried from the steps before it; each answer
# is checked against the page's sample output in kind, and in every value that is not a
# placeholder ("tpo-SHA-256-hash-value", "xxxx.xx", "name"). Where a page contradicts itself or
# the model, the comment says so and the test follows the model and the overview page's rules.
# The clock starts at the search sample's own time, 2025-01-21T11:08:27-08:00 (19:08:27 UTC), and
# payments take the default 30 seconds of it, so that the Pending states the pages describe can be
# seen.
set -uo pipefail

CLI_TEST_TAG=aws-examples
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# The search sample shows three offerings, all in us-west-2a: one zone of ml.p4d.24xlarge.
CAPACITY=$WORK/capacity.json
cat >"$CAPACITY" <<'EOF'
{"regions": {"us-west-2": {"us-west-2a": {"ml.p4d.24xlarge": {"reservable": 2, "on_demand": 0}}},
             "us-east-1": {"us-east-1-dfw-2a": {"ml.p6e-gb200.36xlarge": {"reservable": 36,
                 "ultraserver_type": "ml.u-p6e-gb200x72", "instances_per_ultraserver": 18}}}},
 "prices": {"ml.p4d.24xlarge": {"on_demand_hourly": 32.77, "plan_hourly": 12.5},
            "ml.p6e-gb200.36xlarge": {"on_demand_hourly": 188.62, "plan_hourly": 105.63}}}
EOF
T0=$(date +%s.%N)
start_server_or_exit --clock-start 2025-01-21T19:08:27Z --frozen-clock --capacity "$CAPACITY" \
  --account-id "$ACCOUNT"

# ---------------------------------------------------------------- Search training plan offerings
# The page's command; it has no "\" after the --start-time-after line, which would make the
# shell run --end-time-before as a command of its own: the test adds it.
sm search-training-plan-offerings \
--target-resources "training-job" \
--instance-type "ml.p4d.24xlarge" \
--instance-count 1 \
--duration-hours 15 \
--start-time-after "1737484800" \
--end-time-before "1737657600"
expect_success "search: the page's command succeeds"
SEARCH=$OUT
# "It includes three distinct offerings with varying durations, upfront fees, and start/end
# times, all using the same instance type and targeting training jobs." A search returns "up to
# three offerings of one or two segments" (Reserve training plans in the console).
expect_eq "search: three offerings" 3 "$(jget "$SEARCH" 'len(d["TrainingPlanOfferings"])')"
# The sample, one line per offering: DurationHours/DurationMinutes, StartTime, EndTime. Its times
# are at -08:00: 11:39 is 19:39 UTC, 03:30 is 11:30 UTC ("Training Plans always end at 11:30 AM
# UTC on the final day of the reservation").
expect_eq "search: durations as the sample's" '["15h51m","39h51m","24h0m"]' \
  "$(jget "$SEARCH" '["%dh%dm" % (o["DurationHours"], o["DurationMinutes"]) for o in d["TrainingPlanOfferings"]]')"
expect_eq "search: windows as the sample's" \
  '["2025-01-21T19:39:00+00:00/2025-01-22T11:30:00+00:00","2025-01-21T19:39:00+00:00/2025-01-23T11:30:00+00:00","2025-01-22T11:30:00+00:00/2025-01-23T11:30:00+00:00"]' \
  "$(jget "$SEARCH" '[o["ReservedCapacityOfferings"][0]["StartTime"] + "/" + o["ReservedCapacityOfferings"][0]["EndTime"] for o in d["TrainingPlanOfferings"]]')"
expect_eq "search: each offering's reserved capacity as the sample's" \
  '[["ml.p4d.24xlarge",1,"us-west-2a",15,51],["ml.p4d.24xlarge",1,"us-west-2a",39,51],["ml.p4d.24xlarge",1,"us-west-2a",24,0]]' \
  "$(jget "$SEARCH" '[[c["InstanceType"], c["InstanceCount"], c["AvailabilityZone"], c["DurationHours"], c["DurationMinutes"]] for c in [o["ReservedCapacityOfferings"][0] for o in d["TrainingPlanOfferings"]]]')"
expect_eq "search: one reserved capacity each, for training jobs, in USD" \
  '[[1,["training-job"],"USD"],[1,["training-job"],"USD"],[1,["training-job"],"USD"]]' \
  "$(jget "$SEARCH" '[[len(o["ReservedCapacityOfferings"]), o["TargetResources"], o["CurrencyCode"]] for o in d["TrainingPlanOfferings"]]')"
# "tpo-SHA-256-hash-value" and "xxxx.xx" are placeholders: their kinds.
expect_match "search: ids are tpo- and a SHA-256, fees are amounts" \
  '^\[\["tpo-[0-9a-f]{64}","[0-9]+\.[0-9]{2}"\](,\["tpo-[0-9a-f]{64}","[0-9]+\.[0-9]{2}"\]){2}\]$' \
  "$(jget "$SEARCH" '[[o["TrainingPlanOfferingId"], o["UpfrontFee"]] for o in d["TrainingPlanOfferings"]]')"
# The sample's RequestedStartTimeAfter is the search's own time (11:08:27 -08:00), not the
# 1737484800 (10:40 -08:00) sent, which had passed.
expect_eq "search: RequestedStartTimeAfter is the search time, as the sample's" \
  '["2025-01-21T19:08:27+00:00","2025-01-21T19:08:27+00:00","2025-01-21T19:08:27+00:00"]' \
  "$(jget "$SEARCH" '[o["RequestedStartTimeAfter"] for o in d["TrainingPlanOfferings"]]')"
# The sample shows no RequestedEndTimeBefore although --end-time-before was sent; the model has
# the member, and the emulator shows the time that was asked for.
expect_eq "search: RequestedEndTimeBefore is what was sent (the model's member)" \
  '2025-01-23T18:40:00+00:00' "$(jget "$SEARCH" 'd["TrainingPlanOfferings"][0]["RequestedEndTimeBefore"]')"
OFFER_ID=$(jget "$SEARCH" 'd["TrainingPlanOfferings"][2]["TrainingPlanOfferingId"]')

# ---------------------------------------------------------------- Reserve the best training plan
# The page's command ends with a "\" and nothing after it; the test leaves that out.
sm create-training-plan \
--training-plan-offering-id "$OFFER_ID" \
--training-plan-name "name"
expect_success "create: the page's command succeeds"
# {"TrainingPlanArn": "arn:aws:sagemaker:us-east-1:123456789123:training-plan/large-models-fine-tuning"}
expect_eq "create: the answer is the plan's ARN" \
  '{"TrainingPlanArn":"arn:aws:sagemaker:us-west-2:123456789012:training-plan/name"}' \
  "$(jget "$OUT" 'd')"
PLAN_ARN="arn:aws:sagemaker:us-west-2:123456789012:training-plan/name"
# "When created, the plan initially enters a Pending state and remains there until the
# reservation process is complete."
sm describe-training-plan --training-plan-name "name"
expect_eq "create: the plan is Pending until its payment completes (30 s by default)" \
  '["Pending","Pending"]' "$(jget "$OUT" '[d["Status"], d["ReservedCapacitySummaries"][0]["Status"]]')"
admin POST /_emulator/clock '{"advance_seconds": 29}' >/dev/null
sm describe-training-plan --training-plan-name "name"
expect_eq "create: still Pending 29 s later, on the frozen clock" 'Pending' "$(jget "$OUT" 'd["Status"]')"
admin POST /_emulator/clock '{"advance_seconds": 1}' >/dev/null

# ---------------------------------------------------------------- View training plan details
sm describe-training-plan \
--training-plan-name "name"
expect_success "describe: the page's command succeeds"
DESCRIBED=$OUT
# The sample's plan is Scheduled, with this StatusMessage, a window from 04:30 -07:00 (11:30 UTC)
# to 04:30 -07:00, every instance available, none in use, and one reserved capacity summary.
expect_eq "describe: status, message and window as the sample's" \
  '["Scheduled","Payment confirmed, training plan scheduled.","2025-01-22T11:30:00+00:00","2025-01-23T11:30:00+00:00",24,0]' \
  "$(jget "$DESCRIBED" '[d["Status"], d["StatusMessage"], d["StartTime"], d["EndTime"], d["DurationHours"], d["DurationMinutes"]]')"
expect_eq "describe: counts, targets and currency as the sample's" \
  '[1,1,0,["training-job"],"USD","name"]' \
  "$(jget "$DESCRIBED" '[d["TotalInstanceCount"], d["AvailableInstanceCount"], d["InUseInstanceCount"], d["TargetResources"], d["CurrencyCode"], d["TrainingPlanName"]]')"
expect_eq "describe: the reserved capacity summary as the sample's" \
  '["ml.p4d.24xlarge",1,"Scheduled","2025-01-22T11:30:00+00:00","2025-01-23T11:30:00+00:00",24,0,"us-west-2a"]' \
  "$(jget "$DESCRIBED" '[(s["InstanceType"], s["TotalInstanceCount"], s["Status"], s["StartTime"], s["EndTime"], s["DurationHours"], s["DurationMinutes"], s["AvailabilityZone"]) for s in d["ReservedCapacitySummaries"]][0]')"
expect_match "describe: the fee is an amount, the ARN a reserved capacity" \
  '^\["[0-9]+\.[0-9]{2}","arn:aws:sagemaker:us-west-2:123456789012:reserved-capacity/[a-z0-9-]+"\]$' \
  "$(jget "$DESCRIBED" '[d["UpfrontFee"], d["ReservedCapacitySummaries"][0]["ReservedCapacityArn"]]')"

# ---------------------------------------------------------------- List training plans
# The page's time, 2024-09-26T00:00:01.000Z, moved to the day of the search.
sm list-training-plans --start-time-after "2025-01-21T00:00:01.000Z"
expect_success "list: the page's command succeeds"
expect_eq "list: the plan, summarised as described" \
  '[["name","Scheduled","2025-01-22T11:30:00+00:00"]]' \
  "$(jget "$OUT" '[[p["TrainingPlanName"], p["Status"], p["StartTime"]] for p in d["TrainingPlanSummaries"]]')"
# "When the plan reaches its start date, the status changes to Active."
admin POST /_emulator/clock '{"now": "2025-01-22T11:30:00Z"}' >/dev/null
sm list-training-plans --filters Name=Status,Value=Active
expect_success "list: the page's filter command succeeds"
expect_eq "list: Active once the plan's day starts" '[["name","Active"]]' \
  "$(jget "$OUT" '[[p["TrainingPlanName"], p["Status"]] for p in d["TrainingPlanSummaries"]]')"

# ---------------------------------------------------------------- Search for extension offerings
sm search-training-plan-offerings \
--training-plan-arn "$PLAN_ARN" \
--duration-hours 48
expect_success "extension search: the page's command succeeds"
EXTENSIONS=$OUT
# The sample: TrainingPlanOfferings is an empty list, and one extension offering of 48 hours
# from the plan's end. Its times are at 12:00Z; the overview page's rule that plans end at 11:30
# UTC is followed here, so the extension runs from the plan's end at 11:30 UTC.
expect_eq "extension search: no plan offerings, as the sample's" '[]' \
  "$(jget "$EXTENSIONS" 'd["TrainingPlanOfferings"]')"
expect_eq "extension search: one extension of 48 hours where the plan ends" \
  '[["us-west-2a","2025-01-23T11:30:00+00:00","2025-01-25T11:30:00+00:00",48,"USD"]]' \
  "$(jget "$EXTENSIONS" '[[o["AvailabilityZone"], o["StartDate"], o["EndDate"], o["DurationHours"], o["CurrencyCode"]] for o in d["TrainingPlanExtensionOfferings"]]')"
expect_match "extension search: the id is tpeo- and a SHA-256, the fee an amount" \
  '^\["tpeo-[0-9a-f]{64}","[0-9]+\.[0-9]{2}"\]$' \
  "$(jget "$EXTENSIONS" '[d["TrainingPlanExtensionOfferings"][0]["TrainingPlanExtensionOfferingId"], d["TrainingPlanExtensionOfferings"][0]["UpfrontFee"]]')"
EXTENSION_ID=$(jget "$EXTENSIONS" 'd["TrainingPlanExtensionOfferings"][0]["TrainingPlanExtensionOfferingId"]')

# ---------------------------------------------------------------- Purchase an extension
sm extend-training-plan \
--training-plan-extension-offering-id "$EXTENSION_ID"
expect_success "extend: the page's command succeeds"
# The sample answers Status and PaymentStatus "Pending" while the payment is processed.
expect_eq "extend: the extension as bought, Pending as the sample's" \
  "[[\"$EXTENSION_ID\",\"2025-01-22T11:30:00+00:00\",\"2025-01-23T11:30:00+00:00\",\"2025-01-25T11:30:00+00:00\",\"Pending\",\"Pending\",\"us-west-2a\",48,\"USD\"]]" \
  "$(jget "$OUT" '[[e["TrainingPlanExtensionOfferingId"], e["ExtendedAt"], e["StartDate"], e["EndDate"], e["Status"], e["PaymentStatus"], e["AvailabilityZone"], e["DurationHours"], e["CurrencyCode"]] for e in d["TrainingPlanExtensions"]]')"

# ---------------------------------------------------------------- View extension history
admin POST /_emulator/clock '{"now": "2025-01-23T11:30:00Z"}' >/dev/null
sm describe-training-plan-extension-history \
--training-plan-arn "$PLAN_ARN"
expect_success "history: the page's command succeeds"
# The sample: one extension, Active and Completed; "NextToken": null is how the CLI shows a
# member the service left out.
expect_eq "history: the extension, Active and paid, as the sample's" \
  "[[\"$EXTENSION_ID\",\"Active\",\"Completed\",48,\"us-west-2a\"]]" \
  "$(jget "$OUT" '[[e["TrainingPlanExtensionOfferingId"], e["Status"], e["PaymentStatus"], e["DurationHours"], e["AvailabilityZone"]] for e in d["TrainingPlanExtensions"]]')"
expect_eq "history: no NextToken" '<none>' "$(jget "$OUT" 'd.get("NextToken")')"

# ---------------------------------------------------------------- Search UltraServer offerings
# The page's UltraServer search. Its UltraServer type "ml.c6i-32xlargesc" is a placeholder (the
# model's docs name ml.u-p6e-gb200x72), a "\" is missing after --target-resources, and its dates
# are shifted to the test's clock; UltraServers are sold "only in the Dallas Local Zone
# (us-east-1-dfw-2a)", in us-east-1.
sm search-training-plan-offerings \
--ultra-server-type ml.u-p6e-gb200x72 \
--ultra-server-count 1 \
--duration-hours 24 \
--target-resources hyperpod-cluster \
--start-time-after "2025-01-23T12:00:00Z" \
--end-time-before "2025-01-25T12:00:00Z" \
--region us-east-1
expect_success "UltraServer search: the page's command succeeds"
# The sample: one offering of one UltraServer of 18 ml.p6e-gb200.36xlarge, 24 hours from 11:30 UTC.
# Its TargetResources says training-job for a hyperpod-cluster search; the emulator shows what
# was asked for.
expect_eq "UltraServer search: one offering as the sample's" \
  '[[["hyperpod-cluster"],24,0,"USD","UltraServer","ml.u-p6e-gb200x72",1,"ml.p6e-gb200.36xlarge",18,"us-east-1-dfw-2a",24,0,"2025-01-24T11:30:00+00:00","2025-01-25T11:30:00+00:00"]]' \
  "$(jget "$OUT" '[[o["TargetResources"], o["DurationHours"], o["DurationMinutes"], o["CurrencyCode"]] + [c["ReservedCapacityType"], c["UltraServerType"], c["UltraServerCount"], c["InstanceType"], c["InstanceCount"], c["AvailabilityZone"], c["DurationHours"], c["DurationMinutes"], c["StartTime"], c["EndTime"]] for o in d["TrainingPlanOfferings"] for c in o["ReservedCapacityOfferings"]]')"

summarize
