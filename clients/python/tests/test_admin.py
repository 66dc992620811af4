"""The admin helpers: reset between tests, the virtual clock, and the capacity pools."""
from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

import pytest
from botocore.client import BaseClient

from sagemaker_emulator import AdminError, Clock, Emulator

JAN_15 = datetime(2027, 1, 15, tzinfo=timezone.utc)
FAR_FUTURE = datetime(2030, 1, 1, tzinfo=timezone.utc)
SMALL_TYPE = "ml.m5.xlarge"  # not in the built-in capacity, so unlimited until a pool is set


def create_model(sagemaker: BaseClient, name: str) -> None:
    sagemaker.create_model(ModelName=name, ExecutionRoleArn="arn:aws:iam::123456789012:role/demo",
                           PrimaryContainer={"Image": "123456789012.dkr.ecr.us-west-2.amazonaws"
                                                      ".com/demo:1"})


def small_pools(emulator: Emulator) -> list:
    return emulator.capacity(region="us-west-2", instance_type=SMALL_TYPE)["pools"]


# The same test twice: whichever run comes second fails if the first one's resource, pool or
# clock change survived the reset that the sagemaker_emulator fixture makes.
@pytest.mark.parametrize("run", ["first", "second"])
def test_every_test_starts_from_a_reset_emulator(run: str, sagemaker_emulator: Emulator,
                                                 sagemaker_client: BaseClient) -> None:
    assert sagemaker_client.list_models()["Models"] == []
    assert small_pools(sagemaker_emulator) == []
    assert sagemaker_emulator.clock().now < FAR_FUTURE

    create_model(sagemaker_client, "reset-probe")
    sagemaker_emulator.set_pool("us-west-2", "us-west-2a", SMALL_TYPE, on_demand=1)
    sagemaker_emulator.set_clock(FAR_FUTURE, frozen=True)
    assert [m["ModelName"] for m in sagemaker_client.list_models()["Models"]] == ["reset-probe"]


def test_a_frozen_clock_moves_only_when_told(sagemaker_emulator: Emulator) -> None:
    assert sagemaker_emulator.set_clock(JAN_15, frozen=True) == Clock(JAN_15, frozen=True)
    time.sleep(0.02)
    assert sagemaker_emulator.clock() == Clock(JAN_15, frozen=True)

    assert sagemaker_emulator.advance(90).now == JAN_15 + timedelta(seconds=90)
    assert sagemaker_emulator.advance(timedelta(days=2, milliseconds=500)).now == \
        JAN_15 + timedelta(days=2, seconds=90.5)
    # A naive datetime is UTC, as in botocore.
    assert sagemaker_emulator.set_clock(datetime(2027, 2, 1)).now == \
        datetime(2027, 2, 1, tzinfo=timezone.utc)


def test_an_unfrozen_clock_runs(sagemaker_emulator: Emulator) -> None:
    sagemaker_emulator.set_clock(JAN_15, frozen=True)
    assert sagemaker_emulator.freeze(False).frozen is False
    time.sleep(0.05)
    later = sagemaker_emulator.clock()
    assert not later.frozen and later.now > JAN_15


def test_the_clock_never_moves_backwards_for_a_resource(sagemaker_emulator: Emulator,
                                                         sagemaker_client: BaseClient) -> None:
    sagemaker_emulator.set_clock(JAN_15, frozen=True)
    sagemaker_client.create_model(ModelName="m", PrimaryContainer={"Image": "img:1"},
                                  ExecutionRoleArn="arn:aws:iam::123456789012:role/r")
    with pytest.raises(AdminError) as raised:
        sagemaker_emulator.set_clock("2027-01-01T00:00:00Z")
    assert (raised.value.status, raised.value.code) == (400, "ValidationException")
    assert "cannot move backwards" in raised.value.message
    assert "ValidationException" in str(raised.value) and "/_emulator/clock" in str(raised.value)
    assert sagemaker_emulator.clock().now == JAN_15
    # With no resource left there is nothing whose time could run backwards.
    sagemaker_emulator.reset()
    sagemaker_emulator.set_clock("2027-01-01T00:00:00Z", frozen=True)
    assert sagemaker_emulator.clock().now == datetime(2027, 1, 1, tzinfo=timezone.utc)


def test_the_clock_drives_resource_statuses(sagemaker_emulator: Emulator,
                                            sagemaker_client: BaseClient) -> None:
    sagemaker_emulator.set_clock(JAN_15, frozen=True)
    offering = sagemaker_client.search_training_plan_offerings(
        InstanceType="ml.p5.48xlarge", InstanceCount=1, DurationHours=24,
        StartTimeAfter=JAN_15 + timedelta(days=1))["TrainingPlanOfferings"][0]
    sagemaker_client.create_training_plan(TrainingPlanName="day",
                                          TrainingPlanOfferingId=offering["TrainingPlanOfferingId"])

    def status() -> str:
        return sagemaker_client.describe_training_plan(TrainingPlanName="day")["Status"]

    # "When created, the plan initially enters a Pending state and remains there until the
    # reservation process is complete" (Reserve the best training plan): here 30 s of the clock.
    assert status() == "Pending"
    sagemaker_emulator.advance(29)
    assert status() == "Pending"
    sagemaker_emulator.advance(1)
    assert status() == "Scheduled"
    sagemaker_emulator.set_clock(offering["ReservedCapacityOfferings"][0]["StartTime"])
    assert status() == "Active"
    sagemaker_emulator.advance(timedelta(hours=24))
    assert status() == "Expired"


