#!/bin/sh
# uvascc, the wrapper compiler: CC naming uvascc itself (make CC=uvascc
# exports it, so does autoconf) made it exec itself for ever; C++ sources
# went to the C compiler and failed at the link (__gxx_personality_v0).
# usage: test-uvascc.sh path/to/uvascc. Exit 0 pass, 1 fail, 77 skip.
set -u
uvascc=${1:?usage: test-uvascc.sh path/to/uvascc}
[ -x "$uvascc" ] || { echo "FAIL: $uvascc is not an executable"; exit 1; }
command -v cc >/dev/null 2>&1 || { echo "SKIP: no C compiler (cc)" >&2; exit 77; }
unset UVAS_CC UVAS_CXX
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test-uvascc.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() { echo "FAIL: $*"; exit 1; }
cd "$tmp" || exit 1
# A deadline against the loop only: compiling takes seconds.
t() { timeout 60 "$@"; }

printf '#include <shmem.h>\nint main(void) { return shmem_my_pe() < -1; }\n' >prog.c
CC="$uvascc" t "$uvascc" -c prog.c -o prog.o >out 2>&1
rc=$?
[ $rc -eq 0 ] && [ -s prog.o ] || fail "CC=uvascc uvascc -c prog.c: exit $rc (124: it ran itself for ever): $(cat out)"
ln -s "$uvascc" ./mycc
CC="./mycc -O2" t "$uvascc" prog.o -o prog >out 2>&1
rc=$?
[ $rc -eq 0 ] && [ -x prog ] || fail "CC='a link to uvascc -O2' uvascc: exit $rc: $(cat out)"
# UVAS_CC is the override; naming uvascc there cannot loop either.
UVAS_CC="$uvascc" t "$uvascc" -c prog.c -o p2.o >out 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "UVAS_CC" out || fail "UVAS_CC=uvascc: exit $rc, expected 1 and a message: $(cat out)"

if command -v make >/dev/null 2>&1; then
    printf 'prog2: prog.c\n\t$(CC) -o $@ prog.c\n' >Makefile
    t make CC="$uvascc" >out 2>&1
    rc=$?
    [ $rc -eq 0 ] && [ -x prog2 ] || fail "make CC=uvascc: exit $rc: $(cat out)"
else
    echo "SKIP (part): make is not installed: make CC=uvascc not tried" >&2
fi

# C++: compiled and linked by a C++ compiler, or refused with a reason.
# Every public header, pedantic, and the generic names as C++ overloads.
cat >e.cpp <<'CPP'
#include <mpp/shmem.h>
#include <mpp/shmemx.h>
#include <pshmem.h>
#include <shmem.h>
#include <shmemx.h>
#include <uvas.h>
#include <uvas_gpu.h>
#include <uvas_policy.h>
#include <uvas_queue.h>
#include <string>
#include <vector>
static long x;
int main() {
    std::vector<std::string> v(2, "x");
    if (shmem_my_pe() < -1) { // never: compiled, not run
        shmem_p(&x, 1L, 0);
        shmem_atomic_add(SHMEM_CTX_DEFAULT, &x, 1L, 0);
        shmem_sync(SHMEM_TEAM_WORLD);
        pshmem_sync(SHMEM_TEAM_WORLD);
    }
    return (int)v.size() - 2;
}
CPP
if command -v c++ >/dev/null 2>&1; then
    UVAS_CXX="c++ -Wall -Wpedantic -Werror" t "$uvascc" e.cpp -o e >out 2>&1
    rc=$?
    [ $rc -eq 0 ] && [ -x e ] || fail "uvascc e.cpp: exit $rc: $(cat out)"
else
    echo "SKIP (part): no C++ compiler (c++)" >&2
fi
t "$uvascc" e.cpp prog.c -o mixed >out 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "C and C++" out || fail "uvascc e.cpp prog.c: exit $rc, expected 1 and a message: $(cat out)"
"$uvascc" --help >out 2>&1 && grep -q "UVAS_CXX" out || fail "uvascc --help does not say how C++ is built: $(cat out)"
echo PASS
exit 0
