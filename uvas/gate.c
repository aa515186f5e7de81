/* The gate tables and the owner's half of the protocol (uvas/gate.h). */
#include "uvas/gate.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uvas/internal.h"
#include "uvas/os.h"
#include "uvas/status.h"

void (*uvas_gate_stuck_hook)(size_t block, unsigned table, double seconds);
static _Atomic uint64_t waits, heavy_fences;

/* Joining the heavy fences (gate.h: light slots), once per process: before
 * its first slot and before it makes a table. */
_Atomic bool uvas_gate_joined;
static pthread_once_t join_once = PTHREAD_ONCE_INIT;

static void join(void)
{
    atomic_store(&uvas_gate_joined, uvas_os_heavy_fence_join());
}

/* The pin tables. A table is published (its pointer, then its index in
 * live[]) before its descriptor leaves this process, so a transition that
 * does not see it yet cannot have missed a pin in it: whoever pins there
 * got the descriptor after the publication, and reads the gate after
 * pinning, which is after our CLOSED. */
static struct {
    pthread_mutex_t mu;
    unsigned n;                       /* room */
    _Atomic uint32_t *_Atomic *tab;   /* [n] */
    int *fd;                          /* [n] */
    unsigned *live;                   /* indices of made tables, in order */
    _Atomic unsigned nlive;
    /* Accesses this PE served for party t (gate.h: accesses by other
     * PEs), made on the first one: [n] of nblocks counters each. */
    _Atomic uint32_t *_Atomic *served;
    /* Threads reading the tables without the lock (a transition's drain,
     * the diagnostics): teardown waits for them before it frees. */
    _Atomic unsigned readers;
} pins = {.mu = PTHREAD_MUTEX_INITIALIZER};

/* A lock-free reader of the pin tables enters: the tables it then finds
 * live (nlive) stay until it leaves. Both sides write one word and read
 * the other's (seq_cst): either the reader sees nlive 0 or teardown sees
 * the reader. */
static unsigned readers_enter(void)
{
    atomic_fetch_add_explicit(&pins.readers, 1, memory_order_seq_cst);
    return atomic_load_explicit(&pins.nlive, memory_order_seq_cst);
}

static void readers_leave(void)
{
    atomic_fetch_sub_explicit(&pins.readers, 1, memory_order_release);
}

static size_t pages(size_t bytes)
{
    return uvas_page_up(bytes);
}

size_t uvas_gate_table_bytes(void)
{
    return pages(uvas_g.nblocks * sizeof(uint64_t));
}

static size_t counters_bytes(void)
{
    return pages(uvas_g.nblocks * sizeof(uint32_t));
}

size_t uvas_gate_pins_bytes(void)
{
    return 3 * counters_bytes() + pages(sizeof(struct uvas_gate_slots));
}

struct uvas_gate_slots *uvas_gate_slots_of(_Atomic uint32_t *pins)
{
    return (struct uvas_gate_slots *)((char *)pins + counters_bytes());
}

_Atomic uint32_t *uvas_gate_acc_of(_Atomic uint32_t *pins)
{
    return (_Atomic uint32_t *)((char *)pins + counters_bytes() +
                                pages(sizeof(struct uvas_gate_slots)));
}

_Atomic uint32_t *uvas_gate_acc_kernels_of(_Atomic uint32_t *pins)
{
    return uvas_gate_kernels_beside(uvas_gate_acc_of(pins));
}

_Atomic uint32_t *uvas_gate_kernels_beside(_Atomic uint32_t *acc)
{
    return (_Atomic uint32_t *)((char *)acc + counters_bytes());
}

/* ---- this process's slot indices ------------------------------------------ */

__thread int uvas_gate_slot_mine __attribute__((tls_model("initial-exec")));
static _Atomic uint64_t slots_taken; /* bit k: index k is a live thread's */
static pthread_key_t slot_key;
static pthread_once_t slot_once = PTHREAD_ONCE_INIT;
static bool slot_key_ok;

static void slot_release(void *v)
{
    unsigned k = (unsigned)(uintptr_t)v - 1;
    atomic_fetch_and_explicit(&slots_taken, ~(1ull << k), memory_order_release);
}

/* A forked child shares its parent's tables: its thread must not use the
 * slot its parent's thread goes on using. */
static void slot_after_fork(void)
{
    uvas_gate_slot_mine = -1;
}

static void slot_init(void)
{
    pthread_once(&join_once, join);
    slot_key_ok = pthread_key_create(&slot_key, slot_release) == 0;
    pthread_atfork(NULL, NULL, slot_after_fork);
}

