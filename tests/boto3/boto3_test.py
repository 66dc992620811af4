#!/usr/bin/python3
"""Real-client test: Debian's boto3/botocore against a sagemaker-emulator binary.

    /usr/bin/python3 tests/boto3/boto3_test.py /path/to/sagemaker-emulator [unittest args...]

Debian's botocore (1.29) predates the newer SageMaker operations, so it is pointed at the
project's own model subset (api/ at the repo root) through AWS_DATA_PATH, which must be set
before botocore is imported.
"""
import datetime
import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

# A clean client environment: the project's model subset, no user config or credentials.
for _var in ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN",
             "AWS_ENDPOINT_URL", "AWS_CA_BUNDLE", "AWS_RETRY_MODE", "AWS_MAX_ATTEMPTS",
             "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_DEFAULT_REGION"):
    os.environ.pop(_var, None)
os.environ["AWS_DATA_PATH"] = os.path.join(REPO_ROOT, "api")
os.environ["AWS_CONFIG_FILE"] = os.devnull
os.environ["AWS_SHARED_CREDENTIALS_FILE"] = os.devnull
os.environ["AWS_EC2_METADATA_DISABLED"] = "true"
os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost"

import boto3  # noqa: E402  (must come after AWS_DATA_PATH)
import botocore  # noqa: E402
from botocore.config import Config  # noqa: E402
from botocore.exceptions import ClientError  # noqa: E402

BINARY = None  # set from argv in main

ACCOUNT = "123456789012"
OTHER_ACCOUNT = "210987654321"
FALLBACK_ACCOUNT = "111122223333"  # --account-id, for access keys that are not 12 digits
REGION = "us-west-2"
CLOCK_START = "2027-01-25T00:00:00Z"
CLOCK_START_DT = datetime.datetime(2027, 1, 25, tzinfo=datetime.timezone.utc)
CLOCK_START_EPOCH = 1800835200
# The control-plane operations api/ holds: the list scripts/make-api-subset.py works from.
SERVED_OPERATIONS = {
    line.split()[1]
    for line in open(os.path.join(REPO_ROOT, "scripts", "api-operations.txt")).read().splitlines()
    if line.strip() and not line.startswith("#") and line.split()[0] == "sagemaker"
}


# "Training Plans always end at 11:30 AM UTC on the final day of the reservation": a plan asked to
# start later than 30 minutes from now starts at 11:30 UTC too, and lasts whole days.
PLAN_DAY_END = datetime.timedelta(hours=11, minutes=30)


def iso(when):
    """A UTC datetime as POST /_emulator/clock takes it."""
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def arn(name, account=ACCOUNT, region=REGION):
    return "arn:aws:sagemaker:%s:%s:model/%s" % (region, account, name.lower())


class Server:
    """The emulator as a child process on a free port with an in-memory database, checking every
    answer against the service model (--check-responses: a departure is a 500)."""

    def __init__(self, binary, extra_args=()):
        self.stderr = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [binary, "--port", "0", "--db", ":memory:", "--clock-start", CLOCK_START,
             "--frozen-clock", "--account-id", FALLBACK_ACCOUNT, "--region", "us-east-1",
             "--check-responses"]
            + list(extra_args),
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self.stderr)
        # Drain stdout continuously so the server can never block on a full pipe.
        self.lines = queue.Queue()
        self.extra_stdout = []
        threading.Thread(target=self._drain, daemon=True).start()
        try:
            self.first_line = self.lines.get(timeout=10)
        except queue.Empty:
            self.first_line = None
        prefix = "sagemaker-emulator listening on http://127.0.0.1:"
        if not self.first_line or not self.first_line.startswith(prefix):
            self.stop()
            raise RuntimeError("server did not announce itself; first stdout line %r; stderr:\n%s"
                               % (self.first_line, self.stderr_text()))
        self.url = self.first_line[len("sagemaker-emulator listening on "):]
        int(self.url.rsplit(":", 1)[1])  # a port number

    def _drain(self):
        first = True
        for raw in self.proc.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if first:
                self.lines.put(line)
                first = False
            else:
                self.extra_stdout.append(line)

    def stderr_text(self):
        self.stderr.seek(0)
        return self.stderr.read().decode("utf-8", "replace")

    def stop(self):
        """SIGTERM, then wait up to 10 s. Returns the exit status (None if it had to be killed)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                return None
        return self.proc.returncode


def http(url, body=b"", headers=None, method="POST"):
    """A raw HTTP call. Returns (status, headers, parsed JSON body or raw bytes)."""
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            status, hdrs, data = response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        status, hdrs, data = error.code, error.headers, error.read()
    try:
        return status, hdrs, json.loads(data)
    except ValueError:
        return status, hdrs, data


def error_code(type_value):
    """The error code as botocore's awsJson parser derives it from __type."""
    return type_value.split(":")[0].rsplit("#", 1)[-1]


class EmulatorTestCase(unittest.TestCase):
    """A test class with a server of its own, started once for the class with SERVER_ARGS (and
    CAPACITY written to a capacity file, when set), reset before every test."""
    server = None
    CAPACITY = None  # a capacity configuration (dict) for --capacity
    FAULTS = None  # fault rules (dict) for --faults
    SERVER_ARGS = ()

    @classmethod
    def setUpClass(cls):
        cls.workdir = tempfile.TemporaryDirectory()
        args = list(cls.SERVER_ARGS)
        if cls.CAPACITY is not None:
            capacity = os.path.join(cls.workdir.name, "capacity.json")
            with open(capacity, "w") as f:
                json.dump(cls.CAPACITY, f)
            args += ["--capacity", capacity]
        if cls.FAULTS is not None:
            faults = os.path.join(cls.workdir.name, "faults.json")
            with open(faults, "w") as f:
                json.dump(cls.FAULTS, f)
            args += ["--faults", faults]
        cls.server = Server(BINARY, args)

    @classmethod
    def tearDownClass(cls):
        if cls.server is not None:
            status = cls.server.stop()
            if status != 0:
                raise AssertionError("server did not exit with status 0 on SIGTERM (got %r); "
                                     "stderr:\n%s" % (status, cls.server.stderr_text()[-3000:]))
        cls.workdir.cleanup()

    # ------------------------------------------------------------------ helpers
    def setUp(self):
        status, _, body = http(self.server.url + "/_emulator/reset", b"{}",
                               {"Content-Type": "application/json"})
        self.assertEqual(200, status, body)
        self.set_clock({"now": CLOCK_START, "frozen": True})
        self.sm = self.client()

    def set_clock(self, change):
        status, _, body = http(self.server.url + "/_emulator/clock", json.dumps(change).encode(),
                               {"Content-Type": "application/json"})
        self.assertEqual(200, status, body)
        return body

    def client(self, access_key=ACCOUNT, region=REGION, service="sagemaker"):
        session = boto3.session.Session(aws_access_key_id=access_key, aws_secret_access_key="x",
                                        region_name=region)
        # total_max_attempts=1 is one attempt and no retries. (In botocore, retries={'max_attempts': 1}
        # means one *retry*, i.e. two attempts.)
        client = session.client(service, endpoint_url=self.server.url,
                                config=Config(retries={"total_max_attempts": 1},
                                              connect_timeout=5, read_timeout=10))
        self.addCleanup(client.close)  # closes pooled connections (no ResourceWarning)
        return client

    def assert_client_error(self, call, code, message, status=400, **kwargs):
        with self.assertRaises(ClientError) as ctx:
            call(**kwargs)
        response = ctx.exception.response
        self.assertEqual(code, response["Error"]["Code"], response)
        self.assertEqual(message, response["Error"]["Message"], response)
        self.assertEqual(status, response["ResponseMetadata"]["HTTPStatusCode"], response)
        self.assertEqual(0, response["ResponseMetadata"].get("RetryAttempts"), response)
        return response

    def raw_json_call(self, operation, body, headers=None):
        all_headers = {"Content-Type": "application/x-amz-json-1.1",
                       "X-Amz-Target": "SageMaker." + operation}
        all_headers.update(headers or {})
        return http(self.server.url + "/", json.dumps(body).encode(), all_headers)


class SageMakerBoto3Test(EmulatorTestCase):
    """Models, training plans and endpoints through boto3 on a server with the built-in capacity."""

    # ------------------------------------------------------------------ tests
    def test_client_uses_the_api_subset(self):
        model = self.sm.meta.service_model
        self.assertEqual("2017-07-24", model.api_version)
        self.assertEqual(SERVED_OPERATIONS, set(model.operation_names),
                         "botocore did not load %s/sagemaker (AWS_DATA_PATH)" % os.environ["AWS_DATA_PATH"])
        self.assertTrue(self.sm.can_paginate("list_models"))
        runtime = self.client(service="sagemaker-runtime")
        self.assertIn("InvokeEndpoint", runtime.meta.service_model.operation_names)

    def test_model_round_trip(self):
        container = {"Image": "123456789012.dkr.ecr.us-west-2.amazonaws.com/img:1",
                     "Environment": {"A": "1"}}
        role = "arn:aws:iam::123456789012:role/SageMakerRole"
        created = self.sm.create_model(ModelName="RoundTrip-1", PrimaryContainer=container,
                                       ExecutionRoleArn=role,
                                       Tags=[{"Key": "team", "Value": "ml"}])
        self.assertEqual(200, created["ResponseMetadata"]["HTTPStatusCode"])
        self.assertEqual(arn("RoundTrip-1"), created["ModelArn"])
        self.assertTrue(created["ResponseMetadata"].get("RequestId"), "x-amzn-RequestId missing")

        described = self.sm.describe_model(ModelName="RoundTrip-1")
        self.assertEqual("RoundTrip-1", described["ModelName"])
        self.assertEqual(arn("RoundTrip-1"), described["ModelArn"])
        self.assertEqual("arn:aws:sagemaker:us-west-2:123456789012:model/roundtrip-1",
                         described["ModelArn"])
        self.assertEqual(role, described["ExecutionRoleArn"])
        self.assertEqual(container["Image"], described["PrimaryContainer"]["Image"])
        self.assertEqual({"A": "1"}, described["PrimaryContainer"]["Environment"])
        self.assertIs(False, described["EnableNetworkIsolation"])
        self.assertIsInstance(described["CreationTime"], datetime.datetime)

        listed = self.sm.list_models()
        self.assertEqual([("RoundTrip-1", arn("RoundTrip-1"), described["CreationTime"])],
                         [(m["ModelName"], m["ModelArn"], m["CreationTime"]) for m in listed["Models"]])
        self.assertNotIn("NextToken", listed)

        deleted = self.sm.delete_model(ModelName="RoundTrip-1")
        self.assertEqual(200, deleted["ResponseMetadata"]["HTTPStatusCode"])
        self.assertEqual({"ResponseMetadata"}, set(deleted))
        self.assertEqual([], self.sm.list_models()["Models"])
        self.assert_client_error(self.sm.describe_model, "ValidationException",
                                 'Could not find model "%s".' % arn("RoundTrip-1"),
                                 ModelName="RoundTrip-1")

    def test_duplicate_create(self):
        self.sm.create_model(ModelName="Dup-Model")
        self.assert_client_error(self.sm.create_model, "ValidationException",
                                 'Cannot create already existing model '
                                 '"arn:aws:sagemaker:us-west-2:123456789012:model/dup-model".',
                                 ModelName="Dup-Model")
        # Names differing only in case share one ARN, so this is a duplicate too.
        self.assert_client_error(self.sm.create_model, "ValidationException",
                                 'Cannot create already existing model "%s".' % arn("dup-model"),
                                 ModelName="DUP-MODEL")

    def test_missing_model(self):
        message = 'Could not find model "arn:aws:sagemaker:us-west-2:123456789012:model/ghost".'
        self.assert_client_error(self.sm.describe_model, "ValidationException", message,
                                 ModelName="Ghost")
        self.assert_client_error(self.sm.delete_model, "ValidationException", message,
                                 ModelName="ghost")

    def test_validation_errors(self):
        long_name = "m" * 64
        self.assert_client_error(
            self.sm.create_model, "ValidationException",
            "1 validation error detected: Value '%s' at 'modelName' failed to satisfy constraint: "
            "Member must have length less than or equal to 63" % long_name,
            ModelName=long_name)
        self.assert_client_error(
            self.sm.list_models, "ValidationException",
            "1 validation error detected: Value '101' at 'maxResults' failed to satisfy constraint: "
            "Member must have value less than or equal to 100",
            MaxResults=101)
        with self.assertRaises(ClientError) as ctx:
            self.sm.create_model(ModelName="bad_name")
        error = ctx.exception.response["Error"]
        self.assertEqual("ValidationException", error["Code"])
        self.assertTrue(error["Message"].startswith(
            "1 validation error detected: Value 'bad_name' at 'modelName' failed to satisfy "
            "constraint: Member must satisfy regular expression pattern: "), error["Message"])
        self.assertEqual(400, ctx.exception.response["ResponseMetadata"]["HTTPStatusCode"])
        self.assertEqual([], self.sm.list_models()["Models"], "an invalid create left a model behind")

    def test_list_models_paginator(self):
        names = ["page-%d" % i for i in range(1, 6)]
        for name in names:
            self.sm.create_model(ModelName=name)
        self.sm.create_model(ModelName="unrelated")
        paginator = self.sm.get_paginator("list_models")

        pages = list(paginator.paginate(NameContains="page-", PaginationConfig={"PageSize": 2}))
        self.assertEqual([2, 2, 1], [len(p["Models"]) for p in pages])
        seen = [m["ModelName"] for p in pages for m in p["Models"]]
        self.assertEqual(sorted(names), sorted(seen))
        self.assertEqual(len(seen), len(set(seen)), "a model was returned twice: %s" % seen)
        tokens = [p.get("NextToken") for p in pages]
        self.assertTrue(tokens[0] and tokens[1] and tokens[0] != tokens[1], tokens)
        self.assertIsNone(tokens[2])

        first = paginator.paginate(NameContains="page-",
                                   PaginationConfig={"PageSize": 2, "MaxItems": 3}).build_full_result()
        self.assertEqual(3, len(first["Models"]))
        self.assertIn("NextToken", first)
        rest = paginator.paginate(NameContains="page-",
                                  PaginationConfig={"PageSize": 2, "MaxItems": 3,
                                                    "StartingToken": first["NextToken"]}).build_full_result()
        self.assertEqual(2, len(rest["Models"]))
        self.assertNotIn("NextToken", rest)
        self.assertEqual(sorted(names), sorted(m["ModelName"] for m in first["Models"] + rest["Models"]))

    def test_list_models_sorting_and_time_filters(self):
        for i, name in enumerate(["b-model", "c-model", "a-model"]):
            if i:
                self.set_clock({"advance_seconds": 60})
            self.sm.create_model(ModelName=name)  # created at +0, +60, +120 s
        by_name = self.sm.list_models(SortBy="Name", SortOrder="Ascending")["Models"]
        self.assertEqual(["a-model", "b-model", "c-model"], [m["ModelName"] for m in by_name])
        by_time = self.sm.list_models(SortBy="CreationTime", SortOrder="Descending")["Models"]
        self.assertEqual(["a-model", "c-model", "b-model"], [m["ModelName"] for m in by_time])
        default = self.sm.list_models()["Models"]  # default: CreationTime, Descending
        self.assertEqual(["a-model", "c-model", "b-model"], [m["ModelName"] for m in default])
        after = self.sm.list_models(CreationTimeAfter=CLOCK_START_DT + datetime.timedelta(seconds=30),
                                    SortBy="Name", SortOrder="Ascending")["Models"]
        self.assertEqual(["a-model", "c-model"], [m["ModelName"] for m in after])
        before = self.sm.list_models(CreationTimeBefore=CLOCK_START_DT + datetime.timedelta(seconds=90),
                                     SortBy="Name", SortOrder="Ascending")["Models"]
        self.assertEqual(["b-model", "c-model"], [m["ModelName"] for m in before])
        contains = self.sm.list_models(NameContains="c-mod")["Models"]
        self.assertEqual(["c-model"], [m["ModelName"] for m in contains])

    def test_creation_time_is_the_frozen_virtual_clock(self):
        self.sm.create_model(ModelName="clock-1")
        first = self.sm.describe_model(ModelName="clock-1")["CreationTime"]
        self.assertIsInstance(first, datetime.datetime)
        self.assertEqual(CLOCK_START_DT, first)
        time.sleep(1.2)  # real time passes, the frozen clock does not
        self.sm.create_model(ModelName="clock-2")
        self.assertEqual(CLOCK_START_DT, self.sm.describe_model(ModelName="clock-2")["CreationTime"])
        state = self.set_clock({"advance_seconds": 90})
        self.assertEqual("2027-01-25T00:01:30Z", state["now"])
        self.sm.create_model(ModelName="clock-3")
        self.assertEqual(CLOCK_START_DT + datetime.timedelta(seconds=90),
                         self.sm.describe_model(ModelName="clock-3")["CreationTime"])
        self.assertEqual(CLOCK_START_DT, self.sm.describe_model(ModelName="clock-1")["CreationTime"])

    def test_wire_timestamps_are_epoch_numbers(self):
        status, _, body = self.raw_json_call("CreateModel", {"ModelName": "wire-model"})
        self.assertEqual(200, status, body)
        self.assertEqual(arn("wire-model", FALLBACK_ACCOUNT, "us-east-1"), body["ModelArn"])
        status, headers, body = self.raw_json_call("DescribeModel", {"ModelName": "wire-model"})
        self.assertEqual(200, status, body)
        self.assertTrue(headers.get("Content-Type", "").startswith("application/x-amz-json-1.1"))
        self.assertTrue(headers.get("x-amzn-RequestId"))
        creation = body["CreationTime"]
        self.assertTrue(isinstance(creation, (int, float)) and not isinstance(creation, bool),
                        "CreationTime on the wire is %r, not a JSON number" % (creation,))
        self.assertEqual(CLOCK_START_EPOCH, creation)

    def test_account_isolation(self):
        self.sm.create_model(ModelName="Shared-Name")
        other = self.client(access_key=OTHER_ACCOUNT)
        self.assertEqual([], other.list_models()["Models"])
        self.assert_client_error(other.describe_model, "ValidationException",
                                 'Could not find model "%s".' % arn("Shared-Name", OTHER_ACCOUNT),
                                 ModelName="Shared-Name")
        self.assert_client_error(other.delete_model, "ValidationException",
                                 'Could not find model "%s".' % arn("Shared-Name", OTHER_ACCOUNT),
                                 ModelName="Shared-Name")
        created = other.create_model(ModelName="Shared-Name")
        self.assertEqual("arn:aws:sagemaker:us-west-2:210987654321:model/shared-name", created["ModelArn"])
        self.assertEqual([arn("Shared-Name")], [m["ModelArn"] for m in self.sm.list_models()["Models"]])
        self.assertEqual([arn("Shared-Name", OTHER_ACCOUNT)],
                         [m["ModelArn"] for m in other.list_models()["Models"]])
        # An access key that is not 12 digits maps to --account-id.
        fallback = self.client(access_key="AKIAIOSFODNN7EXAMPLE")
        self.assertEqual(arn("Shared-Name", FALLBACK_ACCOUNT),
                         fallback.create_model(ModelName="Shared-Name")["ModelArn"])
        # The region comes from the SigV4 credential scope.
        east = self.client(region="eu-central-1")
        self.assertEqual([], east.list_models()["Models"])
        self.assertEqual(arn("Shared-Name", ACCOUNT, "eu-central-1"),
                         east.create_model(ModelName="Shared-Name")["ModelArn"])

    def test_unserved_operation_through_the_client(self):
        self.assertFalse(hasattr(self.sm, "list_notebook_instances"))
        self.skipTest("ListNotebookInstances is not in api/, so botocore cannot call it (client-side limitation)")

    def test_unserved_operation_raw_http(self):
        status, headers, body = self.raw_json_call("ListNotebookInstances", {})
        self.assertEqual(400, status, body)
        self.assertIsInstance(body, dict, body)
        self.assertEqual("UnknownOperationException", error_code(body.get("__type", "")), body)
        self.assertTrue(body.get("message"), body)

    def test_stdout_holds_only_the_listening_line(self):
        self.sm.list_models()
        time.sleep(0.3)  # let any log output reach the drain thread
        self.assertTrue(self.server.first_line.startswith("sagemaker-emulator listening on http://"))
        self.assertEqual([], self.server.extra_stdout[:5],
                         "the server writes more than its listening line to stdout "
                         "(%d extra lines); logs belong on stderr" % len(self.server.extra_stdout))


