/*
 * The gate protocol in one process, where ThreadSanitizer sees both sides
 * (uvas/gate.h): "peer" threads pin blocks in pin tables of their own, read
 * the residence word and, when the gate is open at the host, add to their
 * own counters through the host alias (as a peer's window store does),
 * while a migrator thread moves the blocks between host and device and
 * back as fast as it can. Each increment done under an open gate must
 * survive every migration: at the end every counter equals the number of
 * increments its thread made. Each peer alternates between the counter pin
 * and the quick pin (a per-thread slot): light slots (a plain store, the
 * migrator's closes fenced with membarrier) where the kernel offers them,
 * and in one peer's table, whose light mark is cleared, the exchange; a
 * run of blocks migrated together fences once. Also: a pin table made while
 * transitions run (a late peer) is honoured from its first pin on; a
 * table whose slots' high-water mark a hostile party set past the end is
 * read only to its end; a second pin in a table whose slot the thread
 * holds goes to the counter; a forked child does not take its parent's
 * slot.
 *
 * Needs the device tier (lavapipe in CI) for migrations; skips without.
 */
#include <pthread.h>
#include <sys/wait.h>
#include <stdatomic.h>

#include "check.h"
#include "uvas/gate.h"
#include "uvas/internal.h"

#define PEERS 3
#define BLOCKS 4
#define RUN_S 2.0

static unsigned char *area;
static size_t bs;
static atomic_int stop;
static atomic_ulong migrations;

struct peer {
    int id;
    pthread_t th;
    _Atomic uint32_t *pins;
    uint64_t quick;        /* pins taken in a slot */
    uint64_t adds[BLOCKS]; /* increments made under an open gate */
    uint64_t closed;       /* pins that found the gate closed or not at the host */
};
static struct peer peers[PEERS];

/* This peer's counter in block b: its own 8 bytes past the first line. */
static size_t counter_off(int id, int b)
{
    return (size_t)b * bs + 64 + (size_t)id * 8;
}

static void *peer_main(void *arg)
{
    struct peer *p = arg;
    if (p->id == PEERS - 1) { /* a late peer: its table is made mid-run */
        usleep(200 * 1000);
        CHECK_OK(uvas_gate_pins_get(1 + (unsigned)p->id, &p->pins, NULL));
    }
    for (unsigned long k = 0; !atomic_load(&stop); k++) {
        int b = (int)(k % BLOCKS);
        size_t bi = uvas_block_index(area + (size_t)b * bs);
        struct uvas_gate_quick q = {.ctr = &p->pins[bi]};
        uint64_t w = k & 1 ? uvas_gate_pin_quick(uvas_gate_slots_of(p->pins), p->pins, bi,
                                                 &uvas_g.gates[bi], &q)
                           : uvas_gate_pin(q.ctr, &uvas_g.gates[bi]);
        p->quick += q.slot != NULL;
        if (uvas_gate_is_open(w) && uvas_gate_res(w) == UVAS_RES_HOST) {
            uint64_t *c = (uint64_t *)(uvas_g.alias + ((char *)area - uvas_g.base) +
                                       counter_off(p->id, b));
            *c += 1;
            p->adds[b]++;
        } else {
            p->closed++;
        }
        uvas_gate_unpin_quick(&q);
    }
    return NULL;
}

static void *migrator(void *arg)
{
    (void)arg;
    for (unsigned long k = 0; !atomic_load(&stop); k++) {
        int to = k & 1 ? UVAS_LOC_HOST : UVAS_LOC_DEVICE;
        size_t off = (k / 2 % BLOCKS) * bs, len = k % 3 ? bs : BLOCKS * bs;
        if (len == BLOCKS * bs)
            off = 0;
        CHECK_OK(uvas_migrate(area + off, len, to, 0));
        atomic_fetch_add(&migrations, 1);
    }
    return NULL;
}

