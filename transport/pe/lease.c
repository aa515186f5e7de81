/* Leases on peers' device memory for this PE's kernels (lease.h). */
#include "transport/pe/lease.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu/buffer.h"
#include "transport/pe/devpeer.h"
#include "transport/pe/job.h"
#include "uvas/atomics.h"
#include "uvas/gate.h"
#include "uvas/internal.h"
#include "uvas/status.h"

/* An entry of the table, as include/shmem.glsl reads it. */
struct lease_entry {
    _Atomic uint32_t valid; /* 1: delta is the block's, kernels may go */
    _Atomic uint32_t pins;  /* kernels' accesses in flight */
    _Atomic uint64_t delta; /* written while valid is 0 */
};
_Static_assert(sizeof(struct lease_entry) == 16, "shmem.glsl's shmem_lease_ is 16 bytes");

#define HEADER 32
/* A table larger than this is not made: kernels go through the host. */
#define TABLE_MAX ((size_t)256 << 20)
/* Leases a run takes up front for the blocks it holds (each is a pin and
 * a read at a peer), and at most at any time. */
#define UPFRONT_MAX 1024
#define HELD_MAX 65536
/* How often the revoker looks at the owners' want words while leases are
 * held: the longest an owner's transition waits for us. */
#define POLL_NS 100000

struct held {
    uint32_t slot;
    uint32_t bi;
};

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;     /* leases are held, or stop */
    int nslots;            /* peers kernels may reach; 0: none */
    int *slot_of;          /* per PE: its row, or -1 */
    int *pe_of;            /* per row */
    uint32_t *want_seen;   /* per row: the owner's want word when last looked at */
    bool made, failed;
    struct uvas_vulkan *d;
    VkBuffer buf;
    VkDeviceMemory mem;
    char *map;
    size_t entries_off;
    uint64_t addr;
    uint8_t *leased;       /* a bit per row and block: the host's copy of valid */
    struct held *held;
    size_t nheld;
    bool in_run;           /* leases may be taken (a run of kernels may use them) */
    size_t upfront;        /* taken up front this run */
    pthread_t revoker;
    bool revoker_up, stop;
} L = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static struct lease_entry *entry(uint32_t slot, size_t bi)
{
    return (struct lease_entry *)(L.map + L.entries_off) + (size_t)slot * uvas_g.nblocks + bi;
}

static bool bit(uint32_t slot, size_t bi)
{
    size_t i = (size_t)slot * uvas_g.nblocks + bi;
    return L.leased[i / 8] & (1u << (i % 8));
}

static void set_bit(uint32_t slot, size_t bi, bool on)
{
    size_t i = (size_t)slot * uvas_g.nblocks + bi;
    if (on)
        L.leased[i / 8] |= (uint8_t)(1u << (i % 8));
    else
        L.leased[i / 8] &= (uint8_t)~(1u << (i % 8));
}

/* A PE whose device memory kernels here may reach: on this node, its
 * windows open (gates, our pins there), the same GPU. */
static bool reachable(int r)
{
    const struct uvas_peer *p = &uvas_job.peers[r];
    return r != uvas_job.me && p->local && p->dev_same && p->pins && p->slots && p->gates;
}

static void *revoker(void *arg);

int uvas_lease_init(void)
{
    const struct uvas_vulkan *d = &uvas_g.devtier.dev;
    if (!uvas_devtier_present(&uvas_g.devtier) || !d->kernels)
        return UVAS_OK;
    int n = 0;
    for (int r = 0; r < uvas_job.n; r++)
        n += reachable(r);
    if (!n)
        return UVAS_OK;
    L.slot_of = malloc((size_t)uvas_job.n * sizeof *L.slot_of);
    L.pe_of = malloc((size_t)n * sizeof *L.pe_of);
    L.want_seen = calloc((size_t)n, sizeof *L.want_seen);
    if (!L.slot_of || !L.pe_of || !L.want_seen) {
        uvas_lease_fini();
        return uvas_fail(UVAS_ERR_NOMEM, "no memory for the kernels' leases");
    }
    L.nslots = 0;
    for (int r = 0; r < uvas_job.n; r++) {
        L.slot_of[r] = -1;
        if (reachable(r)) {
            L.slot_of[r] = L.nslots;
            L.pe_of[L.nslots++] = r;
        }
    }
    L.stop = false;
    int e = pthread_create(&L.revoker, NULL, revoker, NULL);
    if (e) {
        uvas_lease_fini();
        return uvas_fail(UVAS_ERR_SYS, "cannot start the thread that ends kernels' leases "
                         "(%s)", strerror(e));
    }
    L.revoker_up = true;
    return UVAS_OK;
}

