/*
 * Globals and statics of a shared library the program links are symmetric
 * objects too, when the library links libuvas (lib/symlib.c): puts, gets,
 * atomics, waits and a classic collective's pSync on them, from every PE;
 * shmem_addr_accessible and shmemx_residence answer for them. A library
 * that does not link libuvas (lib/plainlib.c, as libc or a driver) is not
 * reachable: its data is refused, naming what is symmetric. A range that
 * runs past the library's data is refused.
 * Linked against libuvas.so (as such libraries are). Runs on any number
 * of PEs >= 2 (skips on 1).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/symlib.h"
#include "shmem-suite.h"

int main(void)
{
    setenv("UVAS_SHMEM_ERRORS", "return", 1);
    int level = suite_start();
    int *st = symlib_static_ptr();
    OK_EQ(symlib_my_pe(), me, "the library calls OpenSHMEM");

    OK_EQ(shmem_addr_accessible(symlib_array, right), 1, "a library's global is accessible");
    OK_EQ(shmem_addr_accessible(st, right), 1, "a library's static is accessible");
    OK_EQ(shmemx_residence(symlib_array, right), SHMEMX_RES_HOST, "and host-resident");
    OK(shmem_ptr(symlib_array, me) == (void *)symlib_array, "shmem_ptr to the own PE");

    /* puts and gets into both, from the stack */
    long src[SYMLIB_N];
    for (int i = 0; i < SYMLIB_N; i++)
        src[i] = me * 100000 + i;
    shmem_long_put(symlib_array, src, SYMLIB_N, right);
    for (int i = 0; i < SYMLIB_N; i++)
        shmem_int_p(&st[i], me * 1000 + i, right);
    shmem_barrier_all();
    int bad = 0;
    for (int i = 0; i < SYMLIB_N; i++)
        bad += symlib_array[i] != left * 100000 + i || st[i] != left * 1000 + i;
    OK_EQ(bad, 0, "elements put by the left PE into the library's global and static");
    long back[SYMLIB_N];
    shmem_long_get(back, symlib_array, SYMLIB_N, right);
    bad = 0;
    for (int i = 0; i < SYMLIB_N; i++)
        bad += back[i] != me * 100000 + i;
    OK_EQ(bad, 0, "got back from the right PE's copy");

    /* atomics from every PE on PE 0's counter, then a wait on it */
    shmem_long_atomic_add(&symlib_counter, me + 1, 0);
    shmem_barrier_all();
    if (me == 0) {
        shmem_long_wait_until(&symlib_counter, SHMEM_CMP_EQ, (long)npes * (npes + 1) / 2);
        OK_EQ(symlib_counter, (long)npes * (npes + 1) / 2, "atomics on the library's global");
    }

    /* a classic collective synchronising through the library's pSync */
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        symlib_psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    for (int r = 0; r < 10; r++)
        shmem_barrier(0, 0, npes, symlib_psync);
    OK(1, "barriers on the library's pSync");

    /* a library that does not link libuvas, and a range past the data */
    long *plain = plainlib_ptr();
    OK_EQ(*plain, 7, "plainlib's value");
    OK_EQ(shmem_addr_accessible(plain, right), 0, "plainlib's data is not symmetric");
    shmemx_clear_error();
    shmem_long_p(plain, 99, right);
    OK(strstr(shmemx_last_error_string(), "is not symmetric"), "a put to it refused: %s",
       shmemx_last_error_string());
    shmem_putmem(symlib_array, src, 64L << 20, right);
    OK(strstr(shmemx_last_error_string(), "is not symmetric"),
       "a put past the library's data refused: %s", shmemx_last_error_string());
    shmem_barrier_all();
    OK_EQ(*plain, 7, "nothing written into plainlib's data");

    suite_end("shmem-globals-lib", level);
    return 0;
}
