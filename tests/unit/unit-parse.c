/* Size parsing: suffixes, decimal with a leading zero, hex, overflow. */
#include "../check.h"
#include "uvas/config.h"

int main(void)
{
    static const struct { const char *s; size_t v; } good[] = {
        {"0", 0}, {"4096", 4096}, {"4K", 4096}, {"4k", 4096}, {"2M", 2u << 20},
        {"64G", (size_t)64 << 30}, {"1T", (size_t)1 << 40}, {"0100M", (size_t)100 << 20},
        {"0x1000", 4096}, {"64GiB", (size_t)64 << 30}, {"8KB", 8192},
    };
    static const char *bad[] = {"", "K", "-1", " 4K", "4K ", "4Q", "1G5", "0x", "abc",
                                "99999999999999999999", "16777216T", "4B"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        size_t v = 1;
        CHECK(uvas_parse_size(good[i].s, &v) == 0, "'%s' rejected", good[i].s);
        CHECK((long long)(v) == (long long)(good[i].v), "'%s'", good[i].s);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t v = 7;
        CHECK(uvas_parse_size(bad[i], &v) != 0, "'%s' accepted as %zu", bad[i], v);
        CHECK((long long)(v) == (long long)((size_t)7), "'%s' changed the output", bad[i]);
    }
    return 0;
}
