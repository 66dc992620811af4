"""The cost ledger (GET /_emulator/costs) as JSON and CSV, and the HTML report, through the
handle's costs(), costs_csv() and report()."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from botocore.client import BaseClient

from sagemaker_emulator import AdminError, Emulator

JAN_15 = datetime(2027, 1, 15, tzinfo=timezone.utc)
ON_DEMAND_TYPE = "ml.trn1.32xlarge"  # 24.72 an instance-hour in the built-in capacity file
ENDPOINT_ARN = "arn:aws:sagemaker:us-west-2:123456789012:endpoint/on-demand"


@pytest.fixture
def two_hours_on_demand(sagemaker_emulator: Emulator, sagemaker_client: BaseClient) -> Emulator:
    """One on-demand ml.trn1.32xlarge endpoint, held from JAN_15 for 2 hours of virtual clock."""
    sagemaker_emulator.set_clock(JAN_15, frozen=True)
    sagemaker_client.create_model(
        ModelName="m", ExecutionRoleArn="arn:aws:iam::123456789012:role/demo",
        PrimaryContainer={"Image": "123456789012.dkr.ecr.us-west-2.amazonaws.com/demo:1"})
    sagemaker_client.create_endpoint_config(
        EndpointConfigName="c", ProductionVariants=[{
            "VariantName": "v", "ModelName": "m", "InstanceType": ON_DEMAND_TYPE,
            "InitialInstanceCount": 1}])
    sagemaker_client.create_endpoint(EndpointName="on-demand", EndpointConfigName="c")
    sagemaker_emulator.advance(timedelta(hours=2))
    return sagemaker_emulator


def test_costs_show_the_on_demand_holder_and_the_totals(two_hours_on_demand: Emulator) -> None:
    ledger = two_hours_on_demand.costs()
    assert (ledger["from"], ledger["to"], ledger["now"]) == (
        "2027-01-15T00:00:00Z", "2027-01-15T02:00:00Z", "2027-01-15T02:00:00Z")
    assert (ledger["currency"], ledger["account"], ledger["plans"]) == ("USD", None, [])
    [holder] = ledger["holders"]
    assert holder["arn"] == ENDPOINT_ARN
    assert (holder["kind"], holder["instance_type"], holder["training_plan_arn"]) == (
        "endpoint", ON_DEMAND_TYPE, None)
    assert (holder["instance_hours"], holder["hourly_price"], holder["cost"]) == (
        2.0, 24.72, 49.44)
    assert holder["use"] == [
        {"from": "2027-01-15T00:00:00Z", "to": "2027-01-15T02:00:00Z", "instances": 1}]
    overall = ledger["totals"]["overall"]
    assert (overall["on_demand_cost"], overall["plan_fees"], overall["total_cost"]) == (
        49.44, 0.0, 49.44)
    assert (overall["on_demand_instance_hours"], overall["savings"]) == (2.0, 0.0)
    assert [(t["account"], t["total_cost"]) for t in ledger["totals"]["by_account"]] == [
        ("123456789012", 49.44)]


def test_costs_over_a_range_and_for_one_account(two_hours_on_demand: Emulator) -> None:
    # An aware datetime and an ISO string: the second hour only.
    hour = two_hours_on_demand.costs(JAN_15 + timedelta(hours=1), "2027-01-15T02:00:00Z")
    assert (hour["from"], hour["to"]) == ("2027-01-15T01:00:00Z", "2027-01-15T02:00:00Z")
    assert [(h["instance_hours"], h["cost"]) for h in hour["holders"]] == [(1.0, 24.72)]
    assert hour["totals"]["overall"]["total_cost"] == 24.72
    # A naive datetime is UTC: the last half hour.
    half = two_hours_on_demand.costs(from_time=datetime(2027, 1, 15, 1, 30))
    assert half["from"] == "2027-01-15T01:30:00Z"
    assert half["totals"]["overall"]["total_cost"] == 12.36

    assert two_hours_on_demand.costs(account="123456789012")["totals"]["overall"][
        "total_cost"] == 49.44
    other = two_hours_on_demand.costs(account="210987654321")
    assert (other["account"], other["holders"], other["totals"]["overall"]["total_cost"]) == (
        "210987654321", [], 0.0)


def test_costs_csv_has_a_header_and_a_row_per_line(two_hours_on_demand: Emulator) -> None:
    text = two_hours_on_demand.costs_csv()
    lines = text.splitlines()
    assert lines[0].startswith("record,arn,name,kind,account,region,instance_type,")
    header = lines[0].split(",")
    rows = [dict(zip(header, line.split(","))) for line in lines[1:]]
    holder = next(row for row in rows if row["record"] == "holder")
    assert (holder["arn"], holder["used_instance_hours"], holder["cost"]) == (
        ENDPOINT_ARN, "2.0000", "49.44")
    total = next(row for row in rows if row["record"] == "total")
    assert total["cost"] == "49.44"
    hour = two_hours_on_demand.costs_csv(JAN_15, JAN_15 + timedelta(hours=1))
    assert ",24.72," in next(line for line in hour.splitlines() if line.startswith("holder,"))


def test_report_is_one_html_page_with_the_data_inside(two_hours_on_demand: Emulator) -> None:
    page = two_hours_on_demand.report()
    assert page.lstrip().lower().startswith("<!doctype html")
    assert '<script id="report-data"' in page
    assert "on-demand" in page


@pytest.mark.parametrize("call", ["costs", "costs_csv"])
def test_a_range_that_ends_before_it_starts_is_refused(sagemaker_emulator: Emulator,
                                                       call: str) -> None:
    with pytest.raises(AdminError) as raised:
        getattr(sagemaker_emulator, call)("2027-01-16T00:00:00Z", JAN_15)
    assert (raised.value.status, raised.value.code) == (400, "ValidationException")
    assert raised.value.message == \
        "from (2027-01-16T00:00:00Z) must be before to (2027-01-15T00:00:00Z)."
    assert "/_emulator/costs?" in str(raised.value)


def test_an_account_must_be_12_digits(sagemaker_emulator: Emulator) -> None:
    with pytest.raises(AdminError) as raised:
        sagemaker_emulator.costs(account="12")
    assert (raised.value.code, raised.value.message) == (
        "ValidationException", "account must be a 12-digit account id.")