int uvas_gate_slot_claim(void)
{
    pthread_once(&slot_once, slot_init);
    int k = -1;
    uint64_t t = atomic_load_explicit(&slots_taken, memory_order_relaxed);
    while (slot_key_ok) {
        uint64_t free_bits = ~t & ((1ull << UVAS_GATE_SLOTS) - 1);
        if (!free_bits)
            break;
        unsigned i = (unsigned)__builtin_ctzll(free_bits);
        if (atomic_compare_exchange_weak_explicit(&slots_taken, &t, t | (1ull << i),
                                                  memory_order_acquire, memory_order_relaxed)) {
            /* The key's destructor gives the index back when the thread ends. */
            if (pthread_setspecific(slot_key, (void *)(uintptr_t)(i + 1)) == 0)
                k = (int)i + 1;
            else
                slot_release((void *)(uintptr_t)(i + 1));
            break;
        }
    }
    uvas_gate_slot_mine = k;
    return k;
}

void uvas_gate_slots_raise(struct uvas_gate_slots *t, uint32_t hw)
{
    uint32_t cur = atomic_load_explicit(&t->hw, memory_order_relaxed);
    while (cur < hw && !atomic_compare_exchange_weak_explicit(&t->hw, &cur, hw,
                                                              memory_order_seq_cst,
                                                              memory_order_relaxed))
        ;
}

/* Slots [0, n) of table t that the owner must read: the party writes the
 * mark, so it is clamped. */
static uint32_t slots_used(struct uvas_gate_slots *t)
{
    uint32_t n = atomic_load_explicit(&t->hw, memory_order_seq_cst);
    return n < UVAS_GATE_SLOTS ? n : UVAS_GATE_SLOTS;
}

int uvas_gate_table_create(size_t nblocks, int *fd, _Atomic uint64_t **out)
{
    size_t bytes = pages(nblocks * sizeof(uint64_t));
    void *p;
    int rc = uvas_os_shared_table("uvas-residence", bytes, true, fd, &p);
    if (rc)
        return rc;
    /* Our mapping stays writable; every later one (a peer's) cannot be. */
    if ((rc = uvas_os_seal_for_others(*fd, "residence table"))) {
        uvas_os_shared_table_free(p, bytes, *fd);
        *fd = -1;
        return rc;
    }
    *out = p;
    return UVAS_OK;
}

void uvas_gate_table_destroy(_Atomic uint64_t *g, size_t nblocks, int fd)
{
    uvas_os_shared_table_free((void *)g, pages(nblocks * sizeof(uint64_t)), fd);
}

int uvas_gate_pins_setup(unsigned ntables)
{
    pthread_mutex_lock(&pins.mu);
    int rc = UVAS_OK;
    if (pins.n) {
        rc = uvas_fail(UVAS_ERR_INVAL, "pin tables are set up already");
    } else {
        pins.tab = calloc(ntables, sizeof *pins.tab);
        pins.fd = malloc(ntables * sizeof *pins.fd);
        pins.live = calloc(ntables, sizeof *pins.live);
        pins.served = calloc(ntables, sizeof *pins.served);
        if (!pins.tab || !pins.fd || !pins.live || !pins.served) {
            free((void *)pins.tab), free(pins.fd), free(pins.live), free((void *)pins.served);
            pins.tab = NULL, pins.fd = NULL, pins.live = NULL, pins.served = NULL;
            rc = uvas_fail(UVAS_ERR_NOMEM, "no memory for %u pin tables", ntables);
        } else {
            for (unsigned i = 0; i < ntables; i++)
                pins.fd[i] = -1;
            pins.n = ntables;
        }
    }
    pthread_mutex_unlock(&pins.mu);
    return rc;
}

void uvas_gate_pins_teardown(void)
{
    pthread_mutex_lock(&pins.mu);
    unsigned nl = atomic_load(&pins.nlive);
    atomic_store_explicit(&pins.nlive, 0, memory_order_seq_cst);
    /* A transition that found them live drains on (a pin covers one
     * bounded access), then leaves. */
    while (atomic_load_explicit(&pins.readers, memory_order_seq_cst))
        sched_yield();
    for (unsigned k = 0; k < nl; k++) {
        unsigned i = pins.live[k];
        uvas_os_shared_table_free((void *)atomic_load(&pins.tab[i]), uvas_gate_pins_bytes(),
                                  pins.fd[i]);
    }
    for (unsigned i = 0; i < pins.n; i++)
        free((void *)atomic_load(&pins.served[i]));
    free((void *)pins.tab), free(pins.fd), free(pins.live), free((void *)pins.served);
    pins.tab = NULL, pins.fd = NULL, pins.live = NULL, pins.served = NULL;
    pins.n = 0;
    pthread_mutex_unlock(&pins.mu);
}

