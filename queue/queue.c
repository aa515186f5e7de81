/*
 * Queues: a thread per queue runs its operations in the order they were
 * enqueued (queue.h). The enqueuing thread only links an operation in;
 * the work (a launch, a migration, a copy, a host function, a wait for
 * another queue's point) happens on the queue's thread, through the same
 * public calls a program makes, so every guarantee of those calls holds.
 * After a failure the queue skips what follows until a sync reports it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "queue/queue.h"
#include "uvas/api/finalize.h"
#include "uvas/status.h"

enum op_kind { OP_LAUNCH, OP_MIGRATE, OP_COPY, OP_HOST, OP_WAIT };

struct uvas_queue_op {
    struct uvas_queue_op *next;
    enum op_kind kind;
    uint64_t seq;
    union {
        struct {
            uvas_kernel_t *k;
            uint32_t groups[3];
            void *args;
            size_t size;
            unsigned flags;
        } launch;
        struct {
            const void *ptr;
            size_t len;
            int location;
        } migrate;
        struct {
            void *dst;
            const void *src;
            size_t n;
        } copy;
        struct {
            void (*fn)(void *);
            void *arg;
        } host;
        struct {
            struct uvas_queue *q;
            uint64_t value;
        } wait;
    } u;
};

_Atomic(uvas_queue_use_check_fn) uvas_queue_use_check;

/* The words of a kernel's arguments that point into pool memory are its
 * uses of that memory (the check cannot know which words are pointers:
 * every aligned 8-byte word is tried, in debug mode only). */
static int check_args(struct uvas_queue *q, uvas_queue_use_check_fn check, const void *args,
                      size_t size, const char *fn)
{
    for (size_t o = 0; o + 8 <= size; o += 8) {
        uint64_t w;
        memcpy(&w, (const char *)args + o, 8);
        int rc = w ? check(q, (const void *)(uintptr_t)w, 1, fn) : UVAS_OK;
        if (rc)
            return rc;
    }
    return UVAS_OK;
}

/* The live queues. A handle is looked up here before it is used, so one
 * already destroyed is refused, not read after its free (its address may
 * become a later queue's, as any freed memory may). */
static pthread_mutex_t live_mu = PTHREAD_MUTEX_INITIALIZER;
static struct uvas_queue **live;
static size_t nlive, live_cap;

static bool live_add(struct uvas_queue *q)
{
    pthread_mutex_lock(&live_mu);
    bool ok = nlive < live_cap;
    if (!ok) {
        size_t cap = live_cap ? 2 * live_cap : 16;
        struct uvas_queue **m = realloc(live, cap * sizeof *m);
        if (m) {
            live = m;
            live_cap = cap;
            ok = true;
        }
    }
    if (ok)
        live[nlive++] = q;
    pthread_mutex_unlock(&live_mu);
    return ok;
}

static bool live_take(struct uvas_queue *q, bool remove)
{
    pthread_mutex_lock(&live_mu);
    size_t i = 0;
    while (i < nlive && live[i] != q)
        i++;
    bool found = i < nlive;
    if (found && remove)
        live[i] = live[--nlive];
    pthread_mutex_unlock(&live_mu);
    return found;
}

int uvas_queue_check(struct uvas_queue *q, const char *fn)
{
    if (!q)
        return uvas_fail(UVAS_ERR_INVAL, "%s: the queue is NULL (uvas_queue_create makes one)",
                         fn);
    if (!live_take(q, false))
        return uvas_fail(UVAS_ERR_INVAL, "%s: %p is no live queue (destroyed, or never made "
                         "by uvas_queue_create)", fn, (void *)q);
    pthread_mutex_lock(&q->mu);
    bool stopped = q->stop;
    pthread_mutex_unlock(&q->mu);
    if (stopped)
        return uvas_fail(UVAS_ERR_INVAL, "%s: the queue %p was destroyed", fn, (void *)q);
    return UVAS_OK;
}

static int run_op(struct uvas_queue_op *op)
{
    switch (op->kind) {
    case OP_LAUNCH:
        return uvas_kernel_launch(op->u.launch.k, op->u.launch.groups, op->u.launch.args,
                                  op->u.launch.size, op->u.launch.flags);
    case OP_MIGRATE:
        return uvas_migrate(op->u.migrate.ptr, op->u.migrate.len, op->u.migrate.location, 0);
    case OP_COPY:
        memcpy(op->u.copy.dst, op->u.copy.src, op->u.copy.n);
        return UVAS_OK;
    case OP_HOST:
        op->u.host.fn(op->u.host.arg);
        return UVAS_OK;
    case OP_WAIT:
        uvas_queue_wait_point(op->u.wait.q, op->u.wait.value);
        return UVAS_OK;
    }
    return UVAS_ERR_INVAL;
}

