#!/bin/sh
# Test of uvas-exp's output: runs the runner with a tiny configuration (4 MiB,
# one repetition, stream + random + a trace, policies first-touch and host
# and one that does not exist) and checks with python3 that results.csv,
# results.json, timeline.csv and summary.csv parse, hold the expected rows,
# agree with each other, and that the library's counters agree among
# themselves (bytes = blocks x block size, residency samples = buffer
# blocks, last sample = device tier, host policy: nothing to the device,
# same checksum under every policy and seed). Also: bad usage and a bad
# trace exit 2 with a message naming the problem.
# usage: test-uvas-exp.sh path/to/uvas-exp. Exit 0 pass, 1 fail, 77 skip.
set -u
exe=${1:?usage: test-uvas-exp.sh path/to/uvas-exp}
. "$(dirname "$0")/test-exp-lib.sh"
exp_test_setup test-uvas-exp "$exe" python

# ---- bad usage: exit 2 and a message that names the problem ----
expect_usage() { # expected-text args...
    want=$1
    shift
    "$exe" "$@" -o "$tmp/bad" >"$tmp/usage.out" 2>&1
    rc=$?
    [ $rc -eq 2 ] || fail "uvas-exp $* exited $rc, expected 2: $(cat "$tmp/usage.out")"
    grep -q -- "$want" "$tmp/usage.out" || fail "uvas-exp $*: no '$want' in: $(cat "$tmp/usage.out")"
}
expect_usage "repetitions" -r 0
expect_usage "unknown workload 'nope'" -w stream,nope
expect_usage "power of two" -b 3000
expect_usage "-t FILE" -w trace
expect_usage "unknown option" --frobnicate
printf 'c r 0 4096\n# fine so far\nx r 0 4096\n' >"$tmp/bad1.trace"
expect_usage "bad1.trace:3: agent 'x'" -t "$tmp/bad1.trace"
printf 'c r 0 4096\nd w 12Q 1\n' >"$tmp/bad2.trace"
expect_usage "bad2.trace:2: offset '12Q'" -t "$tmp/bad2.trace"
printf 'c r 0\n' >"$tmp/bad3.trace"
expect_usage "bad3.trace:1: expected" -t "$tmp/bad3.trace"
"$exe" --help >"$tmp/help.out" 2>&1 || fail "uvas-exp --help exited $?"
grep -q -- "--policy" "$tmp/help.out" || fail "--help does not document -p"

# ---- a tiny experiment ----
cat >"$tmp/t.trace" <<'EOF'
# a tiny trace: CPU writes, device reads, both again
c w 0 64K
d r 0 64K     # the device reads what the CPU wrote
phase
d w 64K 4K
c r 0 128K
phase first
c r 0x10000 1K
EOF
out="$tmp/out"
"$exe" -m 4 -r 1 -w stream,random -t "$tmp/t.trace" -p 'first-touch;host' -p no-such-policy \
    -s 7 -o "$out" >"$tmp/run.out" 2>"$tmp/run.err"
rc=$?
cat "$tmp/run.out" "$tmp/run.err"
[ $rc -eq 0 ] || fail "uvas-exp exited $rc"
if grep -q "no device tier" "$out/results.csv"; then
    echo "SKIP: no device tier (UVAS_DEVICE=none or no Vulkan driver)"
    exit 77
fi

# The same seed gives the same accesses (same checksum), another seed not.
"$exe" -m 4 -r 2 -w random -p first-touch -s 7 -q --no-plots -o "$tmp/same" ||
    fail "uvas-exp -s 7 (again) exited $?"
"$exe" -m 4 -r 1 -w random -p first-touch -s 8 -q --no-plots -o "$tmp/other" ||
    fail "uvas-exp -s 8 exited $?"

python3 - "$out" "$tmp/same" "$tmp/other" "$tmp/run.out" <<'PY'
import csv, json, os, sys

out, same, other, stdout_path = sys.argv[1:5]
errors = []
def check(cond, msg):
    if not cond:
        errors.append(msg)

rows = list(csv.DictReader(open(os.path.join(out, "results.csv"), newline="")))
doc = json.load(open(os.path.join(out, "results.json")))
runs = doc["runs"]
workloads = ["stream", "random", "trace"]
policies = ["first-touch", "host", "no-such-policy"]
check(doc["config"]["workloads"] == workloads, f"config workloads {doc['config']['workloads']}")
check(doc["config"]["policies"] == policies, f"config policies {doc['config']['policies']}")
check(len(rows) == 9, f"results.csv has {len(rows)} rows, expected 9")
check(len(runs) == 9, f"results.json has {len(runs)} runs, expected 9")
keys = [(w, p) for w in workloads for p in policies]
check(sorted((r["workload"], r["policy"]) for r in rows) == sorted(keys),
      "results.csv: not one row per workload x policy")

