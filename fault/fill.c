/* Cooperative chunked fill of one block (see fill.h). */
#include "fault/fill.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "uvas/copy_nt.h"
#include "uvas/internal.h"
#include "uvas/os.h"
#include "uvas/status.h"
#include "uvas/uffd.h"


int uvas_fill_init(struct uvas_fill *f, unsigned threads, const int *cpus, unsigned ncpu)
{
    memset(f, 0, sizeof *f);
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->done_cv, NULL);
    f->evfd = calloc(threads ? threads : 1, sizeof *f->evfd);
    f->cpu = calloc(threads ? threads : 1, sizeof *f->cpu);
    if (!f->evfd || !f->cpu) {
        uvas_fill_fini(f);
        return uvas_fail(UVAS_ERR_NOMEM, "cannot allocate the fault service's fill");
    }
    for (unsigned i = 0; i < threads; i++)
        f->cpu[i] = ncpu ? cpus[i % ncpu] : -1;
    for (f->threads = 0; f->threads < threads; f->threads++) {
        f->evfd[f->threads] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (f->evfd[f->threads] < 0) {
            int rc = uvas_fail(UVAS_ERR_SYS, "eventfd for the fault service's fill: %s",
                               strerror(errno));
            uvas_fill_fini(f);
            return rc;
        }
    }
    f->helpers = threads ? threads - 1 : 0;
    return 0;
}

void uvas_fill_fini(struct uvas_fill *f)
{
    for (unsigned i = 0; i < f->threads; i++)
        close(f->evfd[i]);
    free(f->evfd);
    free(f->cpu);
    pthread_mutex_destroy(&f->mu);
    pthread_cond_destroy(&f->done_cv);
    memset(f, 0, sizeof *f);
}

/* Ask k threads, the next ones in turn, to help, not the one pinned to
 * this CPU. A thread asked while busy (serving a fault) helps when it is
 * done, or finds nothing left. */
static void ask_helpers(struct uvas_fill *f, unsigned k)
{
    uint64_t one = 1;
    int me = uvas_os_cpu();
    unsigned at = atomic_fetch_add_explicit(&f->wake_at, k, RLX);
    for (unsigned i = 0, asked = 0; i < f->threads && asked < k; i++) {
        unsigned t = (at + i) % f->threads;
        if (me >= 0 && f->cpu[t] == me)
            continue;
        asked++;
        if (write(f->evfd[t], &one, sizeof one) < 0) {
            /* Not heard: the caller runs every chunk nobody claims. */
        }
    }
}

/* Claim the next chunk of j (mutex held); UINT32_MAX if none is left. */
static uint32_t claim(struct uvas_fill *f, struct uvas_fill_job *j)
{
    if (j->claimed == j->n)
        return UINT32_MAX;
    uint32_t c = (j->first + j->claimed++) % j->n;
    if (j->claimed == j->n) { /* fully claimed: off the board */
        struct uvas_fill_job **pp = &f->jobs;
        while (*pp && *pp != j)
            pp = &(*pp)->next;
        if (*pp)
            *pp = j->next;
    }
    return c;
}

static int do_op(enum uvas_fill_op op, uintptr_t addr, size_t len, char *dst)
{
    switch (op) {
    case UVAS_FILL_COPY:
        /* Lanes and freshly moved host pages: nobody reads them on this
         * core again soon (the copy engine, or the CPU much later), so
         * whole lines are written without being read first. */
        uvas_copy_nt(dst, (const void *)addr, len);
        return 0;
    case UVAS_FILL_ZERO:
        return uvas_uffd_zero(&uvas_g.uffd, (void *)addr, len);
    case UVAS_FILL_CONTINUE:
        return uvas_uffd_continue(&uvas_g.uffd, (void *)addr, len, NULL);
    case UVAS_FILL_UNMAP:
        return uvas_os_zap((void *)addr, len);
    }
    return uvas_fail(UVAS_ERR_INVAL, "fill: unknown operation %d", (int)op);
}

static void run_chunk(struct uvas_fill *f, struct uvas_fill_job *j, uint32_t c)
{
    int e = do_op(j->op, j->addr + c * j->chunk, j->chunk, j->dst ? j->dst + c * j->chunk : NULL);
    pthread_mutex_lock(&f->mu);
    if (e && !j->err)
        j->err = e;
    if (++j->done == j->n)
        pthread_cond_broadcast(&f->done_cv);
    pthread_mutex_unlock(&f->mu);
}