static void free_op(struct uvas_queue_op *op)
{
    if (op->kind == OP_LAUNCH)
        free(op->u.launch.args);
    if (op->kind == OP_WAIT)
        uvas_queue_unref(op->u.wait.q);
    free(op);
}

/* Launches waiting one behind the other run as one batch (at most this
 * many): one submission and one wait for all of them, where each alone
 * pays both. The launching thread's backlog is what makes them. */
#define BATCH_MAX 1024

/* Unlink the operation at the head, and after a launch the launches that
 * follow it (q->mu held): *n of them, in ops[]. */
static void take(struct uvas_queue *q, struct uvas_queue_op **ops, size_t *n)
{
    *n = 0;
    do {
        struct uvas_queue_op *op = q->head;
        ops[(*n)++] = op;
        q->head = op->next;
    } while (ops[0]->kind == OP_LAUNCH && q->head && q->head->kind == OP_LAUNCH &&
             *n < BATCH_MAX);
    if (!q->head)
        q->tail = NULL;
}

static int run_ops(struct uvas_queue_op **ops, size_t n)
{
    if (n == 1)
        return run_op(ops[0]);
    struct uvas_launch l[BATCH_MAX];
    for (size_t i = 0; i < n; i++)
        l[i] = (struct uvas_launch){.kernel = ops[i]->u.launch.k,
                                    .groups = {ops[i]->u.launch.groups[0],
                                               ops[i]->u.launch.groups[1],
                                               ops[i]->u.launch.groups[2]},
                                    .args = ops[i]->u.launch.args,
                                    .args_size = ops[i]->u.launch.size,
                                    .flags = ops[i]->u.launch.flags};
    return uvas_kernel_launch_batch(l, n);
}

static void *worker(void *arg)
{
    struct uvas_queue *q = arg;
    struct uvas_queue_op *ops[BATCH_MAX];
    pthread_mutex_lock(&q->mu);
    for (;;) {
        while (!q->head && !q->stop)
            pthread_cond_wait(&q->work, &q->mu);
        if (!q->head)
            break; /* stopped and drained */
        size_t n;
        take(q, ops, &n);
        bool skip = q->error != 0 && ops[0]->kind != OP_WAIT;
        pthread_mutex_unlock(&q->mu);
        int rc = skip ? UVAS_OK : run_ops(ops, n);
        char msg[sizeof q->message];
        if (rc != UVAS_OK)
            snprintf(msg, sizeof msg, "%s", uvas_last_error());
        pthread_mutex_lock(&q->mu);
        if (rc != UVAS_OK && !q->error) {
            q->error = rc;
            memcpy(q->message, msg, sizeof msg);
        }
        q->completed = ops[n - 1]->seq;
        pthread_cond_broadcast(&q->done);
        pthread_mutex_unlock(&q->mu);
        for (size_t i = 0; i < n; i++)
            free_op(ops[i]);
        pthread_mutex_lock(&q->mu);
    }
    pthread_mutex_unlock(&q->mu);
    return NULL;
}

/* uvas_finalize's drain (uvas/api/finalize.h): every live queue's work
 * enqueued so far, waited for with the range still up. Its outcome stays
 * the queue's, for its next sync. Refused on a queue's own thread, whose
 * later work waits for the host function that called it. */
static int finalize_drain(void)
{
    pthread_mutex_lock(&live_mu);
    size_t n = nlive;
    struct uvas_queue **qs = n ? malloc(n * sizeof *qs) : NULL;
    uint64_t *upto = n ? malloc(n * sizeof *upto) : NULL;
    if (n && (!qs || !upto)) {
        pthread_mutex_unlock(&live_mu);
        free(qs);
        free(upto);
        return uvas_fail(UVAS_ERR_NOMEM, "uvas_finalize: no memory to list the queues whose "
                         "work runs first");
    }
    for (size_t i = 0; i < n; i++)
        if (uvas_queue_is_own_thread(live[i])) {
            struct uvas_queue *own = live[i];
            pthread_mutex_unlock(&live_mu);
            free(qs);
            free(upto);
            return uvas_fail(UVAS_ERR_INVAL, "uvas_finalize: called from a host function of "
                             "queue %p, on its own thread: it waits for the queues' work, and "
                             "that queue's later work waits for the host function; finalize "
                             "from a thread of the program's", (void *)own);
        }
    for (size_t i = 0; i < n; i++) {
        qs[i] = live[i];
        uvas_queue_ref(qs[i]);
    }
    pthread_mutex_unlock(&live_mu);
    for (size_t i = 0; i < n; i++)
        upto[i] = uvas_queue_point(qs[i]);
    for (size_t i = 0; i < n; i++) {
        uvas_queue_wait_point(qs[i], upto[i]);
        uvas_queue_unref(qs[i]);
    }
    free(qs);
    free(upto);
    return UVAS_OK;
}

