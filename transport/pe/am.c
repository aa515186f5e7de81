/*
 * Active messages to a block's owner: the path for targets no peer may
 * touch directly (untouched, in a transition, duplicated, mapped for the
 * CPU, on a GPU this PE cannot import, or on another node when the
 * transfer is small). The owner applies the access to its own range
 * (transport/pe/owner.c) with its own policy in charge, and answers: data for
 * a get, the old value for an AMO, an acknowledgement for a put (quiet
 * waits for those).
 */
#include "transport/pe/am.h"

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "transport/pe/domain.h"
#include "transport/pe/job.h"
#include "transport/pe/owner.h"
#include "transport/pe/segment.h"
#include "transport/pe/ucx.h"
#include "transport/pe/ucx_sym.h"
#include "uvas/gate.h"
#include "uvas/inject.h"
#include "uvas/internal.h"
#include "uvas/status.h"

enum { AM_REQ = 17, AM_REP = 18 };
/* OP_S*: the same on the owner's program segment (segment.h), addr the
 * offset there. */
enum { OP_PUT = 1, OP_GET, OP_AMO, OP_RES, OP_SPUT, OP_SGET, OP_SAMO };

struct am_req {
    uint8_t op, amo, width, pad;
    int32_t src;
    uint64_t addr, len, operand, compare, cookie;
};

struct am_rep {
    uint64_t cookie;  /* 0: a put's acknowledgement */
    uint64_t value;
    int32_t status;
    int32_t from;     /* the answering PE */
};

/* What a requester waits on. */
struct pending {
    _Atomic int done;
    void *dest;
    size_t len;
    uint64_t value;
    int status;
};

/*
 * Requests waiting for an answer, by number. A reply names its request by
 * (slot, generation), never by an address: one that answers no request of
 * ours in flight (a stray, a second one, a forged one) touches nothing.
 * The slot is claimed by the first reply that names it and given back when
 * its waiter is done.
 */
#define WAITS 4096
static struct {
    uint32_t gen;
    struct pending *p;
} waits[WAITS];
static uint32_t waits_free[WAITS], waits_top;
static bool waits_ready;
static pthread_mutex_t waits_mu = PTHREAD_MUTEX_INITIALIZER;

/* A slot for p; the cookie names it (never 0: that is a put's answer). */
static uint64_t wait_open(struct pending *p)
{
    pthread_mutex_lock(&waits_mu);
    if (!waits_ready) {
        for (uint32_t i = 0; i < WAITS; i++)
            waits_free[i] = WAITS - 1 - i;
        waits_top = WAITS;
        waits_ready = true;
    }
    while (waits_top == 0) { /* as many threads waiting as slots */
        pthread_mutex_unlock(&waits_mu);
        sched_yield();
        pthread_mutex_lock(&waits_mu);
    }
    uint32_t i = waits_free[--waits_top];
    waits[i].p = p;
    uint64_t cookie = (uint64_t)waits[i].gen << 32 | (i + 1);
    pthread_mutex_unlock(&waits_mu);
    return cookie;
}

static void wait_close(uint64_t cookie)
{
    uint32_t i = (uint32_t)cookie - 1;
    pthread_mutex_lock(&waits_mu);
    waits[i].p = NULL;
    waits[i].gen++;
    waits_free[waits_top++] = i;
    pthread_mutex_unlock(&waits_mu);
}

/* The request a reply's cookie names, if it is waiting and unanswered. */
static struct pending *wait_claim(uint64_t cookie)
{
    uint32_t i = (uint32_t)cookie - 1;
    if ((uint32_t)cookie == 0 || i >= WAITS)
        return NULL;
    pthread_mutex_lock(&waits_mu);
    struct pending *p = NULL;
    if (waits[i].gen == (uint32_t)(cookie >> 32)) {
        p = waits[i].p;
        waits[i].p = NULL;
    }
    pthread_mutex_unlock(&waits_mu);
    return p;
}

/* A message that outlives the call sending it: freed on completion. */
static void free_on_send(void *req, ucs_status_t st, void *user)
{
    (void)st;
    free(user);
    if (req)
        ucp_request_free(req);
}

