/*
 * A child forked while another thread swaps a block's CPU view (the
 * device memory mapped over the block for a CPU access, and the host
 * tier's memfd mapped back over it at the next migration) must inherit
 * nothing at the range's addresses: the range is not inherited
 * (docs/fault-path.md), so a child's access there faults and can never
 * reach the parent's memory. The views were mapped in place and only then
 * kept from children (MADV_DONTFORK): a fork in between gave the child the
 * parent's device memory, or its host tier, at the block's address, and
 * the child's stores landed in the parent's data (found by review: 293
 * of 808 children saw a block mapped, 60 of the parent's blocks written).
 * Each child here probes every block (msync succeeds only on a mapped
 * page) and writes where it finds one; the parent counts both.
 */
#include <sys/mman.h>
#include <sys/wait.h>

#include "check.h"

#define NB 64

static char *p;
static size_t bs;
static atomic_int stop;
static atomic_long rounds;

static void *churn(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        CHECK_OK(uvas_migrate(p, NB * bs, UVAS_LOC_DEVICE, 0));
        for (size_t i = 0; i < NB; i++)
            p[i * bs + 8] = 0x11; /* a CPU write: maps the block's view */
        CHECK_OK(uvas_migrate(p, NB * bs, UVAS_LOC_HOST, 0)); /* the memfd back */
        atomic_fetch_add(&rounds, 1);
    }
    return NULL;
}

int main(void)
{
    tu_deadline(50);
    struct uvas_range_desc d = tu_init_device("1G", "64K");
    bs = d.block_size;
    p = uvas_malloc(NB * bs);
    CHECK(p != NULL, "uvas_malloc");
    memset(p, 0x22, NB * bs);
    CHECK_OK(uvas_advise(p, NB * bs, UVAS_ADVISE_ACCESSED_BY_CPU, 0));
    pthread_t th;
    CHECK(pthread_create(&th, NULL, churn, NULL) == 0, "pthread_create");
    long forks = 0, saw = 0;
    double end = tu_now_s() + 4;
    /* Four seconds, and at least two rounds of swaps (a slow build, as
     * ThreadSanitizer's, forks and migrates a few times a second). */
    while (tu_now_s() < end || (atomic_load(&rounds) < 2 && tu_now_s() < end + 20)) {
        pid_t c = fork();
        CHECK(c >= 0, "fork: %s", strerror(errno));
        if (c == 0) {
            int mapped = 0;
            for (size_t i = 0; i < NB; i++) {
                char *b = p + i * bs;
                if (msync(b, 4096, MS_ASYNC) == 0) {
                    mapped++;
                    b[100] = 0x5a;
                }
            }
            _exit(mapped);
        }
        int st;
        CHECK(waitpid(c, &st, 0) == c, "waitpid");
        forks++;
        CHECK(WIFEXITED(st), "a child ended by signal %d", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
        saw += WEXITSTATUS(st) > 0;
    }
    atomic_store(&stop, 1);
    CHECK(pthread_join(th, NULL) == 0, "pthread_join");
    long written = 0;
    for (size_t i = 0; i < NB; i++)
        written += p[i * bs + 100] == 0x5a;
    printf("%ld forks beside %ld rounds of view swaps: %ld children found a block mapped, %ld of "
           "the parent's blocks written by a child\n", forks, atomic_load(&rounds), saw, written);
    CHECK_EQ(saw, 0, "children that found a range block mapped");
    CHECK_EQ(written, 0, "parent blocks written by a child");
    CHECK_OK(uvas_try_free(p));
    CHECK_OK(uvas_finalize());
    return 0;
}