int uvas_gate_pins_get(unsigned t, _Atomic uint32_t **out, int *fd)
{
    pthread_mutex_lock(&pins.mu);
    int rc = UVAS_OK;
    if (t >= pins.n) {
        rc = uvas_fail(UVAS_ERR_INVAL, "pin table %u does not exist (%u set up)", t, pins.n);
    } else if (!atomic_load(&pins.tab[t])) {
        void *p;
        int f;
        rc = uvas_os_shared_table("uvas-pins", uvas_gate_pins_bytes(), false, &f, &p);
        if (rc == UVAS_OK) {
            pthread_once(&join_once, join);
            atomic_store(&uvas_gate_slots_of(p)->light, atomic_load(&uvas_gate_joined));
            atomic_store(&uvas_gate_slots_of(p)->count, uvas_gate_counting_on());
            pins.fd[t] = f;
            atomic_store(&pins.tab[t], (_Atomic uint32_t *)p);
            unsigned nl = atomic_load(&pins.nlive);
            pins.live[nl] = t;
            atomic_store(&pins.nlive, nl + 1);
        }
    }
    if (rc == UVAS_OK) {
        *out = atomic_load(&pins.tab[t]);
        if (fd)
            *fd = pins.fd[t];
    }
    pthread_mutex_unlock(&pins.mu);
    return rc;
}

uint64_t uvas_gate_pins_held(size_t bi)
{
    uint64_t n = 0;
    unsigned nl = readers_enter();
    for (unsigned k = 0; k < nl; k++) {
        _Atomic uint32_t *tab = atomic_load(&pins.tab[pins.live[k]]);
        n += atomic_load(&tab[bi]);
        struct uvas_gate_slots *sl = uvas_gate_slots_of(tab);
        for (uint32_t i = 0, m = slots_used(sl); i < m; i++)
            n += atomic_load(&sl->s[i].block) == (uint64_t)bi + 1;
    }
    readers_leave();
    return n;
}

/* ---- accesses by other PEs ------------------------------------------------- */

static _Atomic bool counting;
/* Counting was on at some point: until then no count can be held, and the
 * readers and the forgetting below return at once (a view is taken on
 * every fault, a free forgets per chunk of blocks). */
static _Atomic bool counted;

void uvas_gate_counting(bool on)
{
    pthread_mutex_lock(&pins.mu);
    if (on)
        atomic_store(&counted, true);
    else if (!pins.n) /* no table, no count held: a later run starts clean */
        atomic_store(&counted, false);
    atomic_store(&counting, on);
    pthread_mutex_unlock(&pins.mu);
}

static bool none_counted(void)
{
    return !atomic_load_explicit(&counted, memory_order_relaxed);
}

bool uvas_gate_counting_on(void)
{
    return atomic_load_explicit(&counting, memory_order_relaxed);
}

void uvas_gate_count_served(unsigned t, size_t bi)
{
    if (!uvas_gate_counting_on())
        return;
    if (readers_enter() && t < pins.n && bi < uvas_g.nblocks) {
        _Atomic uint32_t *c = atomic_load_explicit(&pins.served[t], memory_order_acquire);
        if (!c) {
            _Atomic uint32_t *fresh = calloc(uvas_g.nblocks, sizeof *fresh), *none = NULL;
            if (fresh && !atomic_compare_exchange_strong(&pins.served[t], &none, fresh)) {
                free((void *)fresh);
                fresh = none;
            }
            c = fresh;
        }
        if (c)
            atomic_fetch_add_explicit(&c[bi], 1, memory_order_relaxed);
    }
    readers_leave();
}

/* Party t's counts on block bi: its own (table, both agents) and the
 * served ones, and (*kernels) its kernels' part (readers entered,
 * t < pins.n). */
static uint32_t acc_of_party(unsigned t, size_t bi, uint32_t *kernels)
{
    uint32_t n = 0, k = 0;
    _Atomic uint32_t *tab = atomic_load(&pins.tab[t]);
    if (tab) {
        k = atomic_load_explicit(&uvas_gate_acc_kernels_of(tab)[bi], memory_order_relaxed);
        n += k + atomic_load_explicit(&uvas_gate_acc_of(tab)[bi], memory_order_relaxed);
    }
    _Atomic uint32_t *c = atomic_load_explicit(&pins.served[t], memory_order_acquire);
    if (c)
        n += atomic_load_explicit(&c[bi], memory_order_relaxed);
    *kernels = k;
    return n;
}