/* The table, at the first run (L.mu held): false if there is none. */
static bool make_table(void)
{
    if (L.made || L.failed)
        return L.made;
    L.failed = true;
    L.d = &uvas_g.devtier.dev;
    size_t rows = (size_t)L.nslots * uvas_g.nblocks;
    L.entries_off = HEADER + (((size_t)uvas_job.n * 4 + 15) & ~(size_t)15);
    size_t bytes = L.entries_off + rows * sizeof(struct lease_entry);
    if (bytes > TABLE_MAX) {
        uvas_warn("kernels reach other PEs' memory through the host: a table of leases "
                  "for %d PEs on this GPU would take %zu MiB of device memory (%zu blocks "
                  "each); a larger UVAS_BLOCK_SIZE or a smaller UVAS_SIZE makes it fit in "
                  "%zu MiB", L.nslots, bytes >> 20, (size_t)uvas_g.nblocks, TABLE_MAX >> 20);
        return false;
    }
    L.leased = calloc((rows + 7) / 8, 1);
    L.held = malloc(HELD_MAX * sizeof *L.held);
    void *m = NULL;
    if (!L.leased || !L.held ||
        uvas_gpu_buffer_make(L.d, bytes, UINT32_MAX, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                             &L.buf, &L.mem, "kernels' leases") != UVAS_OK ||
        vkMapMemory(L.d->dev, L.mem, 0, VK_WHOLE_SIZE, 0, &m) != VK_SUCCESS) {
        uvas_warn("kernels reach other PEs' memory through the host: %s",
                  uvas_last_error()[0] ? uvas_last_error() : "no memory for the leases");
        return false;
    }
    L.map = m;
    memset(L.map, 0, bytes);
    uint32_t *h = (uint32_t *)L.map;
    h[0] = (uint32_t)uvas_job.n;
    h[1] = (uint32_t)L.nslots;
    L.addr = uvas_vulkan_address(L.d, L.buf);
    uint64_t ea = L.addr + L.entries_off;
    memcpy(L.map + 8, &ea, 8);
    memcpy(L.map + HEADER, L.slot_of, (size_t)uvas_job.n * 4);
    for (int s = 0; s < L.nslots; s++)
        L.want_seen[s] = atomic_load_explicit(&uvas_job.peers[L.pe_of[s]].slots->want, ACQ);
    uvas_store_fence();
    L.made = true;
    L.failed = false;
    return true;
}

/* Lease block bi of the peer in row slot, if it is device memory we can
 * reach (L.mu held). */
static void lease_one(uint32_t slot, size_t bi)
{
    if (bit(slot, bi) || L.nheld == HELD_MAX)
        return;
    struct uvas_peer *p = &uvas_job.peers[L.pe_of[slot]];
    /* A look first: most blocks a run is offered are not device memory
     * there, and a pin is an atomic on the owner's line. */
    if (!(atomic_load_explicit(&p->gates[bi], RLX) & UVAS_GATE_DIRECT))
        return;
    uint64_t w = uvas_gate_pin(&p->pins[bi], &p->gates[bi]);
    struct uvas_devref ref;
    if (!uvas_gate_is_open(w) || uvas_gate_res(w) != UVAS_RES_DEVICE ||
        !(w & UVAS_GATE_DIRECT) || uvas_devpeer_slot(p, uvas_gate_slot(w), &ref) != UVAS_OK ||
        !ref.addr) {
        uvas_gate_unpin(&p->pins[bi]);
        return;
    }
    struct lease_entry *e = entry(slot, bi);
    atomic_store_explicit(&e->delta, (uint64_t)ref.addr - (uint64_t)(uintptr_t)uvas_block_addr(bi),
                          RLX);
    uvas_store_fence(); /* delta before valid, also through a write-combining mapping */
    atomic_store_explicit(&e->valid, 1, RLX);
    set_bit(slot, bi, true);
    L.held[L.nheld++] = (struct held){slot, (uint32_t)bi};
    atomic_fetch_add_explicit(&uvas_g.ctr.kernel_peer_leases, 1, RLX);
    if (L.nheld == 1)
        pthread_cond_signal(&L.cv);
}

/* A kernel leaves an entry within the few accesses it pinned it for; one
 * that has not after this long is no more (a lost device). */
#define PINS_GIVE_UP_NS 5000000000ull

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* End lease i (L.mu held): kernels stop taking it, those inside leave,
 * then our pin at the owner goes. spin: kernels may be running. */
