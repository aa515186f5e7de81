#!/usr/bin/env python3
"""Other implementations' OpenSHMEM test suites, built unchanged with uvascc
and with Open MPI's oshcc, run side by side: the yardstick of issue 16.

The suites are not part of the repository (their licences and their
upkeep are their owners'); give a folder that holds them:

  SUITES/sos/unit/*.c            Sandia OpenSHMEM, test/unit
  SUITES/sos/unit/cxx_*.cpp      (its C++ tests: uvascc picks the C++
                                 compiler, OSHMEM's is oshc++)
  SUITES/sos/spec-example/*.c    Sandia OpenSHMEM, test/spec-example
  SUITES/uh/feature_tests/C/*.c  University of Houston, feature_tests/C
  SUITES/osu/openshmem/*.c       OSU micro-benchmarks, OpenSHMEM set
  SUITES/osu/util/*.c            (their shared utility sources)

Every program runs on each PE count (mpirun -np N, oversubscribed) under
a time limit. A run passes when it exits 0 and prints no failure line
(the UH tests print "Failed" and still exit 0). Runs that a listed reason
explains (scripts/conformance/expected.txt: behaviour the specification
leaves to the implementation, or a suite's own bug that uvas catches) are
counted apart. Writes OUT/results.csv, OUT/summary.md and a log per run.

Usage: scripts/conformance/run.py SUITES OUT [--impl uvas,oshmem] [--np 2,4]
                      [--only REGEX] [--timeout S] [--build DIR] [--doc FILE]
                      [--block NAME]
"""
import argparse
import csv
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FAIL_LINE = re.compile(r"\bFailed\b|\bFAILED\b|\bFAIL\b|^ERROR|Error: ", re.M)
CFLAGS = ["-std=gnu11", "-O1", "-w", "-pthread", "-fopenmp"]
CXXFLAGS = ["-std=gnu++17", "-O1", "-w", "-pthread", "-fopenmp"]
LIBS = ["-lm"]


def programs(suites):
    """(suite, name, sources, extra cflags, include dir, args, PE counts or None)."""
    out = []

    def each_c(d, suite, skip=()):
        if not os.path.isdir(d):
            return
        for f in sorted(os.listdir(d)):
            if f.endswith(".c") and f[:-2] not in skip:
                out.append((suite, f[:-2], [os.path.join(d, f)], [], d, [], None))

    sos = os.path.join(suites, "sos", "unit")
    # mt_lock.c is no program (no main): it defines the mtl_* locks that
    # mt_lock_test calls, so it is built into that one.
    each_c(sos, "sos-unit", skip=("mt_lock", "mt_lock_test"))
    if os.path.exists(os.path.join(sos, "mt_lock_test.c")):
        srcs = [os.path.join(sos, "mt_lock_test.c")]
        if os.path.exists(os.path.join(sos, "mt_lock.c")):
            srcs.append(os.path.join(sos, "mt_lock.c"))
        out.append(("sos-unit", "mt_lock_test", srcs, [], sos, [], None))
    if os.path.isdir(sos):
        for f in sorted(os.listdir(sos)):
            if f.endswith(".cpp"):
                out.append(("sos-cxx", f[:-4], [os.path.join(sos, f)], [], sos, [], None))
    if os.path.exists(os.path.join(sos, "rma_coverage.c")):
        out.append(("sos-unit", "rma_coverage_pshmem", [os.path.join(sos, "rma_coverage.c")],
                    ["-DTEST_PSHMEM"], sos, [], None))
    each_c(os.path.join(suites, "sos", "spec-example"), "sos-spec")
    each_c(os.path.join(suites, "uh", "feature_tests", "C"), "uh")
    osu = os.path.join(suites, "osu", "openshmem")
    util = os.path.join(suites, "osu", "util")
    if os.path.isdir(osu):
        usrc = [os.path.join(util, f) for f in sorted(os.listdir(util))
                if f.endswith(".c") and "mpi" not in f and "cuda" not in f] \
            if os.path.isdir(util) else []
        for f in sorted(os.listdir(osu)):
            if not (f.startswith("osu_") and f.endswith(".c")):
                continue
            flags = ["-D_ENABLE_OPENSHMEM_", "-DFIELD_WIDTH=18", "-DFLOAT_PRECISION=2",
                     "-I" + util, "-I" + osu]
            srcs = [os.path.join(osu, f)] + usrc
            # The point-to-point ones take where their buffers live, and
            # run on exactly two PEs (they refuse others).
            text = open(os.path.join(osu, f), errors="replace").read()
            two = [2] if "exactly two" in text or "npes != 2" in text else None
            if "heap" in text:
                for where in ("heap", "global"):
                    out.append(("osu", "%s[%s]" % (f[:-2], where), srcs, flags, osu, [where],
                                two))
            else:
                out.append(("osu", f[:-2], srcs, flags, osu, [], two))
    return out