class PlanPaymentBoto3Test(EmulatorTestCase):
    """The default payment: a plan is Pending for 30 seconds of the clock ("When created, the plan
    initially enters a Pending state and remains there until the reservation process is complete",
    Reserve the best training plan), then Scheduled; a job may name it meanwhile and waits."""
    CAPACITY = {"regions": {REGION: {"us-west-2a": {"ml.p5.48xlarge": {"reservable": 2}}}},
                "prices": {"ml.p5.48xlarge": {"on_demand_hourly": 98.32, "plan_hourly": 55.0}}}

    def test_a_plan_is_pending_until_paid_then_scheduled(self):
        start = CLOCK_START_DT + PLAN_DAY_END
        offering = self.sm.search_training_plan_offerings(
            TargetResources=["training-job"], InstanceType="ml.p5.48xlarge", InstanceCount=1,
            DurationHours=24, StartTimeAfter=start)["TrainingPlanOfferings"][0]
        arn = self.sm.create_training_plan(
            TrainingPlanName="paying",
            TrainingPlanOfferingId=offering["TrainingPlanOfferingId"])["TrainingPlanArn"]
        plan = self.sm.describe_training_plan(TrainingPlanName="paying")
        self.assertEqual(("Pending", "Payment is being processed."),
                         (plan["Status"], plan["StatusMessage"]))
        self.assertEqual("Pending", plan["ReservedCapacitySummaries"][0]["Status"])
        # "The training plan must be in the Scheduled or Active status to be used by a training
        # job" (Training plans utilization for SageMaker training jobs); the emulator also takes a
        # Pending one, as if Scheduled (a Known difference), and the job waits for the plan.
        job = dict(
            TrainingJobName="early", RoleArn="arn:aws:iam::%s:role/r" % ACCOUNT,
            AlgorithmSpecification={"TrainingImage": "img:1", "TrainingInputMode": "File"},
            OutputDataConfig={"S3OutputPath": "s3://bucket/out"},
            ResourceConfig={"InstanceType": "ml.p5.48xlarge", "InstanceCount": 1,
                            "VolumeSizeInGB": 50, "TrainingPlanArn": arn},
            StoppingCondition={"MaxRuntimeInSeconds": 3600})
        self.sm.create_training_job(**job)
        self.assertEqual(("InProgress", "Pending"), tuple(
            self.sm.describe_training_job(TrainingJobName="early")[k]
            for k in ("TrainingJobStatus", "SecondaryStatus")))
        pending = self.sm.list_training_plans(Filters=[{"Name": "Status", "Value": "Pending"}])
        self.assertEqual(["paying"],
                         [p["TrainingPlanName"] for p in pending["TrainingPlanSummaries"]])
        self.set_clock({"advance_seconds": 29})
        self.assertEqual("Pending",
                         self.sm.describe_training_plan(TrainingPlanName="paying")["Status"])
        self.set_clock({"advance_seconds": 1})
        plan = self.sm.describe_training_plan(TrainingPlanName="paying")
        self.assertEqual(("Scheduled", "Payment confirmed, training plan scheduled."),
                         (plan["Status"], plan["StatusMessage"]))
        self.assertEqual([], self.sm.list_training_plans(
            Filters=[{"Name": "Status", "Value": "Pending"}])["TrainingPlanSummaries"])


class FaultsBoto3Test(EmulatorTestCase):
    """Fault rules as boto3 meets them: throttling and 5xx answers that its standard and adaptive
    retry modes ride through, and give up on once the rule outlasts their attempts; a rule of the
    --faults file, which a reset keeps; a plan purchase whose payment fails."""
    FAULTS = {"rules": [{"id": "file-rule", "operation": "ListEndpoints", "every": 2,
                         "error": "ServiceUnavailable"}]}

    def add_rule(self, rule):
        status, _, body = http(self.server.url + "/_emulator/faults", json.dumps(rule).encode())
        self.assertEqual(200, status, body)
        return body["rules"][0]

    def retrying_client(self, mode, attempts=3):
        session = boto3.session.Session(aws_access_key_id=ACCOUNT, aws_secret_access_key="x",
                                        region_name=REGION)
        client = session.client("sagemaker", endpoint_url=self.server.url,
                                config=Config(retries={"mode": mode, "total_max_attempts": attempts},
                                              connect_timeout=5, read_timeout=10))
        self.addCleanup(client.close)
        return client

    def test_standard_and_adaptive_retries_ride_through_throttling_then_give_up(self):
        for mode in ("standard", "adaptive"):
            with self.subTest(mode=mode):
                rule = self.add_rule({"id": "busy-" + mode, "operation": "ListTrainingJobs",
                                      "times": 2, "error": "ThrottlingException"})
                client = self.retrying_client(mode)
                answer = client.list_training_jobs()
                self.assertEqual([], answer["TrainingJobSummaries"])
                self.assertEqual(2, answer["ResponseMetadata"]["RetryAttempts"])
                self.add_rule({"id": "always-" + mode, "operation": "ListTrainingJobs",
                               "error": "ThrottlingException"})
                with self.assertRaises(ClientError) as refused:
                    client.list_training_jobs()
                response = refused.exception.response
                self.assertEqual(("ThrottlingException", "Rate exceeded", 400, 2),
                                 (response["Error"]["Code"], response["Error"]["Message"],
                                  response["ResponseMetadata"]["HTTPStatusCode"],
                                  response["ResponseMetadata"]["RetryAttempts"]))
                self.assertEqual("busy-" + mode, rule["id"])
                for done in ("busy-", "always-"):
                    status, _, body = http(
                        self.server.url + "/_emulator/faults?id=" + done + mode, None,
                        method="DELETE")
                    self.assertEqual((200, {"removed": 1}), (status, body))

    def test_a_rule_of_the_faults_file_is_kept_by_a_reset(self):
        # Every second ListEndpoints is a 503, which boto3 retries.
        client = self.retrying_client("standard")
        attempts = [client.list_endpoints()["ResponseMetadata"]["RetryAttempts"] for _ in range(2)]
        self.assertEqual([0, 1], attempts)
        status, _, body = http(self.server.url + "/_emulator/faults", None, method="GET")
        self.assertEqual(200, status, body)
        rules = body["rules"]
        self.assertEqual([("file-rule", "file", 3, 1)],
                         [(r["id"], r["source"], r["matched"], r["fired"]) for r in rules])
        with self.assertRaises(ClientError) as refused:
            self.sm.list_endpoints()  # one attempt only: the 503 comes through
            self.sm.list_endpoints()
        self.assertEqual("ServiceUnavailable", refused.exception.response["Error"]["Code"])

    def test_a_job_fails_part_way_and_an_invocation_fails_as_the_model_would(self):
        self.add_rule({"operation": "CreateTrainingJob", "resource": "doomed",
                       "job_failure": {"after_seconds": 600,
                                       "failure_reason": "CapacityError: lost the instances"}})
        self.sm.create_training_job(
            TrainingJobName="doomed", RoleArn="arn:aws:iam::%s:role/r" % ACCOUNT,
            AlgorithmSpecification={"TrainingImage": "img:1", "TrainingInputMode": "File"},
            OutputDataConfig={"S3OutputPath": "s3://bucket/out"},
            ResourceConfig={"InstanceType": "ml.m5.xlarge", "InstanceCount": 1,
                            "VolumeSizeInGB": 50},
            StoppingCondition={"MaxRuntimeInSeconds": 3600},
            Environment={"SAGEMAKER_EMULATOR_RUN_SECONDS": "1800"})
        self.set_clock({"advance_seconds": 600})
        job = self.sm.describe_training_job(TrainingJobName="doomed")
        self.assertEqual(("Failed", "CapacityError: lost the instances", 600),
                         (job["TrainingJobStatus"], job["FailureReason"],
                          job["TrainingTimeInSeconds"]))
        self.add_rule({"operation": "InvokeEndpoint", "error": {
            "code": "ModelError", "message": "Received server error (500) from primary.",
            "original_status_code": 500}})
        runtime = self.client(service="sagemaker-runtime")
        with self.assertRaises(runtime.exceptions.ModelError) as failed:
            runtime.invoke_endpoint(EndpointName="any", Body=b"x")
        response = failed.exception.response
        self.assertEqual((424, 500), (response["ResponseMetadata"]["HTTPStatusCode"],
                                      response["OriginalStatusCode"]))

    def test_an_invocation_gets_the_model_error_of_a_silent_container(self):
        self.sm.create_model(ModelName="m", ExecutionRoleArn="arn:aws:iam::%s:role/r" % ACCOUNT,
                             PrimaryContainer={"Image": "img:1"})
        self.sm.create_endpoint_config(EndpointConfigName="c", ProductionVariants=[{
            "VariantName": "AllTraffic", "ModelName": "m", "InstanceType": "ml.g5.xlarge",
            "InitialInstanceCount": 1}])
        self.sm.create_endpoint(EndpointName="e", EndpointConfigName="c")
        self.add_rule({"resource": "e", "model_error": {"timeout": True}})
        runtime = self.client(service="sagemaker-runtime")
        with self.assertRaises(runtime.exceptions.ModelError) as failed:
            runtime.invoke_endpoint(EndpointName="e", Body=b"x")
        response = failed.exception.response
        self.assertEqual(0, response["OriginalStatusCode"])
        self.assertTrue(response["Error"]["Message"].startswith(
            "Received server error (0) from primary with message \"Your invocation timed out"),
            response["Error"]["Message"])

    def test_a_purchase_whose_payment_fails_is_failed(self):
        self.add_rule({"operation": "CreateTrainingPlan", "resource": "doomed",
                       "payment": {"status_message": "The payment method was declined."}})
        offering = self.sm.search_training_plan_offerings(
            TargetResources=["training-job"], InstanceType="ml.p5.48xlarge", InstanceCount=1,
            DurationHours=24)["TrainingPlanOfferings"][0]
        self.sm.create_training_plan(TrainingPlanName="doomed",
                                     TrainingPlanOfferingId=offering["TrainingPlanOfferingId"])

        def described():
            plan = self.sm.describe_training_plan(TrainingPlanName="doomed")
            return (plan["Status"], plan["StatusMessage"],
                    plan["ReservedCapacitySummaries"][0]["Status"])

        # The payment is processed first, as for any purchase (30 s of the clock), then it fails.
        self.assertEqual(("Pending", "Payment is being processed.", "Pending"), described())
        self.set_clock({"advance_seconds": 29})
        self.assertEqual(("Pending", "Payment is being processed.", "Pending"), described())
        self.assertEqual([], self.sm.list_training_plans(
            Filters=[{"Name": "Status", "Value": "Failed"}])["TrainingPlanSummaries"])
        self.set_clock({"advance_seconds": 1})
        self.assertEqual(("Failed", "The payment method was declined.", "Failed"), described())
        failed = self.sm.list_training_plans(Filters=[{"Name": "Status", "Value": "Failed"}])
        self.assertEqual(["doomed"],
                         [p["TrainingPlanName"] for p in failed["TrainingPlanSummaries"]])


