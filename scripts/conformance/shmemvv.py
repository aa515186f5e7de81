#!/usr/bin/env python3
"""The OpenSHMEM validation and verification suite (shmemvv,
michael-beebe/shmemvv) built unchanged with uvascc and with OSHMEM's
oshcc/oshc++, run side by side: one program that checks each routine, in
C, through the C11 generic names and through C++'s, and prints
"PASSED: <routine>" or "FAILED: <routine>" on PE 0.

SUITES/shmemvv holds the suite as the repository lays it out (src/main.cpp,
src/shmemvv.cpp, src/include, src/tests/<category>/{c11_,cxx_,}*.c(pp)).
Each category runs apart (shmemvv --test_<category>) on each PE count,
under a time limit; a routine's verdict is what PE 0 printed for it (a run
that timed out or crashed is said beside its routines). Writes
OUT/results.csv, OUT/summary.md and a log per run; --doc FILE writes the
summary into FILE's <!-- shmemvv --> block.

Usage: scripts/conformance/shmemvv.py SUITES OUT [--impl uvas,oshmem]
                      [--np 2,4] [--timeout S] [--build DIR] [--doc FILE]
"""
import argparse
import csv
import glob
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CATEGORIES = ["setup", "threads", "mem", "teams", "ctx", "remote", "atomics", "signaling",
              "collectives", "pt2pt_synch", "mem_ordering", "locking"]
ANSI = re.compile(r"\x1b\[[0-9;]*m")
VERDICT = re.compile(r"^(PASSED|FAILED|NOT FOUND): (.*?)( This test must pass.*)?$")
HEADER = re.compile(r"Running (.*?) tests?\.\.\.")


