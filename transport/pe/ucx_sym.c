/* Loading UCX (transport/pe/ucx_sym.h says why it is not linked). */
#define UVAS_UCX_SYM_IMPL
#include "transport/pe/ucx_sym.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

#include "uvas/status.h"

struct uvas_ucx_sym uvas_ucx;

static pthread_mutex_t load_mu = PTHREAD_MUTEX_INITIALIZER;
static void *lib_ucp, *lib_ucs;

int uvas_ucx_load(void)
{
    pthread_mutex_lock(&load_mu);
    if (lib_ucp) {
        pthread_mutex_unlock(&load_mu);
        return UVAS_OK;
    }
    /* Before libucm's constructor runs: no patching of libc. */
    setenv("UCX_MEM_MMAP_HOOK_MODE", "none", 0);
    setenv("UCX_MEM_MALLOC_HOOKS", "no", 0);
    void *ucp = dlopen("libucp.so.0", RTLD_NOW | RTLD_GLOBAL);
    void *ucs = ucp ? dlopen("libucs.so.0", RTLD_NOW | RTLD_GLOBAL) : NULL;
    if (!ucp || !ucs) {
        const char *why = dlerror();
        if (ucp)
            dlclose(ucp);
        pthread_mutex_unlock(&load_mu);
        return uvas_fail(UVAS_ERR_SYS, "cannot load UCX (%s): install libucx0", why);
    }
#define UVAS_UCX_LOAD(name)                                                                   \
    uvas_ucx.p_##name = (__typeof__(uvas_ucx.p_##name))dlsym(ucp, #name);                    \
    if (!uvas_ucx.p_##name)                                                                   \
        uvas_ucx.p_##name = (__typeof__(uvas_ucx.p_##name))dlsym(ucs, #name);                \
    if (!uvas_ucx.p_##name) {                                                                 \
        pthread_mutex_unlock(&load_mu);                                                       \
        return uvas_fail(UVAS_ERR_SYS, "UCX lacks %s: uvas needs UCX 1.12 or newer", #name);  \
    }
    UVAS_UCX_SYMS(UVAS_UCX_LOAD)
#undef UVAS_UCX_LOAD
    lib_ucp = ucp;
    lib_ucs = ucs;
    pthread_mutex_unlock(&load_mu);
    return UVAS_OK;
}
