/*
 * Memory the user locked (mlock) migrates like any other, or the
 * migration fails and leaves it where it was; never "moved" with its host
 * pages still mapped. Linux refuses MADV_DONTNEED on locked pages
 * (EINVAL): a migration that ignored it published the block on the device
 * with the CPU still writing into the stale host pages, and the next move
 * back copied the device's older data over what the CPU had written.
 * Blocks of 64 KiB (one stage, the pipeline) and of 2 MiB (a lone block,
 * unmapped in pieces); several blocks at once. Then a kernel without
 * MADV_DONTNEED_LOCKED (before 5.18), made by a seccomp filter in a child:
 * the migration must fail, say why, and keep the block on the host.
 */
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "check.h"
#include "uvas_policy.h"

#ifndef MADV_DONTNEED_LOCKED
#define MADV_DONTNEED_LOCKED 24
#endif

/* The system calls themselves: AddressSanitizer makes mlock(3) a no-op
 * that returns 0 (it would lock the shadow memory), and the pages must be
 * locked for real. */
static void lock(void *p, size_t n)
{
    if (syscall(SYS_mlock, p, n) != 0)
        SKIP("mlock of %zu bytes refused (%s): RLIMIT_MEMLOCK", n, strerror(errno));
}

static void unlock(void *p, size_t n)
{
    CHECK(syscall(SYS_munlock, p, n) == 0, "munlock: %s", strerror(errno));
}

/* Does this kernel have MADV_DONTNEED_LOCKED (Linux 5.18)? Then locked
 * memory must move. */
static bool have_dontneed_locked(void)
{
    void *q = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(q != MAP_FAILED, "mmap");
    bool ok = madvise(q, 4096, MADV_DONTNEED_LOCKED) == 0;
    munmap(q, 4096);
    return ok;
}

/* Lock n bytes at p and move them to the device, write through the CPU,
 * move back: the CPU's writes are the data. must_refuse: the kernel
 * cannot unmap locked pages, so the move to the device must fail;
 * otherwise it must succeed where the kernel has MADV_DONTNEED_LOCKED. */
static void locked_round(unsigned char *p, size_t n, const char *what, bool must_refuse)
{
    memset(p, 0x11, n);
    lock(p, n);
    int rc = uvas_migrate(p, n, UVAS_LOC_DEVICE, 0);
    CHECK(!must_refuse || rc != UVAS_OK, "%s: moved to the device though its pages could "
          "not be unmapped", what);
    CHECK(must_refuse || rc == UVAS_OK || !have_dontneed_locked(),
          "%s: refused (%s) though this kernel unmaps locked pages", what, uvas_last_error());
    if (rc == UVAS_OK) {
        CHECK(tu_residence(p) == UVAS_RES_DEVICE, "%s: moved, so on the device", what);
    } else {
        /* Refusing is allowed; then the block stays on the host, said why. */
        CHECK(uvas_last_error() && *uvas_last_error(), "%s: failed (%s) without a message",
              what, uvas_strerror(rc));
        printf("  %s: refused: %s\n", what, uvas_last_error());
        CHECK(!must_refuse || strstr(uvas_last_error(), "munlock"),
              "%s: the refusal does not say what to do: '%s'", what, uvas_last_error());
        CHECK(tu_residence(p) == UVAS_RES_HOST, "%s: refused, so still on the host", what);
    }
    /* Every page written once by the CPU, wherever the block is. */
    for (size_t i = 0; i < n; i += 4096)
        p[i] = 0x22;
    CHECK_OK(uvas_migrate(p, n, UVAS_LOC_HOST, 0));
    for (size_t i = 0; i < n; i += 4096)
        CHECK(p[i] == 0x22, "%s: the CPU's write at offset %zu is lost (0x%02x): the host "
              "pages were still mapped while the block was on the device", what, i, p[i]);
    CHECK(tu_find_not(p + 1, 4095, 0x11) == -1, "%s: the rest of the first page kept", what);
    unlock(p, n);
    printf("  %s: %s\n", what, rc == UVAS_OK ? "moved and back, writes kept" : "refused");
}

/* A read-mostly block keeps its host copy mapped on the device; a device
 * write must unmap that copy (else the CPU reads it stale) or fail. */
