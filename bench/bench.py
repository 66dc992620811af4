#!/usr/bin/env python3
"""The benchmark suite behind bench/run (stdlib only). Prints one table.

    bench/bench.py [--smoke] [--only SECTIONS] [--max-plans N] [--json FILE | --from-json FILE]

Sections (all by default; --only takes a comma-separated subset):
  http     wrk against the emulator (awsJson1_1 and the runtime), nginx as the ceiling and
           moto_server when installed, at 1 and 64 keep-alive connections, medians of 3 runs;
           then CreateModel (durable writes) alone, and DescribeEndpoint at 64 connections while
           a second wrk sends CreateModel on 8 connections (the writers' numbers shown too)
  reads    every read operation the server serves (each Describe*, each List* with MaxResults
           100, ListTags, SearchTrainingPlanOfferings), with wrk against a database of 10,000
           plans, 1,000 endpoints, 1,000 jobs and 10 clusters, at 1 and 64 connections, 5 s per
           point, medians of 3, nginx measured in the same section; as ratios to nginx and to
           DescribeEndpoint
  growth   the same reads at 1 connection, 3 s per point, medians of 3, with 1,000, 10,000 and
           100,000 plans (endpoints and jobs a tenth of the plans each): req/s per size and the
           growth of the time per request per tenfold size
  startup  time from process start to the first 200 on /_emulator/health, empty and loaded db
  dashboard GET /_emulator/state and GET /_emulator/costs (all time) against the reads' database,
           the clock moved before each so nothing is served from an earlier answer, median of 11
  memory   VmRSS idle, after the HTTP load, and with 1k..1M plans (a tenth as many endpoints
           and jobs)
  micro    the Google Benchmark micro-benchmarks (build/micro_bench), as ratios to a baseline

Every wrk point is preceded by the same request sent once, which must answer 200; the table shows
each point's errors (non-2xx answers, socket errors, timeouts) and the run exits with status 1,
after the table, when a request did not answer 200.

--smoke runs every section for about a second per point with one repetition and small databases
(sizes divided by 100; the reads and growth points run four at a time), so CI can check the whole
script quickly; its numbers are not results. --max-plans caps the databases of the growth and
memory sections (100000 skips the 1M-plan one). Databases are written by build/seed_db and kept in
build/bench-cache/. Expects build/ (or $BUILD_DIR) to hold sagemaker-emulator, seed_db and
micro_bench (bench/run builds them).
"""
import argparse
import atexit
import concurrent.futures
import datetime
import hashlib
import http.client
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seed  # noqa: E402  (bench/seed.py)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, os.environ.get("BUILD_DIR", "build"))  # as in scripts/build
BINARY = os.path.join(BUILD, "sagemaker-emulator")

# What the emulator answers in the ceiling's place: a fixed JSON body of about 300 bytes.
CEILING_BODY = json.dumps({
    "EndpointName": "bench-endpoint-0",
    "EndpointArn": "arn:aws:sagemaker:us-east-1:123456789012:endpoint/bench-endpoint-0",
    "EndpointConfigName": "bench-config-0",
    "ProductionVariants": [{"VariantName": "AllTraffic", "CurrentWeight": 1.0,
                            "CurrentInstanceCount": 1, "DesiredInstanceCount": 1}],
    "EndpointStatus": "InService", "CreationTime": 1798761600, "LastModifiedTime": 1798761600},
    separators=(",", ":"))

SEARCH_BODY = json.dumps({
    "InstanceType": seed.PLAN_TYPE, "InstanceCount": 2, "DurationHours": 168,
    "StartTimeAfter": seed.CLOCK_START_EPOCH + 30 * seed.DAY, "TargetResources": ["training-job"]})

# (label, wrk script, script arguments); CreateModel gets a fresh name prefix per run.
HTTP_POINTS = [
    ("DescribeEndpoint", "request.lua", ["json", "DescribeEndpoint",
                                         '{"EndpointName":"bench-endpoint-0"}']),
    ("ListEndpoints (100, MaxResults 100)", "request.lua", ["json", "ListEndpoints",
                                                            '{"MaxResults":100}']),
    ("DescribeTrainingPlan", "request.lua", ["json", "DescribeTrainingPlan",
                                             '{"TrainingPlanName":"bench-plan-0"}']),
    ("SearchTrainingPlanOfferings (1k plans)", "request.lua",
     ["json", "SearchTrainingPlanOfferings", SEARCH_BODY]),
    ("InvokeEndpoint 1 KiB (echo)", "request.lua", ["invoke", "bench-endpoint-0", "1024"]),
]
CONNECTIONS = [1, 64]
# Reads under a write load: DescribeEndpoint at 64 connections while CreateModel runs beside it.
WRITERS = 8
LOADED_READ = f"DescribeEndpoint under {WRITERS} durable writers"
BESIDE_READS = f"CreateModel c={WRITERS} beside the reads"


def log(message):
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def http_status(port, path="/_emulator/health", timeout=1.0):
    """Status of one GET over a fresh connection, or None when nothing answers yet."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                      .encode())
            head = s.recv(64)
            return int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/1.1 ") else None
    except OSError:
        return None


# Every child still running: killed when bench.py exits, so a section that fails before it stops
# its servers (a refused seeding request, say) leaves none behind.
RUNNING = set()


@atexit.register
def kill_running():
    for popen in list(RUNNING):
        if popen.poll() is None:
            popen.kill()
            popen.wait()


class Process:
    """A child process listening on `port`; stopped with SIGTERM (SIGKILL after 10 s)."""

    def __init__(self, argv, port, ready_path="/_emulator/health", cwd=None, timeout=60):
        self.port = port
        self.argv = argv
        # Logs go to a file: a pipe nobody reads would block the server once it filled up.
        self.log = tempfile.TemporaryFile()
        self.popen = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=self.log,
                                      cwd=cwd, start_new_session=True)
        RUNNING.add(self.popen)
        deadline = time.monotonic() + timeout
        while http_status(port, ready_path) is None:
            if self.popen.poll() is not None:
                self.log.seek(0)
                raise RuntimeError(f"{argv[0]} exited: {self.log.read().decode()[-2000:]}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"{argv[0]} did not answer on port {port}")
            time.sleep(0.02)

    @property
    def pid(self):
        return self.popen.pid

    def rss_kib(self):
        return rss_kib(self.pid)

    def stop(self):
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()
        RUNNING.discard(self.popen)
        self.log.seek(0)
        failed = [line for line in self.log.read().decode(errors="replace").splitlines()
                  if "response check failed" in line]
        self.log.close()
        if failed:  # --check-responses (smoke runs) logged an answer that departs from the model
            raise RuntimeError("the server's answers departed from the model:\n" +
                               "\n".join(failed[:10]))


# Smoke runs check correctness, not speed: their servers check every answer against the model.
CHECK_RESPONSES = []


def emulator(db, capacity=None, extra=()):
    port = free_port()
    argv = [BINARY, "--port", str(port), "--db", db, "--log-level", "warn",
            "--clock-start", seed.CLOCK_START, "--frozen-clock", *CHECK_RESPONSES, *extra]
    if capacity:
        argv += ["--capacity", capacity]
    return Process(argv, port)


def write_capacity(work, plans):
    path = os.path.join(work, f"capacity-{plans}.json")
    with open(path, "w") as f:
        f.write(seed.capacity_json(plans))
    return path


def wrk_command(port, script, args, connections, seconds):
    """The wrk command line of one point; run from ROOT (the scripts dofile bench/wrk/...)."""
    return ["wrk", "-t", str(min(2, connections)), "-c", str(connections), "-d", f"{seconds}s",
            "--timeout", "5s", "-s", os.path.join("bench", "wrk", script),
            f"http://127.0.0.1:{port}/", "--", *args]


def run_wrk(port, script, args, connections, seconds):
    out = subprocess.run(wrk_command(port, script, args, connections, seconds), cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    return wrk_result(out)


def wrk_result(out):
    """The BENCH_RESULT line of wrk's output (bench/wrk/report.lua), with the errors added up."""
    for line in out.splitlines():
        if line.startswith("BENCH_RESULT "):
            result = json.loads(line[len("BENCH_RESULT "):])
            result["errors"] = sum(result[k] for k in ("connect_errors", "read_errors",
                                                       "write_errors", "status_errors", "timeouts"))
            return result
    raise RuntimeError(f"wrk printed no result: {out[-2000:]}")


