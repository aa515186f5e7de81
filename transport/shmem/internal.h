/* What the OpenSHMEM files share inside the library. */
#ifndef UVAS_TRANSPORT_SHMEM_INTERNAL_H
#define UVAS_TRANSPORT_SHMEM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shmem.h"
#include "transport/shmem/error.h"
#include "uvas.h"

/* The collectives' symmetric scratch. Collective: shmem_init calls it on
 * every PE right after uvas_pe_init, before the program can allocate, so
 * it gets the same address everywhere. Idempotent. */
int uvas_shmem_coll_init(void);

/* Symmetric calls agree (agree.c): post before the call's barrier,
 * check after it (a difference is reported and returned). */
enum uvas_agree_kind { UVAS_AGREE_ALLOC = 0, UVAS_AGREE_REALLOC = 1, UVAS_AGREE_FREE = 2 };
int uvas_shmem_agree_init(void);
void uvas_shmem_agree_fini(void);
void uvas_shmem_agree_post(enum uvas_agree_kind kind, size_t size, const void *p);
int uvas_shmem_agree_check(const char *call);

/* The default heap (heap.c): SHMEM_SYMMETRIC_HEAP_DEFAULT names a heap
 * (or is unset); else UVAS_ERR_ENV with a message: shmem_init refuses to
 * start. uvas_shmem_default_heap: SHMEMX_HEAP_*, or -1 after reporting a
 * bad variable for call. */
int uvas_shmem_heap_env_check(void);
int uvas_shmem_default_heap(const char *call);
/* Before uvas_pe_finalize: release the scratch. */
void uvas_shmem_coll_fini(void);

/* Teams (team.c): a strided set of world PEs, member i is world PE
 * start + i * stride. */
struct uvas_shmem_team {
    int start, stride, size;
    int me;            /* this PE's index in it */
    int slot;          /* its sync counters' slot; -1: the world's barrier */
    uint64_t *ctr;     /* those counters (a slot, or a classic call's pSync) */
    /* A symmetric word at every member that only this team's collectives
     * use (collect's counts, a split's agreement): two threads' collectives
     * on two teams at once must not share one (SHMEM_THREAD_MULTIPLE). */
    uint64_t *word;
    uint64_t epoch;    /* syncs made */
    shmem_team_config_t config;
};
static inline int uvas_shmem_team_pe(const struct uvas_shmem_team *t, int i)
{
    return t->start + i * t->stride;
}
/* Created teams' sync slots (team.c); the world's barrier is apart. */
#define UVAS_SHMEM_SLOTS 63

/* Staging (stage.c): a small collective's contributions copied into
 * symmetric buffers of the team, so that the call needs one barrier.
 * _init and _fini collective, in coll_init and coll_fini; _reset(slot)
 * on every member of a team made on that slot; a team that _used its
 * slot syncs when it is destroyed. A call: _fits, then
 * _begin (this PE's contribution, or its failure st, for the call; the
 * call's epoch in *epoch), the team's barrier, then _read of each
 * member's contribution needed (a member whose part failed: reported,
 * a negative status). */
/* With its 64-byte header, a staged buffer is read in one small move. */
#define UVAS_SHMEM_STAGE_MAX 960
int uvas_shmem_stage_init(void);
void uvas_shmem_stage_fini(void);
void uvas_shmem_stage_reset(int slot);
/* Has the team on this slot staged a call since it was made? */
bool uvas_shmem_stage_used(int slot);
bool uvas_shmem_stage_fits(const struct uvas_shmem_team *t, size_t bytes);
int uvas_shmem_stage_begin(const char *call, struct uvas_shmem_team *t, const void *src,
                           size_t bytes, int st, uint64_t *epoch);
int uvas_shmem_stage_read(const char *call, struct uvas_shmem_team *t, int m, void *dst,
                          size_t bytes, uint64_t epoch);

/* Collective, in uvas_shmem_coll_init: the world (world_word: its
 * symmetric word, populated, also the probe of the next question), the
 * shared team (does every PE reach this PE's memory with loads and
 * stores? tried with that word on every peer), the teams' symmetric
 * counters and words. Status. */
int uvas_shmem_team_init(uint64_t *world_word);
void uvas_shmem_team_fini(void);
bool uvas_shmem_shared_is_world(void);
/* Does plain shmem_malloc give host-heap memory (SHMEM_SYMMETRIC_HEAP_DEFAULT=HOST),
 * the only memory shmem_ptr reaches at another PE? (heap.c) */
bool uvas_shmem_default_heap_is_host(void);
/* The team a handle names, or NULL: _of reports it (INVALID, or not a
 * team of this PE), _find says nothing. */
struct uvas_shmem_team *uvas_shmem_team_of(const char *call, shmem_team_t team);
struct uvas_shmem_team *uvas_shmem_team_find(shmem_team_t team);
struct uvas_shmem_team *uvas_shmem_world_team(void);
/* Every member arrives before any leaves; _barrier completes this PE's
 * puts and AMOs first (shmem_quiet). Status. */
int uvas_shmem_team_sync(struct uvas_shmem_team *t);
int uvas_shmem_team_barrier(struct uvas_shmem_team *t);
/* A classic active set (PE_start, logPE_stride, PE_size) as a team in
 * *out, syncing on the caller's pSync (the whole job: the world team);
 * bad input, or a caller outside the set, reported: a negative status.
 * _done puts this PE's pSync back to SHMEM_SYNC_VALUE after the call. */
int uvas_shmem_active_set(const char *call, int PE_start, int logPE_stride, int PE_size,
                          long *pSync, struct uvas_shmem_team *out);
void uvas_shmem_active_set_done(struct uvas_shmem_team *t);

/* shmem_team_destroy's part in contexts (ctx.c): the team's shareable
 * contexts are destroyed (each quiet first); private ones are the
 * program's to destroy before (OpenSHMEM 1.5, 9.4.2 and 9.5.6). */
void uvas_shmem_ctx_destroy_team(shmem_team_t team);
/* shmem_team_destroy's part in teams (team.c): the team's slot and record
 * go; the predefined teams are refused (reported), SHMEM_TEAM_INVALID is
 * nothing to do. Status. */
int uvas_shmem_team_unmake(shmem_team_t team);

/* nelems * elem into *bytes; an overflow is reported (false). */
static inline bool uvas_shmem_bytes(const char *call, size_t nelems, size_t elem,
                                    size_t *bytes)
{
    if (!__builtin_mul_overflow(nelems, elem, bytes))
        return true;
    uvas_shmem_fail(call, UVAS_ERR_INVAL, "%zu elements of %zu bytes overflow size_t",
                    nelems, elem);
    return false;
}

#endif
