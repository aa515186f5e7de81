#!/bin/sh
# A sparse trace costs what it touches, not its extent: the final checksum
# read the whole buffer, so one 4 KiB write at 4 GiB placed 4 GiB (a trace
# over 64 GiB ended in the OOM killer). The checksum is still what reading
# every byte gives (checked against python's own hash of the contents).
# usage: test-uvas-exp-sparse.sh path/to/uvas-exp. Exit 0 pass, 1 fail, 77 skip.
set -u
exe=${1:?usage: test-uvas-exp-sparse.sh path/to/uvas-exp}
. "$(dirname "$0")/test-exp-lib.sh"
exp_test_setup test-uvas-exp-sparse "$exe" python

# Lines 1..3 write the values 2, 3, 4 (line % 255 + 1); the rest is never
# touched. 60 KiB in 4K blocks: untouched blocks before and between.
printf 'c w 20K 4K\nd w 40K 8K\nc w 56K 4K\n' >"$tmp/small.trace"
printf 'c w 4G 4K\nd w 1G 4K\n' >"$tmp/big.trace"
python3 - "$exe" "$tmp" <<'PY'
import csv, os, resource, subprocess, sys

exe, tmp = sys.argv[1:3]
M = (1 << 64) - 1

def run(name, *args):
    out = os.path.join(tmp, name)
    p = subprocess.run([exe, "-w", "trace", "-t", os.path.join(tmp, name + ".trace"), "-r", "1",
                        "-p", "host;first-touch", "-q", "--no-plots", "-o", out, *args],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    rows = list(csv.DictReader(open(os.path.join(out, "results.csv"), newline="")))
    if any("no device tier (" in r["error"] for r in rows):
        print("SKIP: no device tier (UVAS_DEVICE=none or no Vulkan driver)", file=sys.stderr)
        sys.exit(77)
    if p.returncode or any(r["status"] != "ok" for r in rows):
        print(f"FAIL: {name}: exit {p.returncode}: {p.stdout}", [r["error"] for r in rows])
        sys.exit(1)
    return rows

def splitmix(s):
    z = (s + 0x9e3779b97f4a7c15) & M
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M
    return z ^ (z >> 31)

buf = bytearray(60 << 10)
buf[20 << 10:24 << 10] = b"\x02" * 4096
buf[40 << 10:48 << 10] = b"\x03" * 8192
buf[56 << 10:60 << 10] = b"\x04" * 4096
h = 0xcbf29ce484222325
for i in range(0, len(buf), 8):
    h = ((h ^ int.from_bytes(buf[i:i + 8], "little")) * 0x100000001b3) & M
want = "0x%016x" % splitmix(h)  # the sink is 0: the trace reads nothing
for r in run("small", "-b", "4K"):
    if r["checksum"] != want or int(r["buffer_bytes"]) != len(buf):
        print(f"FAIL: small trace, {r['policy']}: checksum {r['checksum']} over "
              f"{r['buffer_bytes']} bytes, expected {want} over {len(buf)}")
        sys.exit(1)

# Peak RSS of the largest run (the children's, reaped through uvas-exp).
rows = run("big")
extent = int(rows[0]["buffer_bytes"])
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss << 10
if peak > extent // 4:
    print(f"FAIL: a trace touching 8 KiB of {extent >> 20} MiB peaked at {peak >> 20} MiB RSS")
    sys.exit(1)
print(f"ok: checksum {want} as read; {extent >> 20} MiB sparse trace peaked at {peak >> 20} MiB")
PY
rc=$?
[ $rc -eq 0 ] && echo PASS
exit $rc