def median_of(runs):
    """Medians over repetitions of req/s, p50 and p99 (and the error totals: all errors, and the
    non-2xx answers among them)."""
    return {"rps": statistics.median(r["rps"] for r in runs),
            "p50_us": statistics.median(r["p50_us"] for r in runs),
            "p99_us": statistics.median(r["p99_us"] for r in runs),
            "errors": sum(r["errors"] for r in runs),
            "status_errors": sum(r["status_errors"] for r in runs), "runs": len(runs)}


def check_request(port, script, args):
    """Sends once the request a request.lua point sends again and again; raises unless it answers
    200. Returns the decoded answer (None for the runtime and the ceiling)."""
    if script != "request.lua" or args[0] == "plain":
        return None
    if args[0] == "json":
        client = seed.Client(f"http://127.0.0.1:{port}")
        try:
            return client.call(args[1], json.loads(args[2]))
        finally:
            client.connection.close()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)  # invoke
    try:
        body = '{"data":"' + "x" * (int(args[2]) - 11) + '"}'
        connection.request("POST", f"/endpoints/{args[1]}/invocations", body, {
            "Content-Type": "application/json", "Accept": "application/json",
            "X-Amz-Date": "20261129T120000Z", "Authorization": seed.AUTHORIZATION})
        response = connection.getresponse()
        data = response.read()
        if response.status != 200:
            raise RuntimeError(f"InvokeEndpoint answered {response.status}: {data[:300]!r}")
        return None
    finally:
        connection.close()


def fail(report, message):
    """Records a failure: printed after the table, and the run exits with status 1."""
    log(f"FAILED: {message}")
    report.setdefault("failures", []).append(message)


def status_failures(report, section, points):
    """Fails the run for each point of `points` ({key: median_of(...)}) with non-2xx answers."""
    for key, m in points.items():
        if m.get("status_errors"):
            fail(report, f"{section} {key.replace('|', ' c=')}: {m['status_errors']} answers "
                         f"were not 2xx")


# ------------------------------------------------------------------------------------------ http
NGINX_CONF = """daemon off;
master_process on;
worker_processes {workers};
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  client_body_temp_path {dir}/body;
  proxy_temp_path {dir}/proxy;
  fastcgi_temp_path {dir}/fastcgi;
  uwsgi_temp_path {dir}/uwsgi;
  scgi_temp_path {dir}/scgi;
  keepalive_requests 1000000;
  server {{
    listen 127.0.0.1:{port};
    location = /_emulator/health {{ return 200 'ok'; }}
    location = / {{
      default_type application/x-amz-json-1.1;
      return 200 '{body}';
    }}
  }}
}}
"""


def start_nginx(work, workers, name="nginx"):
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    directory = os.path.join(work, name)
    os.makedirs(directory, exist_ok=True)
    port = free_port()
    conf = os.path.join(directory, "nginx.conf")
    with open(conf, "w") as f:
        f.write(NGINX_CONF.format(workers=workers, dir=directory, port=port, body=CEILING_BODY))
    return Process([nginx, "-p", directory, "-c", conf], port)


def start_moto(work):
    moto = shutil.which("moto_server")
    if moto is None:
        return None
    port = free_port()
    process = Process([moto, "-H", "127.0.0.1", "-p", str(port)], port, ready_path="/",
                      cwd=work, timeout=120)
    client = seed.Client(f"http://127.0.0.1:{port}")
    seed.create_endpoint(client, 0)  # moto needs the model and the config before the endpoint
    client.call("DescribeEndpoint", {"EndpointName": "bench-endpoint-0"})
    return process