int uvas_queue_create(uvas_queue_t **out)
{
    uvas_clear_error();
    if (!out)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_queue_create: out is NULL");
    *out = NULL;
    struct uvas_queue *q = calloc(1, sizeof *q);
    if (!q)
        return uvas_fail(UVAS_ERR_NOMEM, "uvas_queue_create: no memory for a queue");
    pthread_mutex_init(&q->mu, NULL);
    pthread_mutex_init(&q->trim_mu, NULL);
    pthread_cond_init(&q->work, NULL);
    pthread_cond_init(&q->done, NULL);
    q->refs = 1;
    int e = pthread_create(&q->thread, NULL, worker, q);
    if (e) {
        free(q);
        return uvas_fail(UVAS_ERR_SYS, "uvas_queue_create: no thread for the queue (%s)",
                         strerror(e));
    }
    if (!live_add(q)) {
        uvas_queue_stop(q);
        uvas_queue_unref(q);
        return uvas_fail(UVAS_ERR_NOMEM, "uvas_queue_create: no memory for a queue");
    }
    uvas_finalize_lend_drain(finalize_drain);
    *out = q;
    return UVAS_OK;
}

void uvas_queue_ref(struct uvas_queue *q)
{
    pthread_mutex_lock(&q->mu);
    q->refs++;
    pthread_mutex_unlock(&q->mu);
}

void uvas_queue_unref(struct uvas_queue *q)
{
    if (!q)
        return;
    pthread_mutex_lock(&q->mu);
    bool last = --q->refs == 0;
    pthread_mutex_unlock(&q->mu);
    if (!last)
        return;
    for (size_t i = 0; i < q->ndeps; i++)
        uvas_queue_unref(q->deps[i].q);
    pthread_mutex_destroy(&q->mu);
    pthread_mutex_destroy(&q->trim_mu);
    pthread_cond_destroy(&q->work);
    pthread_cond_destroy(&q->done);
    free(q->deps);
    free(q);
}

uint64_t uvas_queue_point(struct uvas_queue *q)
{
    pthread_mutex_lock(&q->mu);
    uint64_t v = q->submitted;
    pthread_mutex_unlock(&q->mu);
    return v;
}

bool uvas_queue_is_own_thread(const struct uvas_queue *q)
{
    return pthread_equal(pthread_self(), q->thread);
}

/* No queue (memory a pool holds that no queue ever used: the block an
 * empty pool's export makes) has nothing to wait for. */
bool uvas_queue_passed(struct uvas_queue *q, uint64_t value)
{
    if (!q)
        return true;
    pthread_mutex_lock(&q->mu);
    bool passed = q->completed >= value;
    pthread_mutex_unlock(&q->mu);
    return passed;
}

void uvas_queue_wait_point(struct uvas_queue *q, uint64_t value)
{
    if (!q)
        return;
    pthread_mutex_lock(&q->mu);
    while (q->completed < value)
        pthread_cond_wait(&q->done, &q->mu);
    pthread_mutex_unlock(&q->mu);
}

/* Append op (q->mu held): it runs after everything enqueued before it;
 * false when the queue is being destroyed. */
static bool append_locked(struct uvas_queue *q, struct uvas_queue_op *op)
{
    if (q->stop)
        return false;
    op->seq = ++q->submitted;
    if (q->tail)
        q->tail->next = op;
    else
        q->head = op;
    q->tail = op;
    pthread_cond_signal(&q->work);
    return true;
}