uint32_t uvas_gate_acc(unsigned t, size_t bi, uint32_t *kernels)
{
    uint32_t n = 0, k = 0;
    if (!none_counted()) {
        if (readers_enter() && t < pins.n && bi < uvas_g.nblocks)
            n = acc_of_party(t, bi, &k);
        readers_leave();
    }
    if (kernels)
        *kernels = k;
    return n;
}

void uvas_gate_peer_sum(size_t bi, struct uvas_gate_peer_sum *out)
{
    *out = (struct uvas_gate_peer_sum){.top = -1};
    if (none_counted()) /* every fault's view asks: nothing to read, no locked instruction */
        return;
    uint32_t most = 0;
    if (readers_enter() && pins.n && bi < uvas_g.nblocks) {
        for (unsigned t = 0; t + 1 < pins.n; t++) {
            uint32_t k, n = acc_of_party(t, bi, &k);
            out->all += n;
            out->kernels += k;
            if (n > most)
                most = n, out->top = (int)t;
        }
        uint32_t k;
        out->network = acc_of_party(pins.n - 1, bi, &k); /* the remote peers' table */
        out->all += out->network;
    }
    readers_leave();
}

void uvas_gate_acc_forget(size_t s, size_t n)
{
    if (none_counted())
        return;
    if (readers_enter() && s <= uvas_g.nblocks && n <= uvas_g.nblocks - s)
        for (unsigned t = 0; t < pins.n; t++) {
            _Atomic uint32_t *tab = atomic_load(&pins.tab[t]);
            _Atomic uint32_t *c = atomic_load_explicit(&pins.served[t], memory_order_acquire);
            for (size_t bi = s; bi < s + n; bi++) {
                if (tab) {
                    atomic_store_explicit(&uvas_gate_acc_of(tab)[bi], 0, memory_order_relaxed);
                    atomic_store_explicit(&uvas_gate_acc_kernels_of(tab)[bi], 0,
                                          memory_order_relaxed);
                }
                if (c)
                    atomic_store_explicit(&c[bi], 0, memory_order_relaxed);
            }
        }
    readers_leave();
}

unsigned uvas_gate_ranks(void)
{
    unsigned n = readers_enter() && pins.n ? pins.n - 1 : 0;
    readers_leave();
    return n;
}

static double since(uint64_t t0)
{
    return (double)(uvas_os_now_ns() - t0) * 1e-9;
}

/* Does a pin table hold a pin on block bi: its counter, or a slot below n? */
static bool pinned(_Atomic uint32_t *tab, struct uvas_gate_slots *sl, uint32_t n, size_t bi)
{
    /* seq_cst: the owner's half of the Dekker pair (gate.h). */
    if (atomic_load_explicit(&tab[bi], memory_order_seq_cst))
        return true;
    for (uint32_t i = 0; i < n; i++)
        if (atomic_load_explicit(&sl->s[i].block, memory_order_seq_cst) == (uint64_t)bi + 1)
            return true;
    return false;
}

/* Wait until table t holds no pin on block bi. */
static void drain(_Atomic uint32_t *tab, unsigned t, size_t bi)
{
    struct uvas_gate_slots *sl = uvas_gate_slots_of(tab);
    uint32_t n = slots_used(sl);
    if (!pinned(tab, sl, n, bi))
        return;
    atomic_fetch_add_explicit(&waits, 1, memory_order_relaxed);
    /* After the close (seq_cst): a party that sees the bump sees it. */
    atomic_fetch_add_explicit(&sl->want, 1, memory_order_seq_cst);
    /* A pin covers one bounded access (a store, a copy): spin briefly,
     * then yield, and past seconds ask whether the pinning peer is alive. */
    uint64_t t0 = uvas_os_now_ns();
    double next_report = 5.0;
    for (unsigned i = 0; pinned(tab, sl, n, bi); i++) {
        if (i < 64)
            continue;
        sched_yield();
        if ((i & 1023) == 0 && since(t0) > next_report) {
            if (uvas_gate_stuck_hook)
                uvas_gate_stuck_hook(bi, t, since(t0));
            next_report *= 2;
        }
    }
}

/* Could a quick pin have gone into the memory of a block whose word was
 * w: open, and where peers reach it directly? (One that found it
 * untouched read zeros without touching it: uvas_side_own.) */
