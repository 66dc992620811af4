#!/usr/bin/env python3
"""The benchmark suite behind bench/run (stdlib only). Prints one table.

    bench/bench.py [--smoke] [--only SECTIONS]

Sections (all by default; --only takes a comma-separated subset):
  http     wrk against the emulator (awsJson1_1 and the runtime), nginx as the ceiling and
           moto_server when installed, at 1 and 64 keep-alive connections, medians of 3 runs
  startup  time from process start to the first 200 on /_emulator/health, empty and loaded db
  memory   VmRSS idle, after the HTTP load, with 100,000 plans, and at 1k..1M plans
  micro    the Google Benchmark micro-benchmarks (build/micro_bench), as ratios to a baseline

--smoke runs every section for about a second per point with one repetition and small databases
(sizes divided by 100), so CI can check the whole script quickly; its numbers are not results.
Expects build/ (or $BUILD_DIR) to hold sagemaker-emulator, seed_db and micro_bench (bench/run
builds them).
"""
import argparse
import datetime
import hashlib
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
    "StartTimeAfter": seed.CLOCK_START_EPOCH + 90 * seed.DAY, "TargetResources": ["training-job"]})

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


class Process:
    """A child process listening on `port`; stopped with SIGTERM (SIGKILL after 10 s)."""

    def __init__(self, argv, port, ready_path="/_emulator/health", cwd=None, timeout=60):
        self.port = port
        self.argv = argv
        # Logs go to a file: a pipe nobody reads would block the server once it filled up.
        self.log = tempfile.TemporaryFile()
        self.popen = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=self.log,
                                      cwd=cwd, start_new_session=True)
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


def run_wrk(port, script, args, connections, seconds):
    command = ["wrk", "-t", str(min(2, connections)), "-c", str(connections), "-d", f"{seconds}s",
               "--timeout", "5s", "-s", os.path.join("bench", "wrk", script),
               f"http://127.0.0.1:{port}/", "--", *args]
    out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if line.startswith("BENCH_RESULT "):
            result = json.loads(line[len("BENCH_RESULT "):])
            result["errors"] = sum(result[k] for k in ("connect_errors", "read_errors",
                                                       "write_errors", "status_errors", "timeouts"))
            return result
    raise RuntimeError(f"wrk printed no result: {out[-2000:]}")


def median_of(runs):
    """Medians over repetitions of req/s, p50 and p99 (and the error total)."""
    return {"rps": statistics.median(r["rps"] for r in runs),
            "p50_us": statistics.median(r["p50_us"] for r in runs),
            "p99_us": statistics.median(r["p99_us"] for r in runs),
            "errors": sum(r["errors"] for r in runs), "runs": len(runs)}


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


def start_nginx(work, workers):
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    directory = os.path.join(work, "nginx")
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
    nginx = start_nginx(work, workers)
    report["nginx_workers"] = workers
    moto = None
    try:
        moto = start_moto(work)
    except Exception as error:  # moto is optional: report why it is missing and go on
        report["moto_error"] = str(error)
        log(f"moto skipped: {error}")
    runs = {}

    def measure(label, port, script, script_args, connections):
        log(f"wrk {label} c={connections}")
        runs.setdefault((label, connections), []).append(
            run_wrk(port, script, script_args, connections, seconds))

    try:
        # Repetitions interleave the targets so a burst of machine noise hits all of them alike.
        for repetition in range(repetitions):
            for connections in CONNECTIONS:
                measure("nginx ceiling", nginx.port, "request.lua", ["plain"], connections)
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
        report["rss_after_load_kib"] = server.rss_kib()
    finally:
        nginx.stop()
        if moto:
            moto.stop()
        server.stop()
    report["http"] = {f"{label}|{c}": median_of(r) for (label, c), r in runs.items()}


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


