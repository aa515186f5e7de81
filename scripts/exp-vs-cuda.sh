#!/bin/bash
# uvas-exp's workloads under uvas's policies, and the same workloads with
# CUDA kernels on cudaMallocManaged memory (bench/cuda/um-exp.cu), on the
# same GPU in the same run: docs/experiments.md's CUDA table.
# usage: scripts/exp-vs-cuda.sh OUTDIR [MiB] [reps] [device MiB]  (needs nvcc; UVAS_BUILD
# names the build, UVAS_COMMIT the commit it was built from)
set -eu
cd "$(dirname "$0")/.."
out=$1
mib=${2:-128}
reps=${3:-2}
dev=${4:-1024}
B=${UVAS_BUILD:-build}
policies=${EXP_POLICIES:-'first-touch;host;device;access-counter;hot-cold'}
mkdir -p "$out"
echo "${UVAS_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}" >"$out/commit.txt"
gcc -std=c11 -O2 -Itools -c tools/workloads.c -o /tmp/um-exp-workloads.o
nvcc -O2 -arch=sm_90 -o /tmp/um-exp bench/cuda/um-exp.cu /tmp/um-exp-workloads.o
# A device tier larger than the working set: nothing is evicted, as with
# CUDA on a GPU of 80 GB.
"$B"/tools/uvas-exp -w stream,random,stencil,hotset,pingpong -p "$policies" -r "$reps" \
    -m "$mib" -d "$dev" --no-plots -o "$out" | grep -v '^\['
/tmp/um-exp -m "$mib" -r "$reps" | tee "$out/cuda-um.txt"
python3 scripts/exp-vs-cuda.py "$out"