static void reply(int to, uint64_t cookie, uint64_t value, int status, const void *data,
                  size_t len)
{
    struct am_rep *m = malloc(sizeof *m + len);
    if (!m) {
        uvas_warn("out of memory answering PE %d: it will wait", to);
        return;
    }
    *m = (struct am_rep){.cookie = cookie, .value = value, .status = status,
                         .from = uvas_job.me};
    if (len)
        memcpy(m + 1, data, len);
    ucp_request_param_t rp = {.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                                              UCP_OP_ATTR_FIELD_USER_DATA,
                              .cb.send = free_on_send,
                              .user_data = m};
    void *r = ucp_am_send_nbx(uvas_job.peers[to].ep, AM_REP, m, sizeof *m, len ? m + 1 : NULL,
                              len, &rp);
    if (r == NULL)
        free(m);
    else if (UCS_PTR_IS_ERR(r)) {
        uvas_warn("cannot answer PE %d: %s", to, ucs_status_string(UCS_PTR_STATUS(r)));
        free(m);
    }
}

/* What a reply to q carries when it fails: a put's domain, back (its
 * acknowledgement; domain.h). */
static uint64_t put_domain(const struct am_req *q)
{
    return q->op == OP_PUT || q->op == OP_SPUT ? q->compare : 0;
}

/* An access served for PE q->src, counted on each block it covers (its
 * policy sees it: uvas/gate.h). src comes from the message: a PE out of
 * range is not counted. */
static void count_served(const struct am_req *q, size_t len)
{
    uint64_t end = q->addr + len - 1;
    const void *a = (const void *)(uintptr_t)q->addr, *z = (const void *)(uintptr_t)end;
    if (q->src < 0 || q->src >= uvas_job.n || !len || end < q->addr || !uvas_in_range(a) ||
        !uvas_in_range(z))
        return;
    for (size_t bi = uvas_block_index(a); bi <= uvas_block_index(z); bi++)
        uvas_gate_count_served((unsigned)q->src, bi);
}

static void serve(const struct am_req *q, const void *data)
{
    atomic_fetch_add_explicit(&uvas_job.am_served, 1, memory_order_relaxed);
    char *addr = (char *)(uintptr_t)q->addr;
    int rc;
    switch (q->op) {
    case OP_PUT:
        rc = uvas_owner_write(addr, data, q->len);
        if (rc == UVAS_OK)
            count_served(q, q->len);
        reply(q->src, q->cookie, q->compare, rc, NULL, 0); /* the put's domain, back */
        break;
    case OP_GET: {
        void *buf = malloc(q->len ? q->len : 1);
        rc = buf ? uvas_owner_read(buf, addr, q->len) : UVAS_ERR_NOMEM;
        if (rc == UVAS_OK)
            count_served(q, q->len);
        reply(q->src, q->cookie, 0, rc, buf, rc ? 0 : q->len);
        free(buf);
        break;
    }
    case OP_AMO: {
        uint64_t old = 0;
        rc = uvas_owner_amo(q->amo, addr, q->width, q->operand, q->compare, &old);
        if (rc == UVAS_OK)
            count_served(q, q->width);
        reply(q->src, q->cookie, old, rc, NULL, 0);
        break;
    }
    case OP_SPUT:
    case OP_SGET:
    case OP_SAMO: {
        /* An offset in our segment, checked against it: a peer names
         * symmetric data, never an address of ours. */
        size_t n = q->op == OP_SAMO ? q->width : q->len;
        char *at = uvas_seg_at(q->addr, n);
        uint64_t old = 0;
        void *buf = NULL;
        rc = at ? UVAS_OK : UVAS_ERR_NOT_OWNED;
        if (!rc && q->op == OP_SAMO && ((q->width != 4 && q->width != 8) ||
                                         ((uintptr_t)at & (q->width - 1)) ||
                                         q->amo >= UVAS_AMO_COUNT))
            rc = UVAS_ERR_INVAL;
        if (!rc && q->op == OP_SPUT)
            memcpy(at, data, n);
        else if (!rc && q->op == OP_SAMO)
            old = uvas_amo_apply(q->amo, at, q->width, q->operand, q->compare);
        else if (!rc && q->op == OP_SGET && !(buf = malloc(n ? n : 1)))
            rc = UVAS_ERR_NOMEM;
        if (buf)
            memcpy(buf, at, n);
        /* A put's acknowledgement names its domain back. */
        reply(q->src, q->cookie, q->op == OP_SPUT ? q->compare : old, rc, buf, buf ? n : 0);
        free(buf);
        break;
    }
    case OP_RES: {
        struct uvas_ptr_info info;
        rc = uvas_query(addr, &info);
        reply(q->src, q->cookie, rc ? 0 : (uint64_t)info.residence, rc, NULL, 0);
        break;
    }
    default:
        uvas_warn("PE %d sent an unknown request %u", q->src, q->op);
    }
}

