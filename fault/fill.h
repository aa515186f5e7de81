/*
 * Parallel fill of a large block. Populating 2 MiB costs ~0.8 ms of page
 * allocation and zeroing on the 2-vCPU VM, most of it per-page kernel work
 * that one core does at the speed of kernel demand paging. Splitting the
 * block into chunks that idle fault-service threads on other cores help to
 * fill makes a first touch cheaper per page than the kernel's own demand
 * paging. Mapping a migrated block back page by page (UFFDIO_CONTINUE) is
 * the same kind of work and is split the same way. The thread that took the fault starts with the chunk that holds
 * the faulting address, and fills every chunk no helper claimed: no helper
 * is ever waited for unless it has started a chunk.
 */
#ifndef UVAS_FILL_H
#define UVAS_FILL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

struct uvas_fill_job;

struct uvas_fill {
    pthread_mutex_t mu;
    pthread_cond_t done_cv;
    struct uvas_fill_job *jobs; /* jobs with unclaimed chunks */
    int evfd;                   /* readable while jobs wait for help */
    unsigned helpers;           /* threads that may help (service threads - 1) */
};

int uvas_fill_init(struct uvas_fill *f, unsigned helpers);
void uvas_fill_fini(struct uvas_fill *f);

enum uvas_fill_op {
    UVAS_FILL_ZERO,     /* map zero pages (first touch) */
    UVAS_FILL_CONTINUE, /* map the pages the memfd holds (migration back) */
};

/* Run op over [addr, addr+len), hot chunk first, with the idle service
 * threads' help. No wake. 0 or -errno. */
int uvas_fill_run(struct uvas_fill *f, enum uvas_fill_op op, uintptr_t addr, size_t len,
                  uintptr_t hot);

/* Called by a service thread when f->evfd is readable: fill claimed chunks. */
void uvas_fill_help(struct uvas_fill *f);

#endif
