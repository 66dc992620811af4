#!/usr/bin/env python3
"""Seeds a running sagemaker-emulator through its AWS API (awsJson1_1 over HTTP, stdlib only).

    bench/seed.py URL --plans 1000 --endpoints 100 [--seed 1]

Creates `--plans` training plans (searches at random start times in the 8 weeks after the clock's
start, buying the offerings each search returns, with random durations and counts) and
`--endpoints` on-demand endpoints (a model, an endpoint config and an endpoint each, named
bench-model-N, bench-config-N, bench-endpoint-N). Plans are named bench-plan-N. The server should
run with a frozen clock and a capacity file with enough reservable instances (capacity_json()).
bench/run imports this module; the command line is for seeding by hand.
"""
import argparse
import http.client
import json
import random
import sys
import urllib.parse

ACCOUNT = "123456789012"
REGION = "us-east-1"
ZONES = ["us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d"]
PLAN_TYPE = "ml.p5.48xlarge"
# The quantities training plans are sold in that the seeded plans use (AWS sells 1, 2, 4 ... 64).
PLAN_COUNTS = (1, 2, 4)
ENDPOINT_TYPE = "ml.m5.xlarge"  # not in the capacity file: unlimited on-demand instances
CLOCK_START = "2027-01-01T00:00:00Z"
CLOCK_START_EPOCH = 1798761600  # CLOCK_START in seconds
DAY = 86400
AUTHORIZATION = (f"AWS4-HMAC-SHA256 Credential={ACCOUNT}/20261129/{REGION}/sagemaker/aws4_request, "
                 "SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=" + "0" * 64)


def capacity_json(plans):
    """A capacity file with four zones of PLAN_TYPE, roomy enough for `plans` random plans."""
    reservable = max(64, plans // 8)  # the plans start within 56 days: room for them all
    return json.dumps({
        "regions": {REGION: {zone: {PLAN_TYPE: {"reservable": reservable, "on_demand": 0}}
                             for zone in ZONES}},
        "prices": {PLAN_TYPE: {"on_demand_hourly": 98.32, "plan_hourly": 55.0}},
    })


class Client:
    """One keep-alive connection; call(op, body) returns the decoded answer or raises."""

    def __init__(self, url, account=ACCOUNT, region=REGION):
        parsed = urllib.parse.urlparse(url)
        self.host, self.port = parsed.hostname, parsed.port
        self.connection = http.client.HTTPConnection(self.host, self.port, timeout=60)
        self.authorization = AUTHORIZATION.replace(ACCOUNT, account).replace(REGION, region)

    def call(self, operation, body, service="SageMaker"):
        headers = {"Content-Type": "application/x-amz-json-1.1",
                   "X-Amz-Target": f"{service}.{operation}",
                   "X-Amz-Date": "20261129T120000Z", "Authorization": self.authorization}
        self.connection.request("POST", "/", json.dumps(body), headers)
        response = self.connection.getresponse()
        data = response.read()
        if response.status != 200:
            raise RuntimeError(f"{operation} answered {response.status}: {data[:300]!r}")
        return json.loads(data) if data else {}

    def admin(self, method, path, body=None):
        self.connection.request(method, path, json.dumps(body) if body is not None else None)
        response = self.connection.getresponse()
        data = response.read()
        if response.status != 200:
            raise RuntimeError(f"{method} {path} answered {response.status}: {data[:300]!r}")
        return json.loads(data)


def create_endpoint(client, index, instance_type=ENDPOINT_TYPE):
    model, config, endpoint = (f"bench-model-{index}", f"bench-config-{index}",
                               f"bench-endpoint-{index}")
    client.call("CreateModel", {
        "ModelName": model, "ExecutionRoleArn": f"arn:aws:iam::{ACCOUNT}:role/bench",
        "PrimaryContainer": {"Image": f"{ACCOUNT}.dkr.ecr.{REGION}.amazonaws.com/bench:1"}})
    client.call("CreateEndpointConfig", {
        "EndpointConfigName": config,
        "ProductionVariants": [{"VariantName": "AllTraffic", "ModelName": model,
                                "InstanceType": instance_type, "InitialInstanceCount": 1}]})
    client.call("CreateEndpoint", {"EndpointName": endpoint, "EndpointConfigName": config})


def seed_endpoints(client, count):
    for index in range(count):
        create_endpoint(client, index)
    status = client.call("DescribeEndpoint", {"EndpointName": "bench-endpoint-0"})["EndpointStatus"]
    if count and status != "InService":
        raise RuntimeError(f"bench-endpoint-0 is {status}, not InService")


def seed_plans(client, count, seed=1, first=0):
    """Buys `count` plans named bench-plan-<first>...; returns the number of searches made."""
    rng = random.Random(seed)
    bought = searches = misses = 0
    while bought < count:
        days = rng.randint(1, 14)
        # Plans start at most 56 days ahead, as AWS sells them.
        start = CLOCK_START_EPOCH + rng.randrange(55 * 24) * 3600
        searches += 1
        offerings = client.call("SearchTrainingPlanOfferings", {
            "InstanceType": PLAN_TYPE, "InstanceCount": rng.choice(PLAN_COUNTS),
            "DurationHours": days * 24, "StartTimeAfter": start,
            "EndTimeBefore": start + (days + 28) * DAY,
            "TargetResources": [rng.choice(["training-job", "endpoint"])]})["TrainingPlanOfferings"]
        if not offerings:
            misses += 1
            if misses > 1000 + count:
                raise RuntimeError("searches keep finding no capacity; raise reservable")
            continue
        # Buy the first: the others may overlap it in the same zone.
        client.call("CreateTrainingPlan", {
            "TrainingPlanName": f"bench-plan-{first + bought}",
            "TrainingPlanOfferingId": offerings[0]["TrainingPlanOfferingId"]})
        bought += 1
    return searches


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("--plans", type=int, default=1000)
    parser.add_argument("--endpoints", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--print-capacity", action="store_true",
                        help="print the capacity file for --plans and exit")
    args = parser.parse_args()
    if args.print_capacity:
        print(capacity_json(args.plans))
        return 0
    client = Client(args.url)
    seed_endpoints(client, args.endpoints)
    seed_plans(client, args.plans, args.seed)
    return 0


if __name__ == "__main__":
    sys.exit(main())