/* A large put arrives by rendezvous: received into a buffer, then served. */
struct rndv {
    struct am_req q;
    char data[];
};

static void rndv_done(void *req, ucs_status_t st, size_t len, void *user)
{
    (void)len;
    struct rndv *r = user;
    if (st == UCS_OK)
        serve(&r->q, r->data);
    else
        reply(r->q.src, r->q.cookie, put_domain(&r->q), UVAS_ERR_SYS, NULL, 0);
    free(r);
    ucp_request_free(req);
}

static ucs_status_t on_req(void *arg, const void *header, size_t hlen, void *data, size_t len,
                           const ucp_am_recv_param_t *param)
{
    (void)arg;
    if (hlen != sizeof(struct am_req))
        return UCS_OK;
    struct am_req qv; /* UCX does not align headers */
    memcpy(&qv, header, sizeof qv);
    const struct am_req *q = &qv;
    if (q->src < 0 || q->src >= uvas_job.n)
        return UCS_OK;
    /* A request is checked against what arrived before anything is done
     * for it: a put carries exactly its length, a get asks for no more
     * than the range holds. */
    if (((q->op == OP_PUT || q->op == OP_SPUT) && q->len != len) ||
        (q->op == OP_GET && q->len > uvas_g.size)) {
        reply(q->src, q->cookie, put_domain(q), UVAS_ERR_INVAL, NULL, 0);
        return UCS_OK;
    }
    if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) {
        struct rndv *r = malloc(sizeof *r + len);
        if (!r) {
            reply(q->src, q->cookie, put_domain(q), UVAS_ERR_NOMEM, NULL, 0);
            return UCS_OK;
        }
        r->q = *q;
        ucp_request_param_t rp = {.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                                                  UCP_OP_ATTR_FIELD_USER_DATA,
                                  .cb.recv_am = rndv_done,
                                  .user_data = r};
        void *req = ucp_am_recv_data_nbx(uvas_job.worker, data, r->data, len, &rp);
        if (req == NULL) { /* completed in place: the callback was not called */
            serve(&r->q, r->data);
            free(r);
        } else if (UCS_PTR_IS_ERR(req)) {
            reply(q->src, q->cookie, put_domain(q), UVAS_ERR_SYS, NULL, 0);
            free(r);
        }
        return UCS_OK;
    }
    serve(q, data);
    return UCS_OK;
}

static void rep_rndv_done(void *req, ucs_status_t st, size_t len, void *user)
{
    (void)len;
    struct pending *p = user;
    if (st != UCS_OK)
        p->status = UVAS_ERR_SYS;
    atomic_store_explicit(&p->done, 1, memory_order_release);
    ucp_request_free(req);
}