class OfferingLimitBoto3Test(EmulatorTestCase):
    """A search returns "up to three offerings of one or two segments" (Reserve training plans in
    the console): the three that start soonest, though more would fit. One p5 in each of two
    zones, each of which has three windows for a day's plan: six in all."""
    CAPACITY = {"regions": {REGION: {"us-west-2a": {"ml.p5.48xlarge": {"reservable": 1}},
                                     "us-west-2b": {"ml.p5.48xlarge": {"reservable": 1}}}},
                "prices": {"ml.p5.48xlarge": {"on_demand_hourly": 98.32, "plan_hourly": 55.0}}}

    def search(self, **extra):
        return self.sm.search_training_plan_offerings(
            TargetResources=["training-job"], InstanceType="ml.p5.48xlarge", InstanceCount=1,
            DurationHours=24, **extra)["TrainingPlanOfferings"]

    @staticmethod
    def windows(offerings):
        """(zone, start, end, hours) of each offering of one reserved capacity."""
        rows = []
        for offering in offerings:
            [capacity] = offering["ReservedCapacityOfferings"]
            rows.append((capacity["AvailabilityZone"], capacity["StartTime"], capacity["EndTime"],
                         offering["DurationHours"]))
        return rows

    def test_a_search_returns_at_most_three_offerings_where_more_would_fit(self):
        soon = CLOCK_START_DT + datetime.timedelta(minutes=30)  # the start at once
        day = lambda n: CLOCK_START_DT + PLAN_DAY_END + datetime.timedelta(days=n)
        # Each zone fits the plan from 00:30 to the first 11:30 that gives 24 hours (35 h), its
        # one-day-longer twin (59 h) and the day from 11:30: six windows, three offered, the
        # soonest first (ties: zones in order, then the shorter plan).
        offerings = self.search()
        self.assertEqual([("us-west-2a", soon, day(1), 35), ("us-west-2a", soon, day(2), 59),
                          ("us-west-2b", soon, day(1), 35)], self.windows(offerings))
        self.assertEqual(3, len({o["TrainingPlanOfferingId"] for o in offerings}))
        # The ones left off fit all the same: a search from 11:30 finds two of them, again three
        # of the six windows from then on.
        later = self.search(StartTimeAfter=day(0))
        self.assertEqual([("us-west-2a", day(0), day(1), 24), ("us-west-2b", day(0), day(1), 24),
                          ("us-west-2a", day(1), day(2), 24)], self.windows(later))
        # With us-west-2a's p5 sold from 00:30, the 59 h twin in us-west-2b, left off before, is
        # offered: still three, all that zone's.
        self.sm.create_training_plan(TrainingPlanName="first",
                                     TrainingPlanOfferingId=offerings[0]["TrainingPlanOfferingId"])
        self.assertEqual([("us-west-2b", soon, day(1), 35), ("us-west-2b", soon, day(2), 59),
                          ("us-west-2b", day(0), day(1), 24)], self.windows(self.search()))


class AwsExamplesBoto3Test(EmulatorTestCase):
    """The developer guide's training-plan examples ("Search training plan offerings", "Reserve the
    best training plan", "View training plan details", "List training plans", "Search for
    extension offerings", "Purchase an extension", "View extension history") through boto3, with
    the statuses the pages show. The clock starts at the search sample's own time, 11:08:27 -08:00
    (19:08:27 UTC); payments take the default 30 seconds of it."""
    CAPACITY = {"regions": {REGION: {"us-west-2a": {"ml.p4d.24xlarge": {"reservable": 2}}}},
                "prices": {"ml.p4d.24xlarge": {"on_demand_hourly": 32.77, "plan_hourly": 12.5}}}

    def test_the_pages_examples_with_their_statuses(self):
        utc = datetime.timezone.utc
        at = lambda text: datetime.datetime.fromisoformat(text).replace(tzinfo=utc)
        self.set_clock({"now": "2025-01-21T19:08:27Z", "frozen": True})
        # "It includes three distinct offerings"; a search returns "up to three offerings of one
        # or two segments" (Reserve training plans in the console), the first the best match.
        offerings = self.sm.search_training_plan_offerings(
            TargetResources=["training-job"], InstanceType="ml.p4d.24xlarge", InstanceCount=1,
            DurationHours=15, StartTimeAfter=1737484800,
            EndTimeBefore=1737657600)["TrainingPlanOfferings"]
        self.assertEqual([(15, 51), (39, 51), (24, 0)],
                         [(o["DurationHours"], o["DurationMinutes"]) for o in offerings])
        arn = self.sm.create_training_plan(
            TrainingPlanName="name",
            TrainingPlanOfferingId=offerings[2]["TrainingPlanOfferingId"])["TrainingPlanArn"]
        self.assertEqual("arn:aws:sagemaker:us-west-2:%s:training-plan/name" % ACCOUNT, arn)
        # "When created, the plan initially enters a Pending state and remains there until the
        # reservation process is complete."
        plan = self.sm.describe_training_plan(TrainingPlanName="name")
        self.assertEqual(("Pending", "Pending"),
                         (plan["Status"], plan["ReservedCapacitySummaries"][0]["Status"]))
        self.set_clock({"advance_seconds": 30})
        # The View training plan details sample: Scheduled, with its StatusMessage.
        plan = self.sm.describe_training_plan(TrainingPlanName="name")
        self.assertEqual(("Scheduled", "Payment confirmed, training plan scheduled.",
                          at("2025-01-22T11:30:00"), at("2025-01-23T11:30:00"), 1, 1, 0),
                         (plan["Status"], plan["StatusMessage"], plan["StartTime"],
                          plan["EndTime"], plan["TotalInstanceCount"],
                          plan["AvailableInstanceCount"], plan["InUseInstanceCount"]))
        listed = self.sm.list_training_plans(StartTimeAfter=at("2025-01-21T00:00:01"))
        self.assertEqual([("name", "Scheduled")], [(p["TrainingPlanName"], p["Status"])
                                                  for p in listed["TrainingPlanSummaries"]])
        # "When the plan reaches its start date, the status changes to Active."
        self.set_clock({"now": "2025-01-22T11:30:00Z"})
        active = self.sm.list_training_plans(Filters=[{"Name": "Status", "Value": "Active"}])
        self.assertEqual(["name"], [p["TrainingPlanName"] for p in active["TrainingPlanSummaries"]])
        # Search for extension offerings: none of the plan kind, one of 48 hours from its end.
        found = self.sm.search_training_plan_offerings(TrainingPlanArn=arn, DurationHours=48)
        self.assertEqual([], found["TrainingPlanOfferings"])
        [extension_offering] = found["TrainingPlanExtensionOfferings"]
        self.assertEqual((at("2025-01-23T11:30:00"), at("2025-01-25T11:30:00"), 48),
                         (extension_offering["StartDate"], extension_offering["EndDate"],
                          extension_offering["DurationHours"]))
        # Purchase an extension: the sample answers Status and PaymentStatus Pending.
        [extension] = self.sm.extend_training_plan(
            TrainingPlanExtensionOfferingId=extension_offering[
                "TrainingPlanExtensionOfferingId"])["TrainingPlanExtensions"]
        self.assertEqual(("Pending", "Pending"), (extension["Status"], extension["PaymentStatus"]))
        # View extension history: the extension Active and its payment Completed once it runs.
        self.set_clock({"now": "2025-01-23T11:30:00Z"})
        [history] = self.sm.describe_training_plan_extension_history(
            TrainingPlanArn=arn)["TrainingPlanExtensions"]
        self.assertEqual(("Active", "Completed"), (history["Status"], history["PaymentStatus"]))


class TwoBlockPlanBoto3Test(EmulatorTestCase):
    """A plan of two reserved capacities: "SageMaker training plans don't return a 'no capacity'
    result if a single continuous Reserved Capacity block meeting all criteria is unavailable.
    Instead, it automatically attempts to fulfill the request using two separate Reserved Capacity
    blocks" (Reserve training plans). One instance, with day 2 sold to another plan."""
    CAPACITY = {"regions": {REGION: {"us-west-2a": {"ml.p5.48xlarge": {"reservable": 1}}}},
                "prices": {"ml.p5.48xlarge": {"on_demand_hourly": 98.32, "plan_hourly": 55.0}}}

    def search(self, days, first_day, last_day):
        start = CLOCK_START_DT + PLAN_DAY_END
        return self.sm.search_training_plan_offerings(
            TargetResources=["training-job"], InstanceType="ml.p5.48xlarge", InstanceCount=1,
            DurationHours=days * 24, StartTimeAfter=start + datetime.timedelta(days=first_day),
            EndTimeBefore=start + datetime.timedelta(days=last_day))["TrainingPlanOfferings"]

    def test_a_plan_of_two_reserved_capacities(self):
        day_two = self.search(1, 2, 3)[0]
        self.sm.create_training_plan(TrainingPlanName="day-two",
                                     TrainingPlanOfferingId=day_two["TrainingPlanOfferingId"])
        offerings = self.search(3, 0, 5)
        self.assertEqual(1, len(offerings))
        start = CLOCK_START_DT + PLAN_DAY_END
        day = lambda n: start + datetime.timedelta(days=n)
        self.assertEqual([(day(0), day(2)), (day(3), day(4))],
                         [(c["StartTime"], c["EndTime"])
                          for c in offerings[0]["ReservedCapacityOfferings"]])
        self.assertEqual((72, "3960.00"),
                         (offerings[0]["DurationHours"], offerings[0]["UpfrontFee"]))
        self.sm.create_training_plan(TrainingPlanName="split",
                                     TrainingPlanOfferingId=offerings[0]["TrainingPlanOfferingId"])
        plan = self.sm.describe_training_plan(TrainingPlanName="split")
        self.assertEqual((day(0), day(4), 72), (plan["StartTime"], plan["EndTime"],
                                                plan["DurationHours"]))
        capacities = plan["ReservedCapacitySummaries"]
        self.assertEqual(2, len({c["ReservedCapacityArn"] for c in capacities}))
        second = self.sm.describe_reserved_capacity(
            ReservedCapacityArn=capacities[1]["ReservedCapacityArn"])
        # Both reserved capacities wait for the plan's payment (30 s of the clock by default).
        self.assertEqual((day(3), day(4), "Pending"),
                         (second["StartTime"], second["EndTime"], second["Status"]))
        self.assertEqual(["Pending", "Pending"], [c["Status"] for c in capacities])
        self.set_clock({"advance_seconds": 30})
        second = self.sm.describe_reserved_capacity(
            ReservedCapacityArn=capacities[1]["ReservedCapacityArn"])
        self.assertEqual((day(3), day(4), "Scheduled"),
                         (second["StartTime"], second["EndTime"], second["Status"]))
        self.assertEqual(["Scheduled", "Scheduled"], [
            c["Status"] for c in
            self.sm.describe_training_plan(TrainingPlanName="split")["ReservedCapacitySummaries"]])
        # "the status reverts to Scheduled between active periods" (View training plan details)
        statuses = []
        for moment in (day(0), day(2), day(3), day(4)):
            self.set_clock({"now": moment.strftime("%Y-%m-%dT%H:%M:%SZ")})
            statuses.append(self.sm.describe_training_plan(TrainingPlanName="split")["Status"])
        self.assertEqual(["Active", "Scheduled", "Active", "Expired"], statuses)

    def test_a_job_interrupted_between_the_blocks_goes_on_in_the_second(self):
        day_two = self.search(1, 2, 3)[0]
        self.sm.create_training_plan(TrainingPlanName="day-two",
                                     TrainingPlanOfferingId=day_two["TrainingPlanOfferingId"])
        offering = self.search(3, 0, 5)[0]
        plan = self.sm.create_training_plan(
            TrainingPlanName="split",
            TrainingPlanOfferingId=offering["TrainingPlanOfferingId"])["TrainingPlanArn"]
        start = CLOCK_START_DT + PLAN_DAY_END
        at = lambda moment: self.set_clock({"now": moment.strftime("%Y-%m-%dT%H:%M:%SZ")})
        at(start)
        self.sm.create_training_job(
            TrainingJobName="two-days", RoleArn="arn:aws:iam::%s:role/r" % ACCOUNT,
            AlgorithmSpecification={"TrainingImage": "img:1", "TrainingInputMode": "File"},
            OutputDataConfig={"S3OutputPath": "s3://bucket/out"},
            ResourceConfig={"InstanceType": "ml.p5.48xlarge", "InstanceCount": 1,
                            "VolumeSizeInGB": 50, "TrainingPlanArn": plan},
            StoppingCondition={"MaxRuntimeInSeconds": 5 * 86400},
            Environment={"SAGEMAKER_EMULATOR_RUN_SECONDS": str(2 * 86400)})
        # 30 minutes before the first block ends, the job is interrupted until the second opens.
        at(start + datetime.timedelta(days=2, minutes=-30))
        job = self.sm.describe_training_job(TrainingJobName="two-days")
        self.assertEqual(("InProgress", "Interrupted"),
                         (job["TrainingJobStatus"], job["SecondaryStatus"]))
        at(start + datetime.timedelta(days=3, minutes=30))
        job = self.sm.describe_training_job(TrainingJobName="two-days")
        self.assertEqual(("Completed", 2 * 86400),
                         (job["TrainingJobStatus"], job["TrainingTimeInSeconds"]))
        self.assertIn("Interrupted",
                      [step["Status"] for step in job["SecondaryStatusTransitions"]])


class UltraServerBoto3Test(EmulatorTestCase):
    """UltraServer plans: bought in whole UltraServers with spares, and
    ListUltraServersByReservedCapacity through its paginator."""
    CAPACITY = {"regions": {REGION: {REGION + "-dfw-2a": {"ml.p6e-gb200.36xlarge": {
        "reservable": 54, "ultraserver_type": "ml.u-p6e-gb200x72",
        "instances_per_ultraserver": 18}}}},
        "prices": {"ml.p6e-gb200.36xlarge": {"on_demand_hourly": 188.62, "plan_hourly": 105.63}}}

    def test_an_ultraserver_plan_and_its_ultraservers(self):
        offering = self.sm.search_training_plan_offerings(
            UltraServerType="ml.u-p6e-gb200x72", UltraServerCount=3, DurationHours=48,
            TargetResources=["training-job"])["TrainingPlanOfferings"][0]
        capacity = offering["ReservedCapacityOfferings"][0]
        self.assertEqual(("UltraServer", 3, 54), (capacity["ReservedCapacityType"],
                                                  capacity["UltraServerCount"],
                                                  capacity["InstanceCount"]))
        self.sm.create_training_plan(TrainingPlanName="gb200", SpareInstanceCountPerUltraServer=2,
                                     TrainingPlanOfferingId=offering["TrainingPlanOfferingId"])
        plan = self.sm.describe_training_plan(TrainingPlanName="gb200")
        self.assertEqual((3, 54, 6, 48), (plan["TotalUltraServerCount"], plan["TotalInstanceCount"],
                                          plan["AvailableSpareInstanceCount"],
                                          plan["AvailableInstanceCount"]))
        reserved = plan["ReservedCapacitySummaries"][0]["ReservedCapacityArn"]
        summary = self.sm.describe_reserved_capacity(ReservedCapacityArn=reserved)
        self.assertEqual("ml.u-p6e-gb200x72", summary["UltraServerSummary"]["UltraServerType"])
        paginator = self.sm.get_paginator("list_ultra_servers_by_reserved_capacity")
        pages = list(paginator.paginate(ReservedCapacityArn=reserved,
                                        PaginationConfig={"PageSize": 1}))
        self.assertEqual(3, len(pages))
        servers = [server for page in pages for server in page["UltraServers"]]
        self.assertEqual(3, len({server["UltraServerId"] for server in servers}))
        self.assertEqual({(18, 2, 16, "OK")},
                         {(u["TotalInstanceCount"], u["ConfiguredSpareInstanceCount"],
                           u["AvailableInstanceCount"], u["HealthStatus"]) for u in servers})

    def test_a_failed_node_is_replaced_and_a_spare_stands_in(self):
        # A fault rule fails a HyperPod node an hour into the plan: NodeRecovery Automatic
        # replaces it, and its UltraServer is Impaired with one unhealthy instance, which a spare
        # stands in for ("We recommend that you keep one spare instance per UltraServer").
        offering = self.sm.search_training_plan_offerings(
            UltraServerType="ml.u-p6e-gb200x72", UltraServerCount=1, DurationHours=24,
            TargetResources=["hyperpod-cluster"])["TrainingPlanOfferings"][0]
        start = offering["ReservedCapacityOfferings"][0]["StartTime"]
        arn = self.sm.create_training_plan(
            TrainingPlanName="gb200",
            TrainingPlanOfferingId=offering["TrainingPlanOfferingId"])["TrainingPlanArn"]
        self.set_clock({"now": start.strftime("%Y-%m-%dT%H:%M:%SZ")})
        self.sm.create_cluster(ClusterName="gb200", InstanceGroups=[{
            "InstanceGroupName": "workers", "InstanceType": "ml.p6e-gb200.36xlarge",
            "InstanceCount": 2, "ExecutionRole": "arn:aws:iam::%s:role/r" % ACCOUNT,
            "TrainingPlanArn": arn,
            "LifeCycleConfig": {"SourceS3Uri": "s3://b/l", "OnCreate": "on_create.sh"}}])
        failure_at = start + datetime.timedelta(hours=1)
        status, _, body = http(self.server.url + "/_emulator/faults", json.dumps(
            {"resource": "gb200", "node_failure": {
                "at": failure_at.strftime("%Y-%m-%dT%H:%M:%SZ")}}).encode())
        self.assertEqual(200, status, body)
        before = {n["InstanceId"] for n in
                  self.sm.list_cluster_nodes(ClusterName="gb200")["ClusterNodeSummaries"]}
        self.set_clock({"advance_seconds": 3600})
        nodes = self.sm.list_cluster_nodes(ClusterName="gb200")["ClusterNodeSummaries"]
        self.assertEqual(["Running", "Running"], [n["InstanceStatus"]["Status"] for n in nodes])
        self.assertEqual(1, len(before - {n["InstanceId"] for n in nodes}))
        reserved = self.sm.describe_training_plan(
            TrainingPlanName="gb200")["ReservedCapacitySummaries"][0]["ReservedCapacityArn"]
        [server] = self.sm.list_ultra_servers_by_reserved_capacity(
            ReservedCapacityArn=reserved)["UltraServers"]
        self.assertEqual(("Impaired", 1, 0, 2), (server["HealthStatus"],
                                                 server["UnhealthyInstanceCount"],
                                                 server["AvailableSpareInstanceCount"],
                                                 server["InUseInstanceCount"]))


