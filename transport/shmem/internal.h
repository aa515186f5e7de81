/* What the OpenSHMEM files share inside the library. */
#ifndef UVAS_TRANSPORT_SHMEM_INTERNAL_H
#define UVAS_TRANSPORT_SHMEM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

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

/* SHMEM_SYMMETRIC_HEAP_DEFAULT names a heap (or is unset); else UVAS_ERR_ENV
 * with a message: shmem_init refuses to start. */
int uvas_shmem_heap_env_check(void);
/* Before uvas_pe_finalize: release the scratch. */
void uvas_shmem_coll_fini(void);

/* Teams (team.c). Does every PE reach this PE's memory with loads and
 * stores (so that SHMEM_TEAM_SHARED is the world)? Known once team_init
 * has tried a symmetric probe object on every peer (uvas_shmem_coll_init). */
void uvas_shmem_team_init(const void *probe);
bool uvas_shmem_shared_is_world(void);

/* 0 if team names all PEs of the job (the only teams collectives run on);
 * otherwise reported, a negative status. */
int uvas_shmem_team_is_world(const char *call, shmem_team_t team);
/* The same for a classic active set (PE_start, logPE_stride, PE_size). */
int uvas_shmem_active_set_is_world(const char *call, int PE_start, int logPE_stride,
                                   int PE_size);

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