static ucs_status_t on_rep(void *arg, const void *header, size_t hlen, void *data, size_t len,
                           const ucp_am_recv_param_t *param)
{
    (void)arg;
    if (hlen != sizeof(struct am_rep))
        return UCS_OK;
    struct am_rep mv; /* UCX does not align headers */
    memcpy(&mv, header, sizeof mv);
    const struct am_rep *m = &mv;
    if (m->cookie == 0) {
        if (m->status) { /* said now, and by the quiet of the put's domain */
            uvas_warn("a put to PE %d was refused by its target: %s (the next quiet fails)",
                      (int)m->from, uvas_strerror(m->status));
            uvas_domain_put_refused(m->value, m->from, m->status);
        }
        /* An acknowledgement answers a put we sent: one that answers none
         * (a peer's bug, or made up) took the counts below zero, and every
         * quiet waited for ever for them to come back (found by review). */
        uint64_t pend = atomic_load_explicit(&uvas_job.am_pending, memory_order_relaxed);
        do {
            if (!pend) {
                uvas_warn("PE %d acknowledged a put we have not sent: dropped", (int)m->from);
                return UCS_OK;
            }
        } while (!atomic_compare_exchange_weak_explicit(&uvas_job.am_pending, &pend, pend - 1,
                                                        memory_order_release,
                                                        memory_order_relaxed));
        if (m->from >= 0 && m->from < uvas_job.n) {
            _Atomic uint32_t *puts = &uvas_job.peers[m->from].am_puts;
            uint32_t v = atomic_load_explicit(puts, memory_order_relaxed);
            while (v && !atomic_compare_exchange_weak_explicit(puts, &v, v - 1,
                                                               memory_order_release,
                                                               memory_order_relaxed))
                ;
        }
        uvas_domain_put_acked(m->value);
        return UCS_OK;
    }
    struct pending *p = wait_claim(m->cookie);
    if (!p) {
        uvas_warn("PE %d answered no request of ours in flight (cookie %#llx): dropped",
                  (int)m->from, (unsigned long long)m->cookie);
        return UCS_OK;
    }
    p->value = m->value;
    p->status = m->status;
    if (len && p->dest && len <= p->len) {
        if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) {
            ucp_request_param_t rp = {.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                                                      UCP_OP_ATTR_FIELD_USER_DATA,
                                      .cb.recv_am = rep_rndv_done,
                                      .user_data = p};
            void *req = ucp_am_recv_data_nbx(uvas_job.worker, data, p->dest, len, &rp);
            if (req != NULL && !UCS_PTR_IS_ERR(req))
                return UCS_OK; /* done in the callback */
            if (UCS_PTR_IS_ERR(req))
                p->status = UVAS_ERR_SYS;
        } else {
            memcpy(p->dest, data, len);
        }
    }
    atomic_store_explicit(&p->done, 1, memory_order_release);
    return UCS_OK;
}

int uvas_am_init(void)
{
    ucp_am_handler_param_t hp = {
        .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                      UCP_AM_HANDLER_PARAM_FIELD_FLAGS,
        .flags = UCP_AM_FLAG_WHOLE_MSG,
    };
    hp.id = AM_REQ;
    hp.cb = on_req;
    ucs_status_t st = ucp_worker_set_am_recv_handler(uvas_job.worker, &hp);
    if (st == UCS_OK) {
        hp.id = AM_REP;
        hp.cb = on_rep;
        st = ucp_worker_set_am_recv_handler(uvas_job.worker, &hp);
    }
    return st == UCS_OK ? UVAS_OK
                        : uvas_fail(UVAS_ERR_SYS, "UCX active message handlers: %s",
                                    ucs_status_string(st));
}

/* Send a request; the payload is reusable on return. */
static int send_req(int pe, struct am_req *q, const void *data, size_t len)
{
    q->src = uvas_job.me;
    ucp_request_param_t rp = {0};
    void *r = uvas_inject_fail(UVAS_INJ_UCX)
                  ? UCS_STATUS_PTR(UCS_ERR_IO_ERROR)
                  : ucp_am_send_nbx(uvas_job.peers[pe].ep, AM_REQ, q, sizeof *q, data, len, &rp);
    return uvas_ucx_wait(r, "active message");
}

static int wait_reply(struct pending *p)
{
    for (unsigned i = 0; !atomic_load_explicit(&p->done, memory_order_acquire); i++)
        uvas_ucx_poll(i);
    return p->status;
}

