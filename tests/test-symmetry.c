/*
 * Symmetry (guarantee 1): two processes that initialise with the same
 * options and make the same sequence of allocation calls (malloc, hinted,
 * aligned, calloc, realloc, free; many sizes) get the same addresses.
 * The two processes are forked before either calls uvas_init; each sends
 * its base and its list of returned addresses over a pipe; the parent
 * compares them. Done for the default block size and for 4K blocks.
 */
#include "check.h"

#define NOPS 1500
#define MAXLIVE 256

struct record {
    uint64_t op;
    uint64_t addr;
};

struct cfg {
    const char *block; /* UVAS_BLOCK_SIZE */
    int wfd;
};

static int child(void *arg)
{
    const struct cfg *c = arg;
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "2G");
    if (c->block)
        tu_setenv("UVAS_BLOCK_SIZE", c->block);
    tu_init_env();
    struct uvas_range_desc d = tu_range();
    size_t bs = d.block_size;
    uint64_t hdr[2] = {(uint64_t)(uintptr_t)d.base, bs};
    CHECK(tu_write_all(c->wfd, hdr, sizeof hdr) == 0, "pipe write");

    char *live[MAXLIVE] = {0};
    size_t live_n[MAXLIVE] = {0};
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    static struct record rec[NOPS];
    for (int i = 0; i < NOPS; i++) {
        uint64_t r = tu_rand(&seed);
        unsigned slot = (unsigned)(tu_rand(&seed) % MAXLIVE);
        unsigned op = (unsigned)(r % 8);
        /* Size: log-uniform from 1 byte to 4 blocks. */
        unsigned shift = (unsigned)(tu_rand(&seed) % 24);
        size_t n = 1 + (size_t)(tu_rand(&seed) % ((size_t)1 << shift));
        if (n > 4 * bs)
            n = 1 + n % (4 * bs);
        char *p = NULL;
        if (live[slot] != NULL && op >= 5) {
            if (op == 5) {
                p = uvas_realloc(live[slot], n);
                CHECK(p != NULL, "op %d: realloc(%zu) failed", i, n);
                live[slot] = p;
                live_n[slot] = n;
            } else {
                CHECK_OK(uvas_try_free(live[slot]));
                live[slot] = NULL;
            }
        } else {
            if (live[slot] != NULL) {
                CHECK_OK(uvas_try_free(live[slot]));
                live[slot] = NULL;
            }
            switch (op % 5) {
            case 0: p = uvas_malloc(n); break;
            case 1: p = uvas_malloc_hint(n, UVAS_HINT_HOST); break;
            case 2: p = uvas_malloc_hint(n, UVAS_HINT_DEVICE); break;
            case 3:
                p = uvas_aligned_alloc((size_t)16 << (tu_rand(&seed) % 14), n,
                                       (unsigned)(tu_rand(&seed) % 3));
                break;
            default: p = uvas_calloc(1 + n % 7, 1 + n / 7); n = (1 + n % 7) * (1 + n / 7); break;
            }
            CHECK(p != NULL, "op %d: allocation of %zu failed: %s", i, n,
                  uvas_last_error());
            live[slot] = p;
            live_n[slot] = n;
            /* Touch the first and last byte, as a program would. */
            p[0] = (char)i;
            p[n - 1] = (char)i;
        }
        rec[i].op = op;
        rec[i].addr = (uint64_t)(uintptr_t)p;
    }
    CHECK(tu_write_all(c->wfd, rec, sizeof rec) == 0, "pipe write");
    for (int s = 0; s < MAXLIVE; s++)
        if (live[s])
            CHECK_OK(uvas_try_free(live[s]));
    (void)live_n;
    CHECK_OK(uvas_finalize());
    return 0;
}

static void compare(const char *block)
{
    int fds[2][2];
    pid_t pid[2];
    for (int k = 0; k < 2; k++) {
        CHECK(pipe(fds[k]) == 0, "pipe: %s", strerror(errno));
        fflush(stdout);
        fflush(stderr);
        pid[k] = fork();
        CHECK(pid[k] >= 0, "fork: %s", strerror(errno));
        if (pid[k] == 0) {
            tu_deadline(40);
            close(fds[k][0]);
            struct cfg c = {block, fds[k][1]};
            tu_exit(child(&c));
        }
        close(fds[k][1]);
    }
    static uint64_t hdr[2][2];
    static struct record rec[2][NOPS];
    int ok[2];
    for (int k = 0; k < 2; k++) {
        ok[k] = tu_read_all(fds[k][0], hdr[k], sizeof hdr[k]) == 0 &&
                tu_read_all(fds[k][0], rec[k], sizeof rec[k]) == 0;
        close(fds[k][0]);
    }
    for (int k = 0; k < 2; k++) {
        int ws = 0;
        CHECK(waitpid(pid[k], &ws, 0) == pid[k], "waitpid");
        CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0,
              "block %s: process %d failed (status 0x%x)",
              block ? block : "default", k, ws);
        CHECK(ok[k], "block %s: short report from process %d",
              block ? block : "default", k);
    }
    CHECK(hdr[0][0] == hdr[1][0], "bases differ: 0x%llx vs 0x%llx",
          (unsigned long long)hdr[0][0], (unsigned long long)hdr[1][0]);
    CHECK(hdr[0][0] == UVAS_DEFAULT_BASE, "base 0x%llx is not the default",
          (unsigned long long)hdr[0][0]);
    for (int i = 0; i < NOPS; i++)
        CHECK(rec[0][i].addr == rec[1][i].addr,
              "block %s: call %d (op %llu) returned 0x%llx in one process and "
              "0x%llx in the other", block ? block : "default", i,
              (unsigned long long)rec[0][i].op,
              (unsigned long long)rec[0][i].addr,
              (unsigned long long)rec[1][i].addr);
}

int main(void)
{
    tu_deadline(58);
    compare(NULL);
    compare("4K");
    return 0;
}
