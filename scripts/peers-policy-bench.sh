#!/bin/bash
# peers-policy-bench.sh: the peers policy against first-touch, alternated,
# with bench/shmem/peers-policy-bench.c (mpirun -np 2): PE 1's CPU puts
# into PE 0's device-resident blocks; first-touch leaves them there, peers
# brings them to the host once it has seen PE 1's puts.
#
# usage: scripts/peers-policy-bench.sh [--builddir DIR] [--rounds N] [BENCH ARGS...]
#   --builddir DIR  uvas build dir (default build): DIR/bench/peers-policy-bench
#   --rounds N      alternations of the two policies (default 3)
#   BENCH ARGS      passed on (-b blocks -n puts -r rounds)
# Output: each run's lines, then per policy the median over the runs of the
# median put (us) and the ratio first-touch / peers (how many times faster
# a put is under peers), and metric lines for scripts/perf-table.py.
# Exit status: 0 ok, 1 a run failed, 77 no device tier (nothing to place).
set -euo pipefail
cd "$(dirname "$0")/.."
B=build rounds=3
while [ $# -gt 0 ]; do
    case $1 in
    --builddir) B=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) break ;;
    esac
done
bin=$B/bench/peers-policy-bench
[ -x "$bin" ] || { echo "peers-policy-bench.sh: no $bin (build first)" >&2; exit 1; }
launch=(--oversubscribe -np 2)
[ "$(id -u)" = 0 ] && launch=(--allow-run-as-root "${launch[@]}")
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for r in $(seq "$rounds"); do
    for pol in first-touch peers; do
        rc=0
        UVAS_POLICY=$pol timeout 120 mpirun "${launch[@]}" -x UVAS_POLICY "$bin" "$@" \
            >>"$out" 2>&1 || rc=$?
        [ $rc = 77 ] && { tail -n 3 "$out" >&2; exit 77; }
        [ $rc = 0 ] || { tail -n 20 "$out" >&2; echo "peers-policy-bench.sh: $pol run $r failed ($rc)" >&2; exit 1; }
    done
done
grep -v '^metric' "$out"
awk '
/^metric peers_policy\.[a-z-]+\.median_put_us / { split($2, w, "."); v[w[2], ++n[w[2]]] = $3 }
/^metric peers_policy\.[a-z-]+\.on_host_blocks / { split($2, w, "."); h[w[2]] = h[w[2]] " " $3 }
function med(p,    i, j, t, k, a) {
    k = n[p]; for (i = 1; i <= k; i++) a[i] = v[p, i]
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
END {
    ft = med("first-touch"); pe = med("peers")
    printf "\nmedian put, us (median of %d runs): first-touch %.4f, peers %.4f; blocks on the host at the end: first-touch%s, peers%s\n", n["peers"], ft, pe, h["first-touch"], h["peers"]
    printf "metric peers_policy.first_touch_median_put_us %.4f\n", ft
    printf "metric peers_policy.peers_median_put_us %.4f\n", pe
    if (pe > 0) printf "peers policy: a put %.1fx faster than under first-touch\n", ft / pe
}' "$out"
