/*
 * Helper of test-window-sweep.sh: a PE that starts, waits argv[1] seconds
 * (as job A, while job B starts beside it) and ends. A starting PE sweeps
 * the user's socket directory of sockets that killed PEs left behind; it
 * connected to the live servers of other jobs too, which then warned of a
 * refused window request, twice per PE (found by review).
 */
#include <shmem.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    shmem_init();
    unsigned secs = argc > 1 ? (unsigned)atoi(argv[1]) : 0;
    if (shmem_my_pe() == 0) {
        printf("started\n");
        fflush(stdout);
    }
    sleep(secs);
    shmem_barrier_all();
    shmem_finalize();
    return 0;
}