def expected(path):
    """{(suite/name, np or None): reason} from the expectations file."""
    exp = {}
    if not os.path.exists(path):
        return exp
    for line in open(path):
        line = line.split("#", 1)[0].strip() if not line.lstrip().startswith("#") else ""
        if not line:
            continue
        parts = line.split(None, 2)
        if len(parts) < 3:
            continue
        key, np_, reason = parts
        exp[(key, None if np_ == "*" else int(np_))] = reason
    return exp


def build(impl, cc, prog, bindir, logdir):
    suite, name, srcs, extra, inc = prog[:5]
    exe = os.path.join(bindir, impl, suite, name)
    log = os.path.join(logdir, impl, suite, name + ".build.txt")
    os.makedirs(os.path.dirname(exe), exist_ok=True)
    os.makedirs(os.path.dirname(log), exist_ok=True)
    flags = CFLAGS
    if srcs[0].endswith(".cpp"):
        flags = CXXFLAGS
        cc = ["oshc++"] if cc == ["oshcc"] else cc
    cmd = cc + flags + extra + ["-I" + inc] + srcs + ["-o", exe] + LIBS
    r = subprocess.run(cmd, capture_output=True, text=True)
    with open(log, "w") as f:
        f.write(" ".join(cmd) + "\n" + r.stdout + r.stderr)
    return exe if r.returncode == 0 else None, (r.stdout + r.stderr)


def first_error(text):
    for line in text.splitlines():
        if "error" in line.lower():
            return line.strip()[:160]
    return text.strip().splitlines()[-1][:160] if text.strip() else ""


def run(impl, exe, args, np_, timeout, log, guard):
    launcher = "oshrun" if impl == "oshmem" else "mpirun"
    cmd = ["timeout", "-k", "5", str(timeout), launcher, "--oversubscribe", "-np", str(np_)]
    if os.geteuid() == 0:
        cmd.insert(5, "--allow-run-as-root")
    if impl == "oshmem" and guard:
        cmd += ["-x", "LD_PRELOAD=" + guard]
    cmd += [exe] + args
    env = dict(os.environ, OMPI_MCA_rmaps_base_oversubscribe="1")
    t0 = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, errors="replace")
    secs = time.time() - t0
    text = r.stdout + r.stderr
    with open(log, "w") as f:
        f.write(" ".join(cmd) + "\n" + text + "\nexit %d after %.1f s\n" % (r.returncode, secs))
    guarded = impl == "oshmem" and text.count("oshmem-finalize-guard:") >= np_
    if r.returncode in (124, 137):
        verdict = "timeout"
    elif r.returncode == 0 or guarded:
        # guarded: every PE reached shmem_finalize and only crashed inside
        # it (the guard's line; mpirun then says the PE exited improperly).
        verdict = "fail" if FAIL_LINE.search(r.stdout) else "pass"
    elif re.search(r"signal \d+|Segmentation|core dumped|Aborted", text):
        verdict = "crash"
    else:
        verdict = "fail"
    return verdict, r.returncode, secs, text


