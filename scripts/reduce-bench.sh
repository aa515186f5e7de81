#!/bin/bash
# reduce-bench.sh: build bench/shmem/reduce-bench.c (classic OpenSHMEM 1.4
# reductions) against uvas and against Open MPI's OSHMEM, run both with N
# PEs on this node and print the time of a double sum by size, side by side.
#
# usage: scripts/reduce-bench.sh [--builddir DIR] [--prebuilt] [--quick] [-np N]
#   --builddir DIR  uvas build dir (default build): DIR/tools/uvascc; the
#                   binaries go to DIR/bench-uvas/ and DIR/bench-oshmem/
#   --prebuilt      run the binaries an earlier run built (a machine
#                   without compilers, e.g. the GPU machine)
#   --quick         fewer rounds
#   -np N           PEs (default 2)
# Output: size | uvas us | OSHMEM us | uvas/OSHMEM (lower is better), then
#   metric reduce.npN.BYTES.uvas US  and  metric reduce.npN.BYTES.oshmem US
# Exit status: 0 ok, 1 a build or run failed, 2 usage.
#
# OSHMEM of Open MPI 4.1.4 may crash in shmem_finalize after its work is
# done (open-mpi/ompi#11604, as scripts/shmem-bench.sh says): a run that
# printed "done" counts; uvas gets no such allowance.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD B=build prebuilt=0 args=() np=2
while [ $# -gt 0 ]; do
    case $1 in
    --builddir) B=$2; shift ;;
    --prebuilt) prebuilt=1 ;;
    --quick) args+=(-q) ;;
    -np) np=$2; shift ;;
    *) echo "reduce-bench.sh: unknown option $1 (see the head of the script)" >&2; exit 2 ;;
    esac
    shift
done
case $B in /*) ;; *) B=$root/$B ;; esac
die() { echo "reduce-bench.sh: $*" >&2; exit 1; }
launch=(--oversubscribe -np "$np")
[ "$(id -u)" = 0 ] && launch=(--allow-run-as-root "${launch[@]}")
src=$root/bench/shmem/reduce-bench.c

mkdir -p "$B/bench-uvas" "$B/bench-oshmem"
if [ $prebuilt = 0 ]; then
    command -v oshcc >/dev/null || die "oshcc not found: Open MPI with OSHMEM is needed (apt-get install openmpi-bin libopenmpi-dev)"
    [ -x "$B/tools/uvascc" ] || die "$B/tools/uvascc not found: build uvas first"
    "$B/tools/uvascc" -std=c11 -O2 -Wall -o "$B/bench-uvas/reduce-bench" "$src" -luvas ||
        die "the uvas build failed"
    oshcc -std=c11 -O2 -Wall -o "$B/bench-oshmem/reduce-bench" "$src" || die "the OSHMEM build failed"
fi
for impl in uvas oshmem; do
    [ -x "$B/bench-$impl/reduce-bench" ] || die "no $B/bench-$impl/reduce-bench (run without --prebuilt)"
done

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
rc=0
timeout -k 10 300 oshrun "${launch[@]}" "$B/bench-oshmem/reduce-bench" "${args[@]}" \
    >"$out/oshmem" 2>"$out/oshmem.err" || rc=$?
if ! grep -q '^done$' "$out/oshmem"; then
    tail -n 20 "$out/oshmem.err" >&2
    die "the OSHMEM run failed (exit $rc) before it was done"
fi
[ $rc = 0 ] || echo "reduce-bench.sh: note: OSHMEM exited $rc after a complete run (ompi#11604); kept" >&2
rc=0
timeout -k 10 300 mpirun "${launch[@]}" "$B/bench-uvas/reduce-bench" "${args[@]}" \
    >"$out/uvas" 2>"$out/uvas.err" || rc=$?
if [ $rc != 0 ] || ! grep -q '^done$' "$out/uvas"; then
    tail -n 20 "$out/uvas.err" >&2
    die "the uvas run failed (exit $rc)"
fi

awk -v np="$np" '
FNR == 1 { side++ }
$1 == "reduce" && $2 ~ /^[0-9]+$/ { if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 }
                                      if (side == 1) u[$2] = $3; else o[$2] = $3 }
END {
    printf "double sum over %d PEs on one node (shmem_double_sum_to_all), us a call, lower is better\n", np
    printf "  %-10s %12s %12s %12s\n", "bytes", "uvas", "oshmem", "uvas/oshmem"
    for (i = 1; i <= n; i++) {
        s = order[i]
        printf "  %-10s %12s %12s %12s\n", s, u[s], o[s], (u[s] != "" && o[s] > 0) ? sprintf("%.2f", u[s] / o[s]) : "-"
    }
    for (i = 1; i <= n; i++) {
        s = order[i]
        if (u[s] != "") printf "metric reduce.np%d.%s.uvas %s\n", np, s, u[s]
        if (o[s] != "") printf "metric reduce.np%d.%s.oshmem %s\n", np, s, o[s]
    }
}' "$out/uvas" "$out/oshmem"