static bool reachable(uint64_t w)
{
    int res = uvas_gate_res(w);
    return uvas_gate_is_open(w) &&
           (res == UVAS_RES_HOST || (res == UVAS_RES_DEVICE && (w & UVAS_GATE_DIRECT)));
}

/* Do any of the nl live tables have slots in use? Read after the close: a
 * thread that raises a mark from 0 later reads the word after the close
 * too (gate.h). */
static bool slots_in_use(unsigned nl)
{
    for (unsigned k = 0; k < nl; k++) {
        _Atomic uint32_t *tab = atomic_load_explicit(&pins.tab[pins.live[k]], memory_order_acquire);
        if (slots_used(uvas_gate_slots_of(tab)))
            return true;
    }
    return false;
}

/* Wait for the pins on blocks bi[0..n) that were closed, their words
 * before the close in was[]: one heavy fence first where light slots may
 * be inside one of them (gate.h). Only tables this process made light
 * hold such slots. */
static void drain_closed(const size_t *bi, const uint64_t *was, size_t n)
{
    unsigned nl = readers_enter();
    bool reach = false;
    for (size_t i = 0; i < n && !reach; i++)
        reach = reachable(was[i]);
    if (reach && atomic_load_explicit(&uvas_gate_joined, memory_order_relaxed) &&
        slots_in_use(nl)) {
        uvas_os_heavy_fence();
        atomic_fetch_add_explicit(&heavy_fences, 1, memory_order_relaxed);
    }
    for (size_t i = 0; i < n; i++)
        for (unsigned k = 0; k < nl; k++) {
            unsigned t = pins.live[k];
            drain(atomic_load_explicit(&pins.tab[t], memory_order_acquire), t, bi[i]);
        }
    readers_leave();
}

/* This thread's batch of closes waiting for their drain. */
#define BATCH_MAX 64
static __thread struct {
    bool on;
    size_t n;
    size_t bi[BATCH_MAX];
    uint64_t was[BATCH_MAX];
} batch;

void uvas_gate_batch_begin(void)
{
    batch.on = true;
}

void uvas_gate_batch_flush(void)
{
    drain_closed(batch.bi, batch.was, batch.n);
    batch.n = 0;
}

void uvas_gate_batch_end(void)
{
    uvas_gate_batch_flush();
    batch.on = false;
}

static void close_gate(struct uvas_block *b, bool batched)
{
    if (!uvas_g.gates)
        return;
    size_t bi = (size_t)(b - uvas_g.bt);
    uint64_t was = atomic_fetch_or_explicit(&uvas_g.gates[bi], UVAS_GATE_CLOSED,
                                            memory_order_seq_cst);
    if (!batched || !batch.on) {
        drain_closed(&bi, &was, 1);
        return;
    }
    if (batch.n == BATCH_MAX)
        uvas_gate_batch_flush();
    batch.bi[batch.n] = bi;
    batch.was[batch.n++] = was;
}

void uvas_gate_close(struct uvas_block *b)
{
    close_gate(b, false);
}

/* Only the closes the batch's owner asks for are deferred: any other on
 * this thread meanwhile (an eviction that makes room) waits at once, since
 * its caller moves the block right after. */
void uvas_gate_close_batched(struct uvas_block *b)
{
    close_gate(b, true);
}

void uvas_gate_open(struct uvas_block *b, uint32_t s)
{
    if (!uvas_g.gates)
        return;
    uint64_t res = (uint64_t)uvas_blk_res(s);
    uint64_t pub = res << UVAS_GATE_RES_SHIFT;
    if (res == UVAS_RES_DEVICE && b->dev_slot &&
        !uvas_devtier_is_dedicated(&uvas_g.devtier, b->dev_slot) &&
        !uvas_devtier_is_foreign(b->dev_slot) && /* another process's memory */
        !atomic_load_explicit(&b->dup, memory_order_relaxed))
        pub |= UVAS_GATE_DIRECT | ((uint64_t)b->dev_slot << UVAS_GATE_SLOT_SHIFT);
    if (s & UVAS_BLK_BUSY) /* published while held: keep peers out */
        pub |= UVAS_GATE_CLOSED;
    atomic_store_explicit(&uvas_g.gates[b - uvas_g.bt], pub, memory_order_release);
}

uint64_t uvas_gate_waits(void)
{
    return atomic_load_explicit(&waits, memory_order_relaxed);
}

uint64_t uvas_gate_heavy_fences(void)
{
    return atomic_load_explicit(&heavy_fences, memory_order_relaxed);
}
