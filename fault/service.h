/* The fault service: threads that take first-touch faults off the
 * userfaultfd and resolve a whole block per fault. */
#ifndef UVAS_SERVICE_H
#define UVAS_SERVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Start `want` threads (0: one per CPU of the process) on the userfaultfd:
 * the process's one service. */
int uvas_fault_service_start(int uffd, unsigned want);
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

/* True on the fault service threads (they must not wait on themselves). */
extern _Thread_local bool uvas_on_fault_thread;

/* Resolve the fault at addr (exported for the service threads and tests
 * of the fault path). */
void uvas_fault_serve(uintptr_t addr, uint64_t flags, uint32_t tid);

#endif