def http_section(work, args, report):
    seconds, repetitions = (1, 1) if args.smoke else (10, 3)
    workers = os.cpu_count() or 1
    capacity = write_capacity(work, 1000)
    server = emulator(os.path.join(work, "load.db"), capacity)
    report["rss_idle_kib"] = server.rss_kib()
    log(f"seeding 100 endpoints and 1,000 plans over HTTP (pid {server.pid})")
    started = time.monotonic()
    client = seed.Client(f"http://127.0.0.1:{server.port}")
    seed.seed_endpoints(client, 100)
    seed.seed_plans(client, 1000)
    report["seed_seconds"] = time.monotonic() - started
    # The ceiling is the better of nginx with one worker and with one per core, at each number of
    # connections: on two shared cores one worker can win at one connection.
    nginx_counts = sorted({1, workers})
    nginxes = {nginx_label(count): start_nginx(work, count, f"nginx-{count}")
               for count in nginx_counts}
    report["nginx_workers"] = nginx_counts
    moto = None
    try:
        moto = start_moto(work)
    except Exception as error:  # moto is optional: report why it is missing and go on
        report["moto_error"] = str(error)
        log(f"moto skipped: {error}")
    runs = {}
    failed = set()

    def measure(label, port, script, script_args, connections):
        if label in failed:
            return
        try:
            check_request(port, script, script_args)
        except Exception as error:  # a point that does not answer 200 is not measured
            failed.add(label)
            fail(report, f"http {label}: {error}")
            return
        log(f"wrk {label} c={connections}")
        runs.setdefault((label, connections), []).append(
            run_wrk(port, script, script_args, connections, seconds))

    try:
        # Repetitions interleave the targets so a burst of machine noise hits all of them alike.
        for repetition in range(repetitions):
            for connections in CONNECTIONS:
                for label, nginx in nginxes.items():
                    measure(label, nginx.port, "request.lua", ["plain"], connections)
                for label, script, script_args in HTTP_POINTS:
                    measure(label, server.port, script, script_args, connections)
                if moto:
                    measure("moto DescribeEndpoint", moto.port, "request.lua",
                            HTTP_POINTS[0][2], connections)
        # Writes last, so the reads above see exactly the seeded state.
        for repetition in range(repetitions):
            for connections in CONNECTIONS:
                measure("CreateModel (durable write)", server.port, "create_model.lua",
                        [f"cm{repetition}c{connections}"], connections)
        # Reads under a write load: readers must not queue behind the writers' commits and
        # fsyncs. The writers start first and run 2 s longer, so every read of the point has
        # writes beside it; "DescribeEndpoint|64" above is the same point idle.
        for repetition in range(repetitions):
            log(f"wrk {BESIDE_READS} (in the background)")
            writers = subprocess.Popen(
                wrk_command(server.port, "create_model.lua", [f"cw{repetition}"], WRITERS,
                            seconds + 2), cwd=ROOT, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True)
            RUNNING.add(writers)
            try:
                time.sleep(0.5)  # until the writers' connections are up and sending
                measure(LOADED_READ, server.port, "request.lua", HTTP_POINTS[0][2], 64)
                out, err = writers.communicate(timeout=seconds + 60)
            finally:
                if writers.poll() is None:  # the reads failed: stop the writers with them
                    writers.kill()
                    writers.communicate()
                RUNNING.discard(writers)
            if writers.returncode != 0:
                raise RuntimeError(f"wrk {BESIDE_READS} exited with {writers.returncode}: "
                                   f"{err[-2000:]}")
            runs.setdefault((BESIDE_READS, WRITERS), []).append(wrk_result(out))
        report["rss_after_load_kib"] = server.rss_kib()
    finally:
        for nginx in nginxes.values():
            nginx.stop()
        if moto:
            moto.stop()
        server.stop()
    report["http"] = {f"{label}|{c}": median_of(r) for (label, c), r in runs.items()}
    status_failures(report, "http", report["http"])
    report["ceilings"] = {}  # by the number of connections, as text (the report is JSON)
    for connections in CONNECTIONS:
        measured = [report["http"][f"{label}|{connections}"] for label in nginxes
                    if f"{label}|{connections}" in report["http"]]
        if measured:
            report["ceilings"][str(connections)] = max(measured, key=lambda m: m["rps"])


def nginx_label(workers):
    return f"nginx, {workers} worker{'s' if workers > 1 else ''}"


# ---------------------------------------------------------------------------------- reads/growth
READS_PLANS, READS_PLANS_SMOKE = 10000, 100  # the reads' (and start-up's) database: shape(N)
GROWTH_PLANS, GROWTH_PLANS_SMOKE = [1000, 10000, 100000], [10, 100, 1000]
GROWTH_LIMIT = 2.0  # time per request may grow by at most x2 per tenfold size: logarithmic
SMOKE_PARALLEL = 4  # smoke runs measure this many reads points at once (numbers are not results)
DESCRIBE, LIST, SEARCH = "describe", "list", "search"


def api_operations():
    """The operations the server serves, as (service, operation), from scripts/api-operations.txt
    (scripts/make-api-subset.py copies exactly these into api/)."""
    operations = []
    with open(os.path.join(ROOT, "scripts", "api-operations.txt")) as f:
        for line in f:
            fields = line.split()
            if len(fields) == 2 and not line.startswith("#"):
                operations.append((fields[0], fields[1]))
    return operations


def is_read(operation):
    return operation.startswith(("Describe", "List", "Search", "Get"))


def read_points(port):
    """The requests of the reads and growth sections: (label, kind, operation, body JSON). The
    plan's and endpoint's ARNs, the plan's reserved capacity and a cluster node's id are looked up
    on the server first; a lookup that fails leaves a value that fails the point's own check."""
    client = seed.Client(f"http://127.0.0.1:{port}")

    def lookup(operation, body, find):
        try:
            return find(client.call(operation, body))
        except Exception as error:
            log(f"lookup {operation} failed: {error}")
            return "lookup-failed"

    try:
        plan_arn = lookup("DescribeTrainingPlan", {"TrainingPlanName": "bench-plan-0"},
                          lambda a: a["TrainingPlanArn"])
        capacity_arn = lookup("DescribeTrainingPlan", {"TrainingPlanName": "bench-plan-0"},
                              lambda a: a["ReservedCapacitySummaries"][0]["ReservedCapacityArn"])
        # A plan with an extension to list: the seeder extends the first ten plans that end within
        # 57 days (the only ones AWS lets be extended).
        extended_arn = plan_arn
        for number in range(1000):
            arn = lookup("DescribeTrainingPlan", {"TrainingPlanName": f"bench-plan-{number}"},
                         lambda a: a["TrainingPlanArn"])
            if arn == "lookup-failed":
                break
            if lookup("DescribeTrainingPlanExtensionHistory", {"TrainingPlanArn": arn},
                      lambda a: a["TrainingPlanExtensions"]) not in ("lookup-failed", []):
                extended_arn = arn
                break
        endpoint_arn = lookup("DescribeEndpoint", {"EndpointName": "bench-endpoint-0"},
                              lambda a: a["EndpointArn"])
        node_id = lookup("ListClusterNodes", {"ClusterName": "bench-cluster-0", "MaxResults": 1},
                         lambda a: a["ClusterNodeSummaries"][0]["InstanceId"])
    finally:
        client.connection.close()
    page = {"MaxResults": 100}
    points = [
        ("DescribeEndpoint", DESCRIBE, {"EndpointName": "bench-endpoint-0"}),
        ("DescribeEndpointConfig", DESCRIBE, {"EndpointConfigName": "bench-config-0"}),
        ("DescribeModel", DESCRIBE, {"ModelName": "bench-model-0"}),
        ("DescribeTrainingPlan", DESCRIBE, {"TrainingPlanName": "bench-plan-0"}),
        ("DescribeReservedCapacity", DESCRIBE, {"ReservedCapacityArn": capacity_arn}),
        ("DescribeTrainingPlanExtensionHistory", DESCRIBE, {"TrainingPlanArn": extended_arn}),
        ("DescribeTrainingJob", DESCRIBE, {"TrainingJobName": "bench-training-job-0"}),
        ("DescribeProcessingJob", DESCRIBE, {"ProcessingJobName": "bench-processing-job-0"}),
        ("DescribeCluster", DESCRIBE, {"ClusterName": "bench-cluster-0"}),
        ("DescribeClusterNode", DESCRIBE, {"ClusterName": "bench-cluster-0", "NodeId": node_id}),
        ("ListEndpoints", LIST, page),
        ("ListEndpoints NameContains", LIST, {**page, "NameContains": "endpoint-1"}),
        ("ListEndpointConfigs", LIST, page),
        ("ListModels", LIST, page),
        ("ListTrainingPlans", LIST, page),
        ("ListTrainingJobs", LIST, page),
        ("ListTrainingJobs StatusEquals", LIST, {**page, "StatusEquals": "Completed"}),
        ("ListProcessingJobs", LIST, page),
        ("ListClusters", LIST, page),
        ("ListClusterNodes", LIST, {"ClusterName": "bench-cluster-0", **page}),
        ("ListTags (endpoint ARN)", LIST, {"ResourceArn": endpoint_arn, **page}),
        ("SearchTrainingPlanOfferings", SEARCH, json.loads(SEARCH_BODY)),
    ]
    return [(label, kind, label.split(" ", 1)[0], json.dumps(body, separators=(",", ":")))
            for label, kind, body in points]


