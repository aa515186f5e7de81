/*
 * The policy string parser: uvas_policy_open (migrate/policy.c) with
 * "name" or "name:k=v,..." from the input, then, when it opened, the
 * policy's answers for a few blocks and one tick, then uvas_policy_close.
 * Invariants: a failure has a message and leaves nothing open; an opened
 * policy is the one named and every numeric parameter it accepted is a
 * finite number; its answers are among the allowed values. Specs that
 * would dlopen a file (a name with '/' or ending in .so) are skipped.
 */
#include <math.h>
#include <stdbool.h>

#include "fuzz.h"
#include "migrate/policy.h"

static int nreq;

static int request(struct uvas_policy_tick *t, size_t index, int res)
{
    bool known = false;
    for (size_t k = 0; k < t->nblocks; k++)
        known |= t->blocks[k].index == index;
    FZ_CHECK(known && (res == UVAS_RES_HOST || res == UVAS_RES_DEVICE),
             "tick asked for block %zu to go to %d", index, res);
    nreq++;
    return 0;
}

static void exercise(struct uvas_policy *p, const uint8_t *data, size_t size)
{
    struct uvas_block_view v[8];
    struct fz_in in = {data, size};
    for (size_t k = 0; k < 8; k++) {
        v[k] = (struct uvas_block_view){
            .index = k * 37 + fz_u8(&in),
            .addr = (void *)(uintptr_t)(0x200000000000ull + k * 4096),
            .residence = 1 + (fz_u8(&in) & 1),
            .heap = fz_u8(&in) % 3,
            .preferred = fz_u8(&in) % 3,
            .accesses = {fz_u16(&in), fz_u16(&in)},
            .migrations = fz_u8(&in),
            .writes = fz_u8(&in),
            .last_migration_ns = fz_u8(&in) ? 1 : 0,
            .peer_accesses = fz_u16(&in),
            .peer_top = (int)(fz_u8(&in) % 4) - 1,
            .peer_kernel_accesses = fz_u16(&in),
            .generation = fz_u8(&in) & 1,
        };
        for (int agent = 0; agent < 2; agent++) {
            if (p->ops->first_touch) {
                int r = p->ops->first_touch(p->state, &v[k], agent);
                FZ_CHECK(r == UVAS_RES_HOST || r == UVAS_RES_DEVICE, "%s first touch: %d",
                         p->ops->name, r);
            }
            if (p->ops->fault) {
                int a = p->ops->fault(p->state, &v[k], agent, k & 1);
                FZ_CHECK(a >= UVAS_ACTION_MIGRATE && a <= UVAS_ACTION_DUPLICATE, "%s fault: %d",
                         p->ops->name, a);
            }
        }
        if (p->ops->device_full)
            (void)p->ops->device_full(p->state, &v[k]);
    }
    if (p->ops->tick_interval)
        FZ_CHECK(p->ops->tick_interval(p->state) > 0, "%s: tick interval 0", p->ops->name);
    if (p->ops->tracking)
        FZ_CHECK(!(p->ops->tracking(p->state) &
                   ~(unsigned)(UVAS_POLICY_TRACK_WRITES | UVAS_POLICY_TRACK_ACCESS |
                               UVAS_POLICY_TRACK_PEERS)),
                 "%s: tracking bits", p->ops->name);
    if (p->ops->tick) {
        struct uvas_policy_tick t = {.blocks = v, .nblocks = 8, .device_capacity_blocks = 4,
                                     .device_room_blocks = 2,
                                     .device_blocks = 2, .request = request};
        nreq = 0;
        for (int i = 0; i < 2; i++) {
            t.now_ns = (uint64_t)(i + 1) * fz_u8(&in) * 1000000u;
            p->ops->tick(p->state, &t);
        }
        FZ_CHECK(nreq <= 16, "%d requests for 8 blocks in two ticks", nreq);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The spec is the input up to its first NUL; what follows feeds the
     * block views. */
    char *spec = fz_string(data, size, 1024);
    size_t used = strlen(spec) + 1 < size ? strlen(spec) + 1 : size;
    const char *colon = strchr(spec, ':');
    size_t nl = colon ? (size_t)(colon - spec) : strlen(spec);
    if (memchr(spec, '/', nl) || (nl > 3 && !memcmp(spec + nl - 3, ".so", 3))) {
        free(spec);
        return 0;
    }
    struct uvas_policy p;
    memset(&p, 0x5a, sizeof p);
    char err[256] = "";
    int rc = uvas_policy_open(spec, &p, err, sizeof err);
    if (rc) {
        FZ_CHECK(rc == UVAS_ERR_INVAL, "'%s': status %d", spec, rc);
        FZ_CHECK(err[0], "'%s' refused without a message", spec);
        FZ_CHECK(!p.ops && !p.state && !p.dl, "'%s' refused but left something open", spec);
        free(spec);
        return 0;
    }
    FZ_CHECK(p.ops && p.ops->name && strlen(p.ops->name) == nl &&
             !strncmp(p.ops->name, spec, nl), "'%s' opened policy '%s'", spec,
             p.ops && p.ops->name ? p.ops->name : "?");
    FZ_CHECK(!strcmp(p.spec, spec), "spec kept as '%s'", p.spec);
    FZ_CHECK(!p.dl, "'%s' loaded an object", spec);
    /* Every value accepted that reads as a number is a finite one. */
    if (colon) {
        char buf[1024];
        snprintf(buf, sizeof buf, "%s", colon + 1);
        char *save = NULL;
        for (char *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
            char *eq = strchr(kv, '=');
            FZ_CHECK(eq && eq != kv && eq[1], "'%s': '%s' accepted as key=value", spec, kv);
            char *end;
            double d = strtod(eq + 1, &end);
            if (end != eq + 1 && !*end)
                FZ_CHECK(isfinite(d), "'%s': %s accepted", spec, kv);
        }
    }
    exercise(&p, data + used, size - used);
    uvas_policy_close(&p);
    FZ_CHECK(!p.ops && !p.state && !p.dl, "closed policy not cleared");
    free(spec);
    return 0;
}
