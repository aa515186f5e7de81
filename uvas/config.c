/* Options and environment: every value is checked, and a bad one is named. */
#include "uvas/config.h"

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "uvas.h"
#include "uvas/status.h"

static int is_pow2(size_t x)
{
    return x && !(x & (x - 1));
}

/* Decimal, or hexadecimal with 0x: a leading zero is not octal ("0100M"
 * is 100 MiB, as a person reads it). */
static unsigned long long to_ull(const char *s, char **end)
{
    bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    return strtoull(s, end, hex ? 16 : 10);
}

int uvas_parse_size(const char *s, size_t *out)
{
    if (!s || !isdigit((unsigned char)s[0]))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = to_ull(s, &end);
    if (errno || end == s)
        return -1;
    unsigned shift = 0;
    switch (*end) {
    case '\0': break;
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    case 't': case 'T': shift = 40; end++; break;
    default: return -1;
    }
    if (*end == 'i' || *end == 'I') /* accept "64GiB"-style too */
        end++;
    if ((*end == 'b' || *end == 'B') && shift)
        end++;
    if (*end != '\0')
        return -1;
    if (shift && v > (~0ull >> shift))
        return -1;
    *out = (size_t)(v << shift);
    return 0;
}

static int parse_uint(const char *s, unsigned long long *out)
{
    if (!s || !isdigit((unsigned char)s[0]))
        return -1;
    errno = 0;
    char *end;
    unsigned long long v = to_ull(s, &end);
    if (errno || *end != '\0')
        return -1;
    *out = v;
    return 0;
}

/* Checks shared by options and environment: `src` says where a value came
 * from, `err` is the status to report. */
static int check_size(size_t v, const char *src, const char *text, int err)
{
    if (v < UVAS_MIN_SIZE || v > UVAS_MAX_SIZE)
        return uvas_fail(err, "%s=%s is out of range: the range size must be "
                         "between 16M and 64T", src, text);
    return UVAS_OK;
}

static int check_block(size_t v, const char *src, const char *text, int err)
{
    if (!is_pow2(v) || v < UVAS_MIN_BLOCK || v > UVAS_MAX_BLOCK)
        return uvas_fail(err, "%s=%s is not a valid block size: use a power of "
                         "two from 4K to 2M", src, text);
    return UVAS_OK;
}

static int check_address(uintptr_t v, const char *src, const char *text, int err)
{
    if (v == 0 || (v & (UVAS_SIZE_GRAIN - 1)) || v >= UVAS_USER_ADDR_END)
        return uvas_fail(err, "%s=%s is not a usable base: give a non-zero, "
                         "2 MiB-aligned user address below 0x800000000000, or 'any'",
                         src, text);
    return UVAS_OK;
}

/* options.base: an address, or UVAS_BASE_ANY (1). */
static int check_base(uintptr_t v, const char *src, const char *text, int err)
{
    return v == UVAS_BASE_ANY ? UVAS_OK : check_address(v, src, text, err);
}

static int check_threads(unsigned long long v, const char *src, const char *text, int err)
{
    if (v < 1 || v > UVAS_MAX_FAULT_THREADS)
        return uvas_fail(err, "%s=%s is out of range: use 1 to %u fault threads",
                         src, text, UVAS_MAX_FAULT_THREADS);
    return UVAS_OK;
}

static int check_policy(uvas_policy_check_fn checker, const char *spec, const char *src,
                        int err)
{
    if (strlen(spec) >= sizeof(((struct uvas_config *)0)->policy))
        return uvas_fail(err, "%s='%.40s...' is too long", src, spec);
    char why[256];
    if (checker && checker(spec, why, sizeof why))
        return uvas_fail(err, "%s='%s': %s", src, spec, why);
    return UVAS_OK;
}

static int env_size(const char *var, size_t *out, int (*check)(size_t, const char *,
                                                                 const char *, int))
{
    const char *s = getenv(var);
    if (!s)
        return 1;
    size_t v;
    if (uvas_parse_size(s, &v))
        return uvas_fail(UVAS_ERR_ENV, "%s='%s' is malformed: give a number with an "
                         "optional K, M, G or T suffix (e.g. 64G)", var, s);
    int rc = check(v, var, s, UVAS_ERR_ENV);
    if (rc)
        return rc;
    *out = v;
    return 0;
}

