/*
 * Streaming copies (uvas/copy_nt.c) move exactly the bytes memcpy would:
 * every alignment of source and destination, lengths around the 64-byte
 * stride and the head that aligns the destination, and nothing written
 * outside [dst, dst + n).
 */
#include <stdio.h>
#include <stdlib.h>

#include "../check.h"
#include "uvas/copy_nt.h"

#define ROOM 8192

int main(void)
{
    static unsigned char src[ROOM + 128], dst[ROOM + 256];
    for (size_t i = 0; i < sizeof src; i++)
        src[i] = (unsigned char)(i * 131 + 17);
    static const size_t lens[] = {0, 1, 15, 16, 63, 64, 65, 127, 128, 129, 200, 1000, 4096,
                                  4159, ROOM};
    size_t cases = 0;
    for (size_t so = 0; so < 64; so += 7)
        for (size_t dof = 0; dof < 64; dof += 5)
            for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++) {
                size_t n = lens[l];
                memset(dst, 0xee, sizeof dst);
                uvas_copy_nt(dst + 64 + dof, src + so, n);
                for (size_t i = 0; i < sizeof dst; i++) {
                    bool in = i >= 64 + dof && i < 64 + dof + n;
                    unsigned char want = in ? src[so + i - 64 - dof] : 0xee;
                    CHECK(dst[i] == want,
                          "src+%zu -> dst+%zu, %zu bytes: byte %zd is %#x, expected %#x", so,
                          dof, n, (ssize_t)i - 64 - (ssize_t)dof, dst[i], want);
                }
                cases++;
            }
    printf("unit-copy-nt: %zu copies checked byte for byte\n", cases);
    return TU_EXIT_PASS;
}
