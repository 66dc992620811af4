#!/usr/bin/python3
"""Holds the operation reference's claims (scripts/operation-notes.yaml, as
scripts/gen-operations.py reads them) against the binary: for each Create operation with a
Describe, and the UpdateCluster and UpdateEndpoint updates, every member the reference says is
stored and shown back is sent, one at a time beside a valid request, and must come back as sent;
every member it says is ignored must be accepted and not come back; every member it says is
refused must be refused with a ValidationException. The
server checks each of its answers against the model (--check-responses).

    tests/docs/operation_claims_test.py BINARY

A member the reference shows back with no sample value below fails the test, so a new one cannot
go unchecked.
"""
import importlib.util
import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
SPEC = importlib.util.spec_from_file_location("gen_operations", ROOT / "scripts/gen-operations.py")
generator = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(generator)

ROLE = "arn:aws:iam::123456789012:role/demo"
IMAGE = "123456789012.dkr.ecr.us-west-2.amazonaws.com/demo:1"
VPC = {"SecurityGroupIds": ["sg-0123456789abcdef0"], "Subnets": ["subnet-0123456789abcdef0"]}
S3 = "s3://demo-bucket/out"

# A valid request for each Create operation checked, the Describe that shows it back and the
# member naming the resource there. {n} is replaced by a fresh number per request.
BASE = {
    "CreateModel": ({"ModelName": "m{n}", "PrimaryContainer": {"Image": IMAGE},
                     "ExecutionRoleArn": ROLE}, "DescribeModel", "ModelName"),
    "CreateEndpointConfig": ({"EndpointConfigName": "c{n}", "ProductionVariants": [
        {"VariantName": "AllTraffic", "ModelName": "base-model", "InstanceType": "ml.m5.large",
         "InitialInstanceCount": 1}]}, "DescribeEndpointConfig", "EndpointConfigName"),
    "CreateEndpoint": ({"EndpointName": "e{n}", "EndpointConfigName": "base-config"},
                       "DescribeEndpoint", "EndpointName"),
    "CreateTrainingJob": ({"TrainingJobName": "t{n}", "RoleArn": ROLE,
                           "AlgorithmSpecification": {"TrainingImage": IMAGE,
                                                      "TrainingInputMode": "File"},
                           "OutputDataConfig": {"S3OutputPath": S3},
                           "ResourceConfig": {"InstanceType": "ml.m5.large", "InstanceCount": 1,
                                              "VolumeSizeInGB": 10},
                           "StoppingCondition": {"MaxRuntimeInSeconds": 3600}},
                          "DescribeTrainingJob", "TrainingJobName"),
    "CreateProcessingJob": ({"ProcessingJobName": "p{n}", "RoleArn": ROLE,
                             "AppSpecification": {"ImageUri": IMAGE},
                             "ProcessingResources": {"ClusterConfig": {
                                 "InstanceType": "ml.m5.large", "InstanceCount": 1,
                                 "VolumeSizeInGB": 10}}},
                            "DescribeProcessingJob", "ProcessingJobName"),
    "CreateCluster": ({"ClusterName": "k{n}", "InstanceGroups": [
        {"InstanceGroupName": "workers", "InstanceType": "ml.m5.large", "InstanceCount": 1,
         "ExecutionRole": ROLE,
         "LifeCycleConfig": {"SourceS3Uri": "s3://demo-bucket/lifecycle", "OnCreate": "on.sh"}}]},
                      "DescribeCluster", "ClusterName"),
    # Updates of a resource made for each request (PREPARE), checked the same way: what they
    # ignore must not show in the Describe, what they refuse must be refused.
    "UpdateCluster": ({"ClusterName": "u{n}", "NodeRecovery": "Automatic"},
                      "DescribeCluster", "ClusterName"),
    "UpdateEndpoint": ({"EndpointName": "v{n}", "EndpointConfigName": "other-config"},
                       "DescribeEndpoint", "EndpointName"),
}

# What an update in BASE needs first, {n} as in its request.
PREPARE = {
    "UpdateCluster": [("CreateCluster", {"ClusterName": "u{n}", "InstanceGroups": [
        {"InstanceGroupName": "workers", "InstanceType": "ml.m5.large", "InstanceCount": 1,
         "ExecutionRole": ROLE,
         "LifeCycleConfig": {"SourceS3Uri": "s3://demo-bucket/lifecycle", "OnCreate": "on.sh"}}]})],
    "UpdateEndpoint": [("CreateEndpoint", {"EndpointName": "v{n}",
                                           "EndpointConfigName": "base-config"})],
}