def why(text):
    """The line that says most about a failed run."""
    for pat in (r"uvas: .*", r".*\bFAIL.*", r".*Failed.*", r".*error.*", r".*signal.*"):
        m = re.search(pat, text, re.I)
        if m:
            return m.group(0).strip()[:200]
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[-1][:200] if lines else ""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("suites")
    ap.add_argument("out")
    ap.add_argument("--impl", default="uvas,oshmem")
    ap.add_argument("--np", default="2,4")
    ap.add_argument("--only", default="")
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--doc", help="also write the summary into this file's "
                    "<!-- conformance --> block")
    ap.add_argument("--block", default="conformance",
                    help="the --doc block to write: <!-- NAME --> ... <!-- /NAME --> "
                    "(a run of part of the suites, --only, beside the whole run's table)")
    ap.add_argument("--resummarize", action="store_true",
                    help="run nothing: read OUT/results.csv, take the reasons from "
                    "expected.txt again and rewrite the summary (and --doc)")
    a = ap.parse_args()
    if a.resummarize:
        return resummarize(os.path.abspath(a.out), a.doc, a.block)

    impls = a.impl.split(",")
    ccs = {}
    for impl in impls:
        if impl == "uvas":
            cc = os.path.join(os.path.abspath(a.build), "tools", "uvascc")
            if not os.access(cc, os.X_OK):
                sys.exit("conformance: %s not found: build uvas first (scripts/build.sh)" % cc)
            ccs[impl] = [cc]
        elif impl == "oshmem":
            if not shutil.which("oshcc") or not shutil.which("oshrun"):
                sys.exit("conformance: oshcc/oshrun not found (apt-get install openmpi-bin "
                         "libopenmpi-dev)")
            ccs[impl] = ["oshcc"]
        else:
            sys.exit("conformance: unknown implementation %s (uvas, oshmem)" % impl)
    nps = [int(x) for x in a.np.split(",")]
    progs = [p for p in programs(a.suites) if re.search(a.only, p[0] + "/" + p[1])]
    if not progs:
        sys.exit("conformance: no programs under %s (see --help for the layout)" % a.suites)
    exp = expected(os.path.join(HERE, "expected.txt"))
    out = os.path.abspath(a.out)
    os.makedirs(out, exist_ok=True)
    guard = None
    if "oshmem" in impls:
        guard = os.path.join(out, "oshmem-finalize-guard.so")
        subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-o", guard,
                        os.path.join(HERE, "oshmem-finalize-guard.c"), "-ldl"], check=True)
    bindir, logdir = os.path.join(out, "bin"), os.path.join(out, "logs")
    rows = []
    total = len(progs) * len(impls)
    done = 0
    for prog in progs:
        suite, name = prog[0], prog[1]
        for impl in impls:
            done += 1
            exe, blog = build(impl, ccs[impl], prog, bindir, logdir)
            for np_ in nps:
                if prog[6] and np_ not in prog[6]:
                    continue
                key = suite + "/" + name
                reason = exp.get((key, np_)) or exp.get((key, None)) or ""
                if impl != "uvas":
                    reason = ""
                if not exe:
                    rows.append([suite, name, np_, impl, "build", "", "0", first_error(blog), reason])
                    continue
                log = os.path.join(logdir, impl, suite, "%s-np%d.txt" % (name, np_))
                verdict, rc, secs, text = run(impl, exe, prog[5], np_, a.timeout, log, guard)
                m = re.match(r"exit=(\d+) ", reason)
                if m and verdict in ("fail", "pass"):
                    # the program asks for that status (shmem_global_exit)
                    verdict = "pass" if rc == int(m.group(1)) and not FAIL_LINE.search(text) \
                        else "fail"
                rows.append([suite, name, np_, impl, verdict, rc, "%.1f" % secs,
                             "" if verdict == "pass" else why(text), reason])
            last = [r for r in rows if r[1] == name and r[3] == impl]
            print("[%d/%d] %-8s %-10s %-40s %s" % (done, total, impl, suite, name,
                  " ".join("np%s:%s" % (r[2], r[4]) for r in last)), flush=True)

    with open(os.path.join(out, "results.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["suite", "program", "np", "impl", "result", "exit", "seconds", "why",
                    "expected"])
        w.writerows(rows)
    write_summary(out, rows, impls, a.doc, block=a.block)
    return 0


