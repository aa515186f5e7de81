#!/bin/bash
# peers-policy-bench.sh: the peers policy against first-touch, alternated,
# with bench/shmem/peers-policy-bench.c (mpirun -np 2). The CPUs'
# direction: PE 1's CPU puts into PE 0's device-resident blocks;
# first-touch leaves them there, peers brings them to the host once it has
# seen PE 1's puts. The kernels' direction (--kernels): PE 1's kernel puts
# into PE 0's host-resident blocks; peers takes them to the device.
#
# usage: scripts/peers-policy-bench.sh [--builddir DIR] [--rounds N] [--kernels] [BENCH ARGS...]
#   --builddir DIR  uvas build dir (default build): DIR/bench/peers-policy-bench
#   --rounds N      alternations of the two policies (default 3)
#   --kernels       the kernels' direction (the benchmark's -k)
#   BENCH ARGS      passed on (-b blocks -n puts -r rounds)
# Output: each run's lines, then per policy the median over the runs of the
# median round (a put's us; a launch's GB/s with --kernels) and how many
# times better peers did, and metric lines.
# Exit status: 0 ok, 1 a run failed, 77 nothing to measure here (no
# device tier; --kernels: kernels that cannot wait for the host).
set -euo pipefail
cd "$(dirname "$0")/.."
B=build rounds=3 k=()
while [ $# -gt 0 ]; do
    case $1 in
    --builddir) B=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --kernels) k=(-k); shift ;;
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
        UVAS_POLICY=$pol timeout 120 mpirun "${launch[@]}" -x UVAS_POLICY "$bin" "${k[@]}" "$@" \
            >>"$out" 2>&1 || rc=$?
        [ $rc = 77 ] && { tail -n 3 "$out" >&2; exit 77; }
        [ $rc = 0 ] || { tail -n 20 "$out" >&2; echo "peers-policy-bench.sh: $pol run $r failed ($rc)" >&2; exit 1; }
    done
done
grep -v '^metric' "$out"
awk -v kern=${#k[@]} '
BEGIN { pre = kern ? "peers_policy_kernels" : "peers_policy"; fig = kern ? "median_gbs" : "median_put_us"
        where = kern ? "on_device_blocks" : "on_host_blocks" }
$1 == "metric" { split($2, w, "."); if (w[1] != pre) next
                 if (w[3] == fig) v[w[2], ++n[w[2]]] = $3; if (w[3] == where) h[w[2]] = h[w[2]] " " $3 }
function med(p,    i, j, t, k, a) {
    k = n[p]; for (i = 1; i <= k; i++) a[i] = v[p, i]
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
END {
    ft = med("first-touch"); pe = med("peers")
    if (kern) {
        printf "\nmedian launch, GB/s (median of %d runs): first-touch %.3f, peers %.3f; blocks on the device at the end: first-touch%s, peers%s\n", n["peers"], ft, pe, h["first-touch"], h["peers"]
        printf "metric %s.first_touch_median_gbs %.4f\nmetric %s.peers_median_gbs %.4f\n", pre, ft, pre, pe
        if (ft > 0) printf "peers policy: a peer kernel'"'"'s puts at %.2fx their rate under first-touch\n", pe / ft
    } else {
        printf "\nmedian put, us (median of %d runs): first-touch %.4f, peers %.4f; blocks on the host at the end: first-touch%s, peers%s\n", n["peers"], ft, pe, h["first-touch"], h["peers"]
        printf "metric %s.first_touch_median_put_us %.4f\nmetric %s.peers_median_put_us %.4f\n", pre, ft, pre, pe
        if (pe > 0) printf "peers policy: a put %.1fx faster than under first-touch\n", ft / pe
    }
}' "$out"