static int enqueue(struct uvas_queue *q, struct uvas_queue_op *op, const char *fn)
{
    pthread_mutex_lock(&q->mu);
    bool ok = append_locked(q, op);
    pthread_mutex_unlock(&q->mu);
    if (!ok) {
        free_op(op);
        return uvas_fail(UVAS_ERR_INVAL, "%s: the queue %p was destroyed", fn, (void *)q);
    }
    return UVAS_OK;
}

static struct uvas_queue_op *new_op(enum op_kind kind, const char *fn)
{
    struct uvas_queue_op *op = calloc(1, sizeof *op);
    if (!op)
        uvas_fail(UVAS_ERR_NOMEM, "%s: no memory to enqueue", fn);
    else
        op->kind = kind;
    return op;
}

/* Is p in the uvas range (live allocation or not)? */
static bool in_uvas(const void *p)
{
    struct uvas_range_desc d;
    return uvas_range(&d) == UVAS_OK && (uintptr_t)p - (uintptr_t)d.base < d.size;
}

/* [p, p + n) inside one live allocation, as every call over uvas memory
 * requires (n 0 covers nothing). Status. */
static int inside(const void *p, size_t n, const char *fn)
{
    struct uvas_ptr_info info;
    if (uvas_query(p, &info) != UVAS_OK)
        return uvas_fail(UVAS_ERR_NOT_OWNED, "%s: %p is not in a live uvas allocation", fn, p);
    size_t off = (size_t)((const char *)p - (const char *)info.alloc_base);
    if (n == 0 || n > info.alloc_size - off)
        return uvas_fail(UVAS_ERR_INVAL, "%s(%p, %zu): %s its allocation (%p, %zu bytes)", fn, p,
                         n, n ? "the range runs past" : "len 0 covers nothing in",
                         info.alloc_base, info.alloc_size);
    return UVAS_OK;
}

int uvas_queue_launch(uvas_queue_t *q, uvas_kernel_t *k, const uint32_t groups[3],
                      const void *args, size_t args_size, unsigned flags)
{
    static const char fn[] = "uvas_queue_launch";
    uvas_clear_error();
    int rc = uvas_queue_check(q, fn);
    if (rc)
        return rc;
    if (!k || !groups || (args_size && !args))
        return uvas_fail(UVAS_ERR_INVAL, "%s: the kernel, groups or args is NULL", fn);
    /* Bad arguments at once (uvas_queue.h), not at the queue's next sync:
     * what uvas_kernel_launch would refuse, as far as the public API
     * tells (the device's largest group counts are checked at the launch). */
    uint32_t max_args = atomic_load_explicit(&q->max_args, memory_order_relaxed);
    if (!max_args) {
        struct uvas_gpu_info gi;
        if ((rc = uvas_gpu_info(&gi)))
            return rc;
        atomic_store_explicit(&q->max_args, max_args = gi.max_args, memory_order_relaxed);
    }
    for (int i = 0; i < 3; i++)
        if (groups[i] == 0)
            return uvas_fail(UVAS_ERR_INVAL, "%s: groups[%d] is 0", fn, i);
    if (args_size % 4 || args_size > max_args)
        return uvas_fail(UVAS_ERR_INVAL, "%s: %zu bytes of arguments; the device takes a "
                         "multiple of 4 up to %u bytes (its push-constant limit): pass larger "
                         "data through a uvas allocation", fn, args_size, max_args);
    const unsigned known = UVAS_KERNEL_NO_SCAN | UVAS_KERNEL_IDEMPOTENT | UVAS_KERNEL_NO_WAIT;
    if (flags & ~known)
        return uvas_fail(UVAS_ERR_INVAL, "%s: unknown flags %#x", fn, flags & ~known);
    uvas_queue_use_check_fn check = atomic_load_explicit(&uvas_queue_use_check, memory_order_relaxed);
    if (check && (rc = check_args(q, check, args, args_size, fn)))
        return rc;
    struct uvas_queue_op *op = new_op(OP_LAUNCH, fn);
    if (!op)
        return UVAS_ERR_NOMEM;
    op->u.launch.k = k;
    memcpy(op->u.launch.groups, groups, sizeof op->u.launch.groups);
    op->u.launch.size = args_size;
    op->u.launch.flags = flags;
    if (args_size) {
        op->u.launch.args = malloc(args_size);
        if (!op->u.launch.args) {
            free(op);
            return uvas_fail(UVAS_ERR_NOMEM, "%s: no memory for the arguments", fn);
        }
        memcpy(op->u.launch.args, args, args_size);
    }
    return enqueue(q, op, fn);
}

