"""Buy a week of GPU capacity, serve an endpoint on it, and see it fail once the week is over.

    pip install ./clients/python        # into a venv; see clients/python/README.md
    python -m pytest clients/python/examples/test_expiry.py \
        --sagemaker-emulator-binary build/sagemaker-emulator
"""
from datetime import datetime, timedelta

import pytest

PLAN_ONLY = "capacity-reservations-only"


def test_endpoint_fails_when_its_plan_expires(sagemaker_emulator, sagemaker_client,
                                              sagemaker_runtime_client):
    sm, runtime = sagemaker_client, sagemaker_runtime_client
    sagemaker_emulator.set_clock("2027-01-15T00:00:00Z", frozen=True)
    offering = sm.search_training_plan_offerings(
        TargetResources=["endpoint"], InstanceType="ml.p5.48xlarge", InstanceCount=1,
        DurationHours=168, StartTimeAfter=datetime(2027, 1, 20),
        EndTimeBefore=datetime(2027, 1, 31))["TrainingPlanOfferings"][0]
    plan = sm.create_training_plan(TrainingPlanName="week",
                                   TrainingPlanOfferingId=offering["TrainingPlanOfferingId"])
    sagemaker_emulator.set_clock(offering["ReservedCapacityOfferings"][0]["StartTime"])

    sm.create_model(ModelName="m", PrimaryContainer={"Image": "img:1"},
                    ExecutionRoleArn="arn:aws:iam::123456789012:role/demo")
    sm.create_endpoint_config(EndpointConfigName="c", ProductionVariants=[{
        "VariantName": "v", "ModelName": "m", "InstanceType": "ml.p5.48xlarge",
        "InitialInstanceCount": 1, "CapacityReservationConfig": {
            "CapacityReservationPreference": PLAN_ONLY,
            "MlReservationArn": plan["TrainingPlanArn"]}}])
    sm.create_endpoint(EndpointName="e", EndpointConfigName="c")
    sm.get_waiter("endpoint_in_service").wait(EndpointName="e", WaiterConfig={"Delay": 1})
    answer = runtime.invoke_endpoint(EndpointName="e", ContentType="text/csv", Body=b"1,2,3")
    assert answer["Body"].read() == b"1,2,3"  # the emulator's endpoints echo

    sagemaker_emulator.advance(timedelta(days=7))
    with pytest.raises(runtime.exceptions.ModelError, match="capacity reservation has expired"):
        runtime.invoke_endpoint(EndpointName="e", ContentType="text/csv", Body=b"1,2,3")
