/*
 * Staging: small collectives in one barrier. A member copies its
 * contribution (a reduction's source, a broadcast root's) into a symmetric
 * buffer of its own for the call, the team syncs once, and every member
 * reads the contributions it needs from the owners' buffers. The source is
 * free again as soon as it is copied, so the barrier that kept it in place
 * until every member had read it goes.
 *
 * Each team has two buffers a PE, used by turns (the call's epoch's
 * parity). A member overwrites its buffer of call k at call k + 2, after
 * the barrier of call k + 1, which no member enters before it has read
 * everything of call k: so no read is overtaken. A member whose part failed
 * still writes its buffer's header, marked failed, so that no one reads
 * what an earlier call left there; the readers check the header's epoch
 * and mark. The epochs count a team's staged calls, the same sequence on
 * every member: a team made on a slot starts them again at 0 on all its
 * members (uvas_shmem_stage_reset), and a team that staged syncs in
 * shmem_team_destroy (team.c), so that no member still reads its last
 * call's buffers when a team made next on its slot writes them.
 */
#include <stdint.h>
#include <string.h>

#include "transport/pe/pe.h"
#include "transport/shmem/error.h"
#include "transport/shmem/internal.h"
#include "uvas.h"

/* Slots of created teams, then the world's (index UVAS_SHMEM_SLOTS). */
#define TEAMS (UVAS_SHMEM_SLOTS + 1)

struct header {
    uint64_t epoch;
    uint64_t ok;
    uint64_t pad[6]; /* the contribution starts on a cache line */
};
#define BUF (sizeof(struct header) + UVAS_SHMEM_STAGE_MAX)

static unsigned char *bufs;     /* symmetric: TEAMS x 2 x BUF */
/* Per team; a team's collectives are one after another (the specification
 * asks it of the program), teams' apart: plain words. */
static uint64_t epochs[TEAMS];

int uvas_shmem_stage_init(void)
{
    if (bufs)
        return UVAS_OK;
    bufs = uvas_malloc_hint((size_t)TEAMS * 2 * BUF, UVAS_HINT_HOST);
    return bufs ? UVAS_OK : UVAS_ERR_NOMEM; /* the allocator's message says why */
}

void uvas_shmem_stage_fini(void)
{
    /* A peer may still read what this PE staged for its last call: the
     * call ended at its barrier, before the reads. Every PE is here
     * (finalize is collective) once this barrier is passed. */
    if (bufs && uvas_pe_barrier_all() == UVAS_OK)
        uvas_try_free(bufs);
    bufs = NULL;
    memset(epochs, 0, sizeof epochs);
}

static int index_of(const struct uvas_shmem_team *t)
{
    if (t->slot >= 0 && t->slot < UVAS_SHMEM_SLOTS)
        return t->slot;
    return t->slot == -1 && t->size == uvas_pe_count() ? UVAS_SHMEM_SLOTS : -1;
}

void uvas_shmem_stage_reset(int slot)
{
    if (slot >= 0 && slot < UVAS_SHMEM_SLOTS)
        epochs[slot] = 0;
}

bool uvas_shmem_stage_used(int slot)
{
    return slot >= 0 && slot < UVAS_SHMEM_SLOTS && epochs[slot] != 0;
}

bool uvas_shmem_stage_fits(const struct uvas_shmem_team *t, size_t bytes)
{
    return bufs && t->size > 1 && bytes <= UVAS_SHMEM_STAGE_MAX && index_of(t) >= 0;
}

static unsigned char *buf_of(int idx, uint64_t epoch)
{
    return bufs + ((size_t)idx * 2 + (epoch & 1)) * BUF;
}

int uvas_shmem_stage_begin(const char *call, struct uvas_shmem_team *t, const void *src,
                           size_t bytes, int st, uint64_t *epoch)
{
    int idx = index_of(t);
    uint64_t e = ++epochs[idx];
    *epoch = e;
    unsigned char *b = buf_of(idx, e);
    /* Through the PE layer, as any read of this PE's symmetric memory:
     * a device-resident source is read where it lives. */
    if (st == UVAS_OK && bytes) {
        st = uvas_pe_check(call, src, bytes, uvas_pe_me());
        if (st == UVAS_OK)
            st = uvas_pe_get(b + sizeof(struct header), src, bytes, uvas_pe_me(), false);
        if (st != UVAS_OK)
            uvas_shmem_report(call, st);
    }
    struct header h = {.epoch = e, .ok = st == UVAS_OK};
    memcpy(b, &h, sizeof h);
    return st;
}

int uvas_shmem_stage_read(const char *call, struct uvas_shmem_team *t, int m, void *dst,
                          size_t bytes, uint64_t epoch)
{
    unsigned char *b = buf_of(index_of(t), epoch);
    struct {
        struct header h;
        unsigned char data[UVAS_SHMEM_STAGE_MAX];
    } got;
    int pe = uvas_shmem_team_pe(t, m);
    int st = uvas_pe_get(&got, b, sizeof got.h + bytes, pe, false);
    if (st != UVAS_OK) {
        uvas_shmem_report(call, st);
        return st;
    }
    if (got.h.epoch != epoch || !got.h.ok)
        return uvas_shmem_fail(call, UVAS_ERR_INVAL, "team PE %d's part failed: %s", m,
                               got.h.epoch != epoch ? "it did not take part in this call"
                                                    : "its contribution is not there");
    memcpy(dst, got.data, bytes);
    return UVAS_OK;
}