def seeded_db(work, plans, endpoints):
    """A database of `plans` plans and `endpoints` endpoints written by build/seed_db. Kept in
    build/bench-cache/ under a digest of everything that shapes its rows (1M plans take minutes
    to write), and used in place: the server adds only its clock setting."""
    capacity = write_capacity(work, plans)
    cache = os.path.join(BUILD, "bench-cache")
    os.makedirs(cache, exist_ok=True)
    db = os.path.join(cache, f"seeded-{plans}-{endpoints}-{seed_inputs_digest()}.db")
    if not os.path.exists(db):
        log(f"seed_db: {plans} plans, {endpoints} endpoints")
        started = time.monotonic()
        partial = db + ".partial"
        for leftover in (partial, partial + "-wal", partial + "-shm"):
            if os.path.exists(leftover):
                os.remove(leftover)
        subprocess.run([os.path.join(BUILD, "seed_db"), partial, capacity, str(plans),
                        str(endpoints)], check=True)
        os.rename(partial, db)
        log(f"seed_db took {time.monotonic() - started:.1f} s")
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
    plans, endpoints = (100, 10) if args.smoke else (10000, 1000)
    db, capacity = seeded_db(work, plans, endpoints)
    loaded = [time_to_health(db, capacity) for _ in range(starts)]
    report["startup"] = {
        "empty_ms": statistics.median(t for t, _ in empty),
        "empty_rss_kib": statistics.median(r for _, r in empty),
        "loaded_ms": statistics.median(t for t, _ in loaded),
        "loaded_rss_kib": statistics.median(r for _, r in loaded),
        "loaded_plans": plans, "loaded_endpoints": endpoints, "starts": starts}


