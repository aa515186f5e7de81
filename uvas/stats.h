/* Counters behind uvas_stats_get. Heap accounting changes under the
 * allocator lock; tier and fault counters change in the fault path, so they
 * are atomics (relaxed: they are statistics, not synchronisation). */
#ifndef UVAS_STATS_H
#define UVAS_STATS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "uvas.h"

struct uvas_tier_ctr {
    _Atomic size_t blocks;
    _Atomic size_t bytes_high;
    _Atomic uint64_t populated;
};

struct uvas_counters {
    struct uvas_heap_stats heap[UVAS_HEAP_COUNT]; /* allocator lock */
    struct uvas_tier_ctr tier[UVAS_RES_COUNT];
    _Atomic uint64_t faults;
    _Atomic uint64_t faults_spurious;
    _Atomic uint64_t faults_stray;
    _Atomic uint64_t fault_ns_total;
    _Atomic uint64_t fault_ns_max;
    _Atomic uint64_t blocks_released;
    _Atomic uint64_t faults_device;
    _Atomic uint64_t migrations[UVAS_RES_COUNT];
    _Atomic uint64_t bytes_migrated[UVAS_RES_COUNT];
    _Atomic uint64_t evictions;
    _Atomic uint64_t device_touches, device_remote;
    _Atomic uint64_t migrate_ns_total;
    _Atomic uint64_t migrate_ns_copy, migrate_ns_import, migrate_ns_map;
    _Atomic uint64_t slots_quarantined;
    _Atomic uint64_t kernel_launches, kernel_translations, kernel_faults, kernel_replays;
    _Atomic uint64_t kernel_fault_waits, kernel_gpu_ns, kernel_accesses, kernel_submissions;
    _Atomic uint64_t kernel_peer_leases, kernel_peer_revokes, kernel_requests;
    _Atomic uint64_t copy_submissions;
    _Atomic uint64_t pin_pending; /* migrate/pinner.c */
    _Atomic uint64_t staged_blocks;
};

/* A block became resident in tier `res` (first touch if populated). */
void uvas_stats_block_in(int res, int populated);
/* A block left tier `res`. */
void uvas_stats_block_out(int res);
void uvas_stats_fault_time(uint64_t ns);

/* Allocator side (lock held). */
void uvas_stats_alloc(int heap, size_t size);
void uvas_stats_free(int heap, size_t size);
void uvas_stats_reserve(int heap, long delta_bytes);

#endif
