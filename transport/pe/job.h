/*
 * The job as this PE sees it: who the peers are, how each is reached, and
 * the UCX worker. One per process (uvas_job), set up by uvas_pe_init.
 */
#ifndef UVAS_TRANSPORT_JOB_H
#define UVAS_TRANSPORT_JOB_H

#include <pmix.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <ucp/api/ucp.h>
#include <vulkan/vulkan.h>

#include "transport/pe/pe.h"
#include "uvas/sock_server.h"

/* A peer's device slab imported into this PE's Vulkan device. */
struct uvas_peer_slab {
    int state;            /* 0 not tried, 1 imported, -1 unavailable */
    VkDeviceMemory mem;
    VkBuffer buf;
    char *map;            /* the slab's fd mapped (lavapipe), else NULL */
    size_t map_len;
    VkDeviceAddress addr; /* kernels reach it here (transport/pe/lease.c); 0: they cannot */
};

/* What a PE publishes about its device tier (modex and HELLO). */
struct uvas_dev_desc {
    uint64_t slab_bytes;
    uint32_t slots_per_slab;
    uint32_t fd_mappable;
    uint64_t fd_base;
    uint8_t uuid[16];     /* VkPhysicalDeviceIDProperties::deviceUUID */
    uint32_t present;
    uint32_t pad;
};

#define UVAS_PEER_SEGS 8 /* the executable's segment and 7 libraries' */

struct uvas_peer {
    /* What every put, get and atomic to the peer reads (transport/pe/
     * dispatch.c), in the struct's first cache line: a small put touches
     * about fifteen lines, and each one more is one more to lose to
     * whatever else shares the core's cache. */
    _Alignas(64) char *win;   /* the peer's host tier mapped here */
    const _Atomic uint64_t *gates; /* the peer's residence table, mapped read-only */
    _Atomic uint32_t *pins;   /* the pin table the peer keeps for us */
    struct uvas_gate_slots *slots; /* its quick-pin slots (uvas/gate.h) */
    _Atomic uint32_t *acc;    /* where we count our accesses (uvas/gate.h) */
    /* Our active-message puts to this PE not yet acknowledged: while there
     * are any, every access to it goes by message too (transport/pe/dispatch.c:
     * ordering). */
    _Atomic uint32_t am_puts;
    bool local;               /* same node and windows enabled */
    /* Cold from here. */
    int rank;
    pid_t pid;
    bool same_node;           /* same host name: its pid can be watched */
    size_t gates_len;
    size_t pins_len;
    char sock_path[108];      /* the peer's fd server */
    struct uvas_dev_desc dev;
    bool dev_same;            /* same GPU as ours: its slabs can be imported */
    pthread_mutex_t slab_mu;
    struct uvas_peer_slab *slabs;
    uint32_t nslabs;
    ucp_ep_h ep;
    ucp_rkey_h rkey_range, rkey_gates, rkey_pins;
    uint64_t gates_raddr;     /* the peer's residence table in its address space */
    uint64_t pins_raddr;      /* the peer's pin table for remote peers */
    uint64_t alias_raddr;     /* the peer's host alias (0: no RMA, messages only) */
    uint64_t acc_raddr;       /* its counters of remote peers' RMA (0: it counts none) */
};

/* A peer's program segments (segment.h) in its address space, for
 * cross-memory attach on the node; cma: 0 untried, 1 works, -1 refused.
 * Apart from struct uvas_peer, which every put reads: these are cold. */
struct uvas_peer_segs {
    uint64_t key[UVAS_PEER_SEGS], lo[UVAS_PEER_SEGS], size[UVAS_PEER_SEGS];
    int n;
    _Atomic int cma;
};

struct uvas_job {
    /* Read by every operation: one cache line (as struct uvas_peer's). */
    _Alignas(64) bool up;
    int me, n;
    struct uvas_peer *peers;  /* n of them, cache-line aligned */
    bool windows;             /* intra-node windows on (UVAS_TRANSPORT) */
    bool pmix;                /* launched by a PMIx server (mpirun) */
    pmix_proc_t proc;
    struct uvas_peer_segs *peer_segs; /* one per PE, beside peers[] */
    atomic_bool peers_known;  /* peers[] holds every PE's pid and paths */
    /* UCX */
    ucp_context_h ctx;
    ucp_worker_h worker;
    ucp_mem_h mem_range, mem_gates, mem_pins;
    pthread_t progress;
    int stop_fd;              /* eventfd that stops the progress thread */
    bool progress_running;
    /* the fd server */
    struct uvas_sock_server server;
    char sock_path[108];
    /* operations */
    _Atomic uint64_t am_pending;   /* AM puts and AMOs not acknowledged */
    _Atomic uint32_t *own_pins;    /* our threads' pins on our own gates */
    struct uvas_gate_slots *own_slots; /* and their quick pins (uvas/gate.h) */
    uint64_t *sync;                /* internal symmetric area (barrier) */
    uint64_t barrier_epoch;
    pthread_mutex_t barrier_mu;
    size_t devmap_max;             /* largest write through a device mapping */
    size_t ucx_rma_min;            /* smallest transfer over ucp RMA */
    _Atomic bool ucx_counts_posted; /* a get's count not flushed yet (uvas_pe_quiet) */
    bool seg_cma;                  /* peers' globals by cross-memory attach (UVAS_SEG_CMA) */
    size_t seg_cma_put_min;        /* smallest put that goes so (UVAS_SEG_CMA_PUT_MIN) */
    size_t lease_host_after;       /* requests served at a peer's host-resident block in a
                                    * run before kernels get it for their stores
                                    * (UVAS_LEASE_HOST_AFTER; 0: up front too; SIZE_MAX: never) */
    _Atomic uint64_t am_served;
};

extern struct uvas_job uvas_job;

/* Per-path counters, one set per thread (a shared counter would cost an
 * atomic on every put); uvas_pe_stats_get sums the sets. */
struct uvas_path_ctr {
    /* A path's two counts side by side: one line per operation; the set
     * on lines of its own (no other thread's data beside it). */
    _Alignas(64) struct {
        _Atomic uint64_t ops, bytes;
    } p[UVAS_PATH_COUNT];
    struct uvas_path_ctr *next;
};
/* initial-exec: no __tls_get_addr call per operation (libuvas is linked,
 * not dlopened, by OpenSHMEM programs). */
extern _Thread_local struct uvas_path_ctr *uvas_path_mine
    __attribute__((tls_model("initial-exec")));
struct uvas_path_ctr *uvas_path_register(void);
/* Adds every thread's counts to ops[] and bytes[]. */
void uvas_path_sum(uint64_t ops[UVAS_PATH_COUNT], uint64_t bytes[UVAS_PATH_COUNT]);

static inline void uvas_job_count(int path, size_t bytes)
{
    struct uvas_path_ctr *c = uvas_path_mine ? uvas_path_mine : uvas_path_register();
    /* One writer per set: a plain add, published for the reader. */
    atomic_store_explicit(&c->p[path].ops,
                          atomic_load_explicit(&c->p[path].ops, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    atomic_store_explicit(&c->p[path].bytes,
                          atomic_load_explicit(&c->p[path].bytes, memory_order_relaxed) + bytes,
                          memory_order_relaxed);
}


#endif
