"""Two builds of the server side by side, interleaved (A, B, then B, A): DescribeEndpoint and
InvokeEndpoint alone, DescribeEndpoint beside 8 durable CreateModel writers, durable CreateModel,
then on the 10,000-plan database of bench.py: start-up, resident memory, ListTrainingPlans,
ListEndpoints, DescribeTrainingPlan and the dashboard's state. For a change to the core, before
the full bench/run:

    python3 bench/ab.py OLD/sagemaker-emulator NEW/sagemaker-emulator [rounds]

Uses build/seed_db for the database (bench/run builds it). Prints one line per point and build.
When a change adds a migration the old build cannot open a database the new one seeded: then
AB_DB_OLD and AB_DB_NEW name each build's copy (e.g. one seeded file, and the same file once the
new build has opened and migrated it).
"""
import http.client
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
os.chdir(ROOT)
import bench  # noqa: E402
import seed  # noqa: E402

VARIANTS = {"old": sys.argv[1], "new": sys.argv[2]}
ROUNDS = int(sys.argv[3]) if len(sys.argv) > 3 else 2
SECONDS = 5
work = tempfile.mkdtemp(prefix="ab-")
seeded, capacity10k = bench.seeded_db(work, bench.shape(10000))
results = {name: {} for name in VARIANTS}

def wrk(port, script, args, c, s=SECONDS):
    return bench.run_wrk(port, script, args, c, s)

def point(out, key, r):
    out.setdefault(key, []).append(r)

def http_points(name, out, rep):
    bench.BINARY = VARIANTS[name]
    cap = bench.write_capacity(work, 1000)
    db = os.path.join(work, f"load-{name}-{rep}.db")
    server = bench.emulator(db, cap)
    try:
        client = seed.Client(f"http://127.0.0.1:{server.port}")
        seed.seed_endpoints(client, 100)
        seed.seed_plans(client, 1000)
        d = ["json", "DescribeEndpoint", '{"EndpointName":"bench-endpoint-0"}']
        point(out, "DescribeEndpoint c=64", wrk(server.port, "request.lua", d, 64))
        point(out, "InvokeEndpoint 1KiB c=64", wrk(server.port, "request.lua", ["invoke", "bench-endpoint-0", "1024"], 64))
        writers = subprocess.Popen(bench.wrk_command(server.port, "create_model.lua", [f"w{rep}"], 8, SECONDS + 2),
                                   cwd=bench.ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(0.5)
        point(out, "DescribeEndpoint c=64 under 8 writers", wrk(server.port, "request.lua", d, 64))
        o, _ = writers.communicate()
        point(out, "CreateModel c=8 beside reads", bench.wrk_result(o))
        point(out, "CreateModel durable c=64", wrk(server.port, "create_model.lua", [f"m{rep}"], 64))
    finally:
        server.stop()

def big_points(name, out, rep):
    bench.BINARY = VARIANTS[name]
    db = os.path.join(work, f"big-{name}-{rep}.db")
    shutil.copyfile(os.environ.get(f"AB_DB_{name.upper()}", seeded), db)
    starts = []
    for _ in range(5):
        ms, rss = bench.time_to_health(db, capacity10k)
        starts.append(ms)
    point(out, "startup 10k plans ms", {"ms": statistics.median(starts)})
    server = bench.emulator(db, capacity10k)
    try:
        point(out, "RSS 10k plans KiB", {"kib": server.rss_kib()})
        point(out, "ListTrainingPlans(100 of 10k) c=64", wrk(server.port, "request.lua", ["json", "ListTrainingPlans", '{"MaxResults":100}'], 64))
        point(out, "ListEndpoints(100 of 1k) c=64", wrk(server.port, "request.lua", ["json", "ListEndpoints", '{"MaxResults":100}'], 64))
        point(out, "DescribeTrainingPlan c=64", wrk(server.port, "request.lua", ["json", "DescribeTrainingPlan", '{"TrainingPlanName":"bench-plan-0"}'], 64))
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        clock = seed.Client(f"http://127.0.0.1:{server.port}")
        times = []
        for _ in range(5):
            clock.admin("POST", "/_emulator/clock", {"advance_seconds": 1})
            e, _ = bench.timed_get(conn, "/_emulator/state")
            times.append(e)
        point(out, "dashboard state 10k ms", {"ms": statistics.median(times)})
    finally:
        server.stop()

for rep in range(ROUNDS):
    for name in (["old", "new"] if rep % 2 == 0 else ["new", "old"]):
        print(f"rep {rep} {name}", flush=True)
        http_points(name, results[name], rep)
        big_points(name, results[name], rep)

def show(r):
    if "rps" in r: return f"{r['rps']:9.0f} req/s p99 {r['p99_us']/1000:6.2f} ms err {r['errors']}"
    if "ms" in r: return f"{r['ms']:8.1f} ms"
    return f"{r['kib']/1024:8.1f} MiB"
print(f"machine: {os.cpu_count()} cores; {open('/proc/cpuinfo').read().split('model name')[1].split(':')[1].splitlines()[0].strip()}")
for key in results["old"]:
    for name in VARIANTS:
        print(f"{key:40} {name}: " + " | ".join(show(r) for r in results[name][key]))
