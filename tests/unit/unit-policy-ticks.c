/*
 * The tick policies' per-block memory, on views made here (no range, no
 * device): what a block's earlier allocation taught a policy must not
 * move its next one (the peers policy moved a freshly taken, untouched
 * block on the strength of the scores of the allocation before it);
 * counters that wrap still count, and one read lower counts nothing;
 * scores decay with the time that passed,
 * not with the ticks; promotions take the room the device tier has, the
 * strongest first.
 */
#include "../check.h"
#include "migrate/policy.h"

#define MS 1000000ull

struct req {
    size_t index;
    int res;
};
static struct req reqs[64];
static size_t nreqs;

static int request(struct uvas_policy_tick *t, size_t index, int res)
{
    (void)t;
    CHECK(nreqs < 64, "more than 64 requests");
    reqs[nreqs++] = (struct req){index, res};
    return 0;
}

static void tick(struct uvas_policy *p, struct uvas_block_view *v, size_t n, uint64_t now_ns,
                 size_t capacity, size_t on_device)
{
    struct uvas_policy_tick t = {.blocks = v, .nblocks = n, .device_capacity_blocks = capacity,
                                 .device_blocks = on_device, .request = request,
                                 .now_ns = now_ns, .device_room_blocks = capacity - on_device};
    nreqs = 0;
    p->ops->tick(p->state, &t);
}

static struct uvas_policy open_policy(const char *spec)
{
    struct uvas_policy p;
    char err[256];
    CHECK(uvas_policy_open(spec, &p, err, sizeof err) == 0, "%s: %s", spec, err);
    return p;
}

static struct uvas_block_view block(size_t index, int res)
{
    return (struct uvas_block_view){.index = index, .residence = res, .peer_top = -1};
}

/* A host block whose peers' CPUs outweigh this PE's kernels stays; freed
 * and taken again, untouched on the device, it must stay too. */
static void peers_reuse(void)
{
    struct uvas_policy p = open_policy("peers:sample=none");
    struct uvas_block_view v = block(5, UVAS_RES_HOST);
    v.accesses[UVAS_AGENT_DEVICE] = 400;
    v.peer_accesses = 1000;
    tick(&p, &v, 1, 1000 * MS, 8, 0);
    CHECK(nreqs == 0, "a host block the peers' CPUs use most was asked to move to %d",
          reqs[0].res);
    v = block(5, UVAS_RES_DEVICE); /* freed, taken again, first touched by a kernel */
    v.generation = 1;
    tick(&p, &v, 1, 1020 * MS, 8, 1);
    CHECK(nreqs == 0, "a block freed and taken again, untouched since, was asked to move to "
          "%d by its earlier allocation's scores", reqs[0].res);
    /* Its own accesses count from 0: a few CPU accesses of the new one,
     * under min, move nothing; past it and twice the device's, they do. */
    v.accesses[UVAS_AGENT_CPU] = 3;
    tick(&p, &v, 1, 1040 * MS, 8, 1);
    CHECK(nreqs == 0, "3 accesses (min 4) moved the block");
    v.accesses[UVAS_AGENT_CPU] = 8;
    tick(&p, &v, 1, 1060 * MS, 8, 1);
    CHECK(nreqs == 1 && reqs[0].index == 5 && reqs[0].res == UVAS_RES_HOST,
          "8 CPU accesses against none of the device's: %zu requests", nreqs);
    uvas_policy_close(&p);
}

/* The peers' kernels' count wraps past 2^32 between two ticks: 18 new
 * accesses, not 2. */
static void peers_wrap(void)
{
    struct uvas_policy p = open_policy("peers:sample=none,min=10");
    struct uvas_block_view v = block(7, UVAS_RES_DEVICE);
    v.peer_accesses = v.peer_kernel_accesses = UINT32_MAX - 15;
    tick(&p, &v, 1, 1000 * MS, 8, 1); /* on the device, where they want it */
    CHECK(nreqs == 0, "a device block the kernels want was asked to move");
    v.residence = UVAS_RES_HOST; /* moved back (a CPU fault): scores from 0 */
    v.migrations = 1;
    tick(&p, &v, 1, 1020 * MS, 8, 0);
    CHECK(nreqs == 0, "a block that took no access since its move was asked to move");
    v.peer_accesses = v.peer_kernel_accesses = 2; /* + 18, through 2^32 */
    tick(&p, &v, 1, 1040 * MS, 8, 0);
    CHECK(nreqs == 1 && reqs[0].res == UVAS_RES_DEVICE,
          "18 kernel accesses across the counter's wrap (min 10): %zu requests", nreqs);
    uvas_policy_close(&p);
}