def unmeasured_reads(points):
    """The read operations the server serves that `points` do not measure, with why."""
    measured = {operation for _, _, operation, _ in points}
    missing = []
    for service, operation in api_operations():
        if operation in measured or not (is_read(operation) or service.endswith("runtime")):
            continue
        if operation == "InvokeEndpoint":
            missing.append(f"{operation} (the runtime: measured in the http section, 1 KiB echo)")
        else:
            missing.append(f"{operation} (no request for it in bench.py read_points())")
    return missing


def items_of(answer):
    """The number of entries in a List answer (its one list member), or None."""
    lists = [v for v in (answer or {}).values() if isinstance(v, list)]
    return len(lists[0]) if len(lists) == 1 else None


def measure_points(report, section, port, points, connections, seconds, parallel, runs, checks):
    """Measures each (label, kind, operation, body) at `connections` with wrk after checking that
    the request answers 200 (the first answer's item count goes to checks[label]); a point that
    does not answer 200 is recorded as failed and not measured. `parallel` > 1 runs that many wrk
    points at once (smoke runs only)."""
    ready = []
    for label, kind, operation, body in points:
        if checks.get(label) == "failed":
            continue
        try:
            answer = check_request(port, "request.lua", ["json", operation, body])
            checks.setdefault(label, items_of(answer))
            ready.append((label, operation, body))
        except Exception as error:
            checks[label] = "failed"
            fail(report, f"{section} {label}: {error}")

    def one(point):
        label, operation, body = point
        log(f"wrk {section} {label} c={connections}")
        return label, run_wrk(port, "request.lua", ["json", operation, body], connections, seconds)

    with concurrent.futures.ThreadPoolExecutor(max_workers=parallel) as pool:
        for label, result in pool.map(one, ready):
            runs.setdefault(f"{label}|{connections}", []).append(result)


def reads_section(work, args, report):
    seconds, repetitions = (1, 1) if args.smoke else (5, 3)
    parallel = SMOKE_PARALLEL if args.smoke else 1
    db_shape = shape(READS_PLANS_SMOKE if args.smoke else READS_PLANS)
    db, capacity = seeded_db(work, db_shape, report)
    server = emulator(db, capacity)
    nginx = start_nginx(work, os.cpu_count() or 1)
    runs, checks = {}, {}
    try:
        points = read_points(server.port)
        # Repetitions interleave the points so a burst of machine noise hits all of them alike.
        for repetition in range(repetitions):
            for connections in CONNECTIONS:
                log(f"wrk reads nginx ceiling c={connections}")
                runs.setdefault(f"nginx ceiling|{connections}", []).append(
                    run_wrk(nginx.port, "request.lua", ["plain"], connections, seconds))
                measure_points(report, "reads", server.port, points, connections, seconds,
                               parallel, runs, checks)
    finally:
        nginx.stop()
        server.stop()
    medians = {key: median_of(r) for key, r in runs.items()}
    status_failures(report, "reads", medians)
    report["reads"] = {
        "shape": db_shape, "seconds": seconds, "runs": repetitions, "parallel": parallel,
        "points": [[label, kind, checks.get(label)] for label, kind, _, _ in points],
        "results": medians, "unmeasured": unmeasured_reads(points)}


def growth_section(work, args, report):
    # Three runs, not one: a single 3-second point per size moved by more than x2 between runs
    # on the project's two shared cores (ListModels 10,000 -> 100,000 plans: x2.57, x1.16, x2.37
    # in three runs of one day, x1.3-x1.5 by hand).
    seconds, repetitions = (1, 1) if args.smoke else (3, 3)
    parallel = SMOKE_PARALLEL if args.smoke else 1
    sizes = [n for n in (GROWTH_PLANS_SMOKE if args.smoke else GROWTH_PLANS)
             if n <= args.max_plans]
    results, points = {}, []
    for plans in sizes:
        db, capacity = seeded_db(work, shape(plans), report)
        server = emulator(db, capacity)
        runs, checks = {}, {}
        try:
            points = read_points(server.port)
            # Repetitions interleave the points, as in the reads section.
            for _ in range(repetitions):
                measure_points(report, f"growth {plans:,} plans", server.port, points, 1,
                               seconds, parallel, runs, checks)
        finally:
            server.stop()
        medians = {key: median_of(r) for key, r in runs.items()}
        status_failures(report, f"growth {plans:,} plans", medians)
        results[str(plans)] = {key.rsplit("|", 1)[0]: m for key, m in medians.items()}
        for label, result in results[str(plans)].items():
            result["items"] = checks.get(label)  # entries in the answer, for a List
    report["growth"] = {"sizes": sizes, "seconds": seconds, "runs": repetitions,
                        "parallel": parallel,
                        "points": [[label, kind] for label, kind, _, _ in points],
                        "results": results}


# --------------------------------------------------------------------------------------- startup
def seed_inputs_digest():
    """What a seeded database depends on: the schema, the code that writes rows, the seeder."""
    digest = hashlib.sha256()
    for folder in ("schemas", "src/ops", "src/store", "src/domain", "bench"):
        for name in sorted(os.listdir(os.path.join(ROOT, folder))):
            path = os.path.join(ROOT, folder, name)
            if os.path.isfile(path) and (folder != "bench" or name in ("seed_db.cpp", "seed.py")):
                with open(path, "rb") as f:
                    digest.update(name.encode() + b"\0" + f.read())
    return digest.hexdigest()[:16]


CLUSTERS = 10  # HyperPod clusters in every seeded database, 100 nodes each (bench/seed_db.cpp)


