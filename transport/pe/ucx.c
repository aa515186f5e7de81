/*
 * UCX: one context and one worker per PE, shared by every thread
 * (UCS_THREAD_MODE_MULTI), endpoints to every peer, the range and the gate
 * table registered for ucp RMA and atomics, and a progress thread that
 * sleeps on the worker's event fd so active messages are served while the
 * application computes. Waiting threads progress the worker themselves and
 * yield the CPU (jobs here run several PEs per core).
 */
#include "transport/pe/ucx.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "transport/pe/boot.h"
#include "transport/pe/job.h"
#include "transport/pe/liveness.h"
#include "transport/pe/ucx_sym.h"
#include "uvas/gate.h"
#include "uvas/internal.h"
#include "uvas/os.h"
#include "uvas/status.h"

static int ucx_fail(ucs_status_t st, const char *what)
{
    /* The usual cause of these is a dead peer: if it is one of this node,
     * say so and end the job, as a long wait would. */
    if (st == UCS_ERR_ENDPOINT_TIMEOUT || st == UCS_ERR_CONNECTION_RESET ||
        st == UCS_ERR_UNREACHABLE || st == UCS_ERR_CANCELED)
        uvas_pe_check_alive();
    return uvas_fail(UVAS_ERR_SYS, "UCX %s failed: %s", what, ucs_status_string(st));
}

/* One thread progresses the worker at a time. UCX's own lock for a MULTI
 * worker spins, and two threads spinning for it on an oversubscribed core
 * lose a scheduler slice (milliseconds) whenever its holder is preempted;
 * this futex-backed token makes the loser sleep or yield instead. */
static pthread_mutex_t progress_token = PTHREAD_MUTEX_INITIALIZER;
/* Polls by waiting application threads. While they progress the worker the
 * progress thread stays out of their way: woken by every message (shared
 * memory transports signal an armed worker), it would take the token from
 * under them and cost each message a scheduler tick (measured: 4 ms per
 * active message with it, 0.3-0.7 us without). */
static _Atomic uint64_t app_polls;

static void *progress_main(void *arg)
{
    (void)arg;
    int efd = -1;
    if (ucp_worker_get_efd(uvas_job.worker, &efd) != UCS_OK)
        return NULL;
    struct pollfd pf[2] = {{.fd = efd, .events = POLLIN}, {.fd = uvas_job.stop_fd,
                                                          .events = POLLIN}};
    uint64_t seen = atomic_load(&app_polls);
    for (;;) {
        uint64_t now = atomic_load_explicit(&app_polls, memory_order_relaxed);
        if (now != seen) {
            seen = now;
            if (poll(&pf[1], 1, 1) > 0)
                return NULL;
            continue;
        }
        pthread_mutex_lock(&progress_token);
        while (ucp_worker_progress(uvas_job.worker))
            ;
        ucs_status_t st = ucp_worker_arm(uvas_job.worker);
        pthread_mutex_unlock(&progress_token);
        if (st == UCS_ERR_BUSY)
            continue;
        if (poll(pf, 2, -1) < 0 && errno != EINTR)
            return NULL;
        if (pf[1].revents)
            return NULL;
    }
}

/* Register [addr, +len); remote_write false: peers may only read it (the
 * residence table: enforced where the transport can, e.g. an RDMA NIC's
 * access flags). */
static int map_mem(void *addr, size_t len, bool remote_write, ucp_mem_h *out)
{
    ucp_mem_map_params_t mp = {
        .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH |
                      UCP_MEM_MAP_PARAM_FIELD_PROT,
        .address = addr,
        .length = len,
        .prot = UCP_MEM_MAP_PROT_LOCAL_READ | UCP_MEM_MAP_PROT_LOCAL_WRITE |
                UCP_MEM_MAP_PROT_REMOTE_READ | (remote_write ? UCP_MEM_MAP_PROT_REMOTE_WRITE : 0),
    };
    ucs_status_t st = ucp_mem_map(uvas_job.ctx, &mp, out);
    return st == UCS_OK ? UVAS_OK : ucx_fail(st, "memory registration");
}

static int publish_rkey(const char *key, ucp_mem_h mh)
{
    void *rk;
    size_t len;
    ucs_status_t st = ucp_rkey_pack(uvas_job.ctx, mh, &rk, &len);
    if (st != UCS_OK)
        return ucx_fail(st, "rkey pack");
    int rc = uvas_boot_put(key, rk, len);
    ucp_rkey_buffer_release(rk);
    return rc;
}