ints = ["rep", "block_size", "buffer_bytes", "buffer_blocks", "bytes_touched", "bytes_cpu",
        "bytes_device", "faults", "faults_device", "migrations_to_device",
        "migrations_to_host", "bytes_to_device", "bytes_to_host", "evictions",
        "device_blocks_end", "device_blocks_max", "device_capacity_blocks"]
floats = ["wall_s", "throughput_Bps"]

timeline = {}
for t in csv.DictReader(open(os.path.join(out, "timeline.csv"), newline="")):
    timeline.setdefault((t["workload"], t["policy"], int(t["rep"])), []).append(t)

checksums = {}
trace_bytes = 64*1024 + 64*1024 + 4*1024 + 128*1024 + 1024
for row, run in zip(rows, runs):
    name = f"{row['workload']}/{row['policy']}"
    check(row["workload"] == run["workload"] and row["policy"] == run["policy"],
          f"{name}: CSV and JSON list runs in different orders")
    check(row["status"] == run["status"], f"{name}: status CSV {row['status']} JSON {run['status']}")
    if row["policy"] == "no-such-policy":
        check(row["status"] == "error" and "no-such-policy" in row["error"],
              f"{name}: expected an error naming the policy, got {row['status']} '{row['error']}'")
        check(run["error"] == row["error"], f"{name}: error differs between CSV and JSON")
        continue
    if row["status"] != "ok":
        check(False, f"{name}: run failed: {row['error']}")
        continue
    r = {k: int(row[k]) for k in ints}
    for k in ints:
        check(run[k] == r[k], f"{name}: {k} CSV {r[k]} JSON {run[k]}")
        check(r[k] >= 0, f"{name}: {k} = {r[k]} < 0")
    for k in floats:
        check(abs(float(row[k]) - run[k]) <= 1e-6 * max(1.0, abs(run[k])),
              f"{name}: {k} CSV {row[k]} JSON {run[k]}")
    check(row["checksum"] == run["checksum"], f"{name}: checksum CSV/JSON differ")
    check(row["data"] == run["data"] == "same", f"{name}: data check '{row['data']}' (JSON '{run['data']}')")
    bs = r["block_size"]
    check(r["buffer_bytes"] == r["buffer_blocks"] * bs, f"{name}: buffer bytes != blocks x size")
    check(r["bytes_to_device"] == r["migrations_to_device"] * bs,
          f"{name}: bytes_to_device {r['bytes_to_device']} != migrations {r['migrations_to_device']} x {bs}")
    check(r["bytes_to_host"] == r["migrations_to_host"] * bs,
          f"{name}: bytes_to_host {r['bytes_to_host']} != migrations {r['migrations_to_host']} x {bs}")
    check(r["bytes_touched"] == r["bytes_cpu"] + r["bytes_device"], f"{name}: bytes_touched != cpu + device")
    check(r["device_blocks_max"] >= r["device_blocks_end"], f"{name}: device max < end")
    if r["device_capacity_blocks"]:
        check(r["device_blocks_max"] <= r["device_capacity_blocks"],
              f"{name}: {r['device_blocks_max']} device blocks, capacity {r['device_capacity_blocks']}")
    wall = float(row["wall_s"])
    check(wall > 0, f"{name}: wall time {wall}")
    if wall > 0:
        thr = r["bytes_touched"] / wall
        check(abs(thr - float(row["throughput_Bps"])) <= 1e-3 * thr + 1,
              f"{name}: throughput {row['throughput_Bps']} != bytes/wall {thr}")
    if row["policy"] == "host":
        check(r["migrations_to_device"] == 0 and r["device_blocks_max"] == 0,
              f"{name}: host policy moved {r['migrations_to_device']} blocks to the device "
              f"(max {r['device_blocks_max']} there)")
    # What each workload touches, exactly.
    n = r["buffer_bytes"]
    if row["workload"] == "stream":
        check(r["bytes_cpu"] == 4 * n and r["bytes_device"] == 4 * n,
              f"{name}: bytes cpu {r['bytes_cpu']} device {r['bytes_device']}, expected {4*n} each")
    if row["workload"] == "random":
        check(r["bytes_cpu"] == 8 * (n // 8 // 16) * 8 and r["bytes_device"] == 8 * n,
              f"{name}: bytes cpu {r['bytes_cpu']} device {r['bytes_device']}")
    if row["workload"] == "trace":
        check(r["bytes_touched"] == trace_bytes and r["bytes_device"] == 68 * 1024,
              f"{name}: trace bytes {r['bytes_touched']} (device {r['bytes_device']}), expected {trace_bytes}")
    # Residency timeline: every sample covers the buffer; the last agrees with the tier.
    tl = run["timeline"]
    expect_samples = {"stream": 9, "random": 17, "trace": 4}[row["workload"]]
    check(len(tl) == expect_samples and int(row["samples"]) == len(tl),
          f"{name}: {len(tl)} samples (CSV says {row['samples']}), expected {expect_samples}")
    for i, s in enumerate(tl):
        check(s["host"] + s["device"] + s["unpopulated"] == r["buffer_blocks"],
              f"{name}: sample {i} counts {s['host']}+{s['device']}+{s['unpopulated']} != {r['buffer_blocks']} blocks")
        check(s["phase"] == i, f"{name}: sample {i} has phase {s['phase']}")
        check(i == 0 or s["t_s"] >= tl[i-1]["t_s"], f"{name}: sample {i} goes back in time")
        check(s["device"] <= s["device_tier"], f"{name}: sample {i}: more buffer blocks on the device than the tier holds")
    if tl:
        check(tl[0]["unpopulated"] == r["buffer_blocks"], f"{name}: the buffer is populated before the start")
        check(tl[-1]["device"] == r["device_blocks_end"] and tl[-1]["device_tier"] == r["device_blocks_end"],
              f"{name}: last sample: {tl[-1]['device']} buffer blocks / {tl[-1]['device_tier']} tier blocks "
              f"on the device, stats say {r['device_blocks_end']}")
        check(max(s["device_tier"] for s in tl) <= r["device_blocks_max"], f"{name}: sampled max above device_blocks_max")
    csv_tl = timeline.get((row["workload"], row["policy"], r["rep"]), [])
    check(len(csv_tl) == len(tl), f"{name}: timeline.csv has {len(csv_tl)} samples, JSON {len(tl)}")
    for a, b in zip(csv_tl, tl):
        check(all(int(a[k]) == b[k] for k in ("phase", "host", "device", "unpopulated", "device_tier"))
              and abs(float(a["t_s"]) - b["t_s"]) < 1e-6, f"{name}: timeline.csv and JSON differ")
    checksums.setdefault(row["workload"], set()).add(row["checksum"])

for w, cs in checksums.items():
    check(len(cs) == 1, f"{w}: the final contents differ between policies: {sorted(cs)}")

summary = list(csv.DictReader(open(os.path.join(out, "summary.csv"), newline="")))
check(len(summary) == 9, f"summary.csv has {len(summary)} rows, expected 9")
check(len(doc["summary"]) == 9, f"results.json summary has {len(doc['summary'])} entries")
for s in summary:
    match = [r for r in rows if r["workload"] == s["workload"] and r["policy"] == s["policy"]]
    if match and match[0]["status"] == "ok":
        check(int(s["ok"]) == 1 and abs(float(s["time_s"]) - float(match[0]["wall_s"])) < 1e-6,
              f"summary {s['workload']}/{s['policy']}: median of one run is not the run")
        check(s["error"] == "" and s["data_differs"] == "0",
              f"summary {s['workload']}/{s['policy']}: error '{s['error']}' data_differs {s['data_differs']} for a good run")
    else:
        check(int(s["ok"]) == 0 and s["error"], f"summary {s['workload']}/{s['policy']}: error not carried")

table = open(stdout_path).read()
for w in workloads:
    check(f"\n{w} " in table, f"the summary table lists no '{w}' row")
for line in table.splitlines():
    words = line.split()
    if len(words) > 2 and words[0] in workloads:
        bad = words[1] == "no-such-policy"
        check(("error:" in line) == bad and "DATA DIFFERS" not in line, f"summary table line: {line}")

# Determinism: seed 7 again (two repetitions) gives the first run's random checksum.
want = checksums.get("random", {None})
for d, equal in ((same, True), (other, False)):
    rr = list(csv.DictReader(open(os.path.join(d, "results.csv"), newline="")))
    for r in rr:
        check(r["status"] == "ok", f"{d}: run failed: {r['error']}")
        check((r["checksum"] in want) == equal,
              f"{d}: checksum {r['checksum']} {'differs from' if equal else 'equals'} seed 7's {sorted(want)}")

if errors:
    print("FAIL:\n  " + "\n  ".join(errors))
    sys.exit(1)
print(f"ok: {len(rows)} runs, CSV/JSON/timeline/summary agree, counters consistent")
PY
[ $? -eq 0 ] || exit 1

if command -v gnuplot >/dev/null 2>&1; then
    for f in throughput.png residency-stream.png residency-random.png residency-trace.png; do
        [ -s "$out/$f" ] || fail "gnuplot is installed but $f was not written ($(cat "$out/plot/gnuplot.log" 2>/dev/null))"
        head -c 4 "$out/$f" | grep -q PNG || fail "$f is not a PNG file"
    done
fi
echo "PASS"
exit 0