int main(void)
{
    tu_deadline(50);
    struct uvas_range_desc d = tu_init_device("256M", "64K");
    bs = d.block_size;
    if (!uvas_g.alias)
        SKIP("the range has no host alias");
    area = uvas_malloc(BLOCKS * bs);
    CHECK(area != NULL, "uvas_malloc");
    memset(area, 0, BLOCKS * bs); /* host-resident, counters zero */
    CHECK_OK(uvas_gate_pins_setup(2 + PEERS));
    /* A party that claims every slot and more: the owner reads the slots
     * there is room for (a mark believed would read far past the table). */
    _Atomic uint32_t *hostile;
    CHECK_OK(uvas_gate_pins_get(1 + PEERS, &hostile, NULL));
    atomic_store(&uvas_gate_slots_of(hostile)->hw, UINT32_MAX);
    for (int i = 0; i < PEERS; i++) {
        peers[i].id = i;
        if (i != PEERS - 1)
            CHECK_OK(uvas_gate_pins_get(1 + (unsigned)i, &peers[i].pins, NULL));
    }
    /* Tables are light where this process joined the heavy fences; peer 1
     * takes its slots with the exchange all the same. */
    bool light = atomic_load(&uvas_gate_joined);
    CHECK_EQ(atomic_load(&uvas_gate_slots_of(peers[0].pins)->light), light,
             "a table's light mark against the process's heavy fences");
    atomic_store(&uvas_gate_slots_of(peers[1].pins)->light, 0);
    pthread_t mth;
    CHECK(pthread_create(&mth, NULL, migrator, NULL) == 0, "pthread_create");
    for (int i = 0; i < PEERS; i++)
        CHECK(pthread_create(&peers[i].th, NULL, peer_main, &peers[i]) == 0, "pthread_create");
    usleep((useconds_t)(RUN_S * 1e6));
    atomic_store(&stop, 1);
    for (int i = 0; i < PEERS; i++)
        pthread_join(peers[i].th, NULL);
    pthread_join(mth, NULL);

    CHECK_OK(uvas_migrate(area, BLOCKS * bs, UVAS_LOC_HOST, 0));
    /* A migration's run closes its gates together: one heavy fence for
     * all of its host-resident blocks, not one each. */
    uint64_t f0 = uvas_gate_heavy_fences();
    CHECK_OK(uvas_migrate(area, BLOCKS * bs, UVAS_LOC_DEVICE, 0));
    CHECK_EQ(uvas_gate_heavy_fences() - f0, atomic_load(&uvas_gate_joined) ? 1 : 0,
             "heavy fences for one migration of a run of host blocks");
    CHECK_OK(uvas_migrate(area, BLOCKS * bs, UVAS_LOC_HOST, 0));
    uint64_t adds = 0, closed = 0;
    for (int i = 0; i < PEERS; i++) {
        for (int b = 0; b < BLOCKS; b++) {
            uint64_t v;
            memcpy(&v, area + counter_off(i, b), sizeof v);
            CHECK_EQ(v, peers[i].adds[b], "a peer's counter after the migrations (an "
                     "increment made under an open gate was lost)");
            adds += v;
        }
        closed += peers[i].closed;
    }
    unsigned long m = atomic_load(&migrations);
    CHECK(m > 10, "only %lu migrations ran", m);
    CHECK(adds > 0 && closed > 0, "the peers never found the gate %s",
          adds ? "closed" : "open");
    CHECK(peers[PEERS - 1].adds[0] + peers[PEERS - 1].adds[1] > 0,
          "the late peer never got in");
    CHECK_EQ(uvas_gate_pins_held(uvas_block_index(area)), 0, "pins left");
    for (int i = 0; i < PEERS; i++)
        CHECK(peers[i].quick > 0, "peer %d never held a slot", i);
    /* A slot holds a pin as a counter does. */
    struct uvas_gate_slots *sl = uvas_gate_slots_of(peers[0].pins);
    size_t b0 = uvas_block_index(area);
    struct uvas_gate_quick q;
    uvas_gate_pin_quick(sl, peers[0].pins, b0, &uvas_g.gates[b0], &q);
    CHECK(q.slot != NULL, "the main thread got no slot");
    CHECK_EQ(uvas_gate_pins_held(b0), 1, "a quick pin is not counted as held");
    /* A second pin in the same table while the slot is taken (a transfer
     * within one PE's memory) goes to the counter: both held, each
     * dropped on its own. */
    struct uvas_gate_quick q2;
    uvas_gate_pin_quick(sl, peers[0].pins, b0 + 1, &uvas_g.gates[b0 + 1], &q2);
    CHECK(q2.slot == NULL && q2.ctr == &peers[0].pins[b0 + 1],
          "a second pin in a table took the slot its first holds");
    CHECK_EQ(uvas_gate_pins_held(b0) + uvas_gate_pins_held(b0 + 1), 2,
             "pins held on two blocks of one table");
    uvas_gate_unpin_quick(&q);
    CHECK_EQ(uvas_gate_pins_held(b0), 0, "a dropped quick pin is still held");
    CHECK_EQ(uvas_gate_pins_held(b0 + 1), 1, "dropping the slot dropped the counter's pin");
    uvas_gate_unpin_quick(&q2);
    CHECK_EQ(uvas_gate_pins_held(b0 + 1), 0, "a dropped counter pin is still held");
    /* A forked child may share a peer's tables (the window maps them
     * without MADV_DONTFORK): it must pin counters, not the slot its
     * parent's thread keeps using. */
    pid_t kid = fork();
    CHECK(kid >= 0, "fork");
    if (kid == 0)
        _exit(uvas_gate_slot_mine != -1);
    int ws;
    CHECK(waitpid(kid, &ws, 0) == kid && WIFEXITED(ws) && WEXITSTATUS(ws) == 0,
          "a forked child kept its parent's slot");
    uint64_t quick = 0;
    for (int i = 0; i < PEERS; i++)
        quick += peers[i].quick;
    /* Light slots were in use: the migrator's closes of open host blocks fenced. */
    uint64_t heavy = uvas_gate_heavy_fences();
    CHECK(!light || heavy > 0, "light slots were in use and no close ran a heavy fence");
    CHECK(light || heavy == 0, "a heavy fence ran in a process that did not join them");
    printf("gate-race: %lu migrations; %llu increments under open gates, %llu pins found the "
           "gate closed or away, %llu pins in slots (%s), %llu heavy fences; every increment "
           "kept\n", m, (unsigned long long)adds, (unsigned long long)closed,
           (unsigned long long)quick,
           light ? "light in two tables" : "no membarrier here: every slot exchanged",
           (unsigned long long)heavy);
    uvas_free(area);
    uvas_gate_pins_teardown();
    CHECK_OK(uvas_finalize());
    return 0;
}