int uvas_queue_migrate(uvas_queue_t *q, const void *ptr, size_t len, int location)
{
    static const char fn[] = "uvas_queue_migrate";
    uvas_clear_error();
    int rc = uvas_queue_check(q, fn);
    if (rc)
        return rc;
    if (location != UVAS_LOC_HOST && location != UVAS_LOC_DEVICE)
        return uvas_fail(UVAS_ERR_INVAL, "%s: location %d is neither UVAS_LOC_HOST nor "
                         "UVAS_LOC_DEVICE", fn, location);
    uvas_queue_use_check_fn check = atomic_load_explicit(&uvas_queue_use_check, memory_order_relaxed);
    if (check && (rc = check(q, ptr, len, fn)))
        return rc;
    if ((rc = inside(ptr, len, fn)))
        return rc;
    struct uvas_queue_op *op = new_op(OP_MIGRATE, fn);
    if (!op)
        return UVAS_ERR_NOMEM;
    op->u.migrate.ptr = ptr;
    op->u.migrate.len = len;
    op->u.migrate.location = location;
    return enqueue(q, op, fn);
}

int uvas_queue_copy(uvas_queue_t *q, void *dst, const void *src, size_t n)
{
    static const char fn[] = "uvas_queue_copy";
    uvas_clear_error();
    int rc = uvas_queue_check(q, fn);
    if (rc)
        return rc;
    if (n && (!dst || !src))
        return uvas_fail(UVAS_ERR_INVAL, "%s: dst or src is NULL", fn);
    uvas_queue_use_check_fn check = atomic_load_explicit(&uvas_queue_use_check, memory_order_relaxed);
    if (n && check && ((rc = check(q, dst, n, fn)) || (rc = check(q, src, n, fn))))
        return rc;
    /* A side in uvas memory is held to its allocation, as every call over
     * uvas memory is: the copy ran into the next allocation (found by
     * review). Memory of the program's own is the program's to size. */
    if (n && ((in_uvas(dst) && (rc = inside(dst, n, fn))) ||
              (in_uvas(src) && (rc = inside(src, n, fn)))))
        return rc;
    struct uvas_queue_op *op = new_op(OP_COPY, fn);
    if (!op)
        return UVAS_ERR_NOMEM;
    op->u.copy.dst = dst;
    op->u.copy.src = src;
    op->u.copy.n = n;
    return enqueue(q, op, fn);
}

int uvas_queue_host_fn(uvas_queue_t *q, void (*fnp)(void *), void *arg)
{
    static const char fn[] = "uvas_queue_host_fn";
    uvas_clear_error();
    int rc = uvas_queue_check(q, fn);
    if (rc)
        return rc;
    if (!fnp)
        return uvas_fail(UVAS_ERR_INVAL, "%s: the function is NULL", fn);
    struct uvas_queue_op *op = new_op(OP_HOST, fn);
    if (!op)
        return UVAS_ERR_NOMEM;
    op->u.host.fn = fnp;
    op->u.host.arg = arg;
    return enqueue(q, op, fn);
}

bool uvas_queue_ordered_after(struct uvas_queue *q, struct uvas_queue *other, uint64_t value)
{
    bool yes = false;
    pthread_mutex_lock(&q->mu);
    for (size_t i = 0; i < q->ndeps && !yes; i++)
        yes = q->deps[i].q == other && q->deps[i].value >= value;
    pthread_mutex_unlock(&q->mu);
    return yes;
}

/* A destroyed queue has drained: every point of it passed, so waiting for
 * it orders nothing that a passed point does not, and q need keep neither
 * its entry nor its reference (a long-lived queue that waits on events of
 * many short-lived ones kept each of them until it was destroyed). Run
 * before the table grows. Never with q's lock and another's at once. One
 * at a time per queue (trim_mu, never taken under a queue's lock): the
 * entries' references keep the queues looked at alive only while nobody
 * else drops them (two threads trimming at once had one lock a queue the
 * other had just freed); a second trimmer finds the table trimmed. */
