/* Shared helpers of the libFuzzer targets (fuzz.h). */
#include "fuzz.h"

char *fz_string(const uint8_t *data, size_t size, size_t max)
{
    size_t n = size < max - 1 ? size : max - 1;
    char *s = malloc(n + 1);
    if (!s)
        abort();
    memcpy(s, data, n);
    s[n] = '\0';
    return s;
}

uint64_t fz_take(struct fz_in *in, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; i++) {
        v <<= 8;
        if (in->n) {
            v |= *in->p++;
            in->n--;
        }
    }
    return v;
}
