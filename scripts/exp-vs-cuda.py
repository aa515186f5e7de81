#!/usr/bin/env python3
"""uvas's policies beside CUDA Unified Memory on uvas-exp's workloads.

usage: exp-vs-cuda.py DIR [DOC...]

DIR holds what scripts/exp-vs-cuda.sh left: uvas-exp's summary.csv and
results.csv, and cuda-um.txt (bench/cuda/um-exp.cu's lines). Writes
DIR/vs-cuda.md (the table), DIR/vs-cuda.dat and, with gnuplot, DIR/vs-cuda.png;
in each DOC, replaces the block between '<!-- vs-cuda begin -->' and
'<!-- vs-cuda end -->' there. Each row: the median time of uvas's default
policy (first-touch) and of its best policy, of CUDA UM by default and
with its best advice, and the ratios (CUDA time / uvas time: above 1, uvas
is faster); 'same data' says whether every run of the workload, uvas's
and CUDA's, ended with the same checksum.
"""
import csv
import os
import re
import subprocess
import sys

WORKLOADS = ["stream", "random", "stencil", "hotset", "pingpong"]
DEFAULT = "first-touch"


def read(d):
    uvas, sums, cuda, head = {}, {}, {}, ""
    for r in csv.DictReader(open(os.path.join(d, "summary.csv"))):
        if r["ok"] == r["runs"] and r["time_s"]:
            uvas.setdefault(r["workload"], {})[r["policy"]] = float(r["time_s"])
    for r in csv.DictReader(open(os.path.join(d, "results.csv"))):
        if r["status"] == "ok":
            sums.setdefault(r["workload"], set()).add(int(r["checksum"], 0))
    for line in open(os.path.join(d, "cuda-um.txt")):
        m = re.match(r"um-exp (\S+) (\S+) time_s (\S+) checksum (\S+)", line)
        if m:
            cuda.setdefault(m[1], {})[m[2]] = float(m[3])
            sums.setdefault(m[1], set()).add(int(m[4], 0))
        elif line.startswith("um-exp:"):
            head = line.strip()
    return uvas, cuda, sums, head


def table(uvas, cuda, sums, head, commit):
    rows = ["| workload | uvas default (first-touch) | uvas best | CUDA UM default | CUDA UM "
            "best advice | CUDA default / uvas default | CUDA best / uvas best | same data |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    dat = []
    faster, within = 0, 0
    for w in WORKLOADS:
        if w not in uvas or w not in cuda or DEFAULT not in uvas[w] or "default" not in cuda[w]:
            continue
        ud = uvas[w][DEFAULT]
        bp, ub = min(uvas[w].items(), key=lambda kv: kv[1])
        cd = cuda[w]["default"]
        advised = {k: v for k, v in cuda[w].items() if k != "default"}
        ba, cb = min(advised.items(), key=lambda kv: kv[1]) if advised else ("-", cd)
        r1, r2 = cd / ud, cb / ub
        faster += r1 > 1.0
        within += r1 >= 1 / 1.2
        rows.append(f"| {w} | {ud * 1e3:.0f} ms | {ub * 1e3:.0f} ms ({bp}) | {cd * 1e3:.0f} ms | "
                    f"{cb * 1e3:.0f} ms ({ba}) | {r1:.2f} | {r2:.2f} | "
                    f"{'yes' if len(sums.get(w, ())) == 1 else 'NO'} |")
        dat.append(f"{w} {ud * 1e3:.3f} {ub * 1e3:.3f} {cd * 1e3:.3f} {cb * 1e3:.3f}")
    n = len(dat)
    text = "\n".join(rows) + "\n\n"
    text += (f"uvas's default is faster than CUDA UM's default on {faster} of {n} workloads and "
             f"within 1.2x of it on {within} of {n}. {head}; uvas at {commit}, same run "
             f"(scripts/exp-vs-cuda.sh).\n")
    return text, dat


def main():
    d = sys.argv[1]
    docs = sys.argv[2:]
    commit = "unknown commit"
    cpath = os.path.join(d, "commit.txt")
    if os.path.exists(cpath):
        commit = open(cpath).read().strip()
    text, dat = table(*read(d), commit)
    open(os.path.join(d, "vs-cuda.md"), "w").write(text)
    open(os.path.join(d, "vs-cuda.dat"), "w").write(
        "# workload uvas_default_ms uvas_best_ms cuda_default_ms cuda_best_ms\n" + "\n".join(dat) + "\n")
    print(text, end="")
    gp = f"""set terminal pngcairo size 1000,480
set output '{os.path.join(d, "vs-cuda.png")}'
set title 'uvas-exp workloads: time (lower is better), uvas and CUDA Unified Memory, same GPU'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set ylabel 'ms (median)'
set key outside right top
set yrange [0:*]
plot '{os.path.join(d, "vs-cuda.dat")}' using 2:xtic(1) title 'uvas default (first-touch)', \\
     '' using 3 title 'uvas best policy', '' using 4 title 'CUDA UM default', \\
     '' using 5 title 'CUDA UM best advice'
"""
    try:
        subprocess.run(["gnuplot"], input=gp, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"exp-vs-cuda: no plot ({e})", file=sys.stderr)
    for doc in docs:
        s = open(doc).read()
        b, e = "<!-- vs-cuda begin -->", "<!-- vs-cuda end -->"
        if b not in s or e not in s:
            sys.exit(f"exp-vs-cuda: {doc} has no {b} ... {e} block")
        s = s[:s.index(b) + len(b)] + "\n" + text + s[s.index(e):]
        open(doc, "w").write(s)


main()
