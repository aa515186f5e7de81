/* Leases on peers' device memory for this PE's kernels (lease.h). */
#include "transport/pe/lease.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <time.h>

#include "gpu/buffer.h"
#include "migrate/import.h"
#include "transport/pe/devpeer.h"
#include "transport/pe/job.h"
#include "transport/pe/lease_stuck.h"
#include "uvas/atomics.h"
#include "uvas/gate.h"
#include "uvas/internal.h"
#include "uvas/os.h"
#include "uvas/status.h"

/* An entry of the table, as include/shmem.glsl reads it. */
struct lease_entry {
    /* 0, or the block's device address less its uvas address with VALID_*
     * in the low bits: one word, so a kernel takes the pair in one read
     * (a pin, a barrier and one load: docs/kernels.md) and never sees a
     * kind without its address. */
    _Atomic uint64_t lent;
    _Atomic uint32_t pins; /* kernels' accesses in flight */
    uint32_t pad;
};
_Static_assert(sizeof(struct lease_entry) == 16, "shmem.glsl's shmem_lease_ is 16 bytes");

/* The kind: device memory (every access), or host memory (stores only: a
 * GPU's atomics on host memory are not atomic with the CPU's over PCIe,
 * and a running kernel may keep host memory it read in its caches, so
 * atomics and reads there go to the owner's CPU through the ring). Both
 * addresses are at least page-aligned, so the delta's low bits are free. */
#define VALID_DEVICE 1u
#define VALID_HOST 2u
#define VALID_MASK 3u

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
/* Host-resident blocks leased in a run: each is an import of the peer's
 * pages (pinned by the driver), made when the proxy served a request
 * there and released when the run ends. Blocks larger than HOST_BLOCK_MAX
 * are not worth an import per run. */
#define HOST_MAX 256
#define HOST_BLOCK_MAX ((size_t)64 << 20)
/* Requests served this run per peer block, in a table of this many
 * entries (direct-mapped: a collision only restarts a count). */
#define SEEN 1024