/* A peer's count read lower than before (two of its threads counting at
 * once wrote an older value back, uvas/gate.h) is no access, not 4
 * billion: the device block its kernels use stays. */
static void peers_drop(void)
{
    struct uvas_policy p = open_policy("peers:sample=none");
    struct uvas_block_view v = block(3, UVAS_RES_DEVICE);
    v.peer_accesses = 10500;
    v.peer_kernel_accesses = 10000;
    tick(&p, &v, 1, 1000 * MS, 8, 1);
    CHECK(nreqs == 0, "a device block its peers' kernels use most was asked to move");
    v.peer_accesses = 10000 + 301; /* the CPUs' 500 read back as 301 */
    tick(&p, &v, 1, 1020 * MS, 8, 1);
    CHECK(nreqs == 0, "a peer's count read 199 lower moved the block to %d", reqs[0].res);
    uvas_policy_close(&p);
}

/* half_ms=100: a host score of 100 is, 1 s later, under 0.1; 60 device
 * accesses then outweigh it however few ticks ran between. */
static void peers_decay(void)
{
    struct uvas_policy p = open_policy("peers:sample=none,half_ms=100");
    struct uvas_block_view v = block(9, UVAS_RES_HOST);
    v.accesses[UVAS_AGENT_CPU] = 100;
    tick(&p, &v, 1, 1000 * MS, 8, 0);
    CHECK(nreqs == 0, "a host block its CPU uses was asked to move");
    v.peer_accesses = v.peer_kernel_accesses = 60;
    tick(&p, &v, 1, 2000 * MS, 8, 0);
    CHECK(nreqs == 1 && reqs[0].res == UVAS_RES_DEVICE,
          "ten half-lives after 100 host accesses, 60 kernel accesses did not move the block");
    uvas_policy_close(&p);
}

/* Three host blocks the kernels want, room for one: the strongest goes. */
static void peers_room(void)
{
    struct uvas_policy p = open_policy("peers:sample=none");
    struct uvas_block_view v[4] = {block(1, UVAS_RES_HOST), block(2, UVAS_RES_HOST),
                                   block(3, UVAS_RES_HOST), block(4, UVAS_RES_DEVICE)};
    v[0].peer_accesses = v[0].peer_kernel_accesses = 10;
    v[1].peer_accesses = v[1].peer_kernel_accesses = 30;
    v[2].peer_accesses = v[2].peer_kernel_accesses = 20;
    v[3].accesses[UVAS_AGENT_DEVICE] = 5;
    tick(&p, v, 4, 1000 * MS, 2, 1);
    CHECK(nreqs == 1 && reqs[0].index == 2 && reqs[0].res == UVAS_RES_DEVICE,
          "room for one: %zu requests, the first for block %zu", nreqs,
          nreqs ? reqs[0].index : 0);
    /* Full, and the device block's CPU wants it back: its room goes to
     * the strongest of the others. */
    v[3].accesses[UVAS_AGENT_CPU] = 50;
    tick(&p, v, 4, 1020 * MS, 2, 2);
    CHECK(nreqs == 2 && reqs[0].index == 4 && reqs[0].res == UVAS_RES_HOST &&
              reqs[1].index == 2 && reqs[1].res == UVAS_RES_DEVICE,
          "a demotion's room: %zu requests", nreqs);
    uvas_policy_close(&p);
}

/* hot-cold keeps the hottest on the device: a block taken again counts
 * its new allocation's accesses whole, not less its old one's. */
static void hotcold_reuse(void)
{
    struct uvas_policy p = open_policy("hot-cold:fraction=0.5,sample=none");
    struct uvas_block_view v[2] = {block(1, UVAS_RES_HOST), block(2, UVAS_RES_HOST)};
    v[0].accesses[UVAS_AGENT_CPU] = 100;
    v[1].accesses[UVAS_AGENT_CPU] = 1000;
    tick(&p, v, 2, 1000 * MS, 2, 0);
    CHECK(nreqs == 1 && reqs[0].index == 2, "the hotter block first: %zu requests", nreqs);
    v[0].accesses[UVAS_AGENT_CPU] = 400;  /* +300 */
    v[1].accesses[UVAS_AGENT_CPU] = 1200; /* a new allocation's 1200 */
    v[1].generation = 1;
    tick(&p, v, 2, 1020 * MS, 2, 0);
    CHECK(nreqs == 1 && reqs[0].index == 2,
          "the new allocation's 1200 accesses against the other's 300: block %zu promoted",
          nreqs ? reqs[0].index : 0);
    uvas_policy_close(&p);
}

int main(void)
{
    peers_reuse();
    peers_wrap();
    peers_drop();
    peers_decay();
    peers_room();
    hotcold_reuse();
    return 0;
}