def shape(plans):
    """What a database of `plans` plans holds: (plans, endpoints, jobs, clusters), endpoints and
    jobs a tenth of the plans each (at least the one endpoint and the two jobs, one training and
    one processing, that the reads ask for)."""
    return plans, max(1, plans // 10), max(2, plans // 10), CLUSTERS


def describe_shape(db_shape):
    plans, endpoints, jobs, clusters = db_shape
    return f"{plans:,} plans, {endpoints:,} endpoints, {jobs:,} jobs, {clusters} clusters"


def seeded_db(work, db_shape, report=None):
    """A database of `db_shape` = (plans, endpoints, jobs, clusters) written by build/seed_db. Kept
    in build/bench-cache/ under a digest of everything that shapes its rows (1M plans take
    minutes to write), and used in place: the server adds only its clock setting. The seconds
    seed_db took, when it ran, go to report["seed_db_seconds"]."""
    plans, endpoints, jobs, clusters = db_shape
    capacity = write_capacity(work, plans)
    cache = os.path.join(BUILD, "bench-cache")
    os.makedirs(cache, exist_ok=True)
    db = os.path.join(cache, f"seeded-{plans}-{endpoints}-{jobs}-{clusters}-"
                             f"{seed_inputs_digest()}.db")
    if not os.path.exists(db):
        log(f"seed_db: {describe_shape(db_shape)}")
        started = time.monotonic()
        partial = db + ".partial"
        for leftover in (partial, partial + "-wal", partial + "-shm"):
            if os.path.exists(leftover):
                os.remove(leftover)
        subprocess.run([os.path.join(BUILD, "seed_db"), partial, capacity, str(plans),
                        str(endpoints), str(jobs), str(clusters)], check=True)
        os.rename(partial, db)
        elapsed = time.monotonic() - started
        log(f"seed_db took {elapsed:.1f} s")
        if report is not None:
            report.setdefault("seed_db_seconds", {})[describe_shape(db_shape)] = elapsed
    return db, capacity


def time_to_health(db, capacity):
    """Milliseconds from just before fork/exec to the first 200 on /_emulator/health, and the
    VmRSS at that moment."""
    port = free_port()
    argv = [BINARY, "--port", str(port), "--db", db, "--log-level", "warn",
            "--clock-start", seed.CLOCK_START, "--frozen-clock"]
    if capacity:
        argv += ["--capacity", capacity]
    request = b"GET /_emulator/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    started = time.perf_counter()
    popen = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                    s.sendall(request)
                    if s.recv(16).startswith(b"HTTP/1.1 200"):
                        break
            except ConnectionRefusedError:
                if popen.poll() is not None:
                    raise RuntimeError(f"the server exited with {popen.returncode}")
        elapsed = (time.perf_counter() - started) * 1000
        return elapsed, rss_kib(popen.pid)
    finally:
        popen.send_signal(signal.SIGTERM)
        popen.wait(timeout=10)


def startup_section(work, args, report):
    starts = 3 if args.smoke else 11
    empty = []
    for i in range(starts):
        db = os.path.join(work, f"empty-{i}.db")  # a new file each time: created and migrated
        empty.append(time_to_health(db, None))
    db_shape = shape(READS_PLANS_SMOKE if args.smoke else READS_PLANS)  # the reads' database
    db, capacity = seeded_db(work, db_shape, report)
    loaded = [time_to_health(db, capacity) for _ in range(starts)]
    report["startup"] = {
        "empty_ms": statistics.median(t for t, _ in empty),
        "empty_rss_kib": statistics.median(r for _, r in empty),
        "loaded_ms": statistics.median(t for t, _ in loaded),
        "loaded_rss_kib": statistics.median(r for _, r in loaded),
        "loaded_plans": db_shape[0], "loaded_endpoints": db_shape[1],
        "loaded_jobs": db_shape[2], "loaded_clusters": db_shape[3], "starts": starts}


# ------------------------------------------------------------------------------------- dashboard
def timed_get(connection, path):
    """Milliseconds from sending GET `path` to the last byte of its answer, which must be 200."""
    started = time.perf_counter()
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read()
    elapsed = (time.perf_counter() - started) * 1000
    if response.status != 200:
        raise RuntimeError(f"GET {path} answered {response.status}: {body[:300]!r}")
    return elapsed, len(body)


def dashboard_section(work, args, report):
    """What the dashboard asks for at the reads' size: GET /_emulator/state, and GET
    /_emulator/costs for all time, once after the clock moved (the cost ledger recomputed) and
    once more unchanged (the ledger kept). The clock moves one second before the first two, so
    that neither is served from what an earlier request kept. On a copy of the seeded database:
    moving the clock is written to it."""
    rounds = 3 if args.smoke else 11
    db_shape = shape(READS_PLANS_SMOKE if args.smoke else READS_PLANS)
    seeded, capacity = seeded_db(work, db_shape, report)
    db = os.path.join(work, "dashboard.db")
    shutil.copyfile(seeded, db)
    server = emulator(db, capacity)
    times = {"state": [], "costs": [], "costs_kept": []}
    sizes = {}
    try:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        clock = seed.Client(f"http://127.0.0.1:{server.port}")
        for _ in range(rounds):
            for name, path in (("state", "/_emulator/state"), ("costs", "/_emulator/costs")):
                clock.admin("POST", "/_emulator/clock", {"advance_seconds": 1})
                elapsed, sizes[name] = timed_get(connection, path)
                times[name].append(elapsed)
            elapsed, _ = timed_get(connection, "/_emulator/costs")
            times["costs_kept"].append(elapsed)
        connection.close()
        clock.connection.close()
    finally:
        server.stop()
    report["dashboard"] = {"shape": db_shape, "rounds": rounds, "bytes": sizes,
                           **{f"{name}_ms": statistics.median(t) for name, t in times.items()}}


# ---------------------------------------------------------------------------------------- memory
def memory_section(work, args, report):
    sizes = [10, 100, 1000] if args.smoke else [1000, 10000, 100000, 1000000]
    sizes = [n for n in sizes if n <= args.max_plans]
    scaling = {}
    for plans in sizes:
        db, capacity = seeded_db(work, shape(plans), report)
        server = emulator(db, capacity)
        try:
            client = seed.Client(f"http://127.0.0.1:{server.port}")
            # One search and one describe touch the ledger and the store like real use.
            client.call("SearchTrainingPlanOfferings", json.loads(SEARCH_BODY))
            client.call("DescribeTrainingPlan", {"TrainingPlanName": "bench-plan-0"})
            scaling[plans] = {"rss_kib": server.rss_kib(), "db_bytes": os.path.getsize(db),
                              "shape": shape(plans)}
        finally:
            server.stop()
    report["memory_scaling"] = scaling


# ----------------------------------------------------------------------------------------- micro
def micro_section(work, args, report):
    out = os.path.join(work, "micro.json")
    flags = ["--benchmark_repetitions=1", "--benchmark_min_time=0.01"] if args.smoke else [
        "--benchmark_repetitions=5", "--benchmark_report_aggregates_only=true"]
    subprocess.run([os.path.join(BUILD, "micro_bench"), "--benchmark_format=json",
                    f"--benchmark_out={out}", "--benchmark_out_format=json", *flags],
                   check=True, stdout=subprocess.DEVNULL)
    with open(out) as f:
        benchmarks = json.load(f)["benchmarks"]
    wanted = "median" if not args.smoke else None
    scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}
    rows = {}
    for b in benchmarks:
        if wanted and b.get("aggregate_name") != wanted:
            continue
        if not wanted and b.get("run_type") == "aggregate":
            continue
        rows[b["run_name"]] = b["real_time"] * scale[b["time_unit"]]
    report["micro"] = rows


