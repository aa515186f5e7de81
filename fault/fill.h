/*
 * Parallel fill of a large block. Populating a 2 MiB block is mostly
 * per-page kernel work (allocating and zeroing) that one core does at the
 * speed of kernel demand paging (docs/fault-path.md has the numbers).
 * Splitting the block into chunks that idle fault-service threads on
 * other cores help to fill makes a first touch cheaper per page than the
 * kernel's own demand paging. Mapping migrated blocks back
 * (UFFDIO_CONTINUE) is split the same way, a block (a page table) per
 * chunk. The thread that took the fault starts with the chunk that holds
 * the faulting address, and fills every chunk no helper claimed: no helper
 * is ever waited for unless it has started a chunk.
 */
#ifndef UVAS_FILL_H
#define UVAS_FILL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "uvas/atomics.h"

struct uvas_fill {
    pthread_mutex_t mu;
    pthread_cond_t done_cv;
    struct uvas_fill_job *jobs; /* jobs with unclaimed chunks */
    int *evfd;                  /* one per service thread: readable when asked to help */
    int *cpu;                   /* the CPU each is pinned to (-1: none) */
    unsigned threads;           /* service threads */
    unsigned helpers;           /* threads that may help (service threads - 1) */
    _Atomic unsigned wake_at;   /* the next thread asked (round robin) */
};

/* A job of n chunks asks n threads (n - 1 to help, one spare for one
 * that is busy), each by its own descriptor, never the one pinned to the
 * asking thread's CPU (it could not run before the asker is done): one
 * descriptor polled by every thread woke them all for each job, and the
 * caller paid for every wake-up before starting its own chunk
 * (docs/fault-path.md). Thread i is pinned to cpus[i % ncpu] (-1: none). */
int uvas_fill_init(struct uvas_fill *f, unsigned threads, const int *cpus, unsigned ncpu);
void uvas_fill_fini(struct uvas_fill *f);

enum uvas_fill_op {
    UVAS_FILL_ZERO,     /* map zero pages (first touch) */
    UVAS_FILL_CONTINUE, /* map the pages the memfd holds (migration back) */
    UVAS_FILL_UNMAP,    /* unmap, keeping the memfd's pages (migration out) */
    UVAS_FILL_COPY,     /* copy out to another buffer (uvas_fill_copy) */
};

/* A job on the board: chunks claimed by the threads that help (and by
 * its owner). Public only so that a copy's owner can keep one
 * (uvas_fill_copy_start); its fields are fill.c's. */
struct uvas_fill_job {
    struct uvas_fill_job *next;
    enum uvas_fill_op op;
    uintptr_t addr;
    char *dst; /* UVAS_FILL_COPY's destination */
    size_t chunk;
    uint32_t n, first; /* chunks, and the hot one */
    uint32_t claimed, done;
    int err;
};

/* Run op over [addr, addr+len) in chunks of `chunk` bytes (a power of
 * two), hot chunk first, with the idle service threads' help. No wake.
 * A status. Chunks that share a page table contend for its lock:
 * zeroing pays off split finer (its cost is outside the lock), mapping
 * existing pages does not (it is all page-table work). */
int uvas_fill_run(struct uvas_fill *f, enum uvas_fill_op op, uintptr_t addr, size_t len,
                  size_t chunk, uintptr_t hot);

/* Copy [src, src+len) to dst in chunks of `chunk` bytes with the idle
 * service threads' help (a migration's staging copy). Status. */
int uvas_fill_copy(struct uvas_fill *f, void *dst, const void *src, size_t len, size_t chunk);
/* The same in two halves: start puts the copy on the board for the
 * helpers (j is the caller's until finish returns), the caller does other
 * work, and finish runs what nobody claimed and waits for the rest. Where
 * no thread can help, start copies at once. Every start needs its
 * finish. */
void uvas_fill_copy_start(struct uvas_fill *f, struct uvas_fill_job *j, void *dst,
                          const void *src, size_t len, size_t chunk);
int uvas_fill_copy_finish(struct uvas_fill *f, struct uvas_fill_job *j);

/* The chunk for zero fills. */
#define UVAS_FILL_ZERO_CHUNK ((size_t)256 << 10)

/* Called by service thread i when f->evfd[i] is readable: fill claimed chunks. */
void uvas_fill_help(struct uvas_fill *f, unsigned i);

#endif