PROVISIONING_SECONDS = 600
P5 = "ml.p5.48xlarge"
G5 = "ml.g5.xlarge"  # not in ENDPOINT_CAPACITY: unlimited on demand
# One zone with two reservable and one on-demand ml.p5.48xlarge.
ENDPOINT_CAPACITY = {
    "regions": {REGION: {"us-west-2a": {P5: {"reservable": 2, "on_demand": 1}}}},
    "prices": {P5: {"on_demand_hourly": 98.32, "plan_hourly": 55.0}},
}
ON_DEMAND_SHORTAGE = ("Unable to provision requested ML compute capacity due to "
                      "InsufficientInstanceCapacity error. Please retry using a different ML "
                      "instance type or after some time.")
RESERVATION_EXPIRED = ("Endpoint capacity reservation has expired. Please update endpoint "
                       "configuration.")
WAITER_CONFIG = {"Delay": 1, "MaxAttempts": 10}


def endpoint_arn(name, account=ACCOUNT):
    return "arn:aws:sagemaker:%s:%s:endpoint/%s" % (REGION, account, name.lower())


class EndpointWaitersBoto3Test(EmulatorTestCase):
    """Endpoints with --provisioning-seconds 600: boto3's endpoint_in_service and endpoint_deleted
    waiters across clock moves, and invoke_endpoint through the sagemaker-runtime client."""
    CAPACITY = ENDPOINT_CAPACITY
    SERVER_ARGS = ("--provisioning-seconds", str(PROVISIONING_SECONDS))

    # ------------------------------------------------------------------ helpers
    def advance(self, seconds):
        return self.set_clock({"advance_seconds": seconds})

    def status(self, name):
        return self.sm.describe_endpoint(EndpointName=name)["EndpointStatus"]

    def make_endpoint(self, name, instance_type=G5, count=1, plan_arn=None, model="llm"):
        """A model (once), a config named after the endpoint, and the endpoint."""
        if not any(m["ModelName"] == model for m in self.sm.list_models(NameContains=model)["Models"]):
            self.sm.create_model(ModelName=model, PrimaryContainer={"Image": "img:1"})
        variant = {"VariantName": "AllTraffic", "ModelName": model, "InstanceType": instance_type,
                   "InitialInstanceCount": count}
        if plan_arn:
            variant["CapacityReservationConfig"] = {
                "CapacityReservationPreference": "capacity-reservations-only",
                "MlReservationArn": plan_arn}
        self.sm.create_endpoint_config(EndpointConfigName=name + "-config", ProductionVariants=[variant])
        created = self.sm.create_endpoint(EndpointName=name, EndpointConfigName=name + "-config",
                                          Tags=[{"Key": "test", "Value": name}])
        self.assertEqual(endpoint_arn(name), created["EndpointArn"])

    PLAN_START = CLOCK_START_DT + PLAN_DAY_END  # 2027-01-25T11:30Z, the clock's plan day
    PLAN_END = PLAN_START + datetime.timedelta(days=7)

    def buy_plan(self, name, count):
        """A week of `count` p5 for endpoints, PLAN_START to PLAN_END: Pending until its payment
        completes 30 s later, then Scheduled; the clock is then moved to its start, from which on it
        is Active. Returns its ARN."""
        offerings = self.sm.search_training_plan_offerings(
            TargetResources=["endpoint"], InstanceType=P5, InstanceCount=count, DurationHours=168,
            StartTimeAfter=self.PLAN_START, EndTimeBefore=self.PLAN_END)["TrainingPlanOfferings"]
        self.assertEqual(1, len(offerings), offerings)
        self.assertEqual((self.PLAN_START, self.PLAN_END),
                         tuple(offerings[0]["ReservedCapacityOfferings"][0][member]
                               for member in ("StartTime", "EndTime")))
        plan = self.sm.create_training_plan(
            TrainingPlanName=name,
            TrainingPlanOfferingId=offerings[0]["TrainingPlanOfferingId"])["TrainingPlanArn"]
        # "When created, the plan initially enters a Pending state and remains there until the
        # reservation process is complete" (Reserve the best training plan): 30 s of the clock.
        self.assertEqual("Pending", self.sm.describe_training_plan(TrainingPlanName=name)["Status"])
        self.set_clock({"advance_seconds": 30})
        self.assertEqual("Scheduled", self.sm.describe_training_plan(TrainingPlanName=name)["Status"])
        self.set_clock({"now": iso(self.PLAN_START)})
        self.assertEqual("Active", self.sm.describe_training_plan(TrainingPlanName=name)["Status"])
        return plan

    def start_waiter(self, waiter_name, endpoint):
        """Runs the waiter in a thread on its own client. Returns (thread, outcome, seen): outcome
        gets 'error' (the exception, if any) and 'seconds' when the waiter is done; seen lists the
        EndpointStatus (or 'error:<Code>') of every DescribeEndpoint answer the waiter got."""
        client = self.client()
        seen = []

        def record(parsed, **_):
            seen.append("error:" + parsed["Error"]["Code"] if "Error" in parsed
                        else parsed.get("EndpointStatus"))

        client.meta.events.register("after-call.sagemaker.DescribeEndpoint", record)
        waiter = client.get_waiter(waiter_name)
        outcome = {}

        def run():
            started = time.monotonic()
            try:
                waiter.wait(EndpointName=endpoint, WaiterConfig=WAITER_CONFIG)
                outcome["error"] = None
            except Exception as error:  # noqa: BLE001 (reported by the test)
                outcome["error"] = error
            outcome["seconds"] = time.monotonic() - started

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        return thread, outcome, seen

    def wait_until_seen(self, seen, status, thread):
        deadline = time.monotonic() + 5
        while status not in seen:
            self.assertLess(time.monotonic(), deadline, "the waiter never saw %s: %s" % (status, seen))
            time.sleep(0.02)
        self.assertTrue(thread.is_alive(), "the waiter stopped while the endpoint was %s: %s"
                        % (status, seen))

    def join(self, thread, outcome):
        thread.join(timeout=20)
        self.assertFalse(thread.is_alive(), "the waiter is still running")
        return outcome["error"]

    # ------------------------------------------------------------------ waiters
    def test_waiter_names_come_from_the_api_subset(self):
        # The waiters of api/ and no others: Debian's botocore has many more SageMaker waiters
        # (notebook instances, images, ...) that AWS_DATA_PATH must hide.
        with open(os.path.join(REPO_ROOT, "api", "sagemaker", "2017-07-24", "waiters-2.json")) as f:
            subset = {botocore.xform_name(name) for name in json.load(f)["waiters"]}
        self.assertLessEqual({"endpoint_in_service", "endpoint_deleted"}, subset)
        self.assertNotIn("notebook_instance_in_service", subset)
        self.assertEqual(subset, set(self.sm.waiter_names))

    def test_endpoint_in_service_waiter_returns_when_the_clock_passes_the_delay(self):
        self.make_endpoint("slow-start")
        described = self.sm.describe_endpoint(EndpointName="slow-start")
        self.assertEqual("Creating", described["EndpointStatus"])
        self.assertEqual(0, described["ProductionVariants"][0]["CurrentInstanceCount"])
        thread, outcome, seen = self.start_waiter("endpoint_in_service", "slow-start")
        self.wait_until_seen(seen, "Creating", thread)
        self.advance(PROVISIONING_SECONDS - 1)
        time.sleep(1.5)  # at least one more poll, one second short of the delay
        self.assertTrue(thread.is_alive(), "InService one second early: %s" % seen)
        self.advance(1)
        self.assertIsNone(self.join(thread, outcome))
        self.assertEqual("InService", seen[-1], seen)
        self.assertEqual({"Creating"}, set(seen[:-1]), seen)
        self.assertGreaterEqual(len(seen), 3, seen)
        described = self.sm.describe_endpoint(EndpointName="slow-start")
        self.assertEqual("InService", described["EndpointStatus"])
        self.assertEqual(1, described["ProductionVariants"][0]["CurrentInstanceCount"])
        self.assertEqual(CLOCK_START_DT, described["CreationTime"])
        self.assertEqual(CLOCK_START_DT + datetime.timedelta(seconds=PROVISIONING_SECONDS),
                         described["LastModifiedTime"])

    def test_endpoint_deleted_waiter_succeeds_on_the_validation_exception(self):
        self.make_endpoint("short-lived")
        self.advance(PROVISIONING_SECONDS)
        self.assertEqual("InService", self.status("short-lived"))
        self.sm.delete_endpoint(EndpointName="short-lived")
        self.assertEqual("Deleting", self.status("short-lived"))
        self.assertEqual(["short-lived"], [e["EndpointName"] for e in
                                           self.sm.list_endpoints(StatusEquals="Deleting")["Endpoints"]])
        thread, outcome, seen = self.start_waiter("endpoint_deleted", "short-lived")
        self.wait_until_seen(seen, "Deleting", thread)
        self.advance(PROVISIONING_SECONDS)
        self.assertIsNone(self.join(thread, outcome))
        self.assertEqual("error:ValidationException", seen[-1], seen)
        self.assertEqual({"Deleting"}, set(seen[:-1]), seen)
        self.assert_client_error(self.sm.describe_endpoint, "ValidationException",
                                 'Could not find endpoint "%s".' % endpoint_arn("short-lived"),
                                 EndpointName="short-lived")
        self.assertEqual([], self.sm.list_endpoints()["Endpoints"])
        # An endpoint that never existed is deleted already.
        started = time.monotonic()
        self.sm.get_waiter("endpoint_deleted").wait(EndpointName="never-was", WaiterConfig=WAITER_CONFIG)
        self.assertLess(time.monotonic() - started, 0.9)

    def test_a_failed_endpoint_makes_endpoint_in_service_raise_at_once(self):
        # Two on-demand p5 where the region has one: Failed once the delay is over.
        self.make_endpoint("too-big", instance_type=P5, count=2)
        thread, outcome, seen = self.start_waiter("endpoint_in_service", "too-big")
        self.wait_until_seen(seen, "Creating", thread)
        self.advance(PROVISIONING_SECONDS)
        error = self.join(thread, outcome)
        self.assertIsInstance(error, botocore.exceptions.WaiterError)
        self.assertIn("terminal failure state", str(error))
        self.assertEqual("Failed", error.last_response["EndpointStatus"])
        self.assertEqual(ON_DEMAND_SHORTAGE, error.last_response["FailureReason"])
        self.assertEqual("Failed", seen[-1], seen)

        # Waiting on an endpoint that is already Failed: one call, no delay.
        started = time.monotonic()
        with self.assertRaises(botocore.exceptions.WaiterError) as ctx:
            self.sm.get_waiter("endpoint_in_service").wait(EndpointName="too-big",
                                                           WaiterConfig=WAITER_CONFIG)
        self.assertLess(time.monotonic() - started, 0.9)
        self.assertEqual("Failed", ctx.exception.last_response["EndpointStatus"])
        self.assertEqual(ON_DEMAND_SHORTAGE, ctx.exception.last_response["FailureReason"])
        # A missing endpoint fails the waiter at once too (the ValidationException acceptor).
        started = time.monotonic()
        with self.assertRaises(botocore.exceptions.WaiterError) as ctx:
            self.sm.get_waiter("endpoint_in_service").wait(EndpointName="never-was",
                                                           WaiterConfig=WAITER_CONFIG)
        self.assertLess(time.monotonic() - started, 0.9)
        self.assertEqual("ValidationException", ctx.exception.last_response["Error"]["Code"])

    # ------------------------------------------------------------------ updates
    def wait_in_service_across_delay(self, name, pending):
        """Runs endpoint_in_service while the endpoint is `pending`; it must keep waiting one second
        short of the provisioning delay and return once the clock passed it."""
        thread, outcome, seen = self.start_waiter("endpoint_in_service", name)
        self.wait_until_seen(seen, pending, thread)
        self.advance(PROVISIONING_SECONDS - 1)
        time.sleep(1.5)  # at least one more poll, one second short of the delay
        self.assertTrue(thread.is_alive(), "InService one second early: %s" % seen)
        self.advance(1)
        self.assertIsNone(self.join(thread, outcome))
        self.assertEqual("InService", seen[-1], seen)
        self.assertEqual({pending}, set(seen[:-1]), seen)

    def test_update_endpoint_then_the_endpoint_in_service_waiter(self):
        self.make_endpoint("blue-green")
        self.advance(PROVISIONING_SECONDS)
        self.assertEqual("InService", self.status("blue-green"))
        self.sm.create_model(ModelName="llm-v2", PrimaryContainer={"Image": "img:2"})
        self.sm.create_endpoint_config(EndpointConfigName="blue-green-v2", ProductionVariants=[
            {"VariantName": "AllTraffic", "ModelName": "llm-v2", "InstanceType": G5,
             "InitialInstanceCount": 1}])
        self.assert_client_error(
            self.sm.update_endpoint, "ValidationException",
            'Could not find endpoint configuration "arn:aws:sagemaker:%s:%s:endpoint-config/nope".'
            % (REGION, ACCOUNT), EndpointName="blue-green", EndpointConfigName="nope")

        updated = self.sm.update_endpoint(EndpointName="blue-green", EndpointConfigName="blue-green-v2")
        self.assertEqual(endpoint_arn("blue-green"), updated["EndpointArn"])
        described = self.sm.describe_endpoint(EndpointName="blue-green")
        self.assertEqual("Updating", described["EndpointStatus"])
        self.assertEqual("blue-green-config", described["EndpointConfigName"],
                         "the old config until the update is done")
        self.assertEqual(CLOCK_START_DT + datetime.timedelta(seconds=PROVISIONING_SECONDS),
                         described["LastModifiedTime"])
        self.assert_client_error(
            self.sm.update_endpoint, "ValidationException",
            'Cannot update in-progress endpoint "%s".' % endpoint_arn("blue-green"),
            EndpointName="blue-green", EndpointConfigName="blue-green-config")

        self.wait_in_service_across_delay("blue-green", "Updating")
        described = self.sm.describe_endpoint(EndpointName="blue-green")
        self.assertEqual("InService", described["EndpointStatus"])
        self.assertEqual("blue-green-v2", described["EndpointConfigName"])
        self.assertNotIn("FailureReason", described)
        self.assertEqual(CLOCK_START_DT + datetime.timedelta(seconds=2 * PROVISIONING_SECONDS),
                         described["LastModifiedTime"])
        self.assertEqual([("AllTraffic", 1, 1)],
                         [(v["VariantName"], v["CurrentInstanceCount"], v["DesiredInstanceCount"])
                          for v in described["ProductionVariants"]])

    def test_update_endpoint_weights_and_capacities_scales_within_the_plan(self):
        plan = self.buy_plan("scale-week", 2)
        self.make_endpoint("scaled", instance_type=P5, count=1, plan_arn=plan)
        self.advance(PROVISIONING_SECONDS)
        self.assertEqual("InService", self.status("scaled"))
        self.assertEqual(1, self.sm.describe_training_plan(TrainingPlanName="scale-week")["InUseInstanceCount"])

        scaled = self.sm.update_endpoint_weights_and_capacities(
            EndpointName="scaled",
            DesiredWeightsAndCapacities=[{"VariantName": "AllTraffic", "DesiredInstanceCount": 2}])
        self.assertEqual(endpoint_arn("scaled"), scaled["EndpointArn"])
        described = self.sm.describe_endpoint(EndpointName="scaled")
        self.assertEqual("Updating", described["EndpointStatus"])
        variant = described["ProductionVariants"][0]
        self.assertEqual((1, 2), (variant["CurrentInstanceCount"], variant["DesiredInstanceCount"]))

        self.wait_in_service_across_delay("scaled", "Updating")
        variant = self.sm.describe_endpoint(EndpointName="scaled")["ProductionVariants"][0]
        self.assertEqual((2, 2), (variant["CurrentInstanceCount"], variant["DesiredInstanceCount"]))
        self.assertEqual({"MlReservationArn": plan,
                          "CapacityReservationPreference": "capacity-reservations-only",
                          "TotalInstanceCount": 2, "AvailableInstanceCount": 0,
                          "UsedByCurrentEndpoint": 2},
                         variant["CapacityReservationConfig"])
        plan_now = self.sm.describe_training_plan(TrainingPlanName="scale-week")
        self.assertEqual((2, 0), (plan_now["InUseInstanceCount"], plan_now["AvailableInstanceCount"]))
        self.assertEqual(("us-west-2a", "usw2-az1"),
                         tuple(plan_now["ReservedCapacitySummaries"][0][member]
                               for member in ("AvailabilityZone", "AvailabilityZoneId")))
        self.assertEqual("Payment confirmed, training plan scheduled.", plan_now["StatusMessage"])

        # Three is more than the plan holds: refused, and nothing changes.
        self.assert_client_error(
            self.sm.update_endpoint_weights_and_capacities, "ValidationException",
            "Requested instance count (3) exceeds reserved capacity (2) for training plan.",
            EndpointName="scaled",
            DesiredWeightsAndCapacities=[{"VariantName": "AllTraffic", "DesiredInstanceCount": 3}])
        described = self.sm.describe_endpoint(EndpointName="scaled")
        self.assertEqual("InService", described["EndpointStatus"])
        variant = described["ProductionVariants"][0]
        self.assertEqual((2, 2), (variant["CurrentInstanceCount"], variant["DesiredInstanceCount"]))

    # ------------------------------------------------------------------ runtime
    def test_invoke_endpoint_through_the_runtime_client(self):
        runtime = self.client(service="sagemaker-runtime")
        self.make_endpoint("echo")
        self.assert_client_error(runtime.invoke_endpoint, "ValidationError",
                                 "Endpoint ghost of account %s not found." % ACCOUNT,
                                 EndpointName="ghost", Body=b"x", ContentType="text/plain")
        with self.assertRaises(ClientError) as ctx:
            runtime.invoke_endpoint(EndpointName="echo", Body=b"x", ContentType="text/plain")
        self.assertEqual("ValidationError", ctx.exception.response["Error"]["Code"])
        self.assertIn("not in service", ctx.exception.response["Error"]["Message"])
        self.assertEqual(400, ctx.exception.response["ResponseMetadata"]["HTTPStatusCode"])

        self.advance(PROVISIONING_SECONDS)
        payload = json.dumps({"instances": [[1.0, 2.0, 3.0]]}).encode()
        answer = runtime.invoke_endpoint(EndpointName="echo", Body=payload,
                                         ContentType="application/json", Accept="application/json")
        self.assertEqual(200, answer["ResponseMetadata"]["HTTPStatusCode"])
        self.assertEqual(payload, answer["Body"].read())
        self.assertEqual("application/json", answer["ContentType"])
        self.assertEqual("AllTraffic", answer["InvokedProductionVariant"])
        csv = runtime.invoke_endpoint(EndpointName="ECHO", Body="5.1,3.5\n4.9,3.0", ContentType="text/csv")
        self.assertEqual(b"5.1,3.5\n4.9,3.0", csv["Body"].read())
        self.assertEqual("text/csv", csv["ContentType"])
        with self.assertRaises(ClientError) as ctx:
            runtime.invoke_endpoint(EndpointName="echo", Body=b"x", TargetVariant="NoSuchVariant")
        self.assertEqual("ValidationError", ctx.exception.response["Error"]["Code"])
        self.assertEqual(400, ctx.exception.response["ResponseMetadata"]["HTTPStatusCode"])

        # A model whose container sets SAGEMAKER_EMULATOR_RESPONSE answers that text.
        self.sm.create_model(ModelName="fixed", PrimaryContainer={
            "Image": "img:1", "Environment": {"SAGEMAKER_EMULATOR_RESPONSE": '{"label": "cat"}'}})
        self.make_endpoint("classifier", model="fixed")
        self.advance(PROVISIONING_SECONDS)
        fixed = runtime.invoke_endpoint(EndpointName="classifier", Body=b"<image bytes>",
                                        ContentType="application/x-image", TargetVariant="AllTraffic")
        self.assertEqual(b'{"label": "cat"}', fixed["Body"].read())
        self.assertEqual("AllTraffic", fixed["InvokedProductionVariant"])

    def test_invoke_endpoint_with_response_stream_reads_a_part_per_line(self):
        """boto3's EventStream decodes each message (botocore checks the prelude's and the
        message's CRC32, so a malformed frame would raise): the echo model answers a PayloadPart
        per line; errors before the first part are ordinary errors."""
        runtime = self.client(service="sagemaker-runtime")
        self.make_endpoint("streamer")
        self.advance(PROVISIONING_SECONDS)
        answer = runtime.invoke_endpoint_with_response_stream(
            EndpointName="streamer", Body=b"Hello\nfrom\nthe model", ContentType="text/plain",
            Accept="text/plain", CustomAttributes="trace=7")
        self.assertEqual(200, answer["ResponseMetadata"]["HTTPStatusCode"])
        self.assertEqual("text/plain", answer["ContentType"])
        self.assertEqual("AllTraffic", answer["InvokedProductionVariant"])
        self.assertEqual("trace=7", answer["CustomAttributes"])
        parts = [event["PayloadPart"]["Bytes"] for event in answer["Body"]]
        self.assertEqual([b"Hello\n", b"from\n", b"the model"], parts)
        self.assert_client_error(runtime.invoke_endpoint_with_response_stream, "ValidationError",
                                 "Endpoint ghost of account %s not found." % ACCOUNT,
                                 EndpointName="ghost", Body=b"x")

    def test_invoke_endpoint_takes_files_up_to_the_models_6_mib(self):
        """The runtime model's BodyBlob allows 6,291,456 bytes; boto3 sends a file with a
        Content-Length. The echo model answers with the body whole; one byte more is refused with
        the limit named, and boto3 reads that refusal rather than a dropped connection."""
        runtime = self.client(service="sagemaker-runtime")
        self.make_endpoint("big")
        self.advance(PROVISIONING_SECONDS)
        with tempfile.TemporaryDirectory() as folder:
            for size in (2000000, 6291455, 6291456):
                path = os.path.join(folder, "body-%d.bin" % size)
                with open(path, "wb") as out:
                    out.write(os.urandom(size))
                with open(path, "rb") as body:
                    answer = runtime.invoke_endpoint(EndpointName="big", Body=body,
                                                     ContentType="application/octet-stream")
                with open(path, "rb") as sent:
                    self.assertEqual(sent.read(), answer["Body"].read(), size)
            path = os.path.join(folder, "over.bin")
            with open(path, "wb") as out:
                out.write(os.urandom(6291457))
            with open(path, "rb") as body:
                self.assert_client_error(
                    runtime.invoke_endpoint, "RequestEntityTooLargeException",
                    "The request body of 6291457 bytes exceeds the limit of 6291456 bytes.",
                    status=413, EndpointName="big", Body=body, ContentType="application/octet-stream")

    def test_invoke_after_the_plan_expired_is_a_model_error(self):
        runtime = self.client(service="sagemaker-runtime")
        plan = self.buy_plan("endpoint-week", 2)
        self.make_endpoint("reserved", instance_type=P5, count=2, plan_arn=plan)
        self.advance(PROVISIONING_SECONDS)
        described = self.sm.describe_endpoint(EndpointName="reserved")
        self.assertEqual("InService", described["EndpointStatus"])
        self.assertEqual({"MlReservationArn": plan,
                          "CapacityReservationPreference": "capacity-reservations-only",
                          "TotalInstanceCount": 2, "AvailableInstanceCount": 0,
                          "UsedByCurrentEndpoint": 2},
                         described["ProductionVariants"][0]["CapacityReservationConfig"])
        self.assertEqual(b"ok", runtime.invoke_endpoint(EndpointName="reserved", Body=b"ok")["Body"].read())
        self.set_clock({"now": iso(self.PLAN_END)})  # the week from Jan 25, 11:30 UTC is over
        self.assertEqual("Expired", self.sm.describe_training_plan(TrainingPlanName="endpoint-week")["Status"])
        self.assert_client_error(runtime.invoke_endpoint, "ModelError", RESERVATION_EXPIRED, status=424,
                                 EndpointName="reserved", Body=b"ok")
        self.sm.delete_endpoint(EndpointName="reserved")
        self.advance(PROVISIONING_SECONDS)
        plan_now = self.sm.describe_training_plan(TrainingPlanName="endpoint-week")
        self.assertEqual(0, plan_now["InUseInstanceCount"])
        self.assertEqual("18480.00", plan_now["UpfrontFee"])