static int am_put(int pe, uint8_t op, uint64_t addr, const void *src, size_t n)
{
    struct am_req q = {.op = op, .addr = addr, .len = n};
    _Atomic uint32_t *behind = &uvas_job.peers[pe].am_puts;
    atomic_fetch_add_explicit(&uvas_job.am_pending, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(behind, 1, memory_order_relaxed);
    unsigned dom = uvas_domain_put_sent();
    q.compare = dom; /* echoed in the acknowledgement */
    int rc = send_req(pe, &q, src, n);
    if (rc) {
        uvas_domain_put_unsent(dom);
        atomic_fetch_sub_explicit(behind, 1, memory_order_relaxed);
        atomic_fetch_sub_explicit(&uvas_job.am_pending, 1, memory_order_relaxed);
    }
    else
        uvas_job_count(UVAS_PATH_AM, n);
    return rc;
}

int uvas_am_put(int pe, void *dest, const void *src, size_t n)
{
    return am_put(pe, OP_PUT, (uintptr_t)dest, src, n);
}

int uvas_am_seg_put(int pe, uint64_t off, const void *src, size_t n)
{
    return am_put(pe, OP_SPUT, off, src, n);
}

static int am_get(int pe, uint8_t op, void *dest, uint64_t addr, size_t n)
{
    struct pending p = {.dest = dest, .len = n};
    struct am_req q = {.op = op, .addr = addr, .len = n, .cookie = wait_open(&p)};
    int rc = send_req(pe, &q, NULL, 0);
    if (rc == UVAS_OK)
        rc = wait_reply(&p);
    wait_close(q.cookie);
    if (rc == UVAS_OK)
        uvas_job_count(UVAS_PATH_AM, n);
    return rc ? uvas_fail(rc, "get of %zu bytes from PE %d failed at the owner", n, pe) : rc;
}

int uvas_am_get(int pe, void *dest, const void *src, size_t n)
{
    return am_get(pe, OP_GET, dest, (uintptr_t)src, n);
}

int uvas_am_seg_get(int pe, void *dest, uint64_t off, size_t n)
{
    return am_get(pe, OP_SGET, dest, off, n);
}

static int am_amo(int pe, uint8_t kind, enum uvas_amo_op op, uint64_t addr, size_t width,
                  uint64_t operand, uint64_t compare, uint64_t *fetched)
{
    struct pending p = {0};
    struct am_req q = {.op = kind, .amo = (uint8_t)op, .width = (uint8_t)width,
                       .addr = addr, .operand = operand, .compare = compare,
                       .cookie = wait_open(&p)};
    int rc = send_req(pe, &q, NULL, 0);
    if (rc == UVAS_OK)
        rc = wait_reply(&p);
    wait_close(q.cookie);
    if (rc == UVAS_OK) {
        uvas_job_count(UVAS_PATH_AM, width);
        if (fetched)
            *fetched = p.value;
    }
    return rc ? uvas_fail(rc, "atomic at PE %d failed at the owner", pe) : rc;
}

int uvas_am_amo(int pe, enum uvas_amo_op op, void *target, size_t width, uint64_t operand,
                uint64_t compare, uint64_t *fetched)
{
    return am_amo(pe, OP_AMO, op, (uintptr_t)target, width, operand, compare, fetched);
}

int uvas_am_seg_amo(int pe, enum uvas_amo_op op, uint64_t off, size_t width, uint64_t operand,
                    uint64_t compare, uint64_t *fetched)
{
    return am_amo(pe, OP_SAMO, op, off, width, operand, compare, fetched);
}

int uvas_am_residence(int pe, const void *addr, int *res)
{
    struct pending p = {0};
    struct am_req q = {.op = OP_RES, .addr = (uintptr_t)addr, .cookie = wait_open(&p)};
    int rc = send_req(pe, &q, NULL, 0);
    if (rc == UVAS_OK)
        rc = wait_reply(&p);
    wait_close(q.cookie);
    if (rc == UVAS_OK)
        *res = (int)p.value;
    return rc;
}

void uvas_am_send_reply(int to, uint64_t cookie, uint64_t value)
{
    reply(to, cookie, value, UVAS_OK, NULL, 0);
}

int uvas_am_quiet(void)
{
    for (unsigned i = 0; atomic_load_explicit(&uvas_job.am_pending, memory_order_acquire); i++)
        uvas_ucx_poll(i);
    return uvas_domain_refusal(0);
}