# A valid value for each member the reference says is stored and shown back, or ignored.
SAMPLES = {
    "InferenceExecutionConfig": {"Mode": "Serial"},
    "ExecutionRoleArn": ROLE,
    "VpcConfig": VPC,
    "EnableNetworkIsolation": True,
    "DataCaptureConfig": {"EnableCapture": True, "InitialSamplingPercentage": 50,
                          "DestinationS3Uri": S3, "CaptureOptions": [{"CaptureMode": "Input"}]},
    "KmsKeyId": "alias/demo",
    "AsyncInferenceConfig": {"OutputConfig": {"S3OutputPath": S3}},
    "ExplainerConfig": {"ClarifyExplainerConfig": {"ShapConfig": {"ShapBaselineConfig": {
        "ShapBaseline": "1,2"}}}},
    "MetricsConfig": {"EnableEnhancedMetrics": True},
    "HyperParameters": {"epochs": "3"},
    "AlgorithmSpecification": {"TrainingImage": IMAGE, "TrainingInputMode": "Pipe"},
    "RoleArn": "arn:aws:iam::123456789012:role/other",
    "InputDataConfig": [{"ChannelName": "train", "DataSource": {"S3DataSource": {
        "S3DataType": "S3Prefix", "S3Uri": "s3://demo-bucket/train"}}}],
    "EnableInterContainerTrafficEncryption": True,
    "CheckpointConfig": {"S3Uri": "s3://demo-bucket/checkpoints"},
    "DebugHookConfig": {"S3OutputPath": S3},
    "DebugRuleConfigurations": [{"RuleConfigurationName": "loss", "RuleEvaluatorImage": IMAGE}],
    "TensorBoardOutputConfig": {"S3OutputPath": S3},
    "ExperimentConfig": {"ExperimentName": "demo-experiment"},
    "ProfilerConfig": {"DisableProfiler": True},
    "ProfilerRuleConfigurations": [{"RuleConfigurationName": "cpu", "RuleEvaluatorImage": IMAGE}],
    "RetryStrategy": {"MaximumRetryAttempts": 2},
    "RemoteDebugConfig": {"EnableRemoteDebug": True},
    "InfraCheckConfig": {"EnableInfraCheck": True},
    "SessionChainingConfig": {"EnableSessionTagChaining": True},
    "ServerlessJobConfig": {"BaseModelArn":
                            "arn:aws:sagemaker:us-west-2:aws:hub-content/demo/Model/llama/1.0.0",
                            "JobType": "FineTuning"},
    "MlflowConfig": {"MlflowResourceArn":
                     "arn:aws:sagemaker:us-west-2:123456789012:mlflow-tracking-server/demo"},
    "ModelPackageConfig": {"ModelPackageGroupArn":
                           "arn:aws:sagemaker:us-west-2:123456789012:model-package-group/demo"},
    "ProcessingInputs": [{"InputName": "data", "S3Input": {
        "S3Uri": "s3://demo-bucket/in", "LocalPath": "/opt/ml/processing/input",
        "S3DataType": "S3Prefix", "S3InputMode": "File"}}],
    "ProcessingOutputConfig": {"Outputs": [{"OutputName": "out", "S3Output": {
        "S3Uri": S3, "LocalPath": "/opt/ml/processing/output", "S3UploadMode": "EndOfJob"}}]},
    "AppSpecification": {"ImageUri": IMAGE, "ContainerArguments": ["--verbose"]},
    "NetworkConfig": {"EnableNetworkIsolation": True},
    "Orchestrator": {"Eks": {"ClusterArn": "arn:aws:eks:us-west-2:123456789012:cluster/demo"}},
    "TieredStorageConfig": {"Mode": "Enable"},
    "NodeProvisioningMode": "Continuous",
    "ClusterRole": ROLE,
    "NodeRecovery": "None",
    "DeploymentConfig": {"BlueGreenUpdatePolicy": {"TrafficRoutingConfiguration": {
        "Type": "ALL_AT_ONCE", "WaitIntervalInSeconds": 0}}},
    "RestrictedInstanceGroups": [{"InstanceGroupName": "restricted", "InstanceType": "ml.m5.large",
                                  "InstanceCount": 1, "ExecutionRole": ROLE,
                                  "EnvironmentConfig": {}}],
    "RestrictedInstanceGroupsConfig": {"SharedEnvironmentConfig": {
        "FSxLustreDeletionPolicy": "Keep",
        "FSxLustreConfig": {"SizeInGiB": 1200, "PerUnitStorageThroughput": 125}}},
    "AutoScaling": {"Mode": "Enable"},
    "RetainAllVariantProperties": True,
    "ExcludeRetainedVariantProperties": [{"VariantPropertyType": "DesiredInstanceCount"}],
    "RetainDeploymentConfig": True,
}


