/* The fault service: threads that take first-touch faults off the
 * userfaultfd and resolve a whole block per fault. */
#ifndef UVAS_SERVICE_H
#define UVAS_SERVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fault/fill.h"

/* What a fault was (the handler's flags): the kernel's bits stay here. */
enum {
    UVAS_FAULT_WRITE = 1 << 0,   /* a write (else a read) */
    UVAS_FAULT_PROTECT = 1 << 1, /* a write to a write-protected page */
};

/* What the service hands each message to; it decides nothing itself. */
struct uvas_fault_handler {
    /* A page fault at addr (UVAS_FAULT_* flags) of thread tid. */
    void (*fault)(uintptr_t addr, unsigned flags, uint32_t tid);
    /* The process unmapped [start, end) (munmap). */
    void (*unmapped)(uintptr_t start, uintptr_t end);
    /* The process moved [from, from+len) to `to` (mremap). */
    void (*moved)(uintptr_t from, uintptr_t to, size_t len);
};

/* Start `want` threads (0: one per CPU of the process) on the userfaultfd,
 * handing its messages to h: the process's one service. */
int uvas_fault_service_start(int uffd, unsigned want, const struct uvas_fault_handler *h);
/* Threads of the running service (0: none). */
unsigned uvas_fault_service_threads(void);
void uvas_fault_service_stop(void);

/* Zero-fill [addr, addr+len) with the service threads' help, hot first
 * (alone without a service). */
int uvas_fault_zero_block(uintptr_t addr, size_t len, uintptr_t hot);

/* Map the memfd's pages over [addr, addr+len) (whole blocks), a page
 * table's worth per thread. */
int uvas_fault_map_blocks(uintptr_t addr, size_t len);
/* Unmap [addr, addr+len) from the range, keeping the memfd's pages; the
 * same spread. */
int uvas_fault_unmap_blocks(uintptr_t addr, size_t len);

/* Copy len bytes from src to dst with the service threads' help (a
 * migration's staging copy). Status. */
int uvas_fault_copy(void *dst, const void *src, size_t len);
/* The same in two halves (fill.h's uvas_fill_copy_start): the caller
 * works beside the copy (a migration unmaps its next stage) and finishes
 * it; every start needs its finish. */
void uvas_fault_copy_start(struct uvas_fill_job *j, void *dst, const void *src, size_t len);
int uvas_fault_copy_finish(struct uvas_fill_job *j);

/* True on the fault service threads (they must not wait on themselves). */
extern _Thread_local bool uvas_on_fault_thread;

/* Around work of a handler that may wait for an event to be read (mapping
 * or unmapping a CPU view raises UNMAP and REMAP events, and the kernel
 * holds the thread until some reader takes them): a spare reader reads
 * meanwhile, so service threads doing such work at once cannot wait on
 * each other. */
void uvas_fault_mm_begin(void);
void uvas_fault_mm_end(void);

#endif
