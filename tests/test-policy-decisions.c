/*
 * Each built-in policy's decisions on scripted access sequences, block by
 * block (64 KiB blocks, the device playing its part through
 * uvas_device_access): first-touch, host, device, interleave,
 * access-counter (threshold and the thrashing guard), read-mostly, and a
 * policy loaded from a shared object.
 */
#include <stdbool.h>

#include "check.h"
#include "uvas_policy.h"

static size_t bs;

static struct uvas_range_desc start(const char *policy)
{
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "256M");
    tu_setenv("UVAS_BLOCK_SIZE", "64K");
    tu_setenv("UVAS_POLICY", policy);
    tu_init_env();
    struct uvas_range_desc d = tu_require_uffd();
    if (!d.device_present)
        SKIP("no device tier: %s", d.device_note);
    bs = d.block_size;
    return d;
}

static int res(const void *p)
{
    return tu_residence(p);
}

static void cpu_touch(unsigned char *p)
{
    *(volatile unsigned char *)p += 1;
}

static void dev(void *p, int write, unsigned char v)
{
    CHECK_OK(uvas_device_access(p, 16, write, v));
}

int main(int argc, char **argv)
{
    (void)argc;
    tu_deadline(50);
    unsigned char *p;

    /* first-touch: where the toucher is. */
    start("first-touch");
    p = uvas_malloc(4 * bs);
    cpu_touch(p);
    dev(p + bs, 1, 7);
    CHECK_EQ(res(p), UVAS_RES_HOST, "first-touch: a CPU touch");
    CHECK_EQ(res(p + bs), UVAS_RES_DEVICE, "first-touch: a device touch");
    CHECK(p[bs] == 7 && p[bs + 15] == 7 && p[bs + 16] == 0, "the device's write is there");
    CHECK_EQ(res(p + bs), UVAS_RES_HOST, "first-touch: the CPU read brought it back");
    CHECK_OK(uvas_finalize());

    /* host: the device works on host memory where it is. */
    start("host");
    p = uvas_malloc(4 * bs);
    struct uvas_stats s0 = tu_stats();
    dev(p, 1, 9);
    dev(p + bs, 0, 0);
    CHECK_EQ(res(p), UVAS_RES_HOST, "host: a device write");
    CHECK_EQ(res(p + bs), UVAS_RES_HOST, "host: a device read");
    struct uvas_stats s1 = tu_stats();
    CHECK_EQ(s1.migrations[UVAS_RES_DEVICE], s0.migrations[UVAS_RES_DEVICE], "host: moves");
    CHECK_EQ(s1.device_remote - s0.device_remote, 2, "host: device accesses served remotely");
    CHECK(p[0] == 9 && p[15] == 9 && p[16] == 0, "host: the device wrote the host pages");
    CHECK_OK(uvas_finalize());

    /* device: everything on the device, the CPU reaching it where it is
     * when the driver can map it. */
    struct uvas_range_desc d = start("device");
    p = uvas_malloc(4 * bs);
    cpu_touch(p);
    bool view = !strstr(d.device_note, "CPU view of device blocks: none") &&
                !strstr(d.device_note, "advised only");
    CHECK_EQ(res(p), view ? UVAS_RES_DEVICE : UVAS_RES_HOST, "device: a CPU touch");
    CHECK(p[0] == 1, "device: the CPU's write");
    CHECK_OK(uvas_finalize());

    /* interleave: a share of blocks on the device, evenly spread. */
    start("interleave:ratio=0.25");
    p = uvas_aligned_alloc(4 * bs, 8 * bs, 0);
    size_t base = ((uintptr_t)p - (uintptr_t)tu_range().base) / bs;
    int on_device = 0;
    for (int i = 0; i < 8; i++) {
        dev(p + i * bs, 0, 0);
        size_t bi = base + (size_t)i;
        int want = (long long)((double)(bi + 1) * 0.25) > (long long)((double)bi * 0.25)
                       ? UVAS_RES_DEVICE : UVAS_RES_HOST;
        CHECK_EQ(res(p + i * bs), want, "interleave: block placement");
        on_device += want == UVAS_RES_DEVICE;
    }
    CHECK_EQ(on_device, 2, "interleave:ratio=0.25 puts 2 of 8 blocks on the device");
    CHECK_OK(uvas_finalize());

    /* access-counter: remote until the threshold, then it moves; a block
     * that moves too often is pinned. */
    start("access-counter:threshold=3,thrash=2,window_ms=60000");
    p = uvas_malloc(4 * bs);
    cpu_touch(p); /* block 0 on the host */
    dev(p, 0, 0);
    CHECK_EQ(res(p), UVAS_RES_HOST, "access-counter: 1st device access");
    dev(p, 0, 0);
    CHECK_EQ(res(p), UVAS_RES_HOST, "access-counter: 2nd device access");
    dev(p, 0, 0);
    CHECK_EQ(res(p), UVAS_RES_DEVICE, "access-counter: 3rd device access moves it");
    /* Below the threshold a CPU access is served where the block is: the
     * device memory is mapped for it, where the driver can. */
    d = tu_range();
    view = !strstr(d.device_note, "CPU view of device blocks: none") &&
           !strstr(d.device_note, "advised only");
    cpu_touch(p);
    struct uvas_ptr_info info;
    CHECK_OK(uvas_query(p, &info));
    CHECK(view ? info.residence == UVAS_RES_DEVICE && info.cpu_mapped
               : info.residence == UVAS_RES_HOST,
          "access-counter: a CPU access below the threshold (residence %s, mapped %d)",
          uvas_residence_name(info.residence), info.cpu_mapped);
    CHECK_OK(uvas_migrate(p, bs, UVAS_LOC_HOST, 0)); /* the 2nd move */
    for (int i = 0; i < 4; i++)
        dev(p, 0, 0); /* over the threshold, but 2 moves in the window: pinned */
    CHECK_EQ(res(p), UVAS_RES_HOST, "access-counter: pinned after 2 moves in the window");
    CHECK_OK(uvas_finalize());

    /* read-mostly: a device read duplicates, a device write collapses. */
    start("read-mostly");
    p = uvas_malloc(4 * bs);
    memset(p, 0x21, bs);
    dev(p, 0, 0);
    CHECK_OK(uvas_query(p, &info));
    CHECK(info.residence == UVAS_RES_DEVICE && info.duplicated, "read-mostly: a device read "
          "duplicates (residence %s, duplicated %d)", uvas_residence_name(info.residence),
          info.duplicated);
    s0 = tu_stats();
    CHECK(p[100] == 0x21, "read-mostly: the CPU reads its copy");
    CHECK_EQ(tu_stats().faults, s0.faults, "read-mostly: no fault for a CPU read");
    dev(p, 1, 0x42);
    CHECK_OK(uvas_query(p, &info));
    CHECK(info.residence == UVAS_RES_DEVICE && !info.duplicated, "read-mostly: a device write "
          "drops the host copy");
    CHECK(p[0] == 0x42 && p[16] == 0x21, "read-mostly: the CPU sees the device's write");
    CHECK_OK(uvas_finalize());

    /* A policy from a shared object: every 3rd block on the device. */
    char spec[700], dir[512];
    snprintf(dir, sizeof dir, "%s", argv[0]);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    snprintf(spec, sizeof spec, "%s/../examples/libpolicy-stripe.so:every=3",
             slash ? dir : ".");
    start(spec);
    p = uvas_malloc(6 * bs);
    base = ((uintptr_t)p - (uintptr_t)tu_range().base) / bs;
    for (int i = 0; i < 6; i++) {
        dev(p + i * bs, 0, 0);
        CHECK_EQ(res(p + i * bs), (base + (size_t)i) % 3 == 0 ? UVAS_RES_DEVICE : UVAS_RES_HOST,
                 "stripe.so: block placement");
    }
    CHECK_OK(uvas_finalize());
    return 0;
}