static void forget_gone(struct uvas_queue *q)
{
    pthread_mutex_lock(&q->trim_mu);
    pthread_mutex_lock(&q->mu);
    size_t n = q->ndeps;
    struct uvas_queue **seen = n == q->cap ? malloc(n * sizeof *seen) : NULL;
    for (size_t i = 0; seen && i < n; i++)
        seen[i] = q->deps[i].q; /* the entries' references keep them */
    pthread_mutex_unlock(&q->mu);
    if (!seen) { /* trimmed meanwhile, or no memory: the table grows instead */
        pthread_mutex_unlock(&q->trim_mu);
        return;
    }
    size_t ng = 0;
    for (size_t i = 0; i < n; i++) {
        pthread_mutex_lock(&seen[i]->mu);
        if (seen[i]->stop && seen[i]->completed >= seen[i]->submitted)
            seen[ng++] = seen[i]; /* gone ones, packed in front */
        pthread_mutex_unlock(&seen[i]->mu);
    }
    size_t dropped = 0;
    pthread_mutex_lock(&q->mu);
    for (size_t k = 0; k < ng; k++)
        for (size_t i = 0; i < q->ndeps; i++)
            if (q->deps[i].q == seen[k]) {
                q->deps[i] = q->deps[--q->ndeps];
                seen[dropped++] = seen[k];
                break;
            }
    pthread_mutex_unlock(&q->mu);
    pthread_mutex_unlock(&q->trim_mu);
    for (size_t k = 0; k < dropped; k++)
        uvas_queue_unref(seen[k]);
    free(seen);
}

int uvas_queue_enqueue_wait(struct uvas_queue *q, struct uvas_queue *other, uint64_t value)
{
    static const char fn[] = "uvas_queue_wait_event";
    if (q == other)
        return UVAS_OK; /* a queue's own earlier point has passed when this runs */
    struct uvas_queue_op *op = new_op(OP_WAIT, fn);
    if (!op)
        return UVAS_ERR_NOMEM;
    pthread_mutex_lock(&q->mu);
    bool full = q->ndeps == q->cap;
    pthread_mutex_unlock(&q->mu);
    if (full)
        forget_gone(q);
    uvas_queue_ref(other); /* the operation's */
    op->u.wait.q = other;
    op->u.wait.value = value;
    /* Remember the dependency (one entry per other queue, the highest),
     * holding a reference so that the address names the same queue. The
     * reference is taken before q's lock: two queues never hold each
     * other's locks. */
    uvas_queue_ref(other);
    bool kept = false;
    /* The dependency and the wait go in under one lock: a pool reads the
     * dependency to hand q memory freed on `other`, and the work using it
     * must then be enqueued behind this wait, not in between. */
    pthread_mutex_lock(&q->mu);
    size_t i = 0;
    while (i < q->ndeps && q->deps[i].q != other)
        i++;
    if (i == q->ndeps && q->ndeps == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 4;
        struct uvas_queue_dep *d = realloc(q->deps, cap * sizeof *d);
        if (d) {
            q->deps = d;
            q->cap = cap;
        }
    }
    if (i < q->ndeps) {
        if (q->deps[i].value < value)
            q->deps[i].value = value;
    } else if (i < q->cap) {
        q->deps[q->ndeps++] = (struct uvas_queue_dep){other, value};
        kept = true;
    }
    bool ok = append_locked(q, op);
    pthread_mutex_unlock(&q->mu);
    if (!kept)
        uvas_queue_unref(other);
    if (!ok) {
        free_op(op);
        return uvas_fail(UVAS_ERR_INVAL, "%s: the queue %p was destroyed", fn, (void *)q);
    }
    return UVAS_OK;
}

int uvas_queue_drain(struct uvas_queue *q)
{
    pthread_mutex_lock(&q->mu);
    while (q->completed < q->submitted)
        pthread_cond_wait(&q->done, &q->mu);
    int rc = q->error;
    char msg[sizeof q->message];
    memcpy(msg, q->message, sizeof msg);
    q->error = 0;
    q->message[0] = '\0';
    pthread_mutex_unlock(&q->mu);
    if (rc)
        return uvas_fail(rc, "%s", msg);
    return UVAS_OK;
}

void uvas_queue_stop(struct uvas_queue *q)
{
    live_take(q, true); /* from now on its handle is refused */
    pthread_mutex_lock(&q->mu);
    q->stop = true;
    pthread_cond_signal(&q->work);
    pthread_mutex_unlock(&q->mu);
    pthread_join(q->thread, NULL);
    /* A destroyed queue allocates no more: its dependencies go (two queues
     * that waited for each other would otherwise keep each other). */
    pthread_mutex_lock(&q->mu);
    size_t n = q->ndeps;
    q->ndeps = 0;
    pthread_mutex_unlock(&q->mu);
    for (size_t i = 0; i < n; i++)
        uvas_queue_unref(q->deps[i].q);
}
