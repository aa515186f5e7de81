#!/usr/bin/env python3
"""The performance guard's checker.

usage: perf-check.py FLOORS OUTPUT... [--table FILE]

Reads the "metric NAME VALUE" lines the benchmarks print (uvas-bench,
path-bench, shmem-bench.sh, bench/cuda/um-bench) from every OUTPUT file,
and the floors file: one check a line,

    name   numerator   denominator   floor

where numerator and denominator are metric names measured in the same run
(denominator '-' for an absolute figure). A metric that several outputs
print (a benchmark run more than once: shmem-bench, whose reference
moves 1.6-2x between runs) counts as the median of its values. Each check prints its ratio beside
its floor; any ratio under its floor, or a metric missing, fails (exit 1).
Express every check as higher-is-better: put the reference on the side
that makes it so (times: reference / uvas; rates: uvas / reference).
--table FILE also writes the checks as a Markdown table (scripts/perf-table.sh).
"""
import statistics
import sys


def read_metrics(paths):
    seen = {}
    for p in paths:
        with open(p, errors="replace") as f:
            for line in f:
                w = line.split()
                if len(w) == 3 and w[0] == "metric":
                    try:
                        seen.setdefault(w[1], []).append(float(w[2]))
                    except ValueError:
                        pass
    return {k: statistics.median(v) for k, v in seen.items()}


def read_floors(path):
    checks = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            w = line.split()
            if len(w) != 4:
                sys.exit(f"{path}:{n}: want 'name numerator denominator floor', got {line!r}")
            try:
                floor = float(w[3])
            except ValueError:
                sys.exit(f"{path}:{n}: floor {w[3]!r} is not a number")
            checks.append((w[0], w[1], w[2], floor))
    return checks


def main(argv):
    table = None
    if "--table" in argv:
        i = argv.index("--table")
        if i + 1 >= len(argv):
            sys.exit("--table needs a file")
        table = argv[i + 1]
        del argv[i:i + 2]
    if len(argv) < 3:
        sys.exit(__doc__)
    checks = read_floors(argv[1])
    m = read_metrics(argv[2:])
    failed = 0
    rows = []
    print(f"{'check':34} {'ratio':>8} {'floor':>7}  result")
    for name, num, den, floor in checks:
        missing = [x for x in (num, den) if x != "-" and x not in m]
        if missing:
            print(f"{name:34} {'-':>8} {floor:7.2f}  FAIL: not measured ({', '.join(missing)})")
            failed += 1
            rows.append((name, num, den, None, floor, "not measured"))
            continue
        ratio = m[num] / m[den] if den != "-" else m[num]
        ok = ratio >= floor
        failed += not ok
        print(f"{name:34} {ratio:8.2f} {floor:7.2f}  {'ok' if ok else 'FAIL'}")
        rows.append((name, num, den, ratio, floor, "ok" if ok else "below floor"))
    print(f"perf-check: {len(checks) - failed} passed, {failed} failed")
    if table:
        with open(table, "w") as f:
            f.write("| check | uvas | reference | ratio | floor | |\n|---|---|---|---|---|---|\n")
            for name, num, den, ratio, floor, res in rows:
                val = lambda k: "-" if k == "-" or k not in m else f"{m[k]:.3g}"
                r = "-" if ratio is None else f"{ratio:.2f}"
                f.write(f"| {name} | {val(num)} | {val(den)} | {r} | {floor:.2f} | {res} |\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
