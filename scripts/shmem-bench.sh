#!/bin/bash
# shmem-bench.sh: build bench/shmem/shmem-bench.c (standard OpenSHMEM 1.4)
# twice, against uvas and against Open MPI's OSHMEM, run both with 2 PEs on
# this node and print the figures side by side.
#
# usage: scripts/shmem-bench.sh [--tcp] [--quick] [--csv FILE] [-m MAXBYTES]
#                               [--builddir DIR] [--only uvas|oshmem]
#   --tcp          both over UCX's tcp transport: UCX_TLS=tcp,self for both,
#                  UVAS_TRANSPORT=ucx for uvas (no intra-node shared windows),
#                  --mca spml ucx for OSHMEM (see the note at oshmem_run below)
#   --quick        pass -q to the benchmark (fewer, shorter batches; for CI)
#   --csv FILE     also write the table as CSV (section,size,uvas,oshmem,ratio)
#   -m MAXBYTES    largest message size (default 4M, as the benchmark's)
#   --builddir DIR uvas build dir (default build): libuvas.so, tools/uvascc;
#                  binaries and logs go to DIR/bench-uvas/ and DIR/bench-oshmem/
#   --only X       build and run only one of the two (no ratio line then)
#   --prebuilt     run the binaries an earlier run built in DIR/bench-*/
#                  (on a machine without compilers, e.g. the GPU machine)
#
# Needs: Open MPI with OSHMEM (Debian: apt-get install openmpi-bin
# libopenmpi-dev) for oshcc/oshrun/mpirun; a built libuvas.so with the
# OpenSHMEM layer (include/shmem.h).  uvas is compiled with DIR/tools/uvascc
# when it exists, otherwise with cc -Iinclude ... -LDIR -luvas -Wl,-rpath.
#
# Output: a table per measurement (put latency us, get latency us, put
# bandwidth MB/s, atomics Mops/s): size | uvas | oshmem | ratio uvas/oshmem.
# The last line is always, on success with both sides:
#   put8 latency ratio uvas/oshmem: R
# R = uvas put latency at 8 B / OSHMEM's (lower is better for uvas).
# Exit status: 0 ok, 1 a build or run failed (message on stderr), 2 usage.
#
# Known issue handled here: Open MPI 4.1.4 (Debian 12) OSHMEM segfaults in
# shmem_finalize after the program's work is done (open-mpi/ompi#11604, same
# root cause as #10978: sshmem segment_unlink after detach; fixed in 4.1.6).
# The benchmark prints and flushes "done" before shmem_finalize; an OSHMEM
# run whose output is complete (all lines + "done") but which then dies of a
# signal counts as valid, with a one-line note.  Incomplete output is a
# failure.  uvas gets no such allowance: any non-zero exit is a failure.
set -euo pipefail

die() { printf 'shmem-bench.sh: error: %s\n' "$*" >&2; exit 1; }
note() { printf 'shmem-bench.sh: %s\n' "$*" >&2; }

cd "$(dirname "$0")/.."
root=$PWD
src=bench/shmem/shmem-bench.c

