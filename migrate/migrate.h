/*
 * The migration engine: moves blocks between the host tier and the device
 * tier without losing or tearing data. The protocol (docs/migration.md):
 *
 *  host -> device: take the block (BUSY), unmap its pages from the range
 *      (they stay in the memfd), copy host pages -> device slot on the
 *      copy engine, publish DEVICE, wake. Any access that comes during the
 *      copy, by a thread or by the kernel, is a minor fault that parks
 *      until the block is published, then finds it on the device: no write
 *      can land in pages that are being copied or thrown away.
 *  device -> host: take the block, make sure the memfd holds its pages,
 *      copy device slot -> host pages, map them into the range
 *      (UFFDIO_CONTINUE), free the slot, publish HOST, wake. Any CPU
 *      access meanwhile is a minor fault that parks until the wake.
 */
#ifndef UVAS_MIGRATE_H
#define UVAS_MIGRATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UVAS_MIG_WAIT 0x1u   /* wait out blocks in transition (else skip them) */
#define UVAS_MIG_NO_MAP 0x2u /* to host: leave the pages unmapped (eviction) */
/* Untouched blocks' zero fills may run on the GPU's cores
 * (UVAS_COPY_SM_FILL): the caller is no kernel's fault service. */
#define UVAS_MIG_SM_FILL 0x4u

/* Move blocks [first, first+n) to residence `to` (UVAS_RES_HOST or
 * UVAS_RES_DEVICE). Untouched blocks are populated there. Status; blocks
 * that could not move (device full) stay where they were. */
int uvas_migrate_blocks(size_t first, size_t n, int to, unsigned flags);

/* Fault path: block bi is BUSY (taken from UNPOPULATED by the caller);
 * give it a zeroed device slot. UVAS_ERR_NOMEM if the tier has no room
 * even after eviction: the caller places it on the host instead. */
int uvas_migrate_place_on_device(size_t bi);

/* The same for blocks bi[0..n) at once (all BUSY, taken from UNPOPULATED),
 * up to UVAS_PLACE_MAX of them: one copy-engine submission and one wait
 * for all the zero fills, where a block at a time pays both per block.
 * before_run: the caller is a launch before its run, which no kernel of
 * this process waits for: the fills may run on the GPU's cores
 * (UVAS_COPY_SM_FILL). *placed: how many of the first got a slot (the
 * rest, none: the tier is full and nothing could be evicted). Status: an
 * error with *placed 0. */
#define UVAS_PLACE_MAX 64
int uvas_migrate_place_many_on_device(const size_t *bi, size_t n, bool before_run,
                                      size_t *placed);

/* Read-mostly blocks in [first, first+n) that hold a device copy and a
 * host copy keep only the host one. Status. */
int uvas_migrate_collapse(size_t first, size_t n);

/* A write fault on block bi (fault path): a duplicated block drops its
 * device copy; a stale protection is lifted. */
void uvas_migrate_write_fault(size_t bi);
/* A CPU fault on block bi found it taken: park it for the taker's wake
 * (uvas_blk_park), or wake it when the block is free again. */
void uvas_migrate_park(size_t bi);

/* Fault path: a CPU access to device-resident block bi; if the policy
 * says so (by default: the block is advised accessed-by-CPU) and the driver
 * can, its device memory is mapped there. False: the caller migrates it
 * back instead (its threads are woken by that migration, or by whoever
 * holds the block then). */
bool uvas_migrate_cpu_map(size_t bi, bool write);

/* How many blocks, from bi on, a CPU fault on device-resident block bi
 * brings back to the host (1, or a readahead window for a sequential
 * sweep). */
size_t uvas_migrate_fault_window(size_t bi);
/* Unmap the CPU views of blocks in [first, first+n). Status. */
int uvas_migrate_cpu_unmap(size_t first, size_t n);

/* Blocks [bi, bi+n) back to the host for a CPU fault on bi (fault_handler.c):
 * as uvas_migrate_blocks to the host, except that if bi's transition fails
 * its parked threads are not woken: the caller sends the faulting thread
 * SIGBUS first, or it would retry, maybe succeed, and be killed after. */
int uvas_migrate_fault_back(size_t bi, size_t n);

/* Free the device slots of blocks [bi, bi+n) (caller holds them BUSY).
 * A slot whose CPU view cannot be unmapped is kept out of use instead (its
 * memory stays reachable through the range): status, the first failure. */
int uvas_migrate_drop_device(size_t bi, size_t n);

/* Asynchronous migrations (uvas_migrate with UVAS_MIGRATE_ASYNC). */
int uvas_migrate_async_start(void);
void uvas_migrate_async_stop(void);
int uvas_migrate_enqueue(size_t first, size_t n, int to);
void uvas_migrate_async_wait(void);
/* Wait until no queued or running asynchronous request covers a block of
 * [first, first+n) (blocks being freed); errors stay for
 * uvas_migrate_wait. */
void uvas_migrate_async_settle(size_t first, size_t n);

#endif