int uvas_ucx_start(void)
{
    int rc0 = uvas_ucx_load();
    if (rc0)
        return rc0;
    ucp_config_t *cfg;
    ucs_status_t st = ucp_config_read(NULL, NULL, &cfg);
    if (st != UCS_OK)
        return ucx_fail(st, "configuration");
    /* Over tcp, UCX's rendezvous protocol stalls for a scheduler tick
     * (4 ms) per message on an oversubscribed node, while eager messages
     * stream at the wire's speed (measured: docs/transport.md); the owner
     * applies a put from a bounce buffer anyway. The user's setting wins. */
    if (!getenv("UCX_RNDV_THRESH"))
        ucp_config_modify(cfg, "RNDV_THRESH", "inf");
    /* Remote pins are atomics on words the owner's CPU reads with its own
     * atomics (uvas/gate.h): a NIC's atomics are not atomic with the CPU's,
     * so UCX must pick CPU-coherent atomics. */
    if (!getenv("UCX_ATOMIC_MODE"))
        ucp_config_modify(cfg, "ATOMIC_MODE", "cpu");
    ucp_params_t pp = {
        .field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_MT_WORKERS_SHARED,
        .features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_AM |
                    UCP_FEATURE_WAKEUP,
        .mt_workers_shared = 1,
    };
    st = ucp_init_version(UCP_API_MAJOR, UCP_API_MINOR, &pp, cfg, &uvas_job.ctx);
    ucp_config_release(cfg);
    if (st != UCS_OK)
        return ucx_fail(st, "init");
    ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                              .thread_mode = UCS_THREAD_MODE_MULTI};
    st = ucp_worker_create(uvas_job.ctx, &wp, &uvas_job.worker);
    if (st != UCS_OK)
        return ucx_fail(st, "worker creation");
    ucp_address_t *addr;
    size_t alen;
    st = ucp_worker_get_address(uvas_job.worker, &addr, &alen);
    if (st != UCS_OK)
        return ucx_fail(st, "worker address");
    int rc = uvas_boot_put("uvas.ucx.addr", addr, alen);
    ucp_worker_release_address(uvas_job.worker, addr);
    if (rc)
        return rc;
    /* Remote peers pin in one table of ours, the one after the ranks'. */
    _Atomic uint32_t *rpins;
    rc = uvas_gate_pins_get((unsigned)uvas_job.n, &rpins, NULL);
    if (rc)
        return rc;
    uint64_t graddr = (uintptr_t)uvas_g.gates, aaddr = (uintptr_t)uvas_g.alias;
    uint64_t praddr = (uintptr_t)rpins;
    /* Where remote peers count their direct RMA (inside the pin table's
     * registration), 0 when this PE counts nothing: counting is decided
     * at uvas_init, before the PE layer starts. */
    uint64_t acc_raddr = uvas_gate_counting_on() ? (uintptr_t)uvas_gate_acc_of(rpins) : 0;
    /* Remote puts and gets land in the host alias, not the range: the
     * owner's progress thread writes them, and a write that faulted there
     * would wait for the very pin the writer holds. */
    if ((rc = map_mem(uvas_g.alias ? uvas_g.alias : uvas_g.base, uvas_g.size, true,
                      &uvas_job.mem_range)) ||
        (rc = uvas_boot_put("uvas.ucx.alias", &aaddr, sizeof aaddr)) ||
        (rc = map_mem((void *)uvas_g.gates, uvas_gate_table_bytes(), false,
                      &uvas_job.mem_gates)) ||
        (rc = map_mem((void *)rpins, uvas_gate_pins_bytes(), true, &uvas_job.mem_pins)) ||
        (rc = publish_rkey("uvas.ucx.rkey.range", uvas_job.mem_range)) ||
        (rc = publish_rkey("uvas.ucx.rkey.gates", uvas_job.mem_gates)) ||
        (rc = publish_rkey("uvas.ucx.rkey.pins", uvas_job.mem_pins)) ||
        (rc = uvas_boot_put("uvas.ucx.gates", &graddr, sizeof graddr)) ||
        (rc = uvas_boot_put("uvas.ucx.pins", &praddr, sizeof praddr)) ||
        (rc = uvas_boot_put("uvas.ucx.acc", &acc_raddr, sizeof acc_raddr)))
        return rc;
    return UVAS_OK;
}

static int unpack_rkey(int rank, const char *key, ucp_ep_h ep, ucp_rkey_h *out)
{
    void *buf;
    size_t len;
    int rc = uvas_boot_get_alloc(rank, key, &buf, &len);
    if (rc)
        return rc;
    ucs_status_t st = ucp_ep_rkey_unpack(ep, buf, out);
    free(buf);
    return st == UCS_OK ? UVAS_OK : ucx_fail(st, "rkey unpack");
}