class Container:
    """A model container on 127.0.0.1 (Python's http.server in a thread): GET /ping answers 200,
    POST /invocations is answered by answer(body, headers) -> (status, content_type, body, headers).
    Every invocation is kept in `invocations` as (path, headers, body)."""

    def __init__(self, answer):
        self.pings = 0
        self.invocations = []
        container = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's naming)
                if self.path == "/ping":
                    container.pings += 1
                    self._send(200, "text/plain", b"", {})
                else:
                    self._send(404, "text/plain", b"not found", {})

            def do_POST(self):  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                container.invocations.append((self.path, dict(self.headers), body))
                self._send(*answer(body, self.headers))

            def _send(self, status, content_type, payload, headers):
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(payload)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


def model_error_text(kind, status, message, endpoint, account=ACCOUNT, region=REGION):
    return ('Received %s error (%d) from primary with message "%s". See https://%s.console.aws.'
            "amazon.com/cloudwatch/home?region=%s#logEventViewer:group=/aws/sagemaker/Endpoints/%s "
            "in account %s for more information." % (kind, status, message, region, region,
                                                     endpoint, account))


class ContainerBoto3Test(EmulatorTestCase):
    """Models with SAGEMAKER_EMULATOR_UPSTREAM: invocations forwarded to a real HTTP container, its
    errors as ModelError, and the traffic split between weighted variants."""

    def container(self, answer):
        container = Container(answer)
        self.addCleanup(container.close)
        return container

    def deploy(self, endpoint, containers, weights):
        """An endpoint with one variant per (name, weight); variant V serves model endpoint-V on
        containers[V]."""
        variants = []
        for name, weight in weights:
            model = "%s-%s" % (endpoint, name)
            self.sm.create_model(ModelName=model, PrimaryContainer={
                "Image": "img:1", "Environment": {"SAGEMAKER_EMULATOR_UPSTREAM": containers[name].url}})
            variants.append({"VariantName": name, "ModelName": model, "InstanceType": G5,
                             "InitialInstanceCount": 1, "InitialVariantWeight": weight})
        self.sm.create_endpoint_config(EndpointConfigName=endpoint, ProductionVariants=variants)
        self.sm.create_endpoint(EndpointName=endpoint, EndpointConfigName=endpoint)
        self.assertEqual("InService",
                         self.sm.describe_endpoint(EndpointName=endpoint)["EndpointStatus"])

    def test_invocations_reach_the_container_and_its_500_is_a_model_error(self):
        def answer(body, headers):
            if body == b"fail":
                return 500, "text/plain", b"boom", {}
            return (200, "application/json", json.dumps({"got": body.decode()}).encode(),
                    {"X-Amzn-SageMaker-Custom-Attributes": "model=v1"})

        container = self.container(answer)
        self.deploy("real", {"AllTraffic": container}, [("AllTraffic", 1.0)])
        self.assertEqual(1, container.pings, "the health check ran when the endpoint was provisioned")
        runtime = self.client(service="sagemaker-runtime")

        out = runtime.invoke_endpoint(EndpointName="real", Body=b"1,2,3", ContentType="text/csv",
                                      Accept="application/json", CustomAttributes="trace=1")
        self.assertEqual(200, out["ResponseMetadata"]["HTTPStatusCode"])
        self.assertEqual(b'{"got": "1,2,3"}', out["Body"].read())
        self.assertEqual("application/json", out["ContentType"])
        self.assertEqual("model=v1", out["CustomAttributes"])
        self.assertEqual("AllTraffic", out["InvokedProductionVariant"])
        self.assertEqual(1, len(container.invocations))
        path, headers, body = container.invocations[0]
        self.assertEqual(("/invocations", b"1,2,3"), (path, body))
        self.assertEqual("text/csv", headers["Content-Type"])
        self.assertEqual("application/json", headers["Accept"])
        self.assertEqual("trace=1", headers["X-Amzn-SageMaker-Custom-Attributes"])
        self.assertNotIn("Authorization", headers)

        with self.assertRaises(runtime.exceptions.ModelError) as ctx:
            runtime.invoke_endpoint(EndpointName="real", Body=b"fail", ContentType="text/csv")
        response = ctx.exception.response
        self.assertEqual("ModelError", response["Error"]["Code"])
        self.assertEqual(model_error_text("server", 500, "boom", "real"), response["Error"]["Message"])
        self.assertEqual(424, response["ResponseMetadata"]["HTTPStatusCode"])
        self.assertEqual(0, response["ResponseMetadata"]["RetryAttempts"])
        # botocore parses ModelError's modeled members into the top of the error response.
        self.assertEqual(500, response["OriginalStatusCode"])
        self.assertEqual("boom", response["OriginalMessage"])
        self.assertEqual("arn:aws:logs:%s:%s:log-group:/aws/sagemaker/Endpoints/real"
                         % (REGION, ACCOUNT), response["LogStreamArn"])
        self.assertEqual(2, len(container.invocations), "one attempt, no retry")

    def test_traffic_split_and_target_variant(self):
        containers = {name: self.container(
            lambda body, headers, name=name: (200, "text/plain", name.encode(), {}))
            for name in ("A", "B")}
        self.deploy("split", containers, [("A", 1.0), ("B", 3.0)])
        runtime = self.client(service="sagemaker-runtime")

        def route(count, **extra):
            seen = {}
            for i in range(count):
                out = runtime.invoke_endpoint(EndpointName="split", Body=str(i).encode(), **extra)
                variant = out["InvokedProductionVariant"]
                self.assertEqual(variant.encode(), out["Body"].read(), "answered by its container")
                seen[variant] = seen.get(variant, 0) + 1
            return seen

        split = route(200)
        self.assertEqual({"A", "B"}, set(split), split)
        self.assertTrue(25 <= split["A"] <= 75, split)  # expected 50 of 200
        self.assertEqual({"A": 30}, route(30, TargetVariant="A"))
        self.assertEqual(split["A"] + 30, len(containers["A"].invocations))
        self.assertEqual(split["B"], len(containers["B"].invocations))
        with self.assertRaises(ClientError) as ctx:
            runtime.invoke_endpoint(EndpointName="split", Body=b"x", TargetVariant="C")
        self.assertEqual("ValidationError", ctx.exception.response["Error"]["Code"])
        self.assertEqual("The variant C is not part of endpoint split.",
                         ctx.exception.response["Error"]["Message"])
        self.assertEqual(400, ctx.exception.response["ResponseMetadata"]["HTTPStatusCode"])

        # UpdateEndpointWeightsAndCapacities to A 0, B 0: only TargetVariant gets through.
        self.sm.update_endpoint_weights_and_capacities(EndpointName="split", DesiredWeightsAndCapacities=[
            {"VariantName": "A", "DesiredWeight": 0.0}, {"VariantName": "B", "DesiredWeight": 0.0}])
        self.assertEqual("InService", self.sm.describe_endpoint(EndpointName="split")["EndpointStatus"])
        with self.assertRaises(ClientError) as ctx:
            runtime.invoke_endpoint(EndpointName="split", Body=b"x")
        self.assertEqual("ValidationError", ctx.exception.response["Error"]["Code"])
        self.assertEqual("Endpoint split has no variant with a weight above zero; name one with "
                         "TargetVariant.", ctx.exception.response["Error"]["Message"])
        self.assertEqual({"B": 5}, route(5, TargetVariant="B"))


