/* Helpers shared by the fault-injection tests (inject-util.h). */
#include "inject-util.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

unsigned char ti_pat(size_t i, unsigned salt)
{
    unsigned char v = (unsigned char)(i * 131u + (i >> 9) * 7u + salt * 29u);
    return v ? v : 0x5a;
}

void ti_fill(unsigned char *p, size_t n, unsigned salt)
{
    for (size_t i = 0; i < n; i++)
        p[i] = ti_pat(i, salt);
}

void ti_arm(const char *spec)
{
    int st = uvas_inject_configure(spec, 1);
    CHECK(st == UVAS_OK, "uvas_inject_configure('%s') returned %d", spec, st);
}

uint64_t ti_injected(int site)
{
    return tu_stats().injected[site];
}

size_t ti_count(const void *p, size_t len, int res)
{
    struct uvas_range_info ri;
    CHECK_OK(uvas_query_range(p, len, &ri));
    return ri.blocks[res];
}

static void sigbus_exit(int sig)
{
    (void)sig;
    _exit(TI_EXIT_SIGBUS);
}

void ti_catch_sigbus(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = sigbus_exit;
    sigaction(SIGBUS, &sa, NULL);
}

int ti_child_init(struct uvas_range_desc *d)
{
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "256M");
    tu_setenv("UVAS_BLOCK_SIZE", "64K");
    if (uvas_init(NULL))
        return 1;
    *d = tu_range();
    if (d->fault_mode != UVAS_FAULT_UFFD || !d->device_present)
        return TU_EXIT_SKIP;
    return 0;
}