# ---------------------------------------------------------------------------------------- memory
def memory_section(work, args, report):
    sizes = [10, 100, 1000] if args.smoke else [1000, 10000, 100000, 1000000]
    sizes = [n for n in sizes if n <= args.max_plans]
    scaling = {}
    for plans in sizes:
        db, capacity = seeded_db(work, plans, 0)
        server = emulator(db, capacity)
        try:
            client = seed.Client(f"http://127.0.0.1:{server.port}")
            # One search and one describe touch the ledger and the store like real use.
            client.call("SearchTrainingPlanOfferings", json.loads(SEARCH_BODY))
            client.call("DescribeTrainingPlan", {"TrainingPlanName": "bench-plan-0"})
            scaling[plans] = {"rss_kib": server.rss_kib(),
                              "db_bytes": os.path.getsize(db)}
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
        w(f"## HTTP over loopback (wrk, keep-alive, {1 if args.smoke else 10} s per point, "
          f"median of {runs}; ceiling: nginx with {report['nginx_workers']} workers returning a "
          f"{len(CEILING_BODY)}-byte JSON body)")
        w(f"{'operation':40} {'conns':>5} {'req/s':>10} {'p50 ms':>8} {'p99 ms':>8} "
          f"{'x ceiling':>9} {'x moto':>8} {'errors':>6}")
        labels = []
        for key in http:
            label = key.rsplit("|", 1)[0]
            if label not in labels:
                labels.append(label)
        for label in labels:
            for c in CONNECTIONS:
                m = http.get(f"{label}|{c}")
                if m is None:
                    continue
                ceiling = http.get(f"nginx ceiling|{c}")
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
        ceiling = http.get("nginx ceiling|64")
        moto = http.get("moto DescribeEndpoint|64")
        for op in ("DescribeEndpoint", "InvokeEndpoint 1 KiB (echo)"):
            m = http.get(f"{op}|64")
            if not (m and ceiling):
                continue
            targets.append((f"{op} c=64 >= 50% of ceiling req/s",
                            f"{m['rps'] / ceiling['rps']:.0%}", m["rps"] >= 0.5 * ceiling["rps"]))
            targets.append((f"{op} c=64 p99 < 5 ms", f"{m['p99_us'] / 1000:.2f} ms",
                            m["p99_us"] < 5000))
            if moto and moto["rps"]:
                targets.append((f"{op} c=64 >= 50x moto", f"{m['rps'] / moto['rps']:.1f}x",
                                m["rps"] >= 50 * moto["rps"]))
        m = http.get("CreateModel (durable write)|64")
        if m and ceiling:
            targets.append(("CreateModel c=64 >= 10% of ceiling req/s",
                            f"{m['rps'] / ceiling['rps']:.1%}", m["rps"] >= 0.1 * ceiling["rps"]))

    if "startup" in report:
        s = report["startup"]
        w("")
        w(f"## Start-up: process start (fork/exec) to the first 200 on /_emulator/health, "
          f"median of {s['starts']}")
        w(f"{'database':40} {'ms':>8} {'RSS MiB':>8}")
        w(f"{'empty (new file, migrated)':40} {s['empty_ms']:>8.1f} "
          f"{s['empty_rss_kib'] / 1024:>8.1f}")
        label = f"{s['loaded_plans']:,} plans, {s['loaded_endpoints']:,} endpoints"
        w(f"{label:40} {s['loaded_ms']:>8.1f} {s['loaded_rss_kib'] / 1024:>8.1f}")
        targets.append(("start-up < 20 ms, empty db", f"{s['empty_ms']:.1f} ms",
                        s["empty_ms"] < 20))
        targets.append((f"start-up < 200 ms, {s['loaded_plans']:,} plans",
                        f"{s['loaded_ms']:.1f} ms", s["loaded_ms"] < 200))

    if "rss_idle_kib" in report or "memory_scaling" in report:
        w("")
        w("## Resident memory (VmRSS)")
        if "rss_idle_kib" in report:
            w(f"{'idle, empty db, just started':40} {report['rss_idle_kib'] / 1024:>8.1f} MiB")
            targets.append(("RSS < 15 MB idle", f"{report['rss_idle_kib'] / 1024:.1f} MiB",
                            report["rss_idle_kib"] * 1024 < 15e6))
        if "rss_after_load_kib" in report:
            w(f"{'after the HTTP load runs':40} {report['rss_after_load_kib'] / 1024:>8.1f} MiB")
        for plans, m in report.get("memory_scaling", {}).items():
            label = f"{plans:,} plans (after a search)"
            w(f"{label:40} {m['rss_kib'] / 1024:>8.1f} MiB   db file "
              f"{m['db_bytes'] / 2**20:.1f} MiB")
        big = report.get("memory_scaling", {}).get(100000)
        if big:
            targets.append(("RSS < 200 MB with 100,000 plans", f"{big['rss_kib'] / 1024:.1f} MiB",
                            big["rss_kib"] * 1024 < 200e6))

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

    if targets:
        w("")
        w("## Targets" + (" (smoke run: sizes and durations are not the targets')" if args.smoke
                          else ""))
        for name, value, ok in targets:
            w(f"{name:48} {value:>12}  {verdict(ok)}")
    print("\n".join(out), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--only", default="http,startup,memory,micro")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    parser.add_argument("--max-plans", type=int, default=1000000,
                        help="largest database of the memory section (1M plans take minutes to "
                             "seed the first time)")
    parser.add_argument("--json", help="also write the raw report to this file")
    parser.add_argument("--from-json", help="only print the table of a report written by --json")
    args = parser.parse_args()
    if args.smoke:
        CHECK_RESPONSES.append("--check-responses")
    if args.from_json:
        with open(args.from_json) as f:
            report = json.load(f)
        if "memory_scaling" in report:
            report["memory_scaling"] = {int(k): v for k, v in report["memory_scaling"].items()}
        print_table(report, args)
        return 0
    sections = args.only.split(",")
    if "http" in sections and shutil.which("wrk") is None:
        sys.exit("bench: wrk is not installed (scripts/deps installs it)")
    load = os.getloadavg()
    report = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
              "load_start": f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"}
    # On the build's disk (not tmpfs), so durable writes pay for their fsync.
    work = tempfile.mkdtemp(prefix="bench-", dir=BUILD)
    try:
        for name, section in (("http", http_section), ("startup", startup_section),
                              ("memory", memory_section), ("micro", micro_section)):
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