P4D = "ml.p4d.24xlarge"
# One zone: no on-demand ml.p5.48xlarge (and none reservable, so no prices needed), two on-demand
# ml.p4d.24xlarge.
JOB_CAPACITY = {
    "regions": {REGION: {"us-west-2a": {P5: {"on_demand": 0}, P4D: {"on_demand": 2}}}},
    "prices": {},
}


def training_job_arn(name, account=ACCOUNT):
    return "arn:aws:sagemaker:%s:%s:training-job/%s" % (REGION, account, name.lower())


class TrainingJobPreferencesBoto3Test(EmulatorTestCase):
    """A training job with ResourceConfig.InstancePreferences through boto3 (the members come from
    api/ through AWS_DATA_PATH): fallback to the second type, the selection in
    describe_training_job, queueing, and the training_job_completed_or_stopped waiter."""
    CAPACITY = JOB_CAPACITY

    def create_job(self, name, resource_config, run_seconds=100):
        created = self.sm.create_training_job(
            TrainingJobName=name, RoleArn="arn:aws:iam::%s:role/SageMakerExecution" % ACCOUNT,
            AlgorithmSpecification={"TrainingImage": "img:1", "TrainingInputMode": "File"},
            OutputDataConfig={"S3OutputPath": "s3://bucket/out"}, ResourceConfig=resource_config,
            StoppingCondition={"MaxRuntimeInSeconds": 3600, "MaxPendingTimeInSeconds": 7200},
            Environment={"SAGEMAKER_EMULATOR_RUN_SECONDS": str(run_seconds)})
        self.assertEqual(training_job_arn(name), created["TrainingJobArn"])

    def state(self, name):
        job = self.sm.describe_training_job(TrainingJobName=name)
        return (job["TrainingJobStatus"], job["SecondaryStatus"],
                job["ResourceConfig"].get("SelectedInstanceType"),
                job["ResourceConfig"].get("SelectedInstanceCount"), job.get("TrainingStartTime"))

    def test_a_preference_list_job_falls_back_to_the_second_type(self):
        preferences = [{"InstanceType": P5, "InstanceCount": 2}, {"InstanceType": P4D, "InstanceCount": 2}]
        self.create_job("fallback", {"InstancePreferences": preferences, "VolumeSizeInGB": 50})
        job = self.sm.describe_training_job(TrainingJobName="fallback")
        self.assertEqual({"InstancePreferences": preferences, "VolumeSizeInGB": 50,
                          "SelectedInstanceType": P4D, "SelectedInstanceCount": 2},
                         job["ResourceConfig"])
        self.assertEqual(("InProgress", "Starting", P4D, 2, CLOCK_START_DT), self.state("fallback"))
        self.assertEqual({"MaxRuntimeInSeconds": 3600, "MaxPendingTimeInSeconds": 7200},
                         job["StoppingCondition"])

        # Both p4d are taken and there is no on-demand p5: the next job waits, without a selection.
        self.create_job("queued", {"InstancePreferences": [{"InstanceType": P5}, {"InstanceType": P4D}],
                                   "InstanceCount": 1, "VolumeSizeInGB": 50})
        self.assertEqual(("InProgress", "Pending", None, None, None), self.state("queued"))

        self.set_clock({"advance_seconds": 100})
        self.assertEqual(("Completed", "Completed", P4D, 2, CLOCK_START_DT), self.state("fallback"))
        started = CLOCK_START_DT + datetime.timedelta(seconds=100)
        self.assertEqual(("InProgress", "Starting", P4D, 1, started), self.state("queued"))
        self.assertEqual(
            [("fallback", "Completed", "Completed"), ("queued", "InProgress", "Starting")],
            [(s["TrainingJobName"], s["TrainingJobStatus"], s["SecondaryStatus"]) for s in
             self.sm.list_training_jobs(SortBy="Name", SortOrder="Ascending")["TrainingJobSummaries"]])

        self.set_clock({"advance_seconds": 100})
        self.sm.get_waiter("training_job_completed_or_stopped").wait(
            TrainingJobName="queued", WaiterConfig={"Delay": 1, "MaxAttempts": 2})
        job = self.sm.describe_training_job(TrainingJobName="queued")
        self.assertEqual(("Completed", started + datetime.timedelta(seconds=100)),
                         (job["TrainingJobStatus"], job["TrainingEndTime"]))
        self.assertEqual(["Pending", "Starting", "Downloading", "Training", "Uploading", "Completed"],
                         [t["Status"] for t in job["SecondaryStatusTransitions"]])

        self.assert_client_error(
            self.sm.create_training_job, "ValidationException",
            "Specify InstanceCount either on every instance preference or in ResourceConfig, not both.",
            TrainingJobName="refused", RoleArn="arn:aws:iam::%s:role/r" % ACCOUNT,
            AlgorithmSpecification={"TrainingImage": "img:1", "TrainingInputMode": "File"},
            OutputDataConfig={"S3OutputPath": "s3://bucket/out"},
            ResourceConfig={"InstancePreferences": preferences, "InstanceCount": 2, "VolumeSizeInGB": 50})

    def test_a_cpu_only_list_is_evaluated_once_and_every_type_must_fit_its_quota(self):
        # "A CPU-only list is evaluated once: the job starts if one of the types has capacity, and
        # otherwise fails with a capacity error without being re-evaluated."
        http(self.server.url + "/_emulator/capacity", json.dumps(
            {"region": REGION, "availability_zone": "us-west-2a", "instance_type": "ml.m5.xlarge",
             "on_demand": 0}).encode(), {"Content-Type": "application/json"})
        self.create_job("cpu", {"InstancePreferences": [{"InstanceType": "ml.m5.xlarge"}],
                                "InstanceCount": 1, "VolumeSizeInGB": 50})
        job = self.sm.describe_training_job(TrainingJobName="cpu")
        self.assertEqual(("Failed", "InsufficientCapacityError: Unable to provision requested ML compute "
                          "capacity. "
                          "Please retry using a different ML instance type."),
                         (job["TrainingJobStatus"], job["FailureReason"]))
        # "SageMaker AI checks your service quota for every type in the list, not just the one it
        # selects. [...] If any type falls short, the request is rejected, even when the types
        # ahead of it would have succeeded."
        quota = "%s for training job usage" % P5
        status, _, body = http(self.server.url + "/_emulator/quotas", json.dumps(
            {"quotas": [{"name": quota, "value": 0}]}).encode(), {"Content-Type": "application/json"})
        self.assertEqual(200, status, body)
        self.assert_client_error(
            self.sm.create_training_job, "ResourceLimitExceeded", quota_text(quota, 0, 0, 1),
            TrainingJobName="refused", RoleArn="arn:aws:iam::%s:role/r" % ACCOUNT,
            AlgorithmSpecification={"TrainingImage": "img:1", "TrainingInputMode": "File"},
            OutputDataConfig={"S3OutputPath": "s3://bucket/out"},
            ResourceConfig={"InstancePreferences": [{"InstanceType": P4D}, {"InstanceType": P5}],
                            "InstanceCount": 1, "VolumeSizeInGB": 50})


TAG_ARN_PREFIX = "arn:aws:sagemaker:%s:%s:" % (REGION, ACCOUNT)
MALFORMED_TOKEN = "Invalid pagination token because of a malformed NextToken."


def tag_list(pairs):
    return [{"Key": key, "Value": value} for key, value in pairs]


class TagsBoto3Test(EmulatorTestCase):
    """add_tags, list_tags (and its paginator, from api/paginators-1.json) and delete_tags on every
    resource kind the emulator serves, the tags given at creation, the 50-tag limit, the reserved
    "aws:" prefix, unknown and foreign ARNs, and tags leaving with their resource."""

    def all_tags(self, arn):
        """Every tag of `arn` through the list_tags paginator; returns (tags, pages)."""
        pages = list(self.sm.get_paginator("list_tags").paginate(ResourceArn=arn))
        return [tag for page in pages for tag in page["Tags"]], len(pages)

    def create_every_kind(self):
        """One resource of each kind with the tag creator=<kind>; returns {kind: arn}."""
        def tagged(kind):
            return tag_list([("creator", kind)])
        role = "arn:aws:iam::%s:role/r" % ACCOUNT
        arns = {}
        arns["model"] = self.sm.create_model(
            ModelName="Tagged-Model", PrimaryContainer={"Image": "img:1"}, ExecutionRoleArn=role,
            Tags=tagged("model"))["ModelArn"]
        arns["endpoint-config"] = self.sm.create_endpoint_config(
            EndpointConfigName="Tagged-Config",
            ProductionVariants=[{"VariantName": "AllTraffic", "ModelName": "Tagged-Model",
                                 "InstanceType": "ml.g5.xlarge", "InitialInstanceCount": 1}],
            Tags=tagged("endpoint-config"))["EndpointConfigArn"]
        arns["endpoint"] = self.sm.create_endpoint(
            EndpointName="Tagged-Endpoint", EndpointConfigName="Tagged-Config",
            Tags=tagged("endpoint"))["EndpointArn"]
        offering = self.sm.search_training_plan_offerings(
            TargetResources=["endpoint"], InstanceType="ml.p5.48xlarge", InstanceCount=1,
            DurationHours=24, StartTimeAfter=CLOCK_START_DT)["TrainingPlanOfferings"][0]
        arns["training-plan"] = self.sm.create_training_plan(
            TrainingPlanName="Tagged-Plan", TrainingPlanOfferingId=offering["TrainingPlanOfferingId"],
            Tags=tagged("training-plan"))["TrainingPlanArn"]
        arns["training-job"] = self.sm.create_training_job(
            TrainingJobName="Tagged-Job", RoleArn=role,
            AlgorithmSpecification={"TrainingImage": "img:1", "TrainingInputMode": "File"},
            OutputDataConfig={"S3OutputPath": "s3://bucket/out"},
            ResourceConfig={"InstanceType": "ml.m5.xlarge", "InstanceCount": 1, "VolumeSizeInGB": 5},
            StoppingCondition={"MaxRuntimeInSeconds": 3600}, Tags=tagged("training-job"))["TrainingJobArn"]
        arns["processing-job"] = self.sm.create_processing_job(
            ProcessingJobName="Tagged-Processing", RoleArn=role, AppSpecification={"ImageUri": "img:1"},
            ProcessingResources={"ClusterConfig": {"InstanceType": "ml.m5.xlarge", "InstanceCount": 1,
                                                   "VolumeSizeInGB": 5}},
            StoppingCondition={"MaxRuntimeInSeconds": 3600},
            Tags=tagged("processing-job"))["ProcessingJobArn"]
        return arns

    def test_every_kind_shows_its_creation_tags_and_takes_add_and_delete(self):
        self.assertTrue(self.sm.can_paginate("list_tags"))
        arns = self.create_every_kind()
        self.assertEqual(["endpoint", "endpoint-config", "model", "processing-job", "training-job",
                          "training-plan"], sorted(arns))
        for kind, arn in arns.items():
            with self.subTest(kind=kind):
                self.assertTrue(arn.startswith(TAG_ARN_PREFIX + kind + "/tagged-"), arn)
                listed = self.sm.list_tags(ResourceArn=arn)
                self.assertEqual(tag_list([("creator", kind)]), listed["Tags"])
                self.assertNotIn("NextToken", listed)
                added = self.sm.add_tags(ResourceArn=arn,
                                         Tags=tag_list([("env", "test"), ("creator", "new")]))
                self.assertEqual(tag_list([("env", "test"), ("creator", "new")]), added["Tags"])
                self.assertEqual((tag_list([("creator", "new"), ("env", "test")]), 1),
                                 self.all_tags(arn))
                self.sm.delete_tags(ResourceArn=arn, TagKeys=["creator", "never-there"])
                self.assertEqual(tag_list([("env", "test")]), self.sm.list_tags(ResourceArn=arn)["Tags"])

    def test_fifty_tags_fit_one_page_and_a_fifty_first_is_refused(self):
        arn = self.sm.create_model(ModelName="full", PrimaryContainer={"Image": "img:1"})["ModelArn"]
        fifty = tag_list([("k%d" % i, "v%d" % i) for i in range(50)])
        self.sm.add_tags(ResourceArn=arn, Tags=fifty)
        self.assertEqual((fifty, 1), self.all_tags(arn))
        self.sm.add_tags(ResourceArn=arn, Tags=tag_list([("k0", "new")]))  # overwriting is fine
        self.assert_client_error(
            self.sm.add_tags, "ValidationException",
            "A resource can have at most 50 tags; with these tags it would have 51.",
            ResourceArn=arn, Tags=tag_list([("k1", "x"), ("extra", "y")]))
        tags, _ = self.all_tags(arn)
        self.assertEqual(50, len(tags))
        self.assertEqual(tag_list([("k0", "new"), ("k1", "v1")]), tags[:2])

    def test_refusals(self):
        arn = self.sm.create_model(ModelName="mine", PrimaryContainer={"Image": "img:1"},
                                   Tags=tag_list([("team", "ml")]))["ModelArn"]
        key = "aws:cloudformation:stack-name"
        text = "System prefix 'aws:' reserved for AWS usage in tag key: " + key
        self.assert_client_error(self.sm.add_tags, "ValidationException", text,
                                 ResourceArn=arn, Tags=tag_list([(key, "s")]))
        self.assert_client_error(self.sm.delete_tags, "ValidationException", text,
                                 ResourceArn=arn, TagKeys=[key])
        missing = TAG_ARN_PREFIX + "model/missing"
        not_found = 'Could not find resource "%s".'
        self.assert_client_error(self.sm.list_tags, "ValidationException", not_found % missing,
                                 ResourceArn=missing)
        self.assert_client_error(self.sm.add_tags, "ValidationException", not_found % missing,
                                 ResourceArn=missing, Tags=tag_list([("a", "b")]))
        self.assert_client_error(self.sm.delete_tags, "ValidationException", not_found % missing,
                                 ResourceArn=missing, TagKeys=["a"])
        other = self.client(access_key=OTHER_ACCOUNT)
        self.assert_client_error(other.list_tags, "ValidationException", not_found % arn,
                                 ResourceArn=arn)
        self.assert_client_error(other.delete_tags, "ValidationException", not_found % arn,
                                 ResourceArn=arn, TagKeys=["team"])
        self.assert_client_error(self.sm.list_tags, "ValidationException", MALFORMED_TOKEN,
                                 ResourceArn=arn, NextToken="bm90IGEgdG9rZW4=")
        with self.assertRaises(botocore.exceptions.ParamValidationError):
            self.sm.list_tags(ResourceArn=arn, MaxResults=10)  # botocore knows the model's minimum
        self.assertEqual(tag_list([("team", "ml")]), self.sm.list_tags(ResourceArn=arn)["Tags"])

    def test_tags_leave_with_their_resource(self):
        arn = self.sm.create_model(ModelName="short-lived", PrimaryContainer={"Image": "img:1"},
                                   Tags=tag_list([("a", "1")]))["ModelArn"]
        self.sm.delete_model(ModelName="short-lived")
        self.assert_client_error(self.sm.list_tags, "ValidationException",
                                 'Could not find resource "%s".' % arn, ResourceArn=arn)
        self.sm.create_model(ModelName="Short-Lived", PrimaryContainer={"Image": "img:1"})
        self.assertEqual([], self.sm.list_tags(ResourceArn=arn)["Tags"])