static int resolve_env(struct uvas_config *c, const struct uvas_options *o,
                       uvas_policy_check_fn checker)
{
    int rc;
    const char *s;

    if (!o->size && (rc = env_size("UVAS_SIZE", &c->size, check_size)) < 0)
        return rc;
    if (!o->block_size && (rc = env_size("UVAS_BLOCK_SIZE", &c->block_size, check_block)) < 0)
        return rc;

    if (!o->base && (s = getenv("UVAS_BASE"))) {
        unsigned long long v = UVAS_BASE_ANY;
        bool any = !strcasecmp(s, "any") || !strcasecmp(s, "auto");
        if (!any && parse_uint(s, &v))
            return uvas_fail(UVAS_ERR_ENV, "UVAS_BASE='%s' is malformed: give an address "
                             "such as 0x200000000000, or 'any'", s);
        /* A number is an address, never the 1 that options.base spells
         * 'any' with (UVAS_BASE=1 ran anywhere, silently). */
        if (!any && (rc = check_address((uintptr_t)v, "UVAS_BASE", s, UVAS_ERR_ENV)))
            return rc;
        c->base = (uintptr_t)v;
    }
    if (!o->fault_mode && (s = getenv("UVAS_FAULT"))) {
        if (!strcasecmp(s, "auto"))
            c->fault_mode = UVAS_FAULT_AUTO;
        else if (!strcasecmp(s, "uffd") || !strcasecmp(s, "userfaultfd"))
            c->fault_mode = UVAS_FAULT_UFFD;
        else if (!strcasecmp(s, "eager"))
            c->fault_mode = UVAS_FAULT_EAGER;
        else
            return uvas_fail(UVAS_ERR_ENV, "UVAS_FAULT='%s' is unknown: use auto, uffd "
                             "or eager", s);
    }
    if (!o->fault_threads && (s = getenv("UVAS_FAULT_THREADS"))) {
        unsigned long long v;
        if (parse_uint(s, &v))
            return uvas_fail(UVAS_ERR_ENV, "UVAS_FAULT_THREADS='%s' is malformed: give "
                             "a number from 1 to %u", s, UVAS_MAX_FAULT_THREADS);
        if ((rc = check_threads(v, "UVAS_FAULT_THREADS", s, UVAS_ERR_ENV)))
            return rc;
        c->fault_threads = (unsigned)v;
    }
    if (!o->device && (s = getenv("UVAS_DEVICE"))) {
        unsigned long long v;
        if (!strcasecmp(s, "auto"))
            c->device = UVAS_DEV_WANT_AUTO;
        else if (!strcasecmp(s, "none"))
            c->device = UVAS_DEV_WANT_NONE;
        else if (!parse_uint(s, &v) && v < 64)
            c->device = (int)v;
        else
            return uvas_fail(UVAS_ERR_ENV, "UVAS_DEVICE='%s' is unknown: use auto, none or a "
                             "Vulkan device index (0-63)", s);
        snprintf(c->device_said, sizeof c->device_said, "UVAS_DEVICE=%.24s", s);
    }
    if (!o->device_size) {
        const char *var = "UVAS_DEVICE_SIZE";
        if (!(s = getenv(var)) && (s = getenv("SHMEM_DEVICE_SYMMETRIC_SIZE")))
            var = "SHMEM_DEVICE_SYMMETRIC_SIZE";
        if (s && uvas_parse_size(s, &c->device_size))
            return uvas_fail(UVAS_ERR_ENV, "%s='%s' is malformed: give a number with an "
                             "optional K, M, G or T suffix (e.g. 8G)", var, s);
        /* 0 is options.device_size's "the device's budget"; from the
         * environment it read as that too, silently, where a user meant
         * none or forgot a suffix. */
        if (s && c->device_size == 0)
            return uvas_fail(UVAS_ERR_ENV, "%s='%s' is 0 bytes: give the device tier's size "
                             "(e.g. 8G), leave it unset for the device's budget, or set "
                             "UVAS_DEVICE=none for no device tier", var, s);
        c->device_size_from = var;
    }
    if (!(o->flags & UVAS_INIT_DEVICE_STRICT) && (s = getenv("UVAS_DEVICE_STRICT"))) {
        if (!strcmp(s, "1"))
            c->flags |= UVAS_INIT_DEVICE_STRICT;
        else if (strcmp(s, "0"))
            return uvas_fail(UVAS_ERR_ENV, "UVAS_DEVICE_STRICT='%s' is unknown: use 0 or 1", s);
    }
    if ((s = getenv("UVAS_COPY_QUEUES"))) {
        unsigned long long v;
        if (parse_uint(s, &v) || v < 1 || v > 2)
            return uvas_fail(UVAS_ERR_ENV, "UVAS_COPY_QUEUES='%s' is unknown: use 1 or 2 "
                             "(queues of the copy-engine family migrations use)", s);
        c->copy_queues = (unsigned)v;
    }
    if ((s = getenv("UVAS_STREAM_MIN"))) {
        if (!strcasecmp(s, "off"))
            c->stream_min = SIZE_MAX;
        else if (uvas_parse_size(s, &c->stream_min) || c->stream_min == 0)
            return uvas_fail(UVAS_ERR_ENV, "UVAS_STREAM_MIN='%s' is malformed: give the "
                             "smallest put that streams, e.g. 2M, or 'off'", s);
    }
    if ((s = getenv("UVAS_PEER_COUNTS"))) {
        if (strcmp(s, "0") && strcmp(s, "1"))
            return uvas_fail(UVAS_ERR_ENV, "UVAS_PEER_COUNTS='%s' is unknown: use 1 to count "
                             "other PEs' accesses per block, 0 not to", s);
        c->peer_counts = s[0] == '1';
    }
    c->stage_first = -1;
    if ((s = getenv("UVAS_STAGE_FIRST"))) {
        if (!strcmp(s, "0") || !strcmp(s, "1"))
            c->stage_first = s[0] - '0';
        else
            return uvas_fail(UVAS_ERR_ENV, "UVAS_STAGE_FIRST='%s' is unknown: use 1 (copy "
                             "blocks whose imports are not kept through staging memory), 0 "
                             "(import them), or leave it unset (staging where imports pin)", s);
    }
    if ((s = getenv("UVAS_HUGE_PAGES"))) {
        if (!strcmp(s, "1"))
            c->huge_pages = true;
        else if (strcmp(s, "0"))
            return uvas_fail(UVAS_ERR_ENV, "UVAS_HUGE_PAGES='%s' is unknown: use 1 (the host "
                             "tier in 2 MiB huge pages) or 0", s);
    }
    if (!o->policy && (s = getenv("UVAS_POLICY"))) {
        if ((rc = check_policy(checker, s, "UVAS_POLICY", UVAS_ERR_ENV)))
            return rc;
        strcpy(c->policy, s);
    }
    return UVAS_OK;
}

