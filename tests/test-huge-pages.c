/*
 * The host tier in 2 MiB huge pages (UVAS_HUGE_PAGES=1, hugetlbfs).
 *  - refused with a message: blocks smaller than a huge page, a value
 *    other than 0 or 1;
 *  - the range is really backed by huge pages (/proc/self/smaps: its
 *    KernelPageSize is 2048 kB);
 *  - a first touch reads zero on every page; data written survives a
 *    migration to the device and the CPU's touch that brings it back, and
 *    an explicit migration there and back (with a device tier);
 *  - a freed allocation's pages are released: the next one reads zero;
 *  - uvas_ipc_open maps an allocation of a huge-page tier (the mapping
 *    takes whole huge pages), coherent with the exporter's pointer;
 *    uvas_ipc_close unmaps only what uvas_ipc_open mapped: a second close,
 *    or a handle that names other bytes, is refused.
 * Skips, saying why, where the system has no free huge page (as root:
 * echo 64 > /proc/sys/vm/nr_hugepages) or no userfaultfd.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"

#define MIB ((size_t)1 << 20)

/* The kernel page size of the mapping holding p, from /proc/self/smaps
 * (kB; 0 if not found). */
static unsigned long page_kb(const void *p)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    CHECK(f, "cannot open /proc/self/smaps");
    char line[256];
    bool in = false;
    unsigned long kb = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
            in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
        else if (in && sscanf(line, "KernelPageSize: %lu kB", &kb) == 1)
            break;
    }
    fclose(f);
    return in ? kb : 0;
}

static void expect_fill(const unsigned char *p, size_t n, unsigned char v, const char *what)
{
    for (size_t i = 0; i < n; i += 4096)
        CHECK(p[i] == v && p[i + 4095] == v, "%s: byte %zu is %u, expected %u", what, i, p[i],
              v);
}

int main(void)
{
    tu_clear_env();
    tu_setenv("UVAS_HUGE_PAGES", "1");
    tu_setenv("UVAS_BLOCK_SIZE", "64K");
    int st = uvas_init(NULL);
    CHECK(st == UVAS_ERR_ENV && strstr(uvas_last_error(), "2 MiB"),
          "64 KiB blocks with huge pages: %s (%s)", uvas_strerror(st), uvas_last_error());
    tu_setenv("UVAS_BLOCK_SIZE", "2M");
    tu_setenv("UVAS_HUGE_PAGES", "yes");
    st = uvas_init(NULL);
    CHECK(st == UVAS_ERR_ENV && strstr(uvas_last_error(), "UVAS_HUGE_PAGES"),
          "UVAS_HUGE_PAGES=yes: %s (%s)", uvas_strerror(st), uvas_last_error());

    tu_setenv("UVAS_HUGE_PAGES", "1");
    tu_setenv("UVAS_SIZE", "256M");
    st = uvas_init(NULL);
    if (st == UVAS_ERR_NOMEM && strstr(uvas_last_error(), "huge page"))
        SKIP("no free huge page here: %s", uvas_last_error());
    if (st == UVAS_ERR_SYS && strstr(uvas_last_error(), "huge"))
        SKIP("no huge pages for memfd here: %s", uvas_last_error());
    CHECK(st == UVAS_OK, "uvas_init with huge pages: %s (%s)", uvas_strerror(st),
          uvas_last_error());
    struct uvas_range_desc d = tu_require_uffd();

    const size_t n = 8 * MIB;
    unsigned char *p = uvas_malloc_hint(n, d.device_present ? 0 : UVAS_HINT_HOST);
    CHECK(p, "uvas_malloc: %s", uvas_last_error());
    expect_fill(p, n, 0, "first touch");
    CHECK(page_kb(p) == 2048, "the range's KernelPageSize is %lu kB, not 2048", page_kb(p));
    memset(p, 0x5a, n);

    if (d.device_present) {
        CHECK_OK(uvas_migrate(p, n, UVAS_RES_DEVICE, 0));
        tu_expect_blocks(p, n, UVAS_RES_DEVICE, "after uvas_migrate to the device");
        expect_fill(p, n, 0x5a, "read back by the CPU's touch");
        tu_expect_blocks(p, n, UVAS_RES_HOST, "after the CPU's touch");
        memset(p, 0x6b, n);
        CHECK_OK(uvas_migrate(p, n, UVAS_RES_DEVICE, 0));
        CHECK_OK(uvas_migrate(p, n, UVAS_RES_HOST, 0));
        tu_expect_blocks(p, n, UVAS_RES_HOST, "after uvas_migrate back");
        expect_fill(p, n, 0x6b, "after an explicit round trip");
    } else {
        printf("no device tier: %s (the migrations are not tried)\n", d.device_note);
    }
    uvas_free(p);
    unsigned char *q = uvas_malloc_hint(n, d.device_present ? 0 : UVAS_HINT_HOST);
    CHECK(q, "uvas_malloc: %s", uvas_last_error());
    expect_fill(q, n, 0, "a new allocation over freed huge pages");

    /* Sharing: a small host allocation lies inside one huge page. */
    char *h = uvas_malloc_hint(300, UVAS_HINT_HOST);
    CHECK(h, "uvas_malloc_hint(HOST): %s", uvas_last_error());
    struct uvas_ipc_handle hd;
    int fd;
    CHECK_OK(uvas_ipc_export(h, &hd, &fd));
    void *m;
    CHECK_OK(uvas_ipc_open(fd, &hd, &m));
    CHECK(m != h, "the import is a mapping of its own");
    strcpy(h, "written by the exporter");
    CHECK(strcmp(m, "written by the exporter") == 0, "the importer reads '%.30s'", (char *)m);
    strcpy(m, "and by the importer");
    CHECK(strcmp(h, "and by the importer") == 0, "the exporter reads '%.30s'", h);
    struct uvas_ipc_handle other = hd;
    other.offset += 4096;
    CHECK(uvas_ipc_close(m, &other) == UVAS_ERR_INVAL, "a close with another handle's bytes "
          "was taken");
    CHECK_OK(uvas_ipc_close(m, &hd));
    CHECK(uvas_ipc_close(m, &hd) == UVAS_ERR_INVAL, "a second close was taken");
    CHECK(strstr(uvas_last_error(), "not a mapping"), "message: %s", uvas_last_error());
    uvas_ipc_drop(fd);
    uvas_free(h);
    uvas_free(q);
    CHECK_OK(uvas_finalize());
    printf("ok\n");
    return 0;
}
