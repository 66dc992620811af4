"""The boto3 clients: the bundled service models, accounts and regions, configuration."""
from __future__ import annotations

import os
from pathlib import Path

import botocore.session
import pytest
from botocore.client import BaseClient
from botocore.config import Config

import sagemaker_emulator
from sagemaker_emulator import Emulator

NEWER_OPERATIONS = {"SearchTrainingPlanOfferings", "CreateTrainingPlan", "ExtendTrainingPlan"}


def test_the_package_carries_the_emulator_models() -> None:
    models = sagemaker_emulator.models_path()
    assert models is not None
    assert models.parent == Path(sagemaker_emulator.__file__).resolve().parent
    assert (models / "sagemaker" / "2017-07-24" / "service-2.json").is_file()
    assert (models / "sagemaker-runtime" / "2017-05-13" / "service-2.json").is_file()


def test_clients_know_the_newer_operations_without_aws_data_path(
        sagemaker_client: BaseClient) -> None:
    # run-tests.sh clears AWS_DATA_PATH: the operations come from the bundled models alone,
    # also with botocore releases that predate them (Debian 12's 1.29).
    assert "AWS_DATA_PATH" not in os.environ
    assert NEWER_OPERATIONS <= set(sagemaker_client.meta.service_model.operation_names)
    resource_config = sagemaker_client.meta.service_model.shape_for("ResourceConfig")
    assert "InstancePreferences" in resource_config.members  # from scripts/api-additions.json


def test_other_sessions_keep_botocores_own_models(sagemaker_client: BaseClient) -> None:
    environment = dict(os.environ)
    sagemaker_client.list_models()
    assert dict(os.environ) == environment
    loader = botocore.session.get_session().get_component("data_loader")
    assert str(sagemaker_emulator.models_path()) not in loader.search_paths


def test_clients_act_as_the_default_account_in_the_default_region(
        sagemaker_emulator: Emulator, sagemaker_client: BaseClient) -> None:
    assert sagemaker_client.meta.region_name == "us-west-2"
    assert sagemaker_client.meta.endpoint_url == sagemaker_emulator.url
    sagemaker_client.create_model(ModelName="mine", ExecutionRoleArn="arn:aws:iam::123456789012:"
                                  "role/demo", PrimaryContainer={"Image": "img:1"})
    assert sagemaker_client.describe_model(ModelName="mine")["ModelArn"] == \
        "arn:aws:sagemaker:us-west-2:123456789012:model/mine"


def test_other_accounts_and_regions_see_nothing_of_it(sagemaker_emulator: Emulator,
                                                      sagemaker_client: BaseClient) -> None:
    sagemaker_client.create_model(ModelName="mine", ExecutionRoleArn="arn:aws:iam::123456789012:"
                                  "role/demo", PrimaryContainer={"Image": "img:1"})
    other_account = sagemaker_emulator.client(account="210987654321")
    other_region = sagemaker_emulator.client(region="eu-west-1")
    try:
        assert other_account.list_models()["Models"] == []
        assert other_region.list_models()["Models"] == []
    finally:
        other_account.close()
        other_region.close()


def test_an_account_must_be_12_digits(sagemaker_emulator: Emulator) -> None:
    with pytest.raises(ValueError, match="12 digits"):
        sagemaker_emulator.client(account="AKIAEXAMPLE")


def test_client_config_is_merged_over_the_defaults(sagemaker_emulator: Emulator) -> None:
    client = sagemaker_emulator.client(config=Config(read_timeout=7))
    try:
        assert client.meta.config.read_timeout == 7
        assert client.meta.config.retries["total_max_attempts"] == 1  # no retries by default
    finally:
        client.close()
