/*
 * uvas_parse_size (uvas/config.c), the parser of UVAS_SIZE,
 * UVAS_BLOCK_SIZE and UVAS_DEVICE_SIZE, against an independent model:
 * decimal (a leading zero is not octal) or 0x hex digits, then nothing, or
 * one of K M G T (any case), optionally followed by i and then B ("64GiB",
 * "8KB"); the value must fit in 64 bits. A failed parse leaves the output
 * alone; a successful one round-trips through its decimal form and, for a
 * multiple of a unit, through "<n><unit>".
 */
#include <ctype.h>
#include <stdbool.h>

#include "fuzz.h"
#include "uvas/config.h"

static bool model(const char *s, size_t *out)
{
    const char *p = s;
    unsigned base = 10;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && isxdigit((unsigned char)p[2])) {
        base = 16;
        p += 2;
    }
    if (!(base == 16 ? isxdigit((unsigned char)*p) : isdigit((unsigned char)*p)))
        return false;
    unsigned __int128 v = 0;
    for (; base == 16 ? isxdigit((unsigned char)*p) : isdigit((unsigned char)*p); p++) {
        unsigned d = isdigit((unsigned char)*p) ? (unsigned)(*p - '0')
                                                : (unsigned)(tolower((unsigned char)*p) - 'a' + 10);
        v = v * base + d;
        if (v > UINT64_MAX)
            return false;
    }
    unsigned shift = 0;
    switch (*p) {
    case 'k': case 'K': shift = 10; break;
    case 'm': case 'M': shift = 20; break;
    case 'g': case 'G': shift = 30; break;
    case 't': case 'T': shift = 40; break;
    }
    if (shift) {
        p++;
        if (*p == 'i' || *p == 'I')
            p++;
        if (*p == 'b' || *p == 'B')
            p++;
    }
    if (*p)
        return false;
    v <<= shift;
    if (v > UINT64_MAX)
        return false;
    *out = (size_t)v;
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fz_string(data, size, 256);
    size_t got = 0x5a5a5a5a, want = 0;
    int rc = uvas_parse_size(s, &got);
    bool ok = model(s, &want);
    FZ_CHECK((rc == 0) == ok, "'%s': parse_size says %d, the model %s", s, rc,
             ok ? "accepts" : "rejects");
    if (rc) {
        FZ_CHECK(got == 0x5a5a5a5a, "'%s' failed but changed the output", s);
    } else {
        FZ_CHECK(got == want, "'%s' = %zu, the model says %zu", s, got, want);
        char text[64];
        size_t again = 1;
        snprintf(text, sizeof text, "%zu", got);
        FZ_CHECK(uvas_parse_size(text, &again) == 0 && again == got, "'%s' -> '%s'", s, text);
        static const char units[] = "KMGT";
        for (int u = 3; u >= 0; u--) {
            unsigned sh = 10u * (unsigned)(u + 1);
            if (got && !(got & (((size_t)1 << sh) - 1))) {
                snprintf(text, sizeof text, "%zu%c", got >> sh, units[u]);
                FZ_CHECK(uvas_parse_size(text, &again) == 0 && again == got, "'%s' -> '%s'", s,
                         text);
                snprintf(text, sizeof text, "0x%zx%ciB", got >> sh, units[u]);
                FZ_CHECK(uvas_parse_size(text, &again) == 0 && again == got, "'%s' -> '%s'", s,
                         text);
                break;
            }
        }
    }
    free(s);
    return 0;
}