static void end_one(size_t i, bool spin)
{
    struct held h = L.held[i];
    struct lease_entry *e = entry(h.slot, h.bi);
    atomic_store_explicit(&e->valid, 0, RLX);
    /* valid's store, then the read of pins (the Dekker pair): mfence
     * orders a write-combined store before a later load too. */
    atomic_thread_fence(SEQ);
    uint64_t t0 = spin ? now_ns() : 0;
    while (spin && atomic_load_explicit(&e->pins, RLX)) {
        if (now_ns() - t0 > PINS_GIVE_UP_NS) {
            uvas_warn("a kernel of this PE has held PE %d's block %u for over %llu s: taken "
                      "back regardless (was the device lost?)", L.pe_of[h.slot], h.bi,
                      PINS_GIVE_UP_NS / 1000000000ull);
            break;
        }
    }
    if (!spin || atomic_load_explicit(&e->pins, RLX)) /* no kernel runs, or none answers */
        atomic_store_explicit(&e->pins, 0, RLX);
    struct uvas_peer *p = &uvas_job.peers[L.pe_of[h.slot]];
    uvas_gate_unpin(&p->pins[h.bi]);
    set_bit(h.slot, h.bi, false);
    L.held[i] = L.held[--L.nheld];
}

uint64_t uvas_lease_run_begin(void)
{
    pthread_mutex_lock(&L.mu);
    uint64_t a = 0;
    if (L.nslots && make_table()) {
        a = L.addr;
        L.in_run = true;
        L.upfront = 0;
    }
    pthread_mutex_unlock(&L.mu);
    return a;
}

void uvas_lease_blocks(const size_t *blocks, size_t n)
{
    pthread_mutex_lock(&L.mu);
    for (size_t i = 0; i < n && L.in_run; i++)
        for (uint32_t s = 0; s < (uint32_t)L.nslots && L.upfront < UPFRONT_MAX; s++, L.upfront++)
            lease_one(s, blocks[i]);
    pthread_mutex_unlock(&L.mu);
}

void uvas_lease_range(int pe, const void *addr, size_t n)
{
    if (!L.nslots || pe < 0 || pe >= uvas_job.n || L.slot_of[pe] < 0 || !n ||
        !uvas_in_range(addr))
        return;
    size_t first = uvas_block_index(addr);
    size_t last = uvas_block_index((const char *)addr + n - 1);
    pthread_mutex_lock(&L.mu);
    for (size_t bi = first; bi <= last && bi < uvas_g.nblocks && L.in_run; bi++)
        lease_one((uint32_t)L.slot_of[pe], bi);
    pthread_mutex_unlock(&L.mu);
}

void uvas_lease_run_end(void)
{
    pthread_mutex_lock(&L.mu);
    /* The kernels have finished: nobody is inside an entry. */
    while (L.nheld)
        end_one(L.nheld - 1, false);
    L.in_run = false;
    pthread_mutex_unlock(&L.mu);
}

/* The revoker: while leases are held, look at each owner's want word; when
 * one moved, end our leases there whose gate is closed (their owner's
 * transition waits for us). */
static void *revoker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&L.mu);
    while (!L.stop) {
        if (!L.nheld) {
            pthread_cond_wait(&L.cv, &L.mu);
            continue;
        }
        for (int s = 0; s < L.nslots; s++) {
            struct uvas_peer *p = &uvas_job.peers[L.pe_of[s]];
            uint32_t w = atomic_load_explicit(&p->slots->want, ACQ);
            if (w == L.want_seen[s])
                continue;
            L.want_seen[s] = w;
            for (size_t i = L.nheld; i-- > 0;)
                if (L.held[i].slot == (uint32_t)s &&
                    !uvas_gate_is_open(atomic_load_explicit(&p->gates[L.held[i].bi], ACQ))) {
                    end_one(i, true);
                    atomic_fetch_add_explicit(&uvas_g.ctr.kernel_peer_revokes, 1, RLX);
                }
        }
        pthread_mutex_unlock(&L.mu);
        struct timespec ts = {0, POLL_NS};
        nanosleep(&ts, NULL);
        pthread_mutex_lock(&L.mu);
    }
    pthread_mutex_unlock(&L.mu);
    return NULL;
}

void uvas_lease_fini(void)
{
    if (L.revoker_up) {
        pthread_mutex_lock(&L.mu);
        L.stop = true;
        pthread_cond_signal(&L.cv);
        pthread_mutex_unlock(&L.mu);
        pthread_join(L.revoker, NULL);
        L.revoker_up = false;
    }
    uvas_lease_run_end();
    if (L.made) {
        vkUnmapMemory(L.d->dev, L.mem);
        vkDestroyBuffer(L.d->dev, L.buf, NULL);
        vkFreeMemory(L.d->dev, L.mem, NULL);
    }
    free(L.slot_of), free(L.pe_of), free(L.want_seen), free(L.leased), free(L.held);
    L.slot_of = L.pe_of = NULL;
    L.want_seen = NULL;
    L.leased = NULL;
    L.held = NULL;
    L.nslots = 0;
    L.made = L.failed = false;
    L.map = NULL;
    L.addr = 0;
}