struct seen {
    uint64_t key; /* slot and block, + 1; with the run's number */
    uint32_t run, n;
};

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
    uint8_t *leased;       /* a bit per row and block: the host's copy of lent != 0 */
    struct held *held;
    size_t nheld;
    struct held *ending;   /* the revoker's: leases it is ending, out of held */
    struct uvas_import *imports; /* this run's imports of peers' host blocks */
    size_t nimports;
    struct seen *seen;     /* requests served per block this run */
    uint32_t run;          /* this run's number (seen entries of others are stale) */
    bool host_failed;      /* an import failed: host blocks are not lent any more */
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
    L.ending = malloc(HELD_MAX * sizeof *L.ending);
    L.imports = calloc(HOST_MAX, sizeof *L.imports);
    L.seen = calloc(SEEN, sizeof *L.seen);
    void *m = NULL;
    if (!L.leased || !L.held || !L.ending || !L.imports || !L.seen ||
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

/* The device address of peer p's host-resident block bi for this run: an
 * import of its pages in our window onto its host tier; 0 where there is
 * none (L.mu held). */
static uint64_t import_host(struct uvas_peer *p, size_t bi)
{
    if (!p->win || uvas_g.block_size > HOST_BLOCK_MAX || L.nimports == HOST_MAX ||
        L.host_failed)
        return 0;
    struct uvas_import *im = &L.imports[L.nimports];
    char *at = p->win + ((const char *)uvas_block_addr(bi) - uvas_g.base);
    int rc = uvas_import_host(L.d, at, uvas_g.block_size, im);
    if (rc != UVAS_OK || !im->addr) {
        /* Said once, and not tried again: every later request would pay
         * for the attempt. The launch goes on through the host. */
        uvas_warn("kernels' stores into other PEs' host memory go through the host: %s",
                  rc != UVAS_OK ? uvas_last_error() : "the import has no device address");
        uvas_clear_error(); /* the launch itself did not fail */
        uvas_import_release(L.d, im);
        L.host_failed = true;
        return 0;
    }
    L.nimports++;
    return im->addr;
}

/* Lease block bi of the peer in row slot, if it is device memory we can
 * reach, or (host: an import is worth it for this run) host memory (L.mu
 * held). */
static void lease_one(uint32_t slot, size_t bi, bool host)
{
    if (bit(slot, bi) || L.nheld == HELD_MAX)
        return;
    struct uvas_peer *p = &uvas_job.peers[L.pe_of[slot]];
    /* A look first: most blocks a run is offered are not device memory
     * there, and a pin is an atomic on the owner's line. */
    uint64_t g = atomic_load_explicit(&p->gates[bi], RLX);
    bool dev = g & UVAS_GATE_DIRECT;
    if (!dev && !(host && uvas_gate_res(g) == UVAS_RES_HOST))
        return;
    uint64_t w = uvas_gate_pin(&p->pins[bi], &p->gates[bi]);
    struct uvas_devref ref = {0};
    uint64_t addr = 0;
    if (uvas_gate_is_open(w) && dev && uvas_gate_res(w) == UVAS_RES_DEVICE &&
        (w & UVAS_GATE_DIRECT) && uvas_devpeer_slot(p, uvas_gate_slot(w), &ref) == UVAS_OK)
        addr = ref.addr;
    else if (uvas_gate_is_open(w) && !dev && uvas_gate_res(w) == UVAS_RES_HOST)
        addr = import_host(p, bi); /* the pages stay while we pin the block */
    if (!addr) {
        uvas_gate_unpin(&p->pins[bi]);
        return;
    }
    uint64_t delta = addr - (uint64_t)(uintptr_t)uvas_block_addr(bi);
    if (delta & VALID_MASK) { /* never seen: Vulkan's addresses are aligned */
        uvas_gate_unpin(&p->pins[bi]);
        return;
    }
    atomic_store_explicit(&entry(slot, bi)->lent, delta | (dev ? VALID_DEVICE : VALID_HOST), RLX);
    set_bit(slot, bi, true);
    uvas_gate_count_kernels_if(p->slots, p->acc, bi); /* the run's kernels reach it: one access */
    L.held[L.nheld++] = (struct held){slot, (uint32_t)bi};
    atomic_fetch_add_explicit(&uvas_g.ctr.kernel_peer_leases, 1, RLX);
    if (L.nheld == 1)
        pthread_cond_signal(&L.cv);
}

/* A kernel leaves an entry within the few accesses it pinned it for; one
 * that has not after this long is no more (a lost device). */
#define PINS_GIVE_UP_NS 5000000000ull

/* Wait for the kernels inside entry e to leave (L.mu not held: the
 * launching thread serves its kernels' requests meanwhile, which those
 * kernels may be waiting for). */
static void drain_pins(struct lease_entry *e, int pe, uint32_t bi)
{
    uint32_t base = uvas_lease_stuck_left(e);
    uint64_t t0 = uvas_os_now_ns();
    for (;;) {
        uint32_t now = atomic_load_explicit(&e->pins, RLX);
        if (now < base) /* pins left behind came back after all */
            uvas_lease_stuck_set(e, base = now);
        if (now <= base)
            return;
        if (uvas_os_now_ns() - t0 > PINS_GIVE_UP_NS)
            break;
        sched_yield();
    }
    /* pins is left as it is: only kernels move it, each by +1 and -1 (the
     * host once wrote 0 over a kernel's pin, which its unpin then took
     * below zero, and every later end of that lease waited here for
     * seconds: docs/reliability.md). What is left is remembered instead. */
    uint32_t left = atomic_load_explicit(&e->pins, RLX);
    uvas_warn("a kernel of this PE has held PE %d's block %u for over %llu s (%u accesses in "
              "flight): taken back regardless (was the device lost?)", pe, bi,
              PINS_GIVE_UP_NS / 1000000000ull, (unsigned)(left - base));
    uvas_lease_stuck_set(e, left);
}

/* Stop kernels from taking held lease i, and take it out of the held set
 * (L.mu held): its bit stays set, so the block is not lent again before
 * its end is done (finish). */
static struct held stop_one(size_t i)
{
    struct held h = L.held[i];
    atomic_store_explicit(&entry(h.slot, h.bi)->lent, 0, RLX);
    L.held[i] = L.held[--L.nheld];
    return h;
}

/* The kernels have left h's entry: our pin at the owner goes (L.mu held).
 * A kernel may still pin the entry for an instant, see lent 0 and leave
 * (the Dekker pair): its +1 and -1 are its own, never overwritten. */
static void finish(struct held h)
{
    uvas_gate_unpin(&uvas_job.peers[L.pe_of[h.slot]].pins[h.bi]);
    set_bit(h.slot, h.bi, false);
}

uint64_t uvas_lease_run_begin(void)
{
    pthread_mutex_lock(&L.mu);
    uint64_t a = 0;
    if (L.nslots && make_table()) {
        a = L.addr;
        L.in_run = true;
        L.upfront = 0;
        L.run++;
    }
    pthread_mutex_unlock(&L.mu);
    return a;
}

void uvas_lease_blocks(const size_t *blocks, size_t n)
{
    bool host = uvas_job.lease_host_after == 0;
    pthread_mutex_lock(&L.mu);
    for (size_t i = 0; i < n && L.in_run; i++)
        for (uint32_t s = 0; s < (uint32_t)L.nslots && L.upfront < UPFRONT_MAX; s++, L.upfront++)
            lease_one(s, blocks[i], host);
    pthread_mutex_unlock(&L.mu);
}

/* One more request served at block bi of the peer in row slot this run:
 * has the block seen enough to be worth an import (L.mu held)? */
static bool busy_enough(uint32_t slot, size_t bi)
{
    size_t after = uvas_job.lease_host_after;
    if (after <= 1 || after == SIZE_MAX)
        return after != SIZE_MAX;
    uint64_t key = ((uint64_t)slot << 40 | bi) + 1;
    struct seen *e = &L.seen[(key * 0x9e3779b97f4a7c15ull) >> 54]; /* SEEN = 2^10 */
    if (e->key != key || e->run != L.run)
        *e = (struct seen){key, L.run, 0};
    return ++e->n >= after;
}

void uvas_lease_range(int pe, const void *addr, size_t n)
{
    if (!L.nslots || pe < 0 || pe >= uvas_job.n || L.slot_of[pe] < 0 || !n ||
        !uvas_in_range(addr))
        return;
    size_t first = uvas_block_index(addr);
    size_t last = uvas_block_index((const char *)addr + n - 1);
    uint32_t slot = (uint32_t)L.slot_of[pe];
    pthread_mutex_lock(&L.mu);
    for (size_t bi = first; bi <= last && bi < uvas_g.nblocks && L.in_run; bi++)
        lease_one(slot, bi, !bit(slot, bi) && busy_enough(slot, bi));
    pthread_mutex_unlock(&L.mu);
}

void uvas_lease_run_end(void)
{
    pthread_mutex_lock(&L.mu);
    /* The kernels have finished: nobody is inside an entry, nor in the
     * host pages imported for them (kept until now: a lease taken back
     * during the run only stopped new accesses). Pins still counted are
     * ones a kernel took and never let go of. */
    while (L.nheld) {
        struct held h = stop_one(L.nheld - 1);
        const struct lease_entry *e = entry(h.slot, h.bi);
        uint32_t left = atomic_load_explicit(&e->pins, RLX), base = uvas_lease_stuck_left(e);
        if (left != base) {
            uvas_lease_stuck_set(e, left);
            if (left > base)
                uvas_warn("a kernel of this PE pinned its lease on PE %d's block %u and did "
                          "not let go (%u pins left after its run): later ends of that "
                          "lease wait only for the kernels after it", L.pe_of[h.slot], h.bi,
                          (unsigned)(left - base));
        }
        finish(h);
    }
    while (L.nimports)
        uvas_import_release(L.d, &L.imports[--L.nimports]);
    L.in_run = false;
    pthread_mutex_unlock(&L.mu);
}

/* The revoker: while leases are held, look at each owner's want word; when
 * one moved, end our leases there whose gate is closed (their owner's
 * transition waits for us): lent cleared under L.mu, the kernels' pins
 * drained without it, then our pins at the owners go under it again. */
static void *revoker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&L.mu);
    while (!L.stop) {
        if (!L.nheld) {
            pthread_cond_wait(&L.cv, &L.mu);
            continue;
        }
        size_t n = 0;
        for (int s = 0; s < L.nslots; s++) {
            struct uvas_peer *p = &uvas_job.peers[L.pe_of[s]];
            uint32_t w = atomic_load_explicit(&p->slots->want, ACQ);
            if (w == L.want_seen[s])
                continue;
            L.want_seen[s] = w;
            for (size_t i = L.nheld; i-- > 0;)
                if (L.held[i].slot == (uint32_t)s &&
                    !uvas_gate_is_open(atomic_load_explicit(&p->gates[L.held[i].bi], ACQ)))
                    L.ending[n++] = stop_one(i);
        }
        pthread_mutex_unlock(&L.mu);
        if (n) {
            /* lent's stores, then the reads of pins (the Dekker pair):
             * mfence orders a write-combined store before a later load too. */
            atomic_thread_fence(SEQ);
            for (size_t k = 0; k < n; k++)
                drain_pins(entry(L.ending[k].slot, L.ending[k].bi), L.pe_of[L.ending[k].slot],
                           L.ending[k].bi);
            pthread_mutex_lock(&L.mu);
            for (size_t k = 0; k < n; k++)
                finish(L.ending[k]);
            atomic_fetch_add_explicit(&uvas_g.ctr.kernel_peer_revokes, n, RLX);
            pthread_mutex_unlock(&L.mu);
        }
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
    uvas_lease_stuck_clear(); /* the table goes */
    if (L.made) {
        vkUnmapMemory(L.d->dev, L.mem);
        vkDestroyBuffer(L.d->dev, L.buf, NULL);
        vkFreeMemory(L.d->dev, L.mem, NULL);
    }
    free(L.slot_of), free(L.pe_of), free(L.want_seen), free(L.leased), free(L.held);
    free(L.imports), free(L.seen), free(L.ending);
    L.imports = NULL;
    L.ending = NULL;
    L.seen = NULL;
    L.slot_of = L.pe_of = NULL;
    L.want_seen = NULL;
    L.leased = NULL;
    L.held = NULL;
    L.nslots = 0;
    L.made = L.failed = L.host_failed = false;
    L.map = NULL;
    L.addr = 0;
}