class Server:
    def __init__(self, binary: str):
        # --port 0: the server binds a free port and names it on its only stdout line, so no
        # other test can take the port between choosing it and binding it.
        self.process = subprocess.Popen(
            [binary, "--db", ":memory:", "--port", "0", "--check-responses",
             "--account-id", "123456789012", "--log-level", "warn"],
            stdout=subprocess.PIPE, text=True)
        line = self.process.stdout.readline().strip()
        if not line.startswith("sagemaker-emulator listening on http://"):
            raise RuntimeError(f"the server did not start: {line!r}")
        self.port = int(line.rsplit(":", 1)[1])
        for _ in range(200):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{self.port}/_emulator/health")
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("the server did not start")

    def call(self, operation: str, body: dict):
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/", data=json.dumps(body).encode(), method="POST",
            headers={"X-Amz-Target": f"SageMaker.{operation}",
                     "Content-Type": "application/x-amz-json-1.1"})
        try:
            with urllib.request.urlopen(request) as answer:
                return answer.status, json.load(answer)
        except urllib.error.HTTPError as error:
            return error.code, json.load(error)


def contains(shown, sent) -> bool:
    """Whether `shown` has everything `sent` has (the service may add defaults)."""
    if isinstance(sent, dict):
        return isinstance(shown, dict) and all(
            key in shown and contains(shown[key], value) for key, value in sent.items())
    if isinstance(sent, list):
        return isinstance(shown, list) and len(shown) == len(sent) and all(
            contains(a, b) for a, b in zip(shown, sent))
    return shown == sent


def claims():
    notes = yaml.safe_load(generator.NOTES.read_text())
    models = {service: json.loads(path.read_text()) for service, path in generator.MODELS.items()}
    for section in notes["sections"]:
        for operation, spec in section["operations"].items():
            if operation not in BASE:
                continue
            shapes = models["sagemaker"]["shapes"]
            members = shapes[models["sagemaker"]["operations"][operation]["input"]["shape"]]
            what = generator.classify(operation, spec, list(members["members"]), models,
                                      "sagemaker")
            for member, text in what.items():
                if "stores and shows it back" in text:
                    yield operation, member, "shown"
                elif text.startswith("**ignores**"):
                    yield operation, member, "ignored"
                elif text.startswith("**refuses**"):
                    yield operation, member, "refused"


def main() -> int:
    server = Server(sys.argv[1])
    failures = []
    checked = 0
    try:
        assert server.call("CreateModel", BASE["CreateModel"][0] | {"ModelName": "base-model"})[0] == 200
        assert server.call("CreateEndpointConfig", json.loads(json.dumps(
            BASE["CreateEndpointConfig"][0]).replace("c{n}", "base-config")))[0] == 200
        assert server.call("CreateEndpointConfig", json.loads(json.dumps(
            BASE["CreateEndpointConfig"][0]).replace("c{n}", "other-config")))[0] == 200
        number = 0
        for operation, member, claim in claims():
            if member not in SAMPLES:
                failures.append(f"{operation}.{member}: the reference says it is {claim}, but "
                                "this test has no sample value for it (add one to SAMPLES)")
                continue
            number += 1
            base, describe, name_member = BASE[operation]
            for step, body in PREPARE.get(operation, []):
                prepared = server.call(step, json.loads(json.dumps(body).replace("{n}", str(number))))
                assert prepared[0] == 200, prepared
            request = json.loads(json.dumps(base).replace("{n}", str(number)))
            request[member] = SAMPLES[member]
            status, answer = server.call(operation, request)
            checked += 1
            where = f"{operation}.{member} ({claim})"
            if claim == "refused":
                if status != 400 or answer.get("__type") != "ValidationException":
                    failures.append(f"{where}: answered {status} {answer}")
                continue
            if status != 200:
                failures.append(f"{where}: {operation} answered {status} {answer}")
                continue
            status, shown = server.call(describe, {name_member: request[name_member]})
            if status != 200:
                failures.append(f"{where}: {describe} answered {status} {shown}")
            elif claim == "shown" and not contains(shown.get(member), SAMPLES[member]):
                failures.append(f"{where}: {describe} shows {shown.get(member)!r}, "
                                f"not {SAMPLES[member]!r}")
            elif claim == "ignored" and member in shown and contains(shown[member], SAMPLES[member]):
                failures.append(f"{where}: {describe} shows it back: {shown[member]!r}")
    finally:
        server.process.terminate()
        server.process.wait()
    for failure in failures:
        print(f"FAILED {failure}")
    print(f"{checked} claims checked, {len(failures)} failed")
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