int uvas_ucx_connect(void)
{
    for (int r = 0; r < uvas_job.n; r++) {
        struct uvas_peer *p = &uvas_job.peers[r];
        void *addr;
        size_t alen;
        int rc = uvas_boot_get_alloc(r, "uvas.ucx.addr", &addr, &alen);
        if (rc)
            return rc;
        ucp_ep_params_t ep = {.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
                              .address = addr};
        ucs_status_t st = ucp_ep_create(uvas_job.worker, &ep, &p->ep);
        free(addr);
        if (st != UCS_OK)
            return ucx_fail(st, "endpoint creation");
        if ((rc = unpack_rkey(r, "uvas.ucx.rkey.range", p->ep, &p->rkey_range)) ||
            (rc = unpack_rkey(r, "uvas.ucx.rkey.gates", p->ep, &p->rkey_gates)) ||
            (rc = unpack_rkey(r, "uvas.ucx.rkey.pins", p->ep, &p->rkey_pins)) ||
            (rc = uvas_boot_get(r, "uvas.ucx.gates", &p->gates_raddr, sizeof p->gates_raddr)) ||
            (rc = uvas_boot_get(r, "uvas.ucx.pins", &p->pins_raddr, sizeof p->pins_raddr)) ||
            (rc = uvas_boot_get(r, "uvas.ucx.alias", &p->alias_raddr, sizeof p->alias_raddr)) ||
            (rc = uvas_boot_get(r, "uvas.ucx.acc", &p->acc_raddr, sizeof p->acc_raddr)))
            return rc;
    }
    uvas_job.stop_fd = eventfd(0, EFD_CLOEXEC);
    if (uvas_job.stop_fd < 0)
        return uvas_fail(UVAS_ERR_SYS, "eventfd: %s", strerror(errno));
    if (pthread_create(&uvas_job.progress, NULL, progress_main, NULL))
        return uvas_fail(UVAS_ERR_SYS, "cannot start the UCX progress thread");
    uvas_job.progress_running = true;
    return UVAS_OK;
}

static double mono(void)
{
    return (double)uvas_os_now_ns() * 1e-9;
}

void uvas_ucx_poll(unsigned spins)
{
    /* A reply from a PE that died never comes, and with recovery enabled
     * the launcher does not end the job: long waits ask, once a second. */
    static _Thread_local double next_check;
    if (spins == 0)
        next_check = 0;
    else if ((spins & 1023) == 0) {
        double t = mono();
        if (next_check == 0)
            next_check = t + 1.0;
        else if (t >= next_check) {
            uvas_pe_check_alive();
            next_check = t + 1.0;
        }
    }
    unsigned did = 0;
    atomic_fetch_add_explicit(&app_polls, 1, memory_order_relaxed);
    if (pthread_mutex_trylock(&progress_token) == 0) {
        did = ucp_worker_progress(uvas_job.worker);
        pthread_mutex_unlock(&progress_token);
    }
    if (!did && spins > 16)
        sched_yield();
}

int uvas_ucx_wait(void *req, const char *what)
{
    if (req == NULL)
        return UVAS_OK;
    if (UCS_PTR_IS_ERR(req))
        return ucx_fail(UCS_PTR_STATUS(req), what);
    ucs_status_t st;
    for (unsigned i = 0; (st = ucp_request_check_status(req)) == UCS_INPROGRESS; i++)
        uvas_ucx_poll(i);
    ucp_request_free(req);
    return st == UCS_OK ? UVAS_OK : ucx_fail(st, what);
}

int uvas_ucx_flush(void)
{
    ucp_request_param_t rp = {0};
    return uvas_ucx_wait(ucp_worker_flush_nbx(uvas_job.worker, &rp), "flush");
}

void uvas_ucx_stop(void)
{
    if (uvas_job.progress_running) {
        uint64_t one = 1;
        if (write(uvas_job.stop_fd, &one, sizeof one) < 0)
            uvas_warn("cannot stop the progress thread: %s", strerror(errno));
        pthread_join(uvas_job.progress, NULL);
        uvas_job.progress_running = false;
    }
    if (uvas_job.stop_fd >= 0)
        close(uvas_job.stop_fd);
    uvas_job.stop_fd = -1;
    for (int r = 0; uvas_job.peers && r < uvas_job.n; r++) {
        struct uvas_peer *p = &uvas_job.peers[r];
        if (p->rkey_range)
            ucp_rkey_destroy(p->rkey_range);
        if (p->rkey_gates)
            ucp_rkey_destroy(p->rkey_gates);
        if (p->rkey_pins)
            ucp_rkey_destroy(p->rkey_pins);
        p->rkey_range = p->rkey_gates = p->rkey_pins = NULL;
        if (p->ep) {
            ucp_request_param_t rp = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                      .flags = UCP_EP_CLOSE_FLAG_FORCE};
            void *r2 = ucp_ep_close_nbx(p->ep, &rp);
            if (r2 && !UCS_PTR_IS_ERR(r2)) {
                while (ucp_request_check_status(r2) == UCS_INPROGRESS)
                    ucp_worker_progress(uvas_job.worker);
                ucp_request_free(r2);
            }
            p->ep = NULL;
        }
    }
    if (uvas_job.mem_range)
        ucp_mem_unmap(uvas_job.ctx, uvas_job.mem_range);
    if (uvas_job.mem_gates)
        ucp_mem_unmap(uvas_job.ctx, uvas_job.mem_gates);
    if (uvas_job.mem_pins)
        ucp_mem_unmap(uvas_job.ctx, uvas_job.mem_pins);
    uvas_job.mem_range = uvas_job.mem_gates = uvas_job.mem_pins = NULL;
    if (uvas_job.worker)
        ucp_worker_destroy(uvas_job.worker);
    if (uvas_job.ctx)
        ucp_cleanup(uvas_job.ctx);
    uvas_job.worker = NULL;
    uvas_job.ctx = NULL;
}
