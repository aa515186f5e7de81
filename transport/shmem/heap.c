/*
 * The heap plain shmem_malloc draws from: SHMEM_SYMMETRIC_HEAP_DEFAULT
 * (HOST, DEVICE, or unset for the unified heap, placed by first touch),
 * read once. Allocation (mem.c) and the shared team (team.c, which holds
 * only PEs whose plain objects shmem_ptr reaches) both ask it.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "shmem.h"
#include "transport/shmem/error.h"
#include "transport/shmem/internal.h"
#include "uvas/status.h"

#define HEAP_ENV "SHMEM_SYMMETRIC_HEAP_DEFAULT"

static pthread_once_t heap_once = PTHREAD_ONCE_INIT;
static int env_heap;           /* SHMEMX_HEAP_*, or -1: env_value is bad */
static char env_value[64];

static void read_heap_env(void)
{
    const char *v = getenv(HEAP_ENV);
    if (!v || !*v)
        env_heap = SHMEMX_HEAP_UNIFIED;
    else if (strcasecmp(v, "HOST") == 0)
        env_heap = SHMEMX_HEAP_HOST;
    else if (strcasecmp(v, "DEVICE") == 0)
        env_heap = SHMEMX_HEAP_DEVICE;
    else {
        env_heap = -1;
        snprintf(env_value, sizeof env_value, "%s", v);
    }
}

int uvas_shmem_default_heap(const char *call)
{
    pthread_once(&heap_once, read_heap_env);
    if (env_heap < 0)
        uvas_shmem_fail(call, UVAS_ERR_ENV, HEAP_ENV "=%s is not a heap: set HOST or "
                        "DEVICE, or leave it unset for the unified heap (placement by "
                        "first touch)", env_value);
    return env_heap;
}

bool uvas_shmem_default_heap_is_host(void)
{
    pthread_once(&heap_once, read_heap_env);
    return env_heap == SHMEMX_HEAP_HOST;
}

int uvas_shmem_heap_env_check(void)
{
    pthread_once(&heap_once, read_heap_env);
    if (env_heap < 0)
        return uvas_fail(UVAS_ERR_ENV, HEAP_ENV "='%s' is not a heap: set HOST or DEVICE, or "
                         "leave it unset for the unified heap (placement by first touch)",
                         env_value);
    return UVAS_OK;
}
