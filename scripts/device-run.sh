#!/bin/bash
# On the lent GPU machine (see docs/device.md): run the test programs and
# the benchmarks of a build made on the Debian machine, with the Vulkan
# loader and hwloc carried as .deb files, and CUDA Unified Memory beside
# them. usage: scripts/device-run.sh [tests|gpu|gpushmem|gsb|queue|import|exp|bench|globals|multi|peers|hardening|guard|ab|all]
# Needs carried: build/ (or $UVAS_BUILD), .gl/ (loader debs), .deps/ (library debs),
# and for multi: .mpi/ (Open MPI, PMIx, UCX debs: docs/device.md).
set -u
what=${1:-all}
cd "$(dirname "$0")/.."
B=${UVAS_BUILD:-build}
OUT=${OUT:-/tmp/uvas-out}
mkdir -p "$OUT"
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
mkdir -p /tmp/uvas-deps
for f in .deps/*.deb; do dpkg -x "$f" /tmp/uvas-deps; done
export LD_LIBRARY_PATH=/tmp/uvas-deps/usr/lib/x86_64-linux-gnu:/tmp/uvas-deps/lib/x86_64-linux-gnu
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f "$icd" ] && export VK_DRIVER_FILES=$icd

# Open MPI unpacked over / (its components live at fixed paths); dpkg -x
# does not run the alternatives that name mpirun and oshrun. Once per run.
mpi_ready=0
use_mpi() {
    [ $mpi_ready = 1 ] && return
    for f in .mpi/*.deb; do dpkg -x "$f" /; done
    ln -sf orterun /usr/bin/mpirun
    ln -sf orterun /usr/bin/oshrun
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_MCA_rmaps_base_oversubscribe=1
    export LD_LIBRARY_PATH=$PWD/$B:$LD_LIBRARY_PATH
    mpi_ready=1
}
# CUDA's benchmarks (the guard's, cudaMallocAsync's), linked before Open MPI's packages go over
# / (after that nvcc's link fails): once per machine, whatever the mode,
# so a guard on a machine an earlier call left warm still measures CUDA.
if command -v nvcc >/dev/null && [ ! -x /tmp/um-bench ]; then
    nvcc -O2 -arch=sm_90 -o /tmp/um-bench bench/cuda/um-bench.cu
fi
if command -v nvcc >/dev/null && [ ! -x /tmp/malloc-async ]; then
    nvcc -O2 -arch=sm_90 -o /tmp/malloc-async bench/cuda/malloc-async.cu
fi
# A fresh machine's first large migrations ran at 0.4-0.7 of their later
# rate (docs/performance.md): memory the virtual machine never touched.
# The guard first writes WARM_GIB (48) GiB once, so the host backs that
# memory before anything is timed.
if [ "$what" = guard ] && [ "${WARM_GIB:-48}" -gt 0 ]; then
    t0=$(date +%s)
    python3 -c "x = b'\1' * (${WARM_GIB:-48} << 30)" || echo "memory warm-up failed"
    echo "memory warmed: ${WARM_GIB:-48} GiB in $(($(date +%s) - t0)) s"
fi
# Huge pages for UVAS_HUGE_PAGES=1 runs (docs/migration.md): HUGE_PAGES=N
# reserves N pages of 2 MiB for the call (the machine is the call's own);
# the guard's migrate_huge rows need 8 GiB and more: 5200 unless told.
[ "$what" = guard ] && HUGE_PAGES=${HUGE_PAGES:-5200}
if [ -n "${HUGE_PAGES:-}" ]; then
    echo "$HUGE_PAGES" > /proc/sys/vm/nr_hugepages
    echo "huge pages: $(awk '/^HugePages_(Total|Free):/ {printf "%s %s ", $1, $2}' /proc/meminfo)"
fi
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
vulkaninfo --summary 2>/dev/null | grep -E "deviceName|driverVersion|apiVersion" | head -4

# Run single-process test programs, each bounded by SECONDS, a log each in
# $OUT, and tally them. usage: run_tests LABEL SECONDS PROGRAM...
run_tests() {
    local label=$1 secs=$2 pass=0 fail=0 skip=0
    shift 2
    for t in "$@"; do
        [ -f "$t" ] && [ -x "$t" ] || continue
        n=$(basename "$t")
        [ -f "tests/multi/$n.c" ] && continue # multi-PE: run under mpirun below
        timeout "$secs" "$t" >"$OUT/$n.log" 2>&1
        rc=$?
        case $rc in
            0) pass=$((pass + 1)) ;;
            77) skip=$((skip + 1)); echo "SKIP $n: $(grep -m1 SKIP "$OUT/$n.log")" ;;
            *) fail=$((fail + 1)); echo "FAIL $n (rc $rc):"; tail -5 "$OUT/$n.log" ;;
        esac
    done
    echo "device $label: $pass passed, $fail failed, $skip skipped"
}

# A/B of libraries in one command (docs/performance.md: a machine's own
# spread is as large as most changes): a benchmark of this build run
# AB_ROUNDS times against each library of AB_LIBS, alternated.
# AB_LIBS="label=dir[,VAR=value...] ...", e.g.
# AB_LIBS="old=build-old new=build-dev new-q1=build-dev,UVAS_COPY_QUEUES=1".
# AB_BENCH=migrate (uvas-bench migrate -s AB_SIZES -r AB_REPS) or shmem
# (scripts/shmem-bench.sh, uvas only; OSHMEM once before the rounds) or
# queue (uvas-bench queue -n QUEUE_ITERS AB_QUEUE_ARGS) or kernel (uvas-bench kernel -r
# AB_REPS: translation's cost, a launch's beyond its kernel) or peers (migrate-peers-bench
# under mpirun -np 2: migrations while a peer that put to the PE sleeps or
# spins; -s AB_PEERS_MIB, default 256) or reduce (this build's
# bench-uvas/reduce-bench AB_REDUCE_ARGS under mpirun -np 2, each label's
# library; OSHMEM's not run).
if [ "$what" = ab ]; then
    if [ "${AB_BENCH:-migrate}" = shmem ] || [ "${AB_BENCH:-migrate}" = peers ] ||
        [ "${AB_BENCH:-migrate}" = reduce ]; then
        use_mpi
    fi
    if [ "${AB_BENCH:-migrate}" = shmem ]; then
        timeout 300 scripts/shmem-bench.sh --prebuilt --builddir "$B" --only oshmem ${AB_SHMEM_ARGS:-} 2>&1 |
            grep -v "^metric" | tee -a "$OUT/ab.txt"
    fi
    for r in $(seq "${AB_ROUNDS:-2}"); do
        for spec in ${AB_LIBS:-new=$B}; do
            label=${spec%%=*} rest=${spec#*=}
            dir=${rest%%,*} vars=
            [ "$rest" != "$dir" ] && vars=${rest#*,}
            echo "== round $r: $label ($dir${vars:+, $vars})" | tee -a "$OUT/ab.txt"
            # A label's own uvas-bench where its directory has one: the
            # kernels' SPIR-V (include/uvas.glsl) is built into it.
            ub="$B"/bench/uvas-bench
            [ -x "$dir"/bench/uvas-bench ] && ub="$dir"/bench/uvas-bench
            if [ "${AB_BENCH:-migrate}" = queue ]; then
                env ${vars//,/ } LD_LIBRARY_PATH="$PWD/$dir:$LD_LIBRARY_PATH" \
                    "$ub" queue -n "${QUEUE_ITERS:-1000}" ${AB_QUEUE_ARGS:-} 2>&1 |
                    grep -v "^metric" | tee -a "$OUT/ab.txt"
            elif [ "${AB_BENCH:-migrate}" = kernel ]; then
                env ${vars//,/ } LD_LIBRARY_PATH="$PWD/$dir:$LD_LIBRARY_PATH" \
                    "$ub" kernel -r "${AB_REPS:-9}" 2>&1 |
                    grep -v "^metric" | tee -a "$OUT/ab.txt"
            elif [ "${AB_BENCH:-migrate}" = peers ]; then
                env ${vars//,/ } LD_LIBRARY_PATH="$PWD/$dir:$LD_LIBRARY_PATH" timeout 300 \
                    mpirun -np 2 -x LD_LIBRARY_PATH "$B"/bench/migrate-peers-bench \
                    -s "${AB_PEERS_MIB:-256}" -r "${AB_REPS:-5}" 2>&1 |
                    grep -v "^metric" | tee -a "$OUT/ab.txt"
            elif [ "${AB_BENCH:-migrate}" = shmem ]; then
                env ${vars//,/ } LD_LIBRARY_PATH="$PWD/$dir:$LD_LIBRARY_PATH" timeout 300 \
                    scripts/shmem-bench.sh --prebuilt --builddir "$B" --only uvas ${AB_SHMEM_ARGS:-} 2>&1 |
                    grep -v "^metric" | tee -a "$OUT/ab.txt"
            elif [ "${AB_BENCH:-migrate}" = reduce ]; then
                # The label's library under the same reduce-bench (its
                # RUNPATH gives way to LD_LIBRARY_PATH).
                env ${vars//,/ } LD_LIBRARY_PATH="$PWD/$dir:$LD_LIBRARY_PATH" timeout 300 \
                    mpirun -np 2 -x LD_LIBRARY_PATH "$B"/bench-uvas/reduce-bench ${AB_REDUCE_ARGS:-} 2>&1 |
                    tee -a "$OUT/ab.txt"
            else
                env ${vars//,/ } LD_LIBRARY_PATH="$PWD/$dir:$LD_LIBRARY_PATH" \
                    "$ub" migrate -s "${AB_SIZES:-2,256,1024}" \
                    -r "${AB_REPS:-5}" 2>&1 | grep -v "^metric" | tee -a "$OUT/ab.txt"
            fi
        done
    done
fi
if [ "$what" = tests ] || [ "$what" = all ]; then
    run_tests tests 120 "$B"/tests/test-* "$B"/tests/unit-*
fi
if [ "$what" = gpu ] || [ "$what" = all ]; then
    # Kernels over uvas pointers (tests/gpu) and what translation costs.
    run_tests "gpu tests" 180 "$B"/tests/gpu/test-gpu-*
    # Exports of device memory on this driver: close-on-exec from the
    # driver? made apart? (uvas/os_fd.c, docs/reliability.md)
    "$B"/bench/vk-export-flags 2>&1 | tee "$OUT/export-flags.txt"
    run_tests "device exports" 60 "$B"/tests/unit-fd-apart "$B"/tests/unit-device-export
    # Seed 003's examples in uvas's names (examples/queue-pool.c), as CI runs them.
    run_tests "examples" 60 "$B"/examples/uvas-queue-pool
    "$B"/bench/uvas-bench kernel -s "${KERNEL_MIB:-256}" -r 9 2>&1 | tee "$OUT/kernel.txt"
fi
if [ "$what" = queue ] || [ "$what" = all ]; then
    # Queue-ordered allocation beside cudaMallocAsync (docs/queues.md).
    "$B"/bench/uvas-bench queue -n "${QUEUE_ITERS:-1000}" 2>&1 | tee "$OUT/queue.txt"
    # The same with the fill through uvas_array (uvas.glsl).
    "$B"/bench/uvas-bench queue -A -n "${QUEUE_ITERS:-1000}" 2>&1 | tee "$OUT/queue-array.txt"
    # Fill rates per queue family: where placement's zero fills run (docs/migration.md).
    "$B"/bench/vk-fill 2>&1 | tee "$OUT/vk-fill.txt"
    [ -x /tmp/malloc-async ] && /tmp/malloc-async "${QUEUE_ITERS:-1000}" | tee "$OUT/cuda-queue.txt"
    # QUEUE_GROUPS="528 792 ...": the same with at most that many
    # work-groups, both sides alternated (how the grid's waves matter).
    for g in ${QUEUE_GROUPS:-}; do
        "$B"/bench/uvas-bench queue -n "${QUEUE_ITERS:-1000}" -m "${QUEUE_MIB:-64}" -g "$g" 2>&1 |
            tee "$OUT/queue-g$g.txt"
        [ -x /tmp/malloc-async ] && /tmp/malloc-async "${QUEUE_ITERS:-1000}" "${QUEUE_MIB:-64}" "$g" |
            tee "$OUT/cuda-queue-g$g.txt"
    done
fi
if [ "$what" = import ]; then
    # A first migration of freshly written pages beside CUDA's prefetch of
    # such pages, and what its imports (pinning) cost apart (bench/gpu/vk-import.c).
    for mib in ${IMPORT_MIB:-1024 4096}; do
        "$B"/bench/vk-import "$mib" 2>&1 | tee -a "$OUT/import.txt"
    done
    "$B"/bench/uvas-bench migrate -s "${IMPORT_SIZES:-256,1024}" -r 3 2>&1 | tee -a "$OUT/import.txt"
    [ -x /tmp/um-bench ] && /tmp/um-bench 256 | tee -a "$OUT/import.txt"
fi
if [ "$what" = exp ] || [ "$what" = all ]; then
    # uvas-exp's workloads under uvas's policies beside CUDA UM's (docs/experiments.md).
    command -v nvcc >/dev/null &&
        scripts/exp-vs-cuda.sh "$OUT/exp-h100" "${EXP_MIB:-128}" "${EXP_REPS:-2}"
fi
if [ "$what" = globals ] || [ "$what" = all ]; then
    # A peer's global by active message vs cross-memory attach (docs/transport.md).
    use_mpi
    timeout 120 mpirun -np 2 "$B/bench/globals-bench" 2>&1 | tee "$OUT/globals-bench.txt"
fi
if [ "$what" = multi ] || [ "$what" = all ]; then
    use_mpi
    pass=0 fail=0 skip=0
    tally() { # tag rc
        case $2 in
            0) pass=$((pass + 1)) ;;
            77) skip=$((skip + 1)); echo "SKIP $1: $(grep -m1 -i skip "$OUT/$1.log")" ;;
            *) fail=$((fail + 1)); echo "FAIL $1 (rc $2):"; tail -5 "$OUT/$1.log" ;;
        esac
    }
    for heap in unset HOST DEVICE; do
        v=$heap; [ $heap = unset ] && v=
        SHMEM_SYMMETRIC_HEAP_DEFAULT=$v SHMEM_DEVICE_SYMMETRIC_SIZE=256M timeout 120 \
            mpirun -np 2 "$B/tests/test-shmem-mockup" $heap >"$OUT/mockup-$heap.log" 2>&1
        tally "mockup-$heap" $?
    done
    timeout 240 tests/multi/test-shmem-fatal.sh "$B/tests/test-shmem-fatal" >"$OUT/fatal.log" 2>&1
    tally fatal $?
    for src in tests/multi/test-*.c; do
        n=$(basename "$src" .c)
        [ -x "$B/tests/$n" ] || continue
        case $n in test-shmem-fatal|test-shmem-mockup) continue ;; esac
        for mode in "2" "4" "2 ucx"; do
            set -- $mode
            tag="$n-np$1${2:+-$2}"
            env=()
            [ "${2:-}" = ucx ] && env=(-x UVAS_TRANSPORT=ucx -x UCX_TLS=tcp,self -x UVAS_UCX_RMA_MIN=16K)
            timeout 180 mpirun -np "$1" "${env[@]}" "$B/tests/$n" >"$OUT/$tag.log" 2>&1
            tally "$tag" $?
        done
    done
    for np in 2 4; do # shmem.glsl in kernels of every PE: PE queries, puts, gets, atomics
        for t in shmem-pe shmem-rma shmem-direct; do
            timeout 180 mpirun -np $np "$B/tests/gpu/test-gpu-$t" >"$OUT/gpu-$t-np$np.log" 2>&1
            tally "gpu-$t-np$np" $?
        done
    done
    timeout 120 mpirun -np 2 "$B/tests/gpu/test-gpu-policy-peers" >"$OUT/gpu-policy-peers-np2.log" 2>&1
    tally "gpu-policy-peers-np2" $?
    timeout 180 mpirun -np 2 -x UVAS_TRANSPORT=ucx -x UCX_TLS=tcp,self \
        "$B/tests/gpu/test-gpu-shmem-rma" >"$OUT/gpu-shmem-rma-np2-ucx.log" 2>&1
    tally "gpu-shmem-rma-np2-ucx" $?
    echo "device multi-PE tests: $pass passed, $fail failed, $skip skipped"
    [ -x "$B/bench/path-bench" ] && timeout 180 mpirun -np 2 "$B/bench/path-bench" 2>&1 |
        tee "$OUT/path-bench.txt"
    [ -x "$B/bench/path-bench" ] && timeout 180 mpirun -np 2 -x UVAS_TRANSPORT=ucx \
        -x UCX_TLS=tcp,self "$B/bench/path-bench" 2>&1 | tee "$OUT/path-bench-ucx.txt"
    timeout 300 scripts/shmem-bench.sh --prebuilt --builddir "$B" 2>&1 | tee "$OUT/shmem-bench.txt"
fi
# The peers policy on this GPU: its test (2 PEs) and what it buys against
# first-touch (scripts/peers-policy-bench.sh).
# PEERS_WHAT: which of "tests cpu kernels" (default all three).
if [ "$what" = peers ]; then
    use_mpi
    pw=${PEERS_WHAT:-tests cpu kernels}
    case " $pw " in *" tests "*)
        for t in policy-peers shmem-direct; do
            timeout 120 mpirun -np 2 "$B/tests/gpu/test-gpu-$t" >"$OUT/gpu-$t-np2.log" 2>&1
            echo "gpu-$t-np2: exit $?"
            grep -E "^PE [01]:|FAIL" "$OUT/gpu-$t-np2.log"
        done ;;
    esac
    case " $pw " in *" cpu "*)
        timeout 400 scripts/peers-policy-bench.sh --builddir "$B" ${PEERS_BENCH_ARGS:-} 2>&1 |
            tee "$OUT/peers-policy.txt" ;;
    esac
    case " $pw " in *" kernels "*)
        timeout 400 scripts/peers-policy-bench.sh --builddir "$B" --kernels ${PEERS_BENCH_ARGS:-} \
            2>&1 | tee "$OUT/peers-policy-kernels.txt" ;;
    esac
fi
if [ "$what" = gpushmem ]; then
    # OpenSHMEM calls in kernels alone (include/shmem.glsl): 1 PE, 2 and 4
    # under mpirun, and over UCX (the same runs are part of gpu and multi).
    use_mpi
    timeout 180 "$B/tests/gpu/test-gpu-shmem-rma" >"$OUT/gpu-shmem-rma.log" 2>&1
    echo "gpu-shmem-rma rc=$?"; tail -3 "$OUT/gpu-shmem-rma.log"
    for mode in "2" "4" "2 ucx"; do
        set -- $mode
        env=()
        [ "${2:-}" = ucx ] && env=(-x UVAS_TRANSPORT=ucx -x UCX_TLS=tcp,self)
        timeout 180 mpirun -np "$1" "${env[@]}" "$B/tests/gpu/test-gpu-shmem-rma" \
            >"$OUT/gpu-shmem-rma-np$1${2:+-$2}.log" 2>&1
        echo "gpu-shmem-rma-np$1${2:+-$2} rc=$?"; tail -3 "$OUT/gpu-shmem-rma-np$1${2:+-$2}.log"
    done
    # Kernels reaching other PEs' device memory directly (leases).
    for np in 2 4; do
        timeout 180 mpirun -np $np "$B/tests/gpu/test-gpu-shmem-direct" \
            >"$OUT/gpu-shmem-direct-np$np.log" 2>&1
        echo "gpu-shmem-direct-np$np rc=$?"; tail -3 "$OUT/gpu-shmem-direct-np$np.log"
    done
fi
if [ "$what" = gpushmem ] || [ "$what" = gsb ]; then
    # What those calls cost beside the CPU's same calls (docs/kernels.md);
    # `gsb` runs only this, GSB_ARGS its options (-p: where the time goes).
    use_mpi
    timeout 300 mpirun -np 2 "$B/bench/gpu-shmem-bench" ${GSB_ARGS:-} 2>&1 |
        tee "$OUT/gpu-shmem-bench.txt" | grep -v "^metric"
    # The proxy's path: every call of a kernel over UCX (tcp, as between nodes).
    timeout 300 mpirun -np 2 -x UVAS_TRANSPORT=ucx -x UCX_TLS=tcp,self "$B/bench/gpu-shmem-bench" \
        ${GSB_ARGS:-} 2>&1 | tee "$OUT/gpu-shmem-bench-ucx.txt" | grep -v "^metric"
fi
if [ "$what" = gpushmem ]; then
    # The ordering a same-node bypass would need (docs/gpu-shmem-plan.md).
    timeout 120 "$B/bench/host-order-probe" 2>&1 | tee "$OUT/host-order.txt" | grep -v "^metric"
fi
if [ "$what" = hardening ] || [ "$what" = all ]; then
    # Fault injection, process events, who may touch a PE's memory, the
    # death of a PE and a soak with the device tier (tests/inject, process,
    # security: docs/reliability.md).
    use_mpi
    pass=0 fail=0 skip=0
    hrun() { # tag command...
        local tag=$1; shift
        timeout 400 "$@" >"$OUT/$tag.log" 2>&1
        local rc=$?
        case $rc in
            0) pass=$((pass + 1)) ;;
            77) skip=$((skip + 1)); echo "SKIP $tag: $(grep -m1 -i skip "$OUT/$tag.log")" ;;
            *) fail=$((fail + 1)); echo "FAIL $tag (rc $rc):"; tail -8 "$OUT/$tag.log" ;;
        esac
    }
    for t in "$B"/tests/inject/test-inject-* "$B"/tests/process/test-*; do
        [ -x "$t" ] || continue
        case $t in *-ucx) hrun "$(basename "$t")" mpirun -np 2 "$t"; continue ;; esac
        hrun "$(basename "$t")" "$t"
    done
    hrun window-perms mpirun -np 2 "$B/tests/security/test-window-perms"
    hrun soak-device env UVAS_SOAK_SECONDS=${SOAK_SECONDS:-60} mpirun -np 4 -x UVAS_SOAK_SECONDS \
        "$B/tests/security/test-soak"
    grep -h "^soak:" "$OUT/soak-device.log"
    hrun pe-death env PE_DEATH_REPEAT=1 tests/security/test-pe-death.sh \
        "$B/tests/security/test-pe-death"
    grep -h "pe-death times" "$OUT/pe-death.log"
    echo "device hardening tests: $pass passed, $fail failed, $skip skipped"
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
    "$B"/bench/uvas-bench first-touch -r 7 2>&1 | tee "$OUT/first-touch.txt" | tail -4
    "$B"/bench/uvas-bench query 2>&1 | tail -1
    "$B"/bench/uvas-bench migrate -r 5 -s "${MIGRATE_SIZES:-256,1024,8192}" 2>&1 |
        tee "$OUT/migrate.txt"
    if command -v nvcc >/dev/null; then
        nvcc -O2 -arch=sm_90 -o /tmp/um-bench bench/cuda/um-bench.cu && /tmp/um-bench 256 |
            tee "$OUT/cuda-um.txt"
    fi
fi
if [ "$what" = guard ] || [ "$what" = all ]; then
    # The performance guard: every benchmark, each ratio against its floor
    # (bench/floors/h100.txt or h200.txt, as the card is; GUARD_MACHINE
    # names it by hand); the outputs go to $OUT/guard for perf-table.py.
    use_mpi
    card=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
    case $card in *H200*) gm=h200 ;; *) gm=h100 ;; esac
    gm=${GUARD_MACHINE:-$gm}
    echo "guard: $card, floors bench/floors/$gm.txt"
    scripts/perf-check.sh "$gm" --builddir "$B" --out "$OUT/guard" ${GUARD_ALL:+--all}
fi