# ----------------------------------------------------------------------------------------- table
def machine():
    model = "unknown"
    with open("/proc/cpuinfo") as cpuinfo:
        for line in cpuinfo:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                capture_output=True, text=True, check=True).stdout.strip()
        if subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                          capture_output=True, text=True).stdout.strip():
            commit += "+dirty"
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    return model, commit


def verdict(ok):
    return "met" if ok else "MISSED"


def ratio(x):
    """A ratio with two decimals, or four when it is small enough to print as 0.00."""
    return f"{x:.2f}" if x >= 0.095 else f"{x:.4f}"


def print_reads(reads, args, w, targets):
    results = reads["results"]
    runs = "one run" if reads["runs"] == 1 else f"median of {reads['runs']}"
    at_once = f", {reads['parallel']} points at once" if reads["parallel"] > 1 else ""
    w("")
    w(f"## Reads (wrk, keep-alive, {reads['seconds']} s per point, {runs}{at_once}) against "
      f"{describe_shape(reads['shape'])} (100 nodes each); List* with MaxResults 100")
    w(f"{'operation':40} {'conns':>5} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'x nginx':>8} "
      f"{'x DescEp':>8} {'items':>5} {'errors':>6}")
    labels = [["nginx ceiling", "ceiling", None]] + reads["points"]
    for label, kind, items in labels:
        for c in CONNECTIONS:
            m = results.get(f"{label}|{c}")
            if m is None:
                if c == CONNECTIONS[0] and items == "failed":
                    w(f"{label:40} {'-':>5} {'did not answer 200: not measured':>40}")
                continue
            ceiling = results.get(f"nginx ceiling|{c}")
            base = results.get(f"DescribeEndpoint|{c}")
            x_ceiling = ratio(m["rps"] / ceiling["rps"]) if ceiling and ceiling["rps"] else "-"
            x_base = (ratio(m["rps"] / base["rps"]) if base and base["rps"] and
                      kind != "ceiling" else "-")
            shown = items if kind in (LIST, SEARCH) and items is not None else "-"
            w(f"{label:40} {c:>5} {m['rps']:>9.0f} {m['p50_us'] / 1000:>8.3f} "
              f"{m['p99_us'] / 1000:>8.3f} {x_ceiling:>8} {x_base:>8} {shown:>5} "
              f"{m['errors']:>6}")
    w("(items: entries in a List or Search answer; x DescEp: req/s / DescribeEndpoint's at the "
      "same connections)")
    if reads["unmeasured"]:
        w("read operations not measured here: " + "; ".join(reads["unmeasured"]))
    else:
        w("read operations not measured here: none")
    # One target per Describe and per List (MaxResults 100), at 64 connections, as a share of
    # DescribeEndpoint's req/s in the same section (the reads' database).
    base = results.get("DescribeEndpoint|64")
    for label, kind, _ in reads["points"]:
        if kind not in (DESCRIBE, LIST) or label == "DescribeEndpoint":
            continue
        share = 0.5 if kind == DESCRIBE else 0.2
        name = f"reads: {label} c=64 >= {share:.0%} of DescribeEndpoint"
        m = results.get(f"{label}|64")
        if not (m and base):
            targets.append((name, "not measured", False))
        elif not base["rps"]:
            targets.append((name, "base 0 req/s", False))
        else:
            targets.append((name, f"{m['rps'] / base['rps']:.0%}",
                            m["rps"] >= share * base["rps"]))


def print_growth(growth, args, w, targets):
    sizes, results = growth["sizes"], growth["results"]
    if not sizes:
        return
    at_once = f", {growth['parallel']} points at once" if growth["parallel"] > 1 else ""
    w("")
    runs = "one run" if growth.get("runs", 1) == 1 else f"median of {growth['runs']}"
    w(f"## Growth with size (wrk, 1 connection, {growth['seconds']} s per point, {runs}"
      f"{at_once}): req/s with N plans, N/10 endpoints, N/10 jobs, {CLUSTERS} clusters")
    w(f"criterion: time per request at 10x the size / time at 1x <= x{GROWTH_LIMIT:g} "
      f"(logarithmic or better), for answers of as many entries; a step whose answers differ "
      f"is shown in brackets and not judged")
    header = f"{'operation':40}" + "".join(f" {f'{n:,}':>9}" for n in sizes)
    w(header + "  x per 10x")
    worst, unmeasured, uneven = (0.0, ""), [], []
    for label, _ in growth["points"]:
        measured = [results.get(str(n), {}).get(label, {}) for n in sizes]
        rps = [m.get("rps") for m in measured]
        items = [m.get("items") for m in measured]
        complete = all(rps)
        factors = [a / b for a, b in zip(rps, rps[1:])] if complete else []
        # A page of 11 matches at the smallest size and of 100 at the next is more work, not a
        # slower lookup (NameContains "endpoint-1" among 100 endpoints).
        judged = [f for f, a, b in zip(factors, items, items[1:]) if a == b]
        cells = "".join(f" {r:>9.0f}" if r else f" {'-':>9}" for r in rps)
        steps = " ".join(f"x{f:.2f}" if a == b else f"(x{f:.2f})"
                         for f, a, b in zip(factors, items, items[1:]))
        if not complete:
            unmeasured.append(label)
            w(f"{label:40}{cells}  not measured at every size")
            continue
        if len(judged) < len(factors):
            uneven.append(f"{label}: {' / '.join(str(i) for i in items)} entries")
        w(f"{label:40}{cells}  {steps:<16} "
          f"{verdict(max(judged) <= GROWTH_LIMIT) if judged else '(no step judged)'}")
        if judged and max(judged) > worst[0]:
            worst = (max(judged), label)
    if uneven:
        w("answers of different sizes (entries at each size): " + "; ".join(uneven))
    if len(sizes) >= 2:
        name = (f"every read, {sizes[0]:,}->{sizes[-1]:,} plans: time/request "
                f"<= x{GROWTH_LIMIT:g} per 10x")
        if unmeasured:
            targets.append((name, f"{len(unmeasured)} unmeasured", False))
        else:
            targets.append((f"{name} (worst: {worst[1]})", f"x{worst[0]:.2f}",
                            worst[0] <= GROWTH_LIMIT))