static int resolve_opts(struct uvas_config *c, const struct uvas_options *o,
                        uvas_policy_check_fn checker)
{
    int rc;
    char text[32];

    if (o->size) {
        snprintf(text, sizeof text, "%zu", o->size);
        if ((rc = check_size(o->size, "options.size", text, UVAS_ERR_INVAL)))
            return rc;
        c->size = o->size;
    }
    if (o->block_size) {
        snprintf(text, sizeof text, "%zu", o->block_size);
        if ((rc = check_block(o->block_size, "options.block_size", text, UVAS_ERR_INVAL)))
            return rc;
        c->block_size = o->block_size;
    }
    if (o->base) {
        snprintf(text, sizeof text, "%#lx", (unsigned long)o->base);
        if ((rc = check_base(o->base, "options.base", text, UVAS_ERR_INVAL)))
            return rc;
        c->base = o->base;
    }
    if (o->fault_mode) {
        if (o->fault_mode != UVAS_FAULT_UFFD && o->fault_mode != UVAS_FAULT_EAGER)
            return uvas_fail(UVAS_ERR_INVAL, "options.fault_mode=%d is unknown", o->fault_mode);
        c->fault_mode = o->fault_mode;
    }
    if (o->fault_threads) {
        snprintf(text, sizeof text, "%u", o->fault_threads);
        if ((rc = check_threads(o->fault_threads, "options.fault_threads", text,
                                UVAS_ERR_INVAL)))
            return rc;
        c->fault_threads = o->fault_threads;
    }
    if (o->policy) {
        if ((rc = check_policy(checker, o->policy, "options.policy", UVAS_ERR_INVAL)))
            return rc;
        strcpy(c->policy, o->policy);
    }
    if (o->flags & ~(UVAS_INIT_QUIET | UVAS_INIT_DEVICE_STRICT))
        return uvas_fail(UVAS_ERR_INVAL, "options.flags=%#x has unknown bits", o->flags);
    c->flags = o->flags;
    if (o->device) {
        if (o->device != UVAS_DEVICE_OFF && (o->device < 1 || o->device > 64))
            return uvas_fail(UVAS_ERR_INVAL, "options.device=%d: use 0 (auto), "
                             "UVAS_DEVICE_OFF or 1 + a Vulkan device index", o->device);
        c->device = o->device == UVAS_DEVICE_OFF ? UVAS_DEV_WANT_NONE : o->device - 1;
        snprintf(c->device_said, sizeof c->device_said, "options.device=%d", o->device);
    }
    c->device_size = o->device_size;
    return UVAS_OK;
}