static void locked_dup_round(unsigned char *p, size_t n, const char *what, bool must_refuse)
{
    memset(p, 0x11, n);
    lock(p, n);
    CHECK_OK(uvas_advise(p, n, UVAS_ADVISE_READ_MOSTLY, 0));
    CHECK_OK(uvas_migrate(p, n, UVAS_LOC_DEVICE, 0));
    int rc = uvas_device_access(p, 64, 1, 0x33);
    CHECK(!must_refuse || rc != UVAS_OK, "%s: the device wrote though the host copy could "
          "not be unmapped", what);
    CHECK(must_refuse || rc == UVAS_OK || !have_dontneed_locked(),
          "%s: device write refused (%s) though this kernel unmaps locked pages", what,
          uvas_last_error());
    unsigned char want = rc == UVAS_OK ? 0x33 : 0x11;
    CHECK(tu_read_byte(p) == want, "%s: the CPU reads 0x%02x after a device write that %s",
          what, tu_read_byte(p), rc == UVAS_OK ? "succeeded (a stale host copy)" : "failed");
    CHECK_OK(uvas_migrate(p, n, UVAS_LOC_HOST, 0));
    CHECK(p[63] == want && p[64] == 0x11, "%s: after the way back", what);
    CHECK_OK(uvas_advise(p, n, UVAS_ADVISE_UNSET_READ_MOSTLY, 0));
    unlock(p, n);
    printf("  %s: %s\n", what, rc == UVAS_OK ? "device write, the CPU sees it"
                                             : "device write refused, nothing stale");
}

/* madvise(MADV_DONTNEED_LOCKED) fails with EINVAL, as on Linux before
 * 5.18; everything else is allowed. */
static void no_dontneed_locked(void)
{
#ifdef __x86_64__
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_madvise, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, MADV_DONTNEED_LOCKED, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EINVAL),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {.len = sizeof f / sizeof f[0], .filter = f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
        SKIP("cannot install a seccomp filter: %s", strerror(errno));
#else
    SKIP("the seccomp filter is written for x86-64");
#endif
}

static int old_kernel(void *arg)
{
    (void)arg;
    no_dontneed_locked();
    struct uvas_range_desc d = tu_init_device("256M", "64K");
    unsigned char *p = uvas_malloc(4 * d.block_size);
    CHECK(p != NULL, "uvas_malloc");
    locked_round(p, 4 * d.block_size, "4 blocks, no MADV_DONTNEED_LOCKED", true);
    locked_dup_round(p, d.block_size, "a read-mostly block, no MADV_DONTNEED_LOCKED", true);
    uvas_free(p);
    uvas_finalize();
    d = tu_init_device("256M", "2M");
    p = uvas_malloc(d.block_size);
    CHECK(p != NULL, "uvas_malloc");
    locked_round(p, d.block_size, "a 2 MiB block in pieces, no MADV_DONTNEED_LOCKED", true);
    uvas_free(p);
    uvas_finalize();
    return 0;
}

int main(void)
{
    int st = tu_run_child(old_kernel, NULL, 60);
    CHECK(st == 0 || st == TU_EXIT_SKIP, "the child without MADV_DONTNEED_LOCKED: status %d",
          st);
    if (st == TU_EXIT_SKIP)
        printf("  (the child without MADV_DONTNEED_LOCKED skipped: see its SKIP line)\n");

    struct uvas_range_desc d = tu_init_device("256M", "64K");
    size_t bs = d.block_size;
    unsigned char *one = uvas_malloc(bs), *many = uvas_malloc(16 * bs);
    CHECK(one && many, "uvas_malloc");
    locked_round(one, bs, "one 64 KiB block", false);
    locked_round(many, 16 * bs, "16 blocks of 64 KiB", false);
    locked_dup_round(one, bs, "a read-mostly block", false);
    uvas_free(many);
    uvas_free(one);
    uvas_finalize();

    d = tu_init_device("256M", "2M");
    unsigned char *lone = uvas_malloc(d.block_size);
    CHECK(lone != NULL, "uvas_malloc");
    locked_round(lone, d.block_size, "one 2 MiB block (in pieces)", false);
    uvas_free(lone);
    uvas_finalize();
    printf("test-migrate-locked: ok\n");
    return 0;
}
