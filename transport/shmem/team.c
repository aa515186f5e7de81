/*
 * Teams: the world, and the shared team, which is the world when every PE
 * reaches every other with loads and stores (one node, windows on), else
 * this PE alone. uvas creates no other teams.
 */
#include <stdbool.h>

#include "shmem.h"
#include "transport/pe/pe.h"
#include "transport/shmem/internal.h"
#include "uvas.h"

static bool shared_world;

void uvas_shmem_team_init(const void *probe)
{
    int me = uvas_pe_me(), n = uvas_pe_count();
    shared_world = true;
    for (int pe = 0; pe < n; pe++)
        if (pe != me && !uvas_pe_ptr(probe, pe))
            shared_world = false;
}

bool uvas_shmem_shared_is_world(void)
{
    return shared_world || uvas_pe_count() == 1;
}

static bool shared_is_self(shmem_team_t team)
{
    return team == SHMEM_TEAM_SHARED && !uvas_shmem_shared_is_world();
}

static bool is_world(shmem_team_t team)
{
    return team == SHMEM_TEAM_WORLD ||
           (team == SHMEM_TEAM_SHARED && uvas_shmem_shared_is_world());
}

static int unknown_team(const char *call, shmem_team_t team)
{
    return uvas_shmem_fail(call, UVAS_ERR_INVAL, "team handle %p is not SHMEM_TEAM_WORLD "
                           "or SHMEM_TEAM_SHARED (uvas creates no other teams)",
                           (void *)team);
}

int uvas_shmem_team_is_world(const char *call, shmem_team_t team)
{
    if (is_world(team))
        return UVAS_OK;
    if (team == SHMEM_TEAM_INVALID)
        return uvas_shmem_fail(call, UVAS_ERR_INVAL, "team is SHMEM_TEAM_INVALID");
    if (shared_is_self(team))
        return uvas_shmem_fail(call, UVAS_ERR_INVAL, "SHMEM_TEAM_SHARED is this PE alone "
                               "(its peers are not reachable with loads and stores); "
                               "uvas runs collectives on the world team only: use "
                               "SHMEM_TEAM_WORLD");
    return unknown_team(call, team);
}

int uvas_shmem_active_set_is_world(const char *call, int PE_start, int logPE_stride,
                                   int PE_size)
{
    int n = uvas_pe_count();
    if (PE_start == 0 && PE_size == n && (logPE_stride == 0 || n == 1))
        return UVAS_OK;
    return uvas_shmem_fail(call, UVAS_ERR_INVAL, "active set (PE_start %d, logPE_stride "
                           "%d, PE_size %d) is not the whole job: uvas supports only "
                           "PE_start 0, logPE_stride 0, PE_size %d", PE_start,
                           logPE_stride, PE_size, n);
}

int shmem_team_my_pe(shmem_team_t team)
{
    if (team == SHMEM_TEAM_INVALID)
        return -1;
    if (is_world(team))
        return uvas_pe_me();
    if (shared_is_self(team))
        return 0;
    unknown_team("shmem_team_my_pe", team);
    return -1;
}

int shmem_team_n_pes(shmem_team_t team)
{
    if (team == SHMEM_TEAM_INVALID)
        return -1;
    if (is_world(team))
        return uvas_pe_count();
    if (shared_is_self(team))
        return 1;
    unknown_team("shmem_team_n_pes", team);
    return -1;
}

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
    if (src_team == SHMEM_TEAM_INVALID || dest_team == SHMEM_TEAM_INVALID)
        return -1;
    int n_src = shmem_team_n_pes(src_team), n_dest = shmem_team_n_pes(dest_team);
    if (n_src < 0 || n_dest < 0 || src_pe < 0 || src_pe >= n_src)
        return -1;
    /* Every team is the world or this PE alone: go through world numbers. */
    int world = shared_is_self(src_team) ? uvas_pe_me() : src_pe;
    if (shared_is_self(dest_team))
        return world == uvas_pe_me() ? 0 : -1;
    return world;
}