tcp=0 quick=0 csv='' maxbytes='' builddir=build only='' prebuilt=0
while [ $# -gt 0 ]; do
    case $1 in
    --tcp) tcp=1 ;;
    --prebuilt) prebuilt=1 ;;
    --quick) quick=1 ;;
    --csv) [ $# -ge 2 ] || { echo "--csv needs a file" >&2; exit 2; }; csv=$2; shift ;;
    --csv=*) csv=${1#--csv=} ;;
    -m) [ $# -ge 2 ] || { echo "-m needs a size" >&2; exit 2; }; maxbytes=$2; shift ;;
    --builddir) [ $# -ge 2 ] || { echo "--builddir needs a dir" >&2; exit 2; }; builddir=$2; shift ;;
    --only) [ $# -ge 2 ] || { echo "--only needs uvas|oshmem" >&2; exit 2; }; only=$2; shift ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) echo "shmem-bench.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
case $only in ''|uvas|oshmem) ;; *) echo "--only takes uvas or oshmem" >&2; exit 2 ;; esac
do_uvas=1 do_osh=1
[ "$only" = oshmem ] && do_uvas=0
[ "$only" = uvas ] && do_osh=0
case $builddir in /*) ;; *) builddir=$root/$builddir ;; esac

benchargs=()
[ $quick = 1 ] && benchargs+=(-q)
[ -n "$maxbytes" ] && benchargs+=(-m "$maxbytes")

# mpirun/oshrun refuse to run as root without this flag.
launch=(--oversubscribe -np 2)
[ "$(id -u)" = 0 ] && launch=(--allow-run-as-root "${launch[@]}")

# A hung run must not hang CI; generous: a full run takes a few seconds.
tmo=()
command -v timeout >/dev/null && tmo=(timeout -k 10 300)

need_ompi() {
    local t
    for t in "$@"; do
        command -v "$t" >/dev/null ||
            die "$t not found: Open MPI with OSHMEM is needed (Debian/Ubuntu: apt-get install openmpi-bin libopenmpi-dev)"
    done
}

if [ $tcp = 1 ]; then
    export UCX_TLS=tcp,self
    note "--tcp: UCX_TLS=$UCX_TLS for both, UVAS_TRANSPORT=ucx for uvas, --mca spml ucx for OSHMEM"
fi

# Symbols the benchmark calls; used to explain a failed uvas link.
shmem_syms="shmem_init shmem_finalize shmem_my_pe shmem_n_pes shmem_malloc shmem_free
shmem_putmem shmem_putmem_nbi shmem_getmem shmem_quiet shmem_barrier_all shmem_global_exit
shmem_long_p shmem_long_g shmem_long_atomic_fetch_add shmem_long_atomic_add
shmem_long_atomic_compare_swap shmem_ptr"

# check_output FILE: all measurement lines present and "done" last?
check_output() {
    local f=$1
    grep -q '^done$' "$f" || return 1
    grep -q '^put_lat 8 ' "$f" && grep -q '^get_lat 8 ' "$f" && grep -q '^put_bw 8 ' "$f" &&
        grep -q '^amo fetch_add ' "$f" && grep -q '^amo add ' "$f" &&
        grep -q '^amo compare_swap ' "$f" || return 1
    ! grep -q 'verification errors' "$f"
}

# ---------------------------------------------------------------- OSHMEM
oshmem_run() {
    local d=$builddir/bench-oshmem
    mkdir -p "$d"
    if [ $prebuilt = 1 ]; then
        need_ompi oshrun
        [ -x "$d/shmem-bench" ] || die "--prebuilt: $d/shmem-bench is missing"
    else
        need_ompi oshcc oshrun
        oshcc -std=c11 -O2 -Wall -o "$d/shmem-bench" "$root/$src" >"$d/build.log" 2>&1 ||
            { tail -n 40 "$d/build.log" >&2; die "OSHMEM build failed (log: $d/build.log)"; }
    fi

    local opts=()
    if [ $tcp = 1 ]; then
        # What was checked here (Open MPI 4.1.4, UCX 1.13.1, one node):
        # - OSHMEM's symmetric heap comes from sshmem "ucx" (ucp_mem_map;
        #   priority 100 over mmap 40 / sysv 30) in both modes, so the
        #   memheap segment is not what makes intra-node fast.
        # - By default UCX's shared-memory transports (posix/sysv/cma) are
        #   loaded and spml ucx reaches the peer's heap through
        #   ucp_rkey_ptr, i.e. plain loads/stores: ~0.05 us puts, ~50 Mops/s
        #   atomics.
        # - With UCX_TLS=tcp,self no mm transport exists, rkey_ptr fails and
        #   every put/get/AMO really goes over tcp loopback (~17 us put,
        #   ~9 us get, ~0.1 Mops/s fetch_add): OSHMEM honours UCX_TLS.
        #   (Verify with --mca sshmem_base_verbose 100 --mca spml_base_verbose 100.)
        opts=(--mca spml ucx -x UCX_TLS)
    fi
    local out=$d/run.out err=$d/run.err rc=0
    "${tmo[@]}" oshrun "${launch[@]}" "${opts[@]}" "$d/shmem-bench" "${benchargs[@]}" \
        >"$out" 2>"$err" || rc=$?
    if [ $rc != 0 ]; then
        if [ $rc != 124 ] && [ $rc != 137 ] && check_output "$out" &&
            { [ $rc -gt 128 ] || grep -qi 'signal' "$err"; }; then
            note "note: OSHMEM crashed in shmem_finalize after a complete run (exit $rc; Open MPI 4.1.4 bug open-mpi/ompi#11604, #10978; fixed in 4.1.6) - results kept"
        else
            tail -n 30 "$err" >&2
            die "OSHMEM run failed (exit $rc$([ $rc = 124 ] && echo ', timed out'); output incomplete or verification errors; logs: $out $err)"
        fi
    elif ! check_output "$out"; then
        tail -n 30 "$err" >&2
        die "OSHMEM run exited 0 but its output is incomplete (logs: $out $err)"
    fi
    osh_out=$out
}

# ---------------------------------------------------------------- uvas
uvas_run() {
    need_ompi mpirun
    local d=$builddir/bench-uvas lib=$builddir/libuvas.so
    mkdir -p "$d"
    [ -f "$lib" ] || die "$lib not found: build uvas first (scripts/build.sh)"
    local cc=() how
    if [ -x "$builddir/tools/uvascc" ]; then
        cc=("$builddir/tools/uvascc")
        how="$builddir/tools/uvascc"
    else
        [ -f "$root/include/shmem.h" ] ||
            die "include/shmem.h not found: uvas's OpenSHMEM layer is not there yet"
        cc=(cc -I"$root/include" -L"$builddir" "-Wl,-rpath,$builddir")
        how="cc -I$root/include -L$builddir -luvas -Wl,-rpath,$builddir"
        note "$builddir/tools/uvascc not found; building uvas side with: $how"
    fi
    if [ $prebuilt = 1 ]; then
        [ -x "$d/shmem-bench" ] || die "--prebuilt: $d/shmem-bench is missing"
    elif ! "${cc[@]}" -std=c11 -O2 -Wall -o "$d/shmem-bench" "$root/$src" -luvas \
        >"$d/build.log" 2>&1; then
        tail -n 40 "$d/build.log" >&2
        local missing="" s
        if command -v nm >/dev/null; then
            for s in $shmem_syms; do
                nm -D --defined-only "$lib" 2>/dev/null | awk '{print $NF}' | grep -qx "$s" ||
                    missing="$missing $s"
            done
        fi
        [ -n "$missing" ] && note "$lib does not define:$missing"
        die "uvas build failed with $how (log: $d/build.log)"
    fi

    local opts=()
    [ $tcp = 1 ] && opts=(-x UCX_TLS -x UVAS_TRANSPORT=ucx)
    local out=$d/run.out err=$d/run.err rc=0
    "${tmo[@]}" mpirun "${launch[@]}" "${opts[@]}" "$d/shmem-bench" "${benchargs[@]}" \
        >"$out" 2>"$err" || rc=$?
    if [ $rc != 0 ] || ! check_output "$out"; then
        tail -n 30 "$err" >&2
        if check_output "$out"; then
            die "uvas run completed its measurements but exited $rc (crash in shmem_finalize?; logs: $out $err)"
        fi
        die "uvas run failed (exit $rc$([ $rc = 124 ] && echo ', timed out'); output incomplete; logs: $out $err)"
    fi
    uvas_out=$out
}

osh_out=/dev/null uvas_out=/dev/null
[ $do_osh = 1 ] && oshmem_run
[ $do_uvas = 1 ] && uvas_run

# ---------------------------------------------------------------- table
# Joins the two outputs on (kind, size) and prints the table; CSV to $csv.
awk -v csv="$csv" -v both=$((do_uvas && do_osh)) -v tcp=$tcp '
function human(n) {
    if (n !~ /^[0-9]+$/) return n
    if (n >= 1048576 && n % 1048576 == 0) return n / 1048576 "M"
    if (n >= 1024 && n % 1024 == 0) return n / 1024 "K"
    return n
}
function val(v) { return v == "" ? "-" : v }
function ratio(u, o) { return (u == "" || o == "" || o + 0 == 0) ? "-" : sprintf("%.2f", u / o) }
{ side = FILENAME == ARGV[1] ? 1 : 2 }       # 1 = uvas, 2 = oshmem
/^(put_lat|get_lat|put_bw|amo|ptr_bw|ptr_amo) / {
    key = $1 SUBSEP $2
    if (!(key in seen)) { seen[key] = 1; order[$1, ++cnt[$1]] = $2 }
    if (side == 1) u[key] = $3; else o[key] = $3
}
END {
    nk = split("put_lat get_lat put_bw amo ptr_bw ptr_amo", kinds, " ")
    title["put_lat"] = "put latency (us; shmem_putmem + shmem_quiet; lower is better)"
    title["get_lat"] = "get latency (us; shmem_getmem; lower is better)"
    title["put_bw"]  = "put bandwidth (MB/s; putmem_nbi window + quiet; higher is better)"
    title["amo"]     = "atomics on a long at PE 1 (Mops/s; higher is better)"
    title["ptr_bw"]  = "reference: the put_bw windows as memcpy through shmem_ptr + one fence (MB/s)"
    title["ptr_amo"] = "reference: the CPU\047s fetch_add through shmem_ptr (Mops/s)"
    printf "OpenSHMEM, 2 PEs on one node, PE 0 -> PE 1%s; median of batches\n", tcp ? ", over UCX tcp" : ""
    if (csv != "") print "section,size,uvas,oshmem,ratio_uvas_oshmem" > csv
    for (k = 1; k <= nk; k++) {
        kind = kinds[k]
        if (!cnt[kind]) continue
        printf "\n%s\n", title[kind]
        printf "  %-14s %12s %12s %10s\n", kind ~ /amo/ ? "op" : "size", "uvas", "oshmem", "uvas/oshmem"
        for (i = 1; i <= cnt[kind]; i++) {
            s = order[kind, i]; key = kind SUBSEP s
            printf "  %-14s %12s %12s %10s\n", human(s), val(u[key]), val(o[key]), ratio(u[key], o[key])
            if (csv != "") printf "%s,%s,%s,%s,%s\n", kind, s, u[key], o[key], ratio(u[key], o[key]) > csv
        }
    }
    # For the performance guard (scripts/perf-check.py).
    for (k = 1; k <= nk; k++)
        for (i = 1; i <= cnt[kinds[k]]; i++) {
            s = order[kinds[k], i]; key = kinds[k] SUBSEP s
            if (u[key] != "") printf "metric shmem%s.%s.%s.uvas %s\n", tcp ? "_tcp" : "", kinds[k], s, u[key]
            if (o[key] != "") printf "metric shmem%s.%s.%s.oshmem %s\n", tcp ? "_tcp" : "", kinds[k], s, o[key]
        }
    print ""
    key = "put_lat" SUBSEP "8"
    if (both) {
        if (u[key] == "" || o[key] == "" || o[key] + 0 == 0) { print "no put_lat 8 figure from both sides" > "/dev/stderr"; exit 1 }
        printf "put8 latency ratio uvas/oshmem: %.2f\n", u[key] / o[key]
    }
}' "$uvas_out" "$osh_out"