static int run_job(struct uvas_fill *f, enum uvas_fill_op op, uintptr_t addr, char *dst,
                   size_t len, size_t chunk, uintptr_t hot)
{
    if (!f || f->helpers == 0 || len < 2 * chunk || len % chunk)
        return do_op(op, addr, len, dst);
    struct uvas_fill_job j = {
        .op = op,
        .addr = addr,
        .dst = dst,
        .chunk = chunk,
        .n = (uint32_t)(len / chunk),
        .first = (uint32_t)((hot - addr) / chunk),
    };
    pthread_mutex_lock(&f->mu);
    uint32_t c = claim(f, &j); /* the hot chunk, before anyone can help */
    j.next = f->jobs;
    f->jobs = &j;
    pthread_mutex_unlock(&f->mu);
    ask_helpers(f, j.n < f->helpers ? j.n : f->helpers);
    while (c != UINT32_MAX) {
        run_chunk(f, &j, c);
        pthread_mutex_lock(&f->mu);
        c = claim(f, &j);
        pthread_mutex_unlock(&f->mu);
    }
    pthread_mutex_lock(&f->mu);
    while (j.done < j.n) /* only chunks a helper already started */
        pthread_cond_wait(&f->done_cv, &f->mu);
    int err = j.err;
    pthread_mutex_unlock(&f->mu);
    if (err) /* a helper's message stayed on its thread: say it here */
        uvas_fail(err, "%s of [%#lx, +%zu) failed: %s",
                  op == UVAS_FILL_ZERO       ? "zero fill"
                  : op == UVAS_FILL_CONTINUE ? "mapping"
                  : op == UVAS_FILL_COPY     ? "copy"
                                             : "unmapping",
                  (unsigned long)addr, len, uvas_strerror(err));
    return err;
}

int uvas_fill_run(struct uvas_fill *f, enum uvas_fill_op op, uintptr_t addr, size_t len,
                  size_t chunk, uintptr_t hot)
{
    return run_job(f, op, addr, NULL, len, chunk, hot);
}

void uvas_fill_copy_start(struct uvas_fill *f, struct uvas_fill_job *j, void *dst,
                          const void *src, size_t len, size_t chunk)
{
    /* A tail shorter than a chunk goes now, so the chunks divide the rest. */
    size_t body = len / chunk * chunk;
    *j = (struct uvas_fill_job){.op = UVAS_FILL_COPY, .addr = (uintptr_t)src, .dst = dst,
                                .chunk = chunk, .n = (uint32_t)(body / chunk)};
    if (len > body)
        uvas_copy_nt((char *)dst + body, (const char *)src + body, len - body);
    if (!f || f->helpers == 0 || j->n < 2) {
        if (body)
            uvas_copy_nt(dst, src, body);
        j->n = 0; /* nothing on the board: finish has nothing to do */
        return;
    }
    pthread_mutex_lock(&f->mu);
    j->next = f->jobs;
    f->jobs = j;
    pthread_mutex_unlock(&f->mu);
    ask_helpers(f, j->n < f->helpers ? j->n : f->helpers);
}

int uvas_fill_copy_finish(struct uvas_fill *f, struct uvas_fill_job *j)
{
    if (!j->n)
        return 0;
    for (;;) {
        pthread_mutex_lock(&f->mu);
        uint32_t c = claim(f, j);
        pthread_mutex_unlock(&f->mu);
        if (c == UINT32_MAX)
            break;
        run_chunk(f, j, c);
    }
    pthread_mutex_lock(&f->mu);
    while (j->done < j->n) /* only chunks a helper already started */
        pthread_cond_wait(&f->done_cv, &f->mu);
    int err = j->err;
    pthread_mutex_unlock(&f->mu);
    return err;
}

int uvas_fill_copy(struct uvas_fill *f, void *dst, const void *src, size_t len, size_t chunk)
{
    struct uvas_fill_job j;
    uvas_fill_copy_start(f, &j, dst, src, len, chunk);
    return uvas_fill_copy_finish(f, &j);
}

void uvas_fill_help(struct uvas_fill *f, unsigned i)
{
    uint64_t v;
    if (read(f->evfd[i], &v, sizeof v) < 0 && errno != EAGAIN)
        return;
    for (;;) {
        pthread_mutex_lock(&f->mu);
        struct uvas_fill_job *j = f->jobs;
        uint32_t c = j ? claim(f, j) : UINT32_MAX;
        pthread_mutex_unlock(&f->mu);
        if (c == UINT32_MAX)
            return;
        run_chunk(f, j, c);
    }
}