def resummarize(out, doc, block):
    """The summary of an earlier run again, with expected.txt as it is now
    (its reasons are refined after a run shows what a copy of a suite
    does); the verdicts are the run's."""
    path = os.path.join(out, "results.csv")
    if not os.path.exists(path):
        sys.exit("conformance: no %s to summarise" % path)
    with open(path, newline="") as f:
        rows = list(csv.reader(f))[1:]
    exp = expected(os.path.join(HERE, "expected.txt"))
    for r in rows:
        r[2] = int(r[2])
        key = r[0] + "/" + r[1]
        r[8] = (exp.get((key, r[2])) or exp.get((key, None)) or "") if r[3] == "uvas" else ""
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["suite", "program", "np", "impl", "result", "exit", "seconds", "why",
                    "expected"])
        w.writerows(rows)
    impls = []
    for r in rows:
        if r[3] not in impls:
            impls.append(r[3])
    write_summary(out, rows, impls, doc, run_when(out), block)
    return 0


def run_when(out):
    """(commit, date) of the run in OUT, from its summary.md; None if none."""
    old = os.path.join(out, "summary.md")
    if os.path.exists(old):
        m = re.search(r"^uvas at (\S+), (\S+);", open(old).read(), re.M)
        if m:
            return (m.group(1), m.group(2))
    return None


def write_block(doc, block, body):
    """Replace what stands between doc's <!-- block --> and <!-- /block -->."""
    text = open(doc).read()
    a, b = "<!-- %s -->" % block, "<!-- /%s -->" % block
    if a not in text or b not in text:
        sys.exit("conformance: %s has no %s ... %s block" % (doc, a, b))
    text = text[:text.index(a) + len(a)] + "\n" + body + "\n" + text[text.index(b):]
    with open(doc, "w") as f:
        f.write(text)


def commit():
    c = os.environ.get("UVAS_COMMIT")
    if c:
        return c
    r = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                       capture_output=True, text=True)
    return r.stdout.strip() or "unknown"


def write_summary(out, rows, impls, doc=None, when=None, block="conformance"):
    suites = sorted({r[0] for r in rows})
    nps = sorted({r[2] for r in rows})
    lines = ["# OpenSHMEM suites: uvas beside OSHMEM", "",
             "uvas at %s, %s; `scripts/conformance/run.py` on %s PEs. Runs of "
             "(program, PE count); pass = exit 0 with no failure line. *expected*: "
             "a uvas run whose outcome `scripts/conformance/expected.txt` explains "
             "(listed below). OSHMEM (Open MPI 4.1.4) runs with "
             "oshmem-finalize-guard.so preloaded: a crash after its work is done is "
             "its known bug (ompi#11604), not counted against it."
             % (tuple(when or (commit(), time.strftime("%Y-%m-%d"))) +
                (" and ".join(map(str, nps)),)), "",
             "| suite | runs | " + " | ".join("%s pass" % i for i in impls) +
             " | uvas expected | uvas other |",
             "| --- | --- | " + " | ".join("---" for _ in impls) + " | --- | --- |"]
    for s in suites + ["all"]:
        rs = [r for r in rows if s == "all" or r[0] == s]
        n = len([r for r in rs if r[3] == impls[0]])
        cells = []
        for impl in impls:
            cells.append(str(sum(1 for r in rs if r[3] == impl and r[4] == "pass")))
        u = [r for r in rs if r[3] == "uvas" and r[4] != "pass"]
        lines.append("| %s | %d | %s | %d | %d |" % (s, n, " | ".join(cells),
                     sum(1 for r in u if r[8]), sum(1 for r in u if not r[8])))
    lines += ["", "## uvas runs that did not pass", "",
              "| program | np | result | expected because / why |", "| --- | --- | --- | --- |"]
    for r in rows:
        if r[3] == "uvas" and r[4] != "pass":
            osh = [o for o in rows if o[:3] == r[:3] and o[3] == "oshmem"]
            tag = " (OSHMEM: %s)" % osh[0][4] if osh else ""
            lines.append("| %s/%s | %s | %s%s | %s |" % (r[0], r[1], r[2], r[4], tag,
                         (r[8] or r[7]).replace("|", "/")))
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines[:len(suites) + 7]))
    if doc:
        write_block(doc, block, "\n".join(l.replace("## ", "### ", 1) for l in lines[2:]))


if __name__ == "__main__":
    sys.exit(main())