def print_table(report, args):
    model, commit = machine()
    load = report.get("load_end") or "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    out = []
    w = out.append
    w(f"# sagemaker-emulator benchmarks{' (SMOKE: not results)' if args.smoke else ''}")
    w(f"# date {report['date']}  commit {commit}  nproc {os.cpu_count()}  cpu {model}")
    w(f"# load average (1/5/15 min) at start {report['load_start']}, at end {load}")
    targets = []

    if "http" in report:
        http = report["http"]
        runs = next(iter(http.values()))["runs"]
        w("")
        workers = " and ".join(str(count) for count in report["nginx_workers"])
        w(f"## HTTP over loopback (wrk, keep-alive, {1 if args.smoke else 10} s per point, "
          f"median of {runs}; ceiling: the better of nginx with {workers} workers returning a "
          f"{len(CEILING_BODY)}-byte JSON body, at each number of connections)")
        w(f"{'operation':40} {'conns':>5} {'req/s':>10} {'p50 ms':>8} {'p99 ms':>8} "
          f"{'x ceiling':>9} {'x moto':>8} {'errors':>6}")
        # Each label at the connection counts it was measured at (not only CONNECTIONS: the writers
        # beside the reads run at WRITERS), labels in the order they were first measured.
        labels = {}
        for key in http:
            label, c = key.rsplit("|", 1)
            labels.setdefault(label, []).append(int(c))
        for label, counts in labels.items():
            for c in sorted(counts):
                m = http[f"{label}|{c}"]
                ceiling = report["ceilings"].get(str(c))
                moto = http.get(f"moto DescribeEndpoint|{c}")
                x_ceiling = f"{m['rps'] / ceiling['rps']:.2f}" if ceiling and ceiling["rps"] else "-"
                x_moto = (f"{m['rps'] / moto['rps']:.1f}" if moto and moto["rps"] and label.startswith(
                    ("DescribeEndpoint", "InvokeEndpoint")) else "-")
                w(f"{label:40} {c:>5} {m['rps']:>10.0f} {m['p50_us'] / 1000:>8.3f} "
                  f"{m['p99_us'] / 1000:>8.3f} {x_ceiling:>9} {x_moto:>8} {m['errors']:>6}")
        if "moto_error" in report:
            w(f"(moto skipped: {report['moto_error']})")
        elif "moto DescribeEndpoint|1" not in http:
            w("(moto skipped: moto_server is not on PATH)")
        w(f"(seeding 100 endpoints and 1,000 plans over HTTP took {report['seed_seconds']:.1f} s)")
        ceiling = report["ceilings"].get("64")
        moto = http.get("moto DescribeEndpoint|64")
        for op in ("DescribeEndpoint", "InvokeEndpoint 1 KiB (echo)"):
            m = http.get(f"{op}|64")
            if not (m and ceiling):
                continue
            targets.append((f"{op} c=64 >= 70% of ceiling req/s",
                            f"{m['rps'] / ceiling['rps']:.0%}", m["rps"] >= 0.7 * ceiling["rps"]))
            # nginx's own p99 on two shared cores is several milliseconds: the target is relative.
            targets.append((f"{op} c=64 p99 <= 1.5x the ceiling's "
                            f"({ceiling['p99_us'] / 1000:.2f} ms)", f"{m['p99_us'] / 1000:.2f} ms",
                            m["p99_us"] <= 1.5 * ceiling["p99_us"]))
            if moto and moto["rps"]:
                targets.append((f"{op} c=64 >= 50x moto", f"{m['rps'] / moto['rps']:.1f}x",
                                m["rps"] >= 50 * moto["rps"]))
            loaded = http.get(f"{LOADED_READ}|64")
            if op == "DescribeEndpoint" and loaded:
                # Relative to the same point idle, measured in the same run on the same machine.
                targets.append((f"DescribeEndpoint c=64 p99 under {WRITERS} writers <= 2x idle "
                                f"({m['p99_us'] / 1000:.2f} ms)",
                                f"{loaded['p99_us'] / 1000:.2f} ms",
                                loaded["p99_us"] <= 2 * m["p99_us"]))
        m = http.get("CreateModel (durable write)|64")
        if m and ceiling:
            targets.append(("CreateModel (durable) c=64 >= 15% of ceiling req/s",
                            f"{m['rps'] / ceiling['rps']:.1%}", m["rps"] >= 0.15 * ceiling["rps"]))

    if "reads" in report:
        print_reads(report["reads"], args, w, targets)

    if "growth" in report:
        print_growth(report["growth"], args, w, targets)

    if "startup" in report:
        s = report["startup"]
        w("")
        w(f"## Start-up: process start (fork/exec) to the first 200 on /_emulator/health, "
          f"median of {s['starts']}")
        w(f"{'database':52} {'ms':>8} {'RSS MiB':>8}")
        w(f"{'empty (new file, migrated)':52} {s['empty_ms']:>8.1f} "
          f"{s['empty_rss_kib'] / 1024:>8.1f}")
        label = f"{s['loaded_plans']:,} plans, {s['loaded_endpoints']:,} endpoints"
        if "loaded_jobs" in s:
            label += f", {s['loaded_jobs']:,} jobs, {s['loaded_clusters']} clusters"
        w(f"{label:52} {s['loaded_ms']:>8.1f} {s['loaded_rss_kib'] / 1024:>8.1f}")
        targets.append(("start-up < 10 ms, empty db", f"{s['empty_ms']:.1f} ms",
                        s["empty_ms"] < 10))
        loaded = f"{s['loaded_plans']:,} plans/{s['loaded_endpoints']:,} endpoints"
        if "loaded_jobs" in s:
            loaded += f"/{s['loaded_jobs']:,} jobs"
        targets.append((f"start-up < 50 ms, {loaded}", f"{s['loaded_ms']:.1f} ms",
                        s["loaded_ms"] < 50))

    if "dashboard" in report:
        d = report["dashboard"]
        w("")
        w(f"## Dashboard views against {describe_shape(d['shape'])}: request sent to last byte "
          f"read (one keep-alive connection), median of {d['rounds']}")
        w(f"{'view':58} {'ms':>8} {'MiB':>8}")
        views = [("GET /_emulator/state (clock moved 1 s before)", "state_ms", "state"),
                 ("GET /_emulator/costs, all time, recomputed (clock moved)", "costs_ms", "costs"),
                 ("GET /_emulator/costs, all time, unchanged (ledger kept)", "costs_kept_ms",
                  "costs")]
        for label, key, size in views:
            w(f"{label:58} {d[key]:>8.1f} {d['bytes'][size] / 2**20:>8.1f}")
        plans = f"{d['shape'][0]:,} plans"
        targets.append((f"GET /_emulator/state < 50 ms, {plans}", f"{d['state_ms']:.1f} ms",
                        d["state_ms"] < 50))
        targets.append((f"GET /_emulator/costs (all time) < 100 ms, {plans}",
                        f"{d['costs_ms']:.1f} ms", d["costs_ms"] < 100))

    if "rss_idle_kib" in report or "memory_scaling" in report:
        w("")
        w("## Resident memory (VmRSS)")
        if "rss_idle_kib" in report:
            w(f"{'idle, empty db, just started':52} {report['rss_idle_kib'] / 1024:>8.1f} MiB")
            targets.append(("RSS < 10 MiB idle", f"{report['rss_idle_kib'] / 1024:.1f} MiB",
                            report["rss_idle_kib"] < 10 * 1024))
        if "rss_after_load_kib" in report:
            w(f"{'after the HTTP load runs':52} {report['rss_after_load_kib'] / 1024:>8.1f} MiB")
        for plans, m in report.get("memory_scaling", {}).items():
            label = (f"{describe_shape(m['shape'])}" if "shape" in m else f"{plans:,} plans")
            w(f"{label:52} {m['rss_kib'] / 1024:>8.1f} MiB   db file "
              f"{m['db_bytes'] / 2**20:.1f} MiB")
        if report.get("memory_scaling"):
            w("(each after one search and one DescribeTrainingPlan)")
        big = report.get("memory_scaling", {}).get(100000)
        if big:
            targets.append(("RSS < 100 MiB with 100,000 plans", f"{big['rss_kib'] / 1024:.1f} MiB",
                            big["rss_kib"] < 100 * 1024))

    if "micro" in report:
        micro = report["micro"]
        base = next((v for k, v in micro.items() if k.startswith("BM_Baseline")), None)
        w("")
        w(f"## Micro-benchmarks (Google Benchmark, "
          f"{'one short run' if args.smoke else 'median of 5'}; ratio to parsing and "
          f"re-serialising a CreateModel body)")
        w(f"{'benchmark':48} {'ns/op':>12} {'x baseline':>11}")
        for name, ns in micro.items():
            w(f"{name:48} {ns:>12.0f} {ns / base if base else 0:>11.2f}")
        search = micro.get("BM_SearchOfferings/100000")
        if search is not None:
            targets.append(("offering search, 100,000 plans < 1 ms", f"{search / 1e6:.3f} ms",
                            search < 1e6))
        sizes = [n for n in (1000, 10000, 100000, 1000000) if f"BM_SearchOfferings/{n}" in micro]
        if len(sizes) >= 2:
            w("search time per 10x plans: " + ", ".join(
                f"{a:,}->{b:,} x{micro[f'BM_SearchOfferings/{b}'] / micro[f'BM_SearchOfferings/{a}']:.2f}"
                for a, b in zip(sizes, sizes[1:])))

    if "seed_db_seconds" in report:
        w("")
        w("## Databases written by build/seed_db in this run (kept in build/bench-cache/)")
        for name, seconds in report["seed_db_seconds"].items():
            w(f"{name:64} {seconds:>8.1f} s")

    if targets:
        w("")
        w("## Targets" + (" (smoke run: sizes and durations are not the targets')" if args.smoke
                          else ""))
        width = max(56, max(len(name) for name, _, _ in targets))
        for name, value, ok in targets:
            w(f"{name:{width}} {value:>12}  {verdict(ok)}")
    if report.get("failures"):
        w("")
        w(f"## FAILED: {len(report['failures'])} benchmarked requests did not answer 200")
        for message in report["failures"]:
            w(f"FAILED {message}")
    table = "\n".join(out)
    print(table, flush=True)
    if getattr(args, "save", False):
        save_run(table, report, commit)