WAITING_TYPE = "ml.g5.xlarge"


def test_raising_an_on_demand_pool_starts_a_waiting_job(sagemaker_emulator: Emulator,
                                                        sagemaker_client: BaseClient) -> None:
    # A GPU type: a job waits for capacity only when its list has an accelerated type (a CPU-only
    # list is evaluated once, as on SageMaker).
    sagemaker_emulator.set_clock(JAN_15, frozen=True)
    pool = sagemaker_emulator.set_pool("us-west-2", "us-west-2a", WAITING_TYPE, on_demand=0)
    assert (pool["availability_zone"], pool["on_demand"]) == ("us-west-2a", 0)
    sagemaker_client.create_training_job(
        TrainingJobName="waits", RoleArn="arn:aws:iam::123456789012:role/demo",
        AlgorithmSpecification={"TrainingImage": "123456789012.dkr.ecr.us-west-2.amazonaws.com"
                                                 "/train:1", "TrainingInputMode": "File"},
        OutputDataConfig={"S3OutputPath": "s3://demo/out"},
        ResourceConfig={"InstanceType": WAITING_TYPE, "InstanceCount": 1, "VolumeSizeInGB": 10},
        StoppingCondition={"MaxRuntimeInSeconds": 3600})

    def job() -> dict:
        return sagemaker_client.describe_training_job(TrainingJobName="waits")

    assert (job()["TrainingJobStatus"], job()["SecondaryStatus"]) == ("InProgress", "Pending")
    sagemaker_emulator.advance(600)
    sagemaker_emulator.set_pool("us-west-2", "us-west-2a", WAITING_TYPE, on_demand=1)
    assert job()["SecondaryStatus"] == "Starting"
    assert job()["TrainingStartTime"] == JAN_15 + timedelta(seconds=600)
    holders = sagemaker_emulator.capacity(region="us-west-2", instance_type=WAITING_TYPE)["in_use"]
    assert [(h["kind"], h["count"], h["on_demand"]) for h in holders] == [
        ("training-job", 1, True)]


def test_capacity_filters_by_region_and_instance_type(sagemaker_emulator: Emulator) -> None:
    pools = sagemaker_emulator.capacity(region="us-west-2", instance_type="ml.p5.48xlarge")["pools"]
    assert pools and {(p["region"], p["instance_type"]) for p in pools} == {
        ("us-west-2", "ml.p5.48xlarge")}
    everything = sagemaker_emulator.capacity()["pools"]
    assert len({p["region"] for p in everything}) > 1


def test_a_refused_admin_call_raises_with_code_and_message(sagemaker_emulator: Emulator) -> None:
    with pytest.raises(AdminError) as raised:
        sagemaker_emulator.set_pool("us-west-2", "us-west-2a", SMALL_TYPE, on_demand=-1)
    assert (raised.value.status, raised.value.code) == (400, "ValidationException")
    assert raised.value.message == "'on_demand' must be an integer from 0 to 100000."


def test_a_fault_rule_holds_for_its_with_block(sagemaker_emulator: Emulator,
                                               sagemaker_client: BaseClient) -> None:
    # "Rate exceeded" is AWS's text for a throttled request; the fixture's client makes one
    # attempt, so the rule's answer comes through.
    with sagemaker_emulator.fault({"operation": "ListModels", "times": 1,
                                   "error": "ThrottlingException"}) as rule:
        assert rule["id"] == "rule-1"
        with pytest.raises(sagemaker_client.exceptions.ClientError) as refused:
            sagemaker_client.list_models()
        assert refused.value.response["Error"] == {"Code": "ThrottlingException",
                                                   "Message": "Rate exceeded"}
        assert sagemaker_client.list_models()["Models"] == []
        [listed] = sagemaker_emulator.faults()
        assert (listed["matched"], listed["fired"]) == (2, 1)
    assert sagemaker_emulator.faults() == []
    with pytest.raises(AdminError) as refused_rule:
        sagemaker_emulator.add_faults({"operation": "ListModels", "error": "ModelError"})
    assert refused_rule.value.code == "ValidationException"
    sagemaker_emulator.add_faults({"id": "a", "operation": "ListModels", "latency_ms": 1},
                                  {"id": "b", "operation": "ListEndpoints", "latency_ms": 1})
    assert sagemaker_emulator.remove_faults("a") == 1
    assert sagemaker_emulator.remove_faults() == 1