PAGING_CAPACITY = {
    "regions": {REGION: {"us-west-2a": {P5: {"reservable": 10, "on_demand": 0}}}},
    "prices": {P5: {"on_demand_hourly": 98.32, "plan_hourly": 55.0}},
}


class EveryPaginatorBoto3Test(EmulatorTestCase):
    """Every paginator in api/ through boto3, over resources whose creation times and statuses tie
    (a frozen clock): for every SortBy, both orders and page sizes 1 to 4, botocore must page
    through exactly what one large page lists, never see a token twice, and stop on the last page.
    Also a stopped job passing through Stopping, with --provisioning-seconds."""
    CAPACITY = PAGING_CAPACITY
    SERVER_ARGS = ("--provisioning-seconds", "30")
    NAMES = ["Zeta", "alpha", "Bravo", "charlie-1", "charlie-2"]

    def create_job(self, name, run_seconds):
        self.sm.create_training_job(
            TrainingJobName=name, RoleArn="arn:aws:iam::%s:role/r" % ACCOUNT,
            AlgorithmSpecification={"TrainingImage": "img:1", "TrainingInputMode": "File"},
            OutputDataConfig={"S3OutputPath": "s3://bucket/out"},
            ResourceConfig={"InstanceType": "ml.m5.xlarge", "InstanceCount": 1, "VolumeSizeInGB": 50},
            StoppingCondition={"MaxRuntimeInSeconds": 86400},
            Environment={"SAGEMAKER_EMULATOR_RUN_SECONDS": str(run_seconds)})

    def create_processing_job(self, name, run_seconds):
        self.sm.create_processing_job(
            ProcessingJobName=name, RoleArn="arn:aws:iam::%s:role/r" % ACCOUNT,
            AppSpecification={"ImageUri": "img:1"},
            ProcessingResources={"ClusterConfig": {"InstanceType": "ml.m5.xlarge", "InstanceCount": 1,
                                                   "VolumeSizeInGB": 30}},
            StoppingCondition={"MaxRuntimeInSeconds": 86400},
            Environment={"SAGEMAKER_EMULATOR_RUN_SECONDS": str(run_seconds)})

    def create_everything(self):
        for i, name in enumerate(self.NAMES):
            if i == 3:
                self.set_clock({"advance_seconds": 1})
            self.sm.create_model(ModelName=name)
            self.sm.create_endpoint_config(EndpointConfigName=name, ProductionVariants=[{
                "VariantName": "v", "ModelName": name, "InstanceType": "ml.m5.large",
                "InitialInstanceCount": 1}])
            self.sm.create_endpoint(EndpointName=name, EndpointConfigName=name)
            self.create_job(name, 1 if i % 2 else 100000)
            self.create_processing_job(name, 1 if i % 2 else 100000)
        self.set_clock({"advance_seconds": 60})  # endpoints in service, short jobs done

    def assert_pages_through(self, operation, result_key, name_key, sort_keys, **extra):
        paginator = self.sm.get_paginator(operation)
        call = getattr(self.sm, operation)
        for sort_by in sort_keys:
            for order in ("Ascending", "Descending"):
                expected = [item[name_key] for item in
                            call(SortBy=sort_by, SortOrder=order, MaxResults=100, **extra)[result_key]]
                self.assertEqual(sorted(self.NAMES), sorted(expected))
                for page_size in range(1, 5):
                    pages = list(paginator.paginate(SortBy=sort_by, SortOrder=order,
                                                    PaginationConfig={"PageSize": page_size}, **extra))
                    got = [item[name_key] for page in pages for item in page[result_key]]
                    self.assertEqual(expected, got, (operation, sort_by, order, page_size))
                    self.assertNotIn("NextToken", pages[-1])
                    self.assertEqual(-(-len(expected) // page_size), len(pages))

    def test_every_paginator_pages_through_ties_without_gaps_or_repeats(self):
        self.create_everything()
        self.assert_pages_through("list_models", "Models", "ModelName", ["Name", "CreationTime"])
        self.assert_pages_through("list_endpoint_configs", "EndpointConfigs", "EndpointConfigName",
                                  ["Name", "CreationTime"])
        self.assert_pages_through("list_endpoints", "Endpoints", "EndpointName",
                                  ["Name", "CreationTime", "Status"])
        self.assert_pages_through("list_training_jobs", "TrainingJobSummaries", "TrainingJobName",
                                  ["Name", "CreationTime", "Status"])
        self.assert_pages_through("list_processing_jobs", "ProcessingJobSummaries",
                                  "ProcessingJobName", ["Name", "CreationTime", "Status"])

    def test_training_plans_page_through(self):
        starts = []
        for name in self.NAMES:
            offering = self.sm.search_training_plan_offerings(
                InstanceType=P5, InstanceCount=1, DurationHours=24, TargetResources=["training-job"],
                StartTimeAfter=CLOCK_START_DT, EndTimeBefore=CLOCK_START_DT + datetime.timedelta(days=20),
            )["TrainingPlanOfferings"][0]
            starts.append(offering["ReservedCapacityOfferings"][0]["StartTime"])
            self.sm.create_training_plan(TrainingPlanName=name,
                                         TrainingPlanOfferingId=offering["TrainingPlanOfferingId"])
        self.assertLess(len(set(starts)), len(starts), "plans must tie on their start time")
        self.assert_pages_through("list_training_plans", "TrainingPlanSummaries", "TrainingPlanName",
                                  ["TrainingPlanName", "StartTime", "Status"])

    def test_a_stopped_job_is_stopping_first(self):
        self.create_job("stop-me", 100000)
        self.set_clock({"advance_seconds": 10})
        self.sm.stop_training_job(TrainingJobName="stop-me")
        job = self.sm.describe_training_job(TrainingJobName="stop-me")
        self.assertEqual(("Stopping", "Stopping"), (job["TrainingJobStatus"], job["SecondaryStatus"]))
        self.set_clock({"advance_seconds": 30})
        self.sm.get_waiter("training_job_completed_or_stopped").wait(
            TrainingJobName="stop-me", WaiterConfig={"Delay": 1, "MaxAttempts": 2})
        job = self.sm.describe_training_job(TrainingJobName="stop-me")
        self.assertEqual(["Starting", "Stopping", "Stopped"],
                         [t["Status"] for t in job["SecondaryStatusTransitions"]])
        self.assertEqual(CLOCK_START_DT + datetime.timedelta(seconds=40), job["TrainingEndTime"])
        self.assertTrue(all("EndTime" in t for t in job["SecondaryStatusTransitions"]))


M5 = "ml.m5.xlarge"
C5 = "ml.c5.xlarge"  # not in CLUSTER_CAPACITY: unlimited on demand
# One zone with two reservable ml.p5.48xlarge (none on demand) and four on-demand ml.m5.xlarge.
CLUSTER_CAPACITY = {
    "regions": {REGION: {"us-west-2a": {P5: {"reservable": 2, "on_demand": 0}, M5: {"on_demand": 4}}}},
    "prices": {P5: {"on_demand_hourly": 98.32, "plan_hourly": 55.0}},
}
CLUSTER_ROLE = "arn:aws:iam::%s:role/HyperPodExecution" % ACCOUNT
LIFECYCLE = {"SourceS3Uri": "s3://hyperpod-bucket/lifecycle/", "OnCreate": "on_create.sh"}
CLUSTER_PROVISIONING = 60


def quota_text(name, limit, used, delta):
    """AWS's ResourceLimitExceeded sentence for an account-level service quota."""
    return ("The account-level service limit '%s' is %d Instances, with current utilization of %d "
            "Instances and a request delta of %d Instances. Please use AWS Service Quotas to request "
            "an increase for this quota. If AWS Service Quotas is not available, contact AWS support "
            "to request an increase for this quota." % (name, limit, used, delta))


class ClustersBoto3Test(EmulatorTestCase):
    """SageMaker HyperPod clusters through boto3 with --provisioning-seconds 60: a plan bought for
    hyperpod-cluster, create_cluster with a plan group and an on-demand group, describe_cluster
    polled as a user would (botocore has no cluster waiter), nodes following the plan's window,
    update_cluster, batch_delete_cluster_nodes, delete_cluster, the list_clusters and
    list_cluster_nodes paginators, the refusals, and service quotas set with POST /_emulator/quotas."""
    CAPACITY = CLUSTER_CAPACITY
    SERVER_ARGS = ("--provisioning-seconds", str(CLUSTER_PROVISIONING))

    # ------------------------------------------------------------------ helpers
    def advance(self, seconds):
        return self.set_clock({"advance_seconds": seconds})

    def at(self, **delta):
        return CLOCK_START_DT + datetime.timedelta(**delta)

    def plan_day(self, days):
        """11:30 UTC, when plans start and end, `days` days after the clock's start."""
        return self.at(days=days) + PLAN_DAY_END

    def clock_to(self, when):
        return self.set_clock({"now": when.strftime("%Y-%m-%dT%H:%M:%SZ")})

    @staticmethod
    def group(name, instance_type, count, plan_arn=None):
        spec = {"InstanceGroupName": name, "InstanceType": instance_type, "InstanceCount": count,
                "ExecutionRole": CLUSTER_ROLE, "LifeCycleConfig": LIFECYCLE}
        if plan_arn:
            spec["TrainingPlanArn"] = plan_arn
        return spec

    def create_cluster(self, name, groups, client=None):
        created = (client or self.sm).create_cluster(ClusterName=name, InstanceGroups=groups)
        self.assertRegex(created["ClusterArn"],
                         r"^arn:aws:sagemaker:us-west-2:\d{12}:cluster/[a-z0-9]{12}$")
        return created["ClusterArn"]

    def buy_plan(self, name, count=2, start_days=1, hours=48):
        """A plan of `count` p5 for `hours` (whole days) from plan_day(start_days)."""
        start = self.plan_day(start_days)
        end = start + datetime.timedelta(hours=hours)
        offerings = self.sm.search_training_plan_offerings(
            TargetResources=["hyperpod-cluster"], InstanceType=P5, InstanceCount=count,
            DurationHours=hours, StartTimeAfter=start, EndTimeBefore=end)["TrainingPlanOfferings"]
        self.assertEqual(1, len(offerings), offerings)
        self.assertEqual(["hyperpod-cluster"], offerings[0]["TargetResources"])
        self.assertEqual((start, end), tuple(offerings[0]["ReservedCapacityOfferings"][0][member]
                                             for member in ("StartTime", "EndTime")))
        plan = self.sm.create_training_plan(
            TrainingPlanName=name,
            TrainingPlanOfferingId=offerings[0]["TrainingPlanOfferingId"])["TrainingPlanArn"]
        self.assertEqual(["hyperpod-cluster"],
                         self.sm.describe_training_plan(TrainingPlanName=name)["TargetResources"])
        return plan

    def groups(self, name):
        cluster = self.sm.describe_cluster(ClusterName=name)
        return [(g["InstanceGroupName"], g["CurrentCount"], g["TargetCount"], g["Status"],
                 g.get("TrainingPlanStatus")) for g in cluster["InstanceGroups"]]

    def nodes(self, name, **kwargs):
        return self.sm.list_cluster_nodes(ClusterName=name, **kwargs)["ClusterNodeSummaries"]

    def poll_status(self, name, wanted, timeout=10.0, client=None):
        """What a user writes for lack of a cluster waiter: describe_cluster until `wanted`; Failed
        (when not wanted) or `timeout` seconds raise. Returns the last answer."""
        client = client or self.sm
        deadline = time.monotonic() + timeout
        while True:
            cluster = client.describe_cluster(ClusterName=name)
            if cluster["ClusterStatus"] == wanted:
                return cluster
            if cluster["ClusterStatus"] == "Failed":
                raise AssertionError("cluster %s failed: %s" % (name, cluster.get("FailureMessage")))
            if time.monotonic() > deadline:
                raise AssertionError("cluster %s still %s" % (name, cluster["ClusterStatus"]))
            time.sleep(0.05)

    def poll_across_clock_move(self, name, pending, wanted, seconds):
        """Polls on a thread with a client of its own; once the poller saw `pending` twice, moves
        the clock by `seconds`. Returns (the last answer, every status the poller saw)."""
        client = self.client()
        seen = []
        client.meta.events.register(
            "after-call.sagemaker.DescribeCluster",
            lambda parsed, **_: seen.append(parsed.get("ClusterStatus", "error")))
        outcome = {}

        def run():
            try:
                outcome["cluster"] = self.poll_status(name, wanted, client=client)
            except Exception as error:  # noqa: BLE001 (reported below)
                outcome["error"] = error

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        deadline = time.monotonic() + 5
        while seen.count(pending) < 2:
            self.assertLess(time.monotonic(), deadline,
                            "the poller never saw %s twice: %s" % (pending, seen))
            self.assertTrue(thread.is_alive(), "the poller stopped early: %s %s" % (seen, outcome))
            time.sleep(0.02)
        self.advance(seconds)
        thread.join(timeout=20)
        self.assertFalse(thread.is_alive(), "the poller is still running")
        self.assertNotIn("error", outcome, outcome)
        return outcome["cluster"], seen

    def set_quotas(self, quotas):
        status, _, body = http(self.server.url + "/_emulator/quotas",
                               json.dumps({"quotas": quotas}).encode(),
                               {"Content-Type": "application/json"})
        self.assertEqual(200, status, body)
        return body

    # ------------------------------------------------------------------ tests
    def test_a_cluster_on_a_plan_from_creating_to_deleted(self):
        plan = self.buy_plan("hp-plan")  # 2 x p5 from 2027-01-26T11:30Z for 48 h
        cluster_arn = self.create_cluster("hp-cluster", [self.group("workers", P5, 2, plan),
                                                         self.group("controller", M5, 1)])
        self.assertRegex(cluster_arn, r"^arn:aws:sagemaker:us-west-2:123456789012:cluster/[a-z0-9]{12}$")
        described = self.sm.describe_cluster(ClusterName="hp-cluster")
        self.assertEqual(("hp-cluster", cluster_arn, "Creating", CLOCK_START_DT, "Automatic"),
                         (described["ClusterName"], described["ClusterArn"], described["ClusterStatus"],
                          described["CreationTime"], described["NodeRecovery"]))
        self.assertEqual({"CurrentCount": 0, "TargetCount": 2, "InstanceGroupName": "workers",
                          "InstanceType": P5, "ExecutionRole": CLUSTER_ROLE,
                          "LifeCycleConfig": LIFECYCLE, "Status": "Creating",
                          "TrainingPlanArn": plan, "TrainingPlanStatus": "Pending"},
                         described["InstanceGroups"][0])  # bought this instant: its payment is processed
        self.assert_client_error(
            self.sm.update_cluster, "ConflictException",
            "Cluster %s is Creating; it can be updated only while it is InService." % cluster_arn,
            ClusterName="hp-cluster", InstanceGroups=[self.group("controller", M5, 2)])

        ready, seen = self.poll_across_clock_move("hp-cluster", "Creating", "InService",
                                                  CLUSTER_PROVISIONING)
        self.assertEqual(["Creating", "InService"], sorted(set(seen)))
        self.assertEqual("InService", ready["ClusterStatus"])
        self.assertEqual([("workers", 2, 2, "InService", "Scheduled"),
                          ("controller", 1, 1, "InService", None)], self.groups("hp-cluster"))
        provisioned = self.at(seconds=CLUSTER_PROVISIONING)
        nodes = self.nodes("hp-cluster", SortBy="NAME")
        waiting = "Waiting for training plan %s to become Active." % plan
        self.assertEqual(
            [("controller", "Running", None, provisioned)]
            + [("workers", "Pending", waiting, provisioned)] * 2,
            sorted((n["InstanceGroupName"], n["InstanceStatus"]["Status"],
                    n["InstanceStatus"].get("Message"), n["LaunchTime"]) for n in nodes))
        ids = [n["InstanceId"] for n in nodes]
        self.assertEqual(sorted(ids), ids, "SortBy NAME orders by instance id")
        for node_id in ids:
            self.assertRegex(node_id, r"^i-[0-9a-f]{17}$")
        worker = next(n["InstanceId"] for n in nodes if n["InstanceGroupName"] == "workers")
        details = self.sm.describe_cluster_node(ClusterName="hp-cluster", NodeId=worker)["NodeDetails"]
        self.assertEqual(
            ("workers", worker, P5, "Pending",
             {"AvailabilityZone": "us-west-2a", "AvailabilityZoneId": "usw2-az1"}, LIFECYCLE),
            (details["InstanceGroupName"], details["InstanceId"], details["InstanceType"],
             details["InstanceStatus"]["Status"], details["Placement"], details["LifeCycleConfig"]))

        # The plan's window opens.
        plan_start = self.plan_day(1)
        self.clock_to(plan_start)
        self.assertEqual([("controller", "Running", provisioned), ("workers", "Running", plan_start),
                          ("workers", "Running", plan_start)],
                         [(n["InstanceGroupName"], n["InstanceStatus"]["Status"], n["LaunchTime"])
                          for n in self.nodes("hp-cluster")])
        self.assertEqual(("workers", 2, 2, "InService", "Active"), self.groups("hp-cluster")[0])

        # Scale the controller group to 3.
        self.assertEqual(cluster_arn, self.sm.update_cluster(
            ClusterName="hp-cluster", InstanceGroups=[self.group("controller", M5, 3)])["ClusterArn"])
        self.assertEqual(("controller", 1, 3, "Updating", None), self.groups("hp-cluster")[1])
        _, seen = self.poll_across_clock_move("hp-cluster", "Updating", "InService",
                                              CLUSTER_PROVISIONING)
        self.assertEqual(["InService", "Updating"], sorted(set(seen)))
        self.assertEqual(("controller", 3, 3, "InService", None), self.groups("hp-cluster")[1])
        self.assert_client_error(
            self.sm.update_cluster, "ResourceLimitExceeded",
            "Requested instance count (3) exceeds available capacity (2) in training plan %s." % plan,
            ClusterName="hp-cluster", InstanceGroups=[self.group("workers", P5, 3, plan)])

        # Delete the newest controller (and an unknown id).
        controllers = [n["InstanceId"]
                       for n in self.nodes("hp-cluster", InstanceGroupNameContains="controller")]
        self.assertEqual(3, len(controllers))
        unknown = "i-0123456789abcdef0"
        answer = self.sm.batch_delete_cluster_nodes(ClusterName="hp-cluster",
                                                    NodeIds=[controllers[2], unknown])
        self.assertEqual([controllers[2]], answer["Successful"])
        self.assertEqual([{"Code": "NodeIdNotFound", "NodeId": unknown,
                           "Message": "Node %s was not found in cluster %s." % (unknown, cluster_arn)}],
                         answer["Failed"])
        self.assertEqual(("controller", 2, 2, "InService", None), self.groups("hp-cluster")[1])
        self.assertEqual("ShuttingDown", self.sm.describe_cluster_node(
            ClusterName="hp-cluster", NodeId=controllers[2])["NodeDetails"]["InstanceStatus"]["Status"])
        self.advance(CLUSTER_PROVISIONING)
        left = self.nodes("hp-cluster", InstanceGroupNameContains="controller")
        self.assertEqual(controllers[:2], [n["InstanceId"] for n in left])

        # An hour before the plan ends its nodes shut down; at its end they are gone.
        plan_end = self.plan_day(3)
        self.clock_to(plan_end - datetime.timedelta(hours=1))
        workers = self.nodes("hp-cluster", InstanceGroupNameContains="work")
        self.assertEqual(["ShuttingDown", "ShuttingDown"], [n["InstanceStatus"]["Status"] for n in workers])
        self.clock_to(plan_end)
        self.assertEqual([], self.nodes("hp-cluster", InstanceGroupNameContains="work"))
        self.assertEqual(("workers", 0, 2, "InService", "Expired"), self.groups("hp-cluster")[0])

        # Delete the cluster.
        self.assertEqual(cluster_arn, self.sm.delete_cluster(ClusterName="hp-cluster")["ClusterArn"])
        self.assertEqual("Deleting", self.sm.describe_cluster(ClusterName=cluster_arn)["ClusterStatus"])
        self.assert_client_error(self.sm.delete_cluster, "ConflictException",
                                 "Cluster %s is already being deleted." % cluster_arn,
                                 ClusterName="hp-cluster")
        self.advance(CLUSTER_PROVISIONING)
        self.assert_client_error(self.sm.describe_cluster, "ResourceNotFound",
                                 "Cluster hp-cluster not found.", ClusterName="hp-cluster")
        self.assertEqual([], self.sm.list_clusters()["ClusterSummaries"])

    def test_list_clusters_and_list_cluster_nodes_paginators_page_through_everything(self):
        plan = self.buy_plan("hp-plan", count=2, start_days=0)
        self.clock_to(self.plan_day(0))  # the plan is Active while its clusters are created
        names = ["Zeta", "alpha", "Bravo", "charlie-1", "charlie-2"]
        on_plan = {"alpha", "charlie-2"}
        for i, name in enumerate(names):
            if i == 3:
                self.advance(1)  # the first three tie on their creation time, the last two too
            groups = [self.group("g", C5, 1)]
            if name in on_plan:
                groups.append(self.group("w", P5, 1, plan))
            self.create_cluster(name, groups)
        paginator = self.sm.get_paginator("list_clusters")
        for sort_by in ("NAME", "CREATION_TIME"):
            for order in ("Ascending", "Descending"):
                whole = [c["ClusterName"] for c in self.sm.list_clusters(
                    SortBy=sort_by, SortOrder=order, MaxResults=100)["ClusterSummaries"]]
                self.assertEqual(sorted(names), sorted(whole))
                for page_size in range(1, 5):
                    pages = list(paginator.paginate(SortBy=sort_by, SortOrder=order,
                                                    PaginationConfig={"PageSize": page_size}))
                    got = [c["ClusterName"] for p in pages for c in p["ClusterSummaries"]]
                    self.assertEqual(whole, got, (sort_by, order, page_size))
                    self.assertEqual(-(-len(names) // page_size), len(pages))
                    self.assertNotIn("NextToken", pages[-1])
        by_name = [c["ClusterName"] for c in self.sm.list_clusters(SortBy="NAME")["ClusterSummaries"]]
        self.assertEqual(["alpha", "Bravo", "charlie-1", "charlie-2", "Zeta"], by_name,
                         "names sort without regard to case, as the other lists' names do")
        by_time = [c["ClusterName"] for c in self.sm.list_clusters()["ClusterSummaries"]]
        self.assertEqual({"Zeta", "alpha", "Bravo"}, set(by_time[:3]))
        self.assertEqual({"charlie-1", "charlie-2"}, set(by_time[3:]))

        # The plan filter: the paginator sends MaxResults, so each page holds the matching
        # clusters among that many; together they are exactly the clusters on the plan.
        pages = list(paginator.paginate(TrainingPlanArn=plan, SortBy="NAME",
                                        PaginationConfig={"PageSize": 2}))
        self.assertEqual([["alpha"], ["charlie-2"], []],
                         [[c["ClusterName"] for c in p["ClusterSummaries"]] for p in pages])
        self.assertEqual([[plan]] * 2,
                         [c["TrainingPlanArns"] for p in pages for c in p["ClusterSummaries"]])
        self.assertEqual(["alpha", "charlie-2"], [c["ClusterName"] for c in self.sm.list_clusters(
            TrainingPlanArn=plan, SortBy="NAME")["ClusterSummaries"]])
        full = paginator.paginate(TrainingPlanArn=plan,
                                  PaginationConfig={"PageSize": 1}).build_full_result()
        self.assertEqual(["alpha", "charlie-2"],
                         sorted(c["ClusterName"] for c in full["ClusterSummaries"]))

        # Nodes: 3 + 2 at one launch time, 2 more a minute later.
        self.create_cluster("big", [self.group("alpha", C5, 3), self.group("beta", M5, 2)])
        self.advance(CLUSTER_PROVISIONING)
        self.sm.update_cluster(ClusterName="big", InstanceGroups=[self.group("alpha", C5, 5)])
        self.advance(CLUSTER_PROVISIONING)
        node_paginator = self.sm.get_paginator("list_cluster_nodes")
        for sort_by in ("NAME", "CREATION_TIME"):
            for order in ("Ascending", "Descending"):
                whole = [n["InstanceId"] for n in
                         self.nodes("big", SortBy=sort_by, SortOrder=order, MaxResults=100)]
                self.assertEqual(7, len(set(whole)))
                if sort_by == "NAME":
                    self.assertEqual(sorted(whole, reverse=order == "Descending"), whole)
                for page_size in range(1, 5):
                    pages = list(node_paginator.paginate(
                        ClusterName="big", SortBy=sort_by, SortOrder=order,
                        PaginationConfig={"PageSize": page_size}))
                    got = [n["InstanceId"] for p in pages for n in p["ClusterNodeSummaries"]]
                    self.assertEqual(whole, got, (sort_by, order, page_size))
                    self.assertEqual(-(-7 // page_size), len(pages))
                    self.assertNotIn("NextToken", pages[-1])
        launches = [n["LaunchTime"] for n in self.nodes("big")]
        self.assertEqual(launches[:5], [launches[0]] * 5)
        self.assertEqual(launches[5:],
                         [launches[0] + datetime.timedelta(seconds=CLUSTER_PROVISIONING)] * 2)
        later = node_paginator.paginate(ClusterName="big", CreationTimeAfter=launches[0],
                                        PaginationConfig={"PageSize": 1}).build_full_result()
        self.assertEqual(["alpha", "alpha"],
                         [n["InstanceGroupName"] for n in later["ClusterNodeSummaries"]])
        beta = node_paginator.paginate(ClusterName="big", InstanceGroupNameContains="bet",
                                       PaginationConfig={"PageSize": 1}).build_full_result()
        self.assertEqual(["beta", "beta"],
                         [n["InstanceGroupName"] for n in beta["ClusterNodeSummaries"]])

    def test_refusals(self):
        missing = "Cluster nope not found."
        for call, extra in ((self.sm.describe_cluster, {}), (self.sm.delete_cluster, {}),
                            (self.sm.list_cluster_nodes, {}),
                            (self.sm.describe_cluster_node, {"NodeId": "i-0123456789abcdef0"}),
                            (self.sm.batch_delete_cluster_nodes, {"NodeIds": ["i-0123456789abcdef0"]}),
                            (self.sm.update_cluster, {"InstanceGroups": [self.group("g", C5, 1)]})):
            self.assert_client_error(call, "ResourceNotFound", missing, ClusterName="nope", **extra)
        self.create_cluster("taken", [self.group("g", C5, 1)])
        self.assert_client_error(self.sm.create_cluster, "ResourceInUse",
                                 "Cluster taken already exists.",
                                 ClusterName="taken", InstanceGroups=[self.group("g", C5, 1)])
        plan = self.buy_plan("hp-plan", count=1, start_days=0)
        self.clock_to(self.plan_day(0))  # the refusals concern an Active plan
        self.assert_client_error(
            self.sm.create_cluster, "ValidationException",
            "Instance type %s of instance group w does not match the instance type of training "
            "plan %s (%s)." % (M5, plan, P5),
            ClusterName="bad", InstanceGroups=[self.group("w", M5, 1, plan)])
        self.assert_client_error(
            self.sm.create_cluster, "ValidationException",
            "Requested instance count (2) of instance group w exceeds reserved capacity (1) for "
            "training plan %s." % plan, ClusterName="bad", InstanceGroups=[self.group("w", P5, 2, plan)])
        self.assertEqual(["taken"],
                         [c["ClusterName"] for c in self.sm.list_clusters()["ClusterSummaries"]])

    def test_quota_refusals_name_the_quota_and_change_nothing(self):
        cluster_quota = "%s for cluster usage" % M5
        endpoint_quota = "%s for endpoint usage" % M5
        self.set_quotas([{"name": cluster_quota, "value": 2}, {"name": endpoint_quota, "value": 1}])
        with self.assertRaises(ClientError) as ctx:
            self.sm.create_cluster(ClusterName="too-big", InstanceGroups=[self.group("g", M5, 3)])
        error = ctx.exception.response
        self.assertEqual("ResourceLimitExceeded", error["Error"]["Code"])
        self.assertEqual(quota_text(cluster_quota, 2, 0, 3), error["Error"]["Message"])
        self.assertEqual(400, error["ResponseMetadata"]["HTTPStatusCode"])
        self.assertEqual([], self.sm.list_clusters()["ClusterSummaries"])

        self.create_cluster("fits", [self.group("g", M5, 2)])
        self.advance(CLUSTER_PROVISIONING)
        self.assert_client_error(self.sm.update_cluster, "ResourceLimitExceeded",
                                 quota_text(cluster_quota, 2, 2, 1),
                                 ClusterName="fits", InstanceGroups=[self.group("g", M5, 3)])
        self.assertEqual([("g", 2, 2, "InService", None)], self.groups("fits"))

        self.sm.create_model(ModelName="llm", PrimaryContainer={"Image": "img:1"})
        self.sm.create_endpoint_config(EndpointConfigName="two", ProductionVariants=[{
            "VariantName": "AllTraffic", "ModelName": "llm", "InstanceType": M5,
            "InitialInstanceCount": 2}])
        self.assert_client_error(self.sm.create_endpoint, "ResourceLimitExceeded",
                                 quota_text(endpoint_quota, 1, 0, 2),
                                 EndpointName="two", EndpointConfigName="two")
        self.assertEqual([], self.sm.list_endpoints()["Endpoints"])

        status, _, body = http(self.server.url + "/_emulator/quotas?account=%s&region=%s"
                               % (ACCOUNT, REGION), method="GET")
        self.assertEqual(200, status, body)
        self.assertEqual([{"name": cluster_quota, "value": 2, "used": 2},
                          {"name": endpoint_quota, "value": 1, "used": 0}], body["quotas"])
        # /_emulator/reset returns to the server's starting table (none).
        http(self.server.url + "/_emulator/reset", b"{}", {"Content-Type": "application/json"})
        self.create_cluster("too-big", [self.group("g", M5, 3)])


def main():
    global BINARY
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        sys.stderr.write("usage: %s /path/to/sagemaker-emulator [unittest options]\n" % sys.argv[0])
        return 2
    BINARY = os.path.abspath(sys.argv[1])
    if not os.access(BINARY, os.X_OK):
        sys.stderr.write("error: %s is not executable\n" % BINARY)
        return 2
    sys.stderr.write("# boto3 %s, botocore %s (%s), AWS_DATA_PATH=%s\n"
                     % (boto3.__version__, botocore.__version__, os.path.dirname(botocore.__file__),
                        os.environ["AWS_DATA_PATH"]))
    program = unittest.main(argv=[sys.argv[0]] + sys.argv[2:], exit=False, verbosity=2)
    return 0 if program.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