def save_run(table, report, commit):
    """Keeps a full run's table as bench/results/<date>-<commit>.txt, beside the older runs that
    bench/results/HISTORY.md lists."""
    name = f"{report['date'][:10]}-{commit.replace('+dirty', '-dirty')}.txt"
    path = os.path.join(ROOT, "bench", "results", name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(table + "\n")
    log(f"saved the table as bench/results/{name}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--only", default=",".join(SECTIONS))
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    parser.add_argument("--max-plans", type=int, default=1000000,
                        help="largest database of the growth and memory sections (1M plans take "
                             "minutes to seed the first time)")
    parser.add_argument("--json", help="also write the raw report to this file")
    parser.add_argument("--from-json", help="only print the table of a report written by --json")
    parser.add_argument("--save", action="store_true",
                        help="also keep the table as bench/results/<date>-<commit>.txt")
    args = parser.parse_args()
    if args.save and args.smoke:
        sys.exit("bench: --save keeps full runs only, not --smoke")
    if args.smoke:
        CHECK_RESPONSES.append("--check-responses")
    if args.from_json:
        with open(args.from_json) as f:
            report = json.load(f)
        if "memory_scaling" in report:
            report["memory_scaling"] = {int(k): v for k, v in report["memory_scaling"].items()}
        print_table(report, args)
        return 1 if report.get("failures") else 0
    sections = args.only.split(",")
    unknown = [name for name in sections if name not in SECTIONS]
    if unknown:
        sys.exit(f"bench: unknown section {', '.join(unknown)} (sections: {', '.join(SECTIONS)})")
    if {"http", "reads", "growth"} & set(sections) and shutil.which("wrk") is None:
        sys.exit("bench: wrk is not installed (scripts/deps installs it)")
    load = os.getloadavg()
    report = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
              "load_start": f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"}
    # On the build's disk (not tmpfs), so durable writes pay for their fsync.
    work = tempfile.mkdtemp(prefix="bench-", dir=BUILD)
    try:
        for name, section in SECTIONS.items():
            if name in sections:
                log(f"section {name}")
                section(work, args, report)
    finally:
        if args.keep:
            log(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    report["load_end"] = "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1, default=str)
    print_table(report, args)
    if report.get("failures"):
        log(f"FAILED: {len(report['failures'])} benchmarked requests did not answer 200 "
            "(listed at the end of the table)")
        return 1
    return 0


# Sections in the order they run (and --only's names).
SECTIONS = {"http": http_section, "reads": reads_section, "growth": growth_section,
            "startup": startup_section, "dashboard": dashboard_section,
            "memory": memory_section, "micro": micro_section}


if __name__ == "__main__":
    sys.exit(main())