def _load_run():
    """run.py, for what both runners share: the reasons of expected.txt,
    the commit, a run's date, the docs block."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("conformance_run", os.path.join(HERE, "run.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


RUN = _load_run()


def build(impl, src, out):
    """Compile every source, link; (executable or None, log text)."""
    obj = os.path.join(out, "obj", impl)
    os.makedirs(obj, exist_ok=True)
    inc = ["-I" + os.path.join(src, "src", "include")]
    if impl == "uvas":
        uvascc = os.path.join(ROOT, "build", "tools", "uvascc")
        cc, cxx, link = [uvascc], [uvascc], [uvascc]
        link_env = dict(os.environ, UVAS_CC="c++")
    else:
        cc, cxx, link, link_env = ["oshcc"], ["oshc++"], ["oshc++"], None
    srcs = [os.path.join(src, "src", "main.cpp"), os.path.join(src, "src", "shmemvv.cpp")]
    srcs += sorted(glob.glob(os.path.join(src, "src", "tests", "*", "*.c")))
    srcs += sorted(glob.glob(os.path.join(src, "src", "tests", "*", "*.cpp")))
    log, objs = [], []
    for s in srcs:
        o = os.path.join(obj, os.path.basename(s) + ".o")
        comp = cxx + ["-std=gnu++17"] if s.endswith(".cpp") else cc + ["-std=gnu11"]
        cmd = comp + ["-O1", "-w", "-pthread"] + inc + ["-I" + os.path.dirname(s), "-c", s,
                                                        "-o", o]
        r = subprocess.run(cmd, capture_output=True, text=True)
        log.append(" ".join(cmd) + "\n" + r.stdout + r.stderr)
        if r.returncode:
            return None, "\n".join(log)
        objs.append(o)
    exe = os.path.join(out, "bin", impl, "shmemvv")
    os.makedirs(os.path.dirname(exe), exist_ok=True)
    cmd = link + objs + ["-o", exe, "-ldl", "-lm"]
    r = subprocess.run(cmd, capture_output=True, text=True, env=link_env)
    log.append(" ".join(cmd) + "\n" + r.stdout + r.stderr)
    return (exe if r.returncode == 0 else None), "\n".join(log)


def run(impl, exe, category, np_, timeout, log):
    launcher = "oshrun" if impl == "oshmem" else "mpirun"
    cmd = ["timeout", "-k", "5", str(timeout), launcher, "--oversubscribe", "-np", str(np_)]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    cmd += [exe, "--test_" + category]
    t0 = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    text = ANSI.sub("", r.stdout + "\n" + r.stderr)
    with open(log, "w") as f:
        f.write(" ".join(cmd) + "\n" + text)
    return r.returncode, time.time() - t0, text


def verdicts(text, category):
    """{routine: verdict} of the category's own section: setup's and the
    finalization's routines print in every run and count in the setup
    run only."""
    out, section = {}, "setup"
    for line in text.splitlines():
        m = HEADER.search(line)
        if m:
            section = m.group(1).strip().lower()
            continue
        m = VERDICT.match(line.strip())
        if not m:
            continue
        common = section.startswith("setup") or section.startswith("finaliz")
        if common != (category == "setup"):
            continue
        name = m.group(2).strip()
        v = {"PASSED": "pass", "FAILED": "fail", "NOT FOUND": "missing"}[m.group(1)]
        if out.get(name) != "fail":  # failed in any of its forms: fails
            out[name] = v
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("suites")
    ap.add_argument("out")
    ap.add_argument("--impl", default="uvas,oshmem")
    ap.add_argument("--np", default="2,4")
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--doc")
    ap.add_argument("--resummarize", action="store_true",
                    help="run nothing: the summary (and --doc) again from OUT's results.csv "
                    "and runs.csv, with expected.txt as it is now (commit and date the run's)")
    a = ap.parse_args()
    if a.resummarize:
        return resummarize(os.path.abspath(a.out), a.impl.split(","), a.doc)
    src = os.path.join(a.suites, "shmemvv")
    if not os.path.exists(os.path.join(src, "src", "main.cpp")):
        sys.exit("shmemvv: no %s/src/main.cpp (see --help for the layout)" % src)
    if "oshmem" in a.impl and not shutil.which("oshc++"):
        sys.exit("shmemvv: oshc++ not found (apt-get install libopenmpi-dev)")
    out = os.path.abspath(a.out)
    os.makedirs(os.path.join(out, "logs"), exist_ok=True)
    impls = a.impl.split(",")
    rows, runs = [], []
    for impl in impls:
        exe, blog = build(impl, src, out)
        with open(os.path.join(out, "logs", impl + ".build.txt"), "w") as f:
            f.write(blog)
        if not exe:
            print("shmemvv: %s does not build: %s" % (impl, blog.strip().splitlines()[-1]))
            runs.append([impl, "*", "*", "build", ""])
            continue
        for np_ in [int(x) for x in a.np.split(",")]:
            for c in CATEGORIES:
                log = os.path.join(out, "logs", "%s-%s-np%d.txt" % (impl, c, np_))
                rc, secs, text = run(impl, exe, c, np_, a.timeout, log)
                v = verdicts(text, c)
                state = "timeout" if rc in (124, 137) else ("exit %d" % rc if rc else "ok")
                runs.append([impl, c, np_, state, "%.1f" % secs])
                for name, res in sorted(v.items()):
                    rows.append([c, name, np_, impl, res])
                print("%-7s np%d %-13s %-8s %3d pass %3d fail %3d missing  %.0f s" % (
                    impl, np_, c, state, sum(1 for x in v.values() if x == "pass"),
                    sum(1 for x in v.values() if x == "fail"),
                    sum(1 for x in v.values() if x == "missing"), secs), flush=True)
    with open(os.path.join(out, "results.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["category", "routine", "np", "impl", "result"])
        w.writerows(rows)
    with open(os.path.join(out, "runs.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["impl", "category", "np", "run", "seconds"])
        w.writerows(runs)
    summary(out, rows, runs, impls, a.doc)
    return 0


def resummarize(out, impls, doc):
    def read(name):
        with open(os.path.join(out, name), newline="") as f:
            return list(csv.reader(f))[1:]
    rows = [[r[0], r[1], int(r[2]), r[3], r[4]] for r in read("results.csv")]
    runs = [[r[0], r[1], int(r[2]) if r[2].isdigit() else r[2], r[3], r[4]]
            for r in read("runs.csv")]
    summary(out, rows, runs, impls, doc, RUN.run_when(out))
    return 0


def summary(out, rows, runs, impls, doc, when=None):
    nps = sorted({r[2] for r in rows})
    lines = ["uvas at %s, %s; `scripts/conformance/shmemvv.py` on %s PEs, each category "
             "apart. Routine checks (routine, PE count) as PE 0 reported them: pass, fail, or "
             "missing (the program found no such symbol)." % (
                 tuple(when or (RUN.commit(), time.strftime("%Y-%m-%d"))) +
                 (" and ".join(map(str, nps)),)), "",
             "| category | checks | " + " | ".join("%s pass" % i for i in impls) +
             " | " + " | ".join("%s fail / missing" % i for i in impls) + " |",
             "| --- | --- | " + " | ".join(["---"] * (2 * len(impls))) + " |"]
    cats = [c for c in CATEGORIES if any(r[0] == c for r in rows)]
    for c in cats + ["all"]:
        rs = [r for r in rows if c == "all" or r[0] == c]
        keys = {(r[1], r[2]) for r in rs}
        cells = [str(sum(1 for r in rs if r[3] == i and r[4] == "pass")) for i in impls]
        bad = ["%d / %d" % (sum(1 for r in rs if r[3] == i and r[4] == "fail"),
                            sum(1 for r in rs if r[3] == i and r[4] == "missing"))
               for i in impls]
        lines.append("| %s | %d | %s | %s |" % (c, len(keys), " | ".join(cells), " | ".join(bad)))
    lines += ["", "Runs that did not end cleanly (the routines they printed count above), "
              "with the reason `expected.txt` gives (`shmemvv/<category>`):", ""]
    exp = RUN.expected(os.path.join(HERE, "expected.txt"))
    odd = []
    for r in runs:
        if r[3] == "ok":
            continue
        why = exp.get(("shmemvv/" + r[1], r[2])) or exp.get(("shmemvv/" + r[1], None))
        if r[3] == "build":
            why = "does not build (its first error in logs/%s.build.txt)" % r[0]
        odd.append("- %s, %s, np %s: %s%s" % (r[0], r[1], r[2], r[3],
                   ": " + why if why and (r[0] == "uvas" or r[3] == "build") else ""))
    lines += odd or ["- none"]
    lines += ["", "uvas checks that did not pass:", ""]
    bad = []
    for r in rows:
        if r[3] == "uvas" and r[4] != "pass":
            o = [x for x in rows if x[:3] == r[:3] and x[3] == "oshmem"]
            bad.append("- %s `%s` np %s: %s%s" % (r[0], r[1], r[2], r[4],
                       " (OSHMEM: %s)" % o[0][4] if o else ""))
    lines += bad or ["- none"]
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    if doc:
        RUN.write_block(doc, "shmemvv", "\n".join(lines))


if __name__ == "__main__":
    sys.exit(main())
