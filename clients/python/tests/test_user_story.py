"""The story the package is for: buy a training plan, deploy an endpoint on it, and see the
endpoint fail once the reservation has run out."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from botocore.client import BaseClient

from sagemaker_emulator import Emulator

INSTANCE_TYPE = "ml.p5.48xlarge"
ROLE = "arn:aws:iam::123456789012:role/demo"
IMAGE = "123456789012.dkr.ecr.us-west-2.amazonaws.com/demo:1"
EXPIRED = "Endpoint capacity reservation has expired. Please update endpoint configuration."


def utc(year: int, month: int, day: int) -> datetime:
    return datetime(year, month, day, tzinfo=timezone.utc)


def buy_endpoint_plan(sagemaker: BaseClient) -> dict:
    """A week of one p5 for an endpoint, starting between Jan 20 and Jan 24; returns the plan as
    described right after the purchase."""
    offerings = sagemaker.search_training_plan_offerings(
        TargetResources=["endpoint"], InstanceType=INSTANCE_TYPE, InstanceCount=1,
        DurationHours=168, StartTimeAfter=utc(2027, 1, 20),
        EndTimeBefore=utc(2027, 1, 31))["TrainingPlanOfferings"]
    assert offerings, "no offering for a week of ml.p5.48xlarge"
    sagemaker.create_training_plan(TrainingPlanName="p5-endpoint-week",
                                   TrainingPlanOfferingId=offerings[0]["TrainingPlanOfferingId"])
    return sagemaker.describe_training_plan(TrainingPlanName="p5-endpoint-week")


def deploy_on_plan(sagemaker: BaseClient, plan_arn: str) -> None:
    sagemaker.create_model(ModelName="demo-model", ExecutionRoleArn=ROLE,
                           PrimaryContainer={"Image": IMAGE})
    sagemaker.create_endpoint_config(EndpointConfigName="demo-config", ProductionVariants=[{
        "VariantName": "AllTraffic", "ModelName": "demo-model", "InstanceType": INSTANCE_TYPE,
        "InitialInstanceCount": 1,
        "CapacityReservationConfig": {"CapacityReservationPreference": "capacity-reservations-only",
                                      "MlReservationArn": plan_arn}}])
    sagemaker.create_endpoint(EndpointName="demo-endpoint", EndpointConfigName="demo-config")
    sagemaker.get_waiter("endpoint_in_service").wait(
        EndpointName="demo-endpoint", WaiterConfig={"Delay": 1, "MaxAttempts": 30})


def invoke(runtime: BaseClient) -> bytes:
    answer = runtime.invoke_endpoint(EndpointName="demo-endpoint", ContentType="text/csv",
                                     Body=b"1,2,3")
    return answer["Body"].read()


def test_an_endpoint_on_a_plan_serves_until_the_plan_expires(
        sagemaker_emulator: Emulator, sagemaker_client: BaseClient,
        sagemaker_runtime_client: BaseClient) -> None:
    sagemaker_emulator.set_clock("2027-01-15T00:00:00Z", frozen=True)
    plan = buy_endpoint_plan(sagemaker_client)
    # The purchase is Pending while its payment is processed (30 s of the clock), then Scheduled.
    assert (plan["Status"], plan["StatusMessage"]) == ("Pending", "Payment is being processed.")
    sagemaker_emulator.advance(30)
    plan = sagemaker_client.describe_training_plan(TrainingPlanName="p5-endpoint-week")
    assert (plan["Status"], plan["StatusMessage"]) == (
        "Scheduled", "Payment confirmed, training plan scheduled.")
    assert utc(2027, 1, 20) <= plan["StartTime"] <= utc(2027, 1, 24)
    assert plan["EndTime"] - plan["StartTime"] == timedelta(days=7)

    sagemaker_emulator.set_clock(plan["StartTime"])
    assert sagemaker_client.describe_training_plan(
        TrainingPlanName="p5-endpoint-week")["Status"] == "Active"
    deploy_on_plan(sagemaker_client, plan["TrainingPlanArn"])
    assert invoke(sagemaker_runtime_client) == b"1,2,3"
    holders = sagemaker_emulator.capacity(region="us-west-2", instance_type=INSTANCE_TYPE)["in_use"]
    assert [(h["kind"], h["count"], h["training_plan_arn"]) for h in holders] == [
        ("endpoint", 1, plan["TrainingPlanArn"])]

    sagemaker_emulator.advance(timedelta(days=7))
    assert sagemaker_client.describe_training_plan(
        TrainingPlanName="p5-endpoint-week")["Status"] == "Expired"
    with pytest.raises(sagemaker_runtime_client.exceptions.ModelError) as raised:
        invoke(sagemaker_runtime_client)
    assert raised.value.response["Error"]["Message"] == EXPIRED
