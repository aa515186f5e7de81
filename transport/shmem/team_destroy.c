/*
 * shmem_team_destroy: the team's shareable contexts go first (ctx.c, each
 * quiet), then the team (team.c); above both, so that neither calls the
 * other.
 */
#include "shmem.h"
#include "transport/shmem/internal.h"

void shmem_team_destroy(shmem_team_t team)
{
    if (uvas_shmem_team_find(team) && team != SHMEM_TEAM_WORLD && team != SHMEM_TEAM_SHARED)
        uvas_shmem_ctx_destroy_team(team);
    (void)uvas_shmem_team_unmake(team);
}
