/*
 * uvas_config_resolve (uvas/config.c) with the environment taken from the
 * input: lines "NAME=value" for the variables it reads (others ignored).
 * It must return UVAS_OK with a sane configuration that agrees with the
 * variables, or UVAS_ERR_ENV with a message; never crash or hang. No
 * uvas_init: resolving is the parser. Policies that would load a shared
 * object (a name with '/' or ending in .so) are skipped.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <strings.h>

#include "fuzz.h"
#include "migrate/policy.h"
#include "uvas/config.h"
#include "uvas/status.h"

static const char *const vars[] = {
    "UVAS_SIZE",   "UVAS_BLOCK_SIZE",  "UVAS_BASE",
    "UVAS_FAULT",  "UVAS_FAULT_THREADS", "UVAS_DEVICE",
    "UVAS_DEVICE_SIZE", "SHMEM_DEVICE_SYMMETRIC_SIZE", "UVAS_DEVICE_STRICT",
    "UVAS_POLICY",
};
#define NVARS (sizeof vars / sizeof vars[0])
#define VALMAX 512

/* putenv'd buffers "NAME=value", rewritten in place: setenv would keep
 * every value ever set (glibc never frees them). */
static char envbuf[NVARS][32 + VALMAX];
static const char *value[NVARS];

static bool loads_object(const char *spec)
{
    const char *colon = strchr(spec, ':');
    size_t nl = colon ? (size_t)(colon - spec) : strlen(spec);
    if (memchr(spec, '/', nl))
        return true;
    return nl > 3 && !memcmp(spec + nl - 3, ".so", 3);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (size_t i = 0; i < NVARS; i++) {
        unsetenv(vars[i]);
        value[i] = NULL;
    }
    char *in = fz_string(data, size, 8192);
    char *save = NULL;
    for (char *line = strtok_r(in, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *eq = strchr(line, '=');
        if (!eq)
            continue;
        *eq = '\0';
        for (size_t i = 0; i < NVARS; i++)
            if (!strcmp(line, vars[i]) && strlen(eq + 1) < VALMAX) {
                snprintf(envbuf[i], sizeof envbuf[i], "%s=%s", vars[i], eq + 1);
                value[i] = envbuf[i] + strlen(vars[i]) + 1;
                putenv(envbuf[i]);
            }
    }
    if (value[9] && loads_object(value[9]))
        goto out;

    struct uvas_config c;
    memset(&c, 0xa5, sizeof c);
    uvas_clear_error();
    int rc = uvas_config_resolve(NULL, uvas_policy_check, &c);
    const char *msg = uvas_last_error();
    FZ_CHECK(rc == UVAS_OK || rc == UVAS_ERR_ENV, "status %d", rc);
    if (rc) {
        FZ_CHECK(msg && msg[0], "UVAS_ERR_ENV without a message");
        goto out;
    }
    /* A sane configuration... */
    FZ_CHECK(c.size >= UVAS_MIN_SIZE && c.size <= UVAS_MAX_SIZE && !(c.size % UVAS_SIZE_GRAIN),
             "size %zu", c.size);
    FZ_CHECK(c.block_size >= UVAS_MIN_BLOCK && c.block_size <= UVAS_MAX_BLOCK &&
             !(c.block_size & (c.block_size - 1)), "block size %zu", c.block_size);
    FZ_CHECK(c.size / c.block_size < UINT32_MAX, "%zu blocks", c.size / c.block_size);
    FZ_CHECK(c.base == UVAS_BASE_ANY ||
             (c.base && !(c.base % UVAS_SIZE_GRAIN) && c.base < UVAS_USER_ADDR_END),
             "base %#lx", (unsigned long)c.base);
    FZ_CHECK(c.fault_mode >= UVAS_FAULT_AUTO && c.fault_mode <= UVAS_FAULT_EAGER, "fault mode %d",
             c.fault_mode);
    FZ_CHECK(c.fault_threads <= UVAS_MAX_FAULT_THREADS, "%u fault threads", c.fault_threads);
    FZ_CHECK(c.device == UVAS_DEV_WANT_AUTO || c.device == UVAS_DEV_WANT_NONE ||
             (c.device >= 0 && c.device < 64), "device %d", c.device);
    FZ_CHECK(!(c.flags & ~(unsigned)(UVAS_INIT_QUIET | UVAS_INIT_DEVICE_STRICT)), "flags %#x",
             c.flags);
    FZ_CHECK(memchr(c.policy, '\0', sizeof c.policy), "policy not terminated");
    /* ...that agrees with what was set. */
    size_t v;
    if (value[0]) {
        FZ_CHECK(!uvas_parse_size(value[0], &v), "UVAS_SIZE='%s' accepted", value[0]);
        FZ_CHECK(c.size == ((v + UVAS_SIZE_GRAIN - 1) & ~(UVAS_SIZE_GRAIN - 1)),
                 "UVAS_SIZE='%s' gave %zu", value[0], c.size);
    }
    if (value[1])
        FZ_CHECK(!uvas_parse_size(value[1], &v) && v == c.block_size,
                 "UVAS_BLOCK_SIZE='%s' gave %zu", value[1], c.block_size);
    if (value[3])
        FZ_CHECK(c.fault_mode == (!strcasecmp(value[3], "eager") ? UVAS_FAULT_EAGER
                                  : !strcasecmp(value[3], "auto") ? UVAS_FAULT_AUTO
                                                                  : UVAS_FAULT_UFFD),
                 "UVAS_FAULT='%s' gave %d", value[3], c.fault_mode);
    if (value[4])
        FZ_CHECK(c.fault_threads >= 1, "UVAS_FAULT_THREADS='%s' gave %u", value[4],
                 c.fault_threads);
    const char *ds = value[6] ? value[6] : value[7];
    if (ds)
        FZ_CHECK(!uvas_parse_size(ds, &v) && v == c.device_size, "device size '%s' gave %zu", ds,
                 c.device_size);
    else
        FZ_CHECK(c.device_size == 0, "device size %zu from nothing", c.device_size);
    if (value[8])
        FZ_CHECK(!!(c.flags & UVAS_INIT_DEVICE_STRICT) == !strcmp(value[8], "1"),
                 "UVAS_DEVICE_STRICT='%s'", value[8]);
    FZ_CHECK(!strcmp(c.policy, value[9] ? value[9] : "first-touch"), "policy '%s'", c.policy);
    /* The policy kept must open again. */
    struct uvas_policy p;
    char why[256];
    FZ_CHECK(uvas_policy_open(c.policy, &p, why, sizeof why) == UVAS_OK, "'%s': %s", c.policy,
             why);
    uvas_policy_close(&p);
out:
    free(in);
    return 0;
}
