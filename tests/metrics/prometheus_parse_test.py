#!/usr/bin/python3
"""GET /_emulator/metrics read by the Prometheus Python client's own text parser (Debian's
python3-prometheus-client), against the real binary: every family parses, with the types and
values the requests made before it imply.

Usage: prometheus_parse_test.py /path/to/sagemaker-emulator
"""
import json
import subprocess
import sys
import unittest
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

BINARY = sys.argv.pop(1) if len(sys.argv) > 1 else "build/sagemaker-emulator"


class PrometheusParserTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = subprocess.Popen(
            [BINARY, "--port", "0", "--db", ":memory:", "--log-level", "warn",
             "--clock-start", "2027-01-25T00:00:00Z", "--frozen-clock", "--check-responses"],
            stdout=subprocess.PIPE, text=True)
        line = cls.server.stdout.readline()
        cls.url = line.rsplit(" ", 1)[-1].strip()
        if not cls.url.startswith("http://"):
            cls.server.kill()
            raise RuntimeError("the server did not start: " + line)

    @classmethod
    def tearDownClass(cls):
        cls.server.terminate()
        cls.server.wait(10)

    def call(self, operation, body):
        request = urllib.request.Request(
            self.url + "/", data=json.dumps(body).encode(), method="POST",
            headers={"X-Amz-Target": "SageMaker." + operation,
                     "Content-Type": "application/x-amz-json-1.1"})
        try:
            with urllib.request.urlopen(request) as response:
                return response.status
        except urllib.error.HTTPError as error:
            return error.code

    def scrape(self):
        with urllib.request.urlopen(self.url + "/_emulator/metrics") as response:
            self.assertEqual(response.headers["Content-Type"],
                             "text/plain; version=0.0.4; charset=utf-8")
            return {family.name: family
                    for family in text_string_to_metric_families(response.read().decode())}

    def test_every_family_parses_with_its_type_and_values(self):
        self.assertEqual(self.call("CreateModel", {"ModelName": "parsed"}), 200)
        self.assertEqual(self.call("DescribeModel", {"ModelName": "missing"}), 400)
        families = self.scrape()
        # The parser drops a counter's _total suffix from the family name.
        requests = families["sagemaker_emulator_requests"]
        self.assertEqual(requests.type, "counter")
        counts = {(s.labels["operation"], s.labels["status"]): s.value for s in requests.samples}
        self.assertEqual(counts[("CreateModel", "200")], 1)
        self.assertEqual(counts[("DescribeModel", "400")], 1)

        latency = families["sagemaker_emulator_request_duration_seconds"]
        self.assertEqual(latency.type, "histogram")
        buckets = [s for s in latency.samples
                   if s.name.endswith("_bucket") and s.labels["operation"] == "CreateModel"]
        self.assertEqual(buckets[-1].labels["le"], "+Inf")
        self.assertEqual(buckets[-1].value, 1)
        self.assertEqual([b.value for b in buckets], sorted(b.value for b in buckets))

        resources = families["sagemaker_emulator_resources"]
        self.assertEqual(resources.type, "gauge")
        self.assertIn(({"kind": "model", "status": ""}, 1.0),
                      [(s.labels, s.value) for s in resources.samples])
        for name in ("pool_instances", "reserved_instances", "instances_in_use",
                     "virtual_clock_seconds"):
            self.assertEqual(families["sagemaker_emulator_" + name].type, "gauge", name)
        pools = families["sagemaker_emulator_pool_instances"].samples
        self.assertTrue(any(s.labels["kind"] == "reservable" and s.value > 0 for s in pools))
        self.assertEqual(families["sagemaker_emulator_virtual_clock_seconds"].samples[0].value,
                         1800835200)

    def test_quota_gauges_parse_with_their_names_as_labels(self):
        body = json.dumps({"quotas": [
            {"name": "ml.m5.xlarge for cluster usage", "value": 3},
            {"name": "Maximum number instances allowed per SageMaker HyperPod cluster",
             "value": 20}]}).encode()
        request = urllib.request.Request(self.url + "/_emulator/quotas", data=body, method="POST")
        with urllib.request.urlopen(request) as response:
            self.assertEqual(response.status, 200)
        cluster = {"ClusterName": "parsed", "InstanceGroups": [{
            "InstanceGroupName": "g", "InstanceType": "ml.m5.xlarge", "InstanceCount": 2,
            "ExecutionRole": "arn:aws:iam::000000000000:role/r"}]}
        self.assertEqual(self.call("CreateCluster", cluster), 200)
        families = self.scrape()
        for family in ("quota_limit", "quota_used"):
            self.assertEqual(families["sagemaker_emulator_" + family].type, "gauge", family)
        def by_name(family):
            return {s.labels["name"]: s.value
                    for s in families["sagemaker_emulator_" + family].samples}
        self.assertEqual(by_name("quota_limit"), {
            "ml.m5.xlarge for cluster usage": 3,
            "Maximum number instances allowed per SageMaker HyperPod cluster": 20})
        self.assertEqual(by_name("quota_used"), {
            "ml.m5.xlarge for cluster usage": 2,
            "Maximum number instances allowed per SageMaker HyperPod cluster": 2})
        in_use = families["sagemaker_emulator_instances_in_use"].samples
        self.assertTrue(any(s.labels.get("holder") == "cluster" and s.value == 2 for s in in_use),
                        in_use)

    def test_on_demand_cost_gauges_parse_with_the_ledgers_figures(self):
        # One on-demand ml.trn1.32xlarge (24.72 an hour in the default capacity) for two hours.
        self.assertEqual(self.call("CreateModel", {"ModelName": "costed"}), 200)
        self.assertEqual(self.call("CreateEndpointConfig", {
            "EndpointConfigName": "costed", "ProductionVariants": [{
                "VariantName": "AllTraffic", "ModelName": "costed",
                "InstanceType": "ml.trn1.32xlarge", "InitialInstanceCount": 1}]}), 200)
        self.assertEqual(self.call("CreateEndpoint", {"EndpointName": "costed",
                                                      "EndpointConfigName": "costed"}), 200)
        request = urllib.request.Request(self.url + "/_emulator/clock", method="POST",
                                         data=json.dumps({"advance_seconds": 7200}).encode())
        with urllib.request.urlopen(request) as response:
            self.assertEqual(response.status, 200)
        families = self.scrape()
        for family in ("cost_dollars", "instance_hours", "on_demand_equivalent_dollars"):
            self.assertEqual(families["sagemaker_emulator_" + family].type, "gauge", family)
        def trn1(family):
            return {s.labels.get("source", s.labels.get("use", "")): s.value
                    for s in families["sagemaker_emulator_" + family].samples
                    if s.labels["instance_type"] == "ml.trn1.32xlarge"}
        self.assertEqual(trn1("cost_dollars"), {"training_plan": 0, "on_demand": 49.44})
        self.assertEqual(trn1("instance_hours"),
                         {"reserved": 0, "used_on_plan": 0, "on_demand": 2})
        self.assertEqual(trn1("on_demand_equivalent_dollars"), {"": 49.44})
        with urllib.request.urlopen(self.url + "/_emulator/costs") as response:
            totals = json.load(response)["totals"]["by_instance_type"]
        self.assertIn({"instance_type": "ml.trn1.32xlarge", "on_demand_cost": 49.44},
                      [{k: t[k] for k in ("instance_type", "on_demand_cost")} for t in totals])


if __name__ == "__main__":
    unittest.main()