int uvas_config_resolve(const struct uvas_options *opts, uvas_policy_check_fn check_policy,
                        struct uvas_config *out)
{
    static const struct uvas_options none;
    const struct uvas_options *o = opts ? opts : &none;
    struct uvas_config c = {
        .size = UVAS_DEFAULT_SIZE,
        .base = UVAS_BUILD_DEFAULT_BASE,
        .block_size = UVAS_DEFAULT_BLOCK,
        .fault_mode = UVAS_FAULT_AUTO,
        .fault_threads = 0,
        .device = UVAS_DEV_WANT_AUTO,
    };
    strcpy(c.policy, "first-touch");

    int rc = resolve_opts(&c, o, check_policy);
    if (rc)
        return rc;
    if ((rc = resolve_env(&c, o, check_policy)))
        return rc;
    /* A device tier bound under one block would hold nothing: say so
     * rather than run with an empty tier (device-hinted memory would then
     * land on the host, or fail under the strict mode, for no visible reason). */
    if (c.device_size && c.device_size < c.block_size)
        return uvas_fail(o->device_size ? UVAS_ERR_INVAL : UVAS_ERR_ENV,
                         "%s=%zu bytes is smaller than one block (%zu bytes): the device tier "
                         "would hold nothing; give at least the block size, or "
                         "UVAS_DEVICE=none for no device tier", o->device_size ?
                         "options.device_size" : c.device_size_from, c.device_size, c.block_size);
    /* A huge page is the host tier's unit of mapping, filling and
     * punching: a block must be whole huge pages. */
    if (c.huge_pages && c.block_size % UVAS_HUGE_PAGE)
        return uvas_fail(o->block_size ? UVAS_ERR_INVAL : UVAS_ERR_ENV,
                         "UVAS_HUGE_PAGES=1 needs blocks of whole 2 MiB huge pages; the block "
                         "size is %zu bytes: give UVAS_BLOCK_SIZE=2M or more", c.block_size);
    c.size = (c.size + UVAS_SIZE_GRAIN - 1) & ~(UVAS_SIZE_GRAIN - 1);
    if (c.base != UVAS_BASE_ANY && c.size > UVAS_USER_ADDR_END - c.base)
        return uvas_fail(o->base || o->size ? UVAS_ERR_INVAL : UVAS_ERR_ENV,
                         "the range [%#lx, +%zu bytes) runs past the end of the user address "
                         "space (%#lx): give a lower base (UVAS_BASE) or a smaller size "
                         "(UVAS_SIZE)", (unsigned long)c.base, c.size,
                         (unsigned long)UVAS_USER_ADDR_END);
    if ((c.size / c.block_size) >= UINT32_MAX)
        return uvas_fail(o->size || o->block_size ? UVAS_ERR_INVAL : UVAS_ERR_ENV,
                         "a %zu-byte range has too many %zu-byte blocks (at most 2^32-1): "
                         "use a larger block size (UVAS_BLOCK_SIZE) or a smaller range "
                         "(UVAS_SIZE)", c.size, c.block_size);
    *out = c;
    return UVAS_OK;
}
