/*
 * uvas policies: the interface for placement and migration policies, the
 * built-in ones, and the device-side access that experiments use to play
 * the GPU's part.
 *
 * Select a policy with UVAS_POLICY="name:key=value,key=value" (or
 * uvas_options.policy), where name is a built-in (see docs/policies.md) or
 * a path to a shared object ("./my_policy.so:k=v") that exports
 *
 *     const struct uvas_policy_ops uvas_policy_ops;
 *
 * A bad string makes uvas_init fail with UVAS_ERR_ENV (UVAS_ERR_INVAL for
 * options) and a message naming the bad part.
 */
#ifndef UVAS_POLICY_PUBLIC_H
#define UVAS_POLICY_PUBLIC_H

#include <stddef.h>
#include <stdint.h>

#include "uvas.h"

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

/* Who touches memory. */
enum uvas_agent { UVAS_AGENT_CPU = 0, UVAS_AGENT_DEVICE = 1, UVAS_AGENT_COUNT = 2 };

/*
 * The device accesses [ptr, ptr+len), as a GPU kernel would: blocks that
 * are not on the device "fault" there and the policy decides (migrate, or
 * serve the access remotely from the host copy). The access is real: a
 * read or a write of the bytes by the copy engine (a write stores `value`
 * into every byte). ptr must be in a live allocation. Status; with no
 * device tier, UVAS_ERR_NO_DEVICE.
 */
int uvas_device_access(void *ptr, size_t len, int write, unsigned char value);

/* What a policy sees of a block. Counts are of its current allocation
 * (generation, below): they start from 0 when the block is freed. */
struct uvas_block_view {
    size_t index;              /* block number in the range */
    void *addr;
    int residence;             /* enum uvas_residence now */
    int heap;                  /* enum uvas_heap of its allocation */
    int preferred;             /* advised residence, 0 none */
    uint64_t accesses[UVAS_AGENT_COUNT]; /* faults/accesses seen per agent */
    uint32_t migrations;       /* moves between the tiers */
    uint32_t writes;           /* with UVAS_POLICY_TRACK_WRITES: tick
                                  intervals in which the CPU wrote it */
    uint64_t last_migration_ns; /* CLOCK_MONOTONIC of the last move, 0 never */
    /* Other PEs' RMA on it: puts, gets and atomics, one per block a call
     * covers (a run of a PE's kernels that reached it directly: one).
     * Per PE: uvas_policy_peer_accesses, which says what is counted. */
    uint32_t peer_accesses;
    int peer_top;              /* the PE with the most of them, -1 none */
    /* The part of peer_accesses other PEs' kernels made directly: their
     * leases, a run that reached the block: one (a call a kernel's host
     * makes for it is the host's: its CPU touches the memory). */
    uint32_t peer_kernel_accesses;
    /* The allocations the block served before this one: it changes when
     * the block is freed (its counts then start again from 0) and taken
     * again. What a policy keeps per block index belongs to the
     * allocation of the generation it was kept for, not to a newer one. */
    uint32_t generation;
};

/* What a policy may answer when an agent touches a block that is not
 * resident at it. */
enum uvas_fault_action {
    UVAS_ACTION_MIGRATE = 0,   /* move the block to the agent */
    UVAS_ACTION_REMOTE = 1,    /* serve the access where the block is */
    UVAS_ACTION_DUPLICATE = 2, /* a device read of a host block: copy it to
                                  the device, keeping the host copy
                                  read-only (a write collapses it) */
};

/* Answers when the device tier is full. */
enum uvas_full_decision {
    UVAS_FULL_DO_EVICT = 0,     /* evict least recently migrated blocks */
    UVAS_FULL_DO_KEEP_HOST = 1, /* leave the newcomer on the host */
};

/* Handed to tick(): the blocks touched since the last tick (or all live
 * blocks, for policies that sweep), and a way to ask for moves. */
struct uvas_policy_tick {
    const struct uvas_block_view *blocks;
    size_t nblocks;
    size_t device_capacity_blocks;
    size_t device_blocks;      /* device-resident now */
    /* Ask for block `index` to move to `residence`; applied after tick
     * returns, in order. 0, or UVAS_ERR_NOMEM when the request list is
     * full for this tick. */
    int (*request)(struct uvas_policy_tick *t, size_t index, int residence);
    void *priv;
    uint64_t now_ns;           /* CLOCK_MONOTONIC after the views were taken */
    /* Blocks the device tier can still take without evicting: its
     * capacity less every slot in use (device-resident blocks, read-mostly
     * duplicates, pools' and moves' slots). */
    size_t device_room_blocks;
};

struct uvas_policy_ops {
    const char *name;
    /* Parse params ("k=v,k=v", may be ""), allocate state. 0 on success;
     * otherwise a negative status and a message in err naming the bad
     * key or value. */
    int (*init)(const char *params, void **state, char *err, size_t errlen);
    void (*fini)(void *state);
    /* Residence for an untouched block of an unhinted allocation, touched
     * first by `agent`. NULL: where the agent is. */
    int (*first_touch)(void *state, const struct uvas_block_view *b, int agent);
    /* `agent` touches block b, resident elsewhere. NULL: migrate. */
    int (*fault)(void *state, const struct uvas_block_view *b, int agent, int write);
    /* The device tier is full and b wants in. NULL: evict. */
    int (*device_full)(void *state, const struct uvas_block_view *b);
    /* Called every tick_ms milliseconds (0: never) on the controller's
     * policy thread, with the access statistics. */
    void (*tick)(void *state, struct uvas_policy_tick *t);
    unsigned tick_ms;
    /* The tick period from the policy's parameters; overrides tick_ms. */
    unsigned (*tick_interval)(void *state);
    unsigned flags;            /* UVAS_POLICY_* */
    /* The tracking from the policy's parameters; overrides flags. */
    unsigned (*tracking)(void *state);
};

/* Write tracking: every tick write-protects the host-resident blocks
 * (userfaultfd write-protect); the first CPU write to one in the interval
 * takes a fault that counts it and lifts the protection. One fault per
 * written block per tick. */
#define UVAS_POLICY_TRACK_WRITES 0x1u
/* Access sampling (reads too): every tick unmaps the host-resident blocks'
 * pages from the range (they stay in memory); the first access to one in
 * the next interval takes a minor fault that counts it in accesses[CPU]
 * and maps the whole block back (Linux NUMA balancing's hinting faults).
 * One fault per accessed block per tick. */
#define UVAS_POLICY_TRACK_ACCESS 0x2u
/* Other PEs' accesses counted per block and per initiating PE
 * (peer_accesses, peer_top, peer_kernel_accesses,
 * uvas_policy_peer_accesses; the network's together,
 * uvas_policy_network_accesses), where a device tier lets the policy act
 * on them. Off, they read 0: counting costs the window paths a load and a
 * store per call (docs/policies.md measures it). UVAS_PEER_COUNTS=1 turns
 * it on whatever the policy and the device. */
#define UVAS_POLICY_TRACK_PEERS 0x4u

/*
 * The RMA calls PE `pe` made on block `index` of this PE in its current
 * allocation: those it made through this node's shared windows (counted
 * by it with a load and a store: two of its threads counting one block at
 * once may lose counts, and the count may even read lower than before)
 * and those this PE served for it by message (exact). 0
 * without OpenSHMEM's layer, or for a PE or block out of range.
 */
uint32_t uvas_policy_peer_accesses(size_t index, int pe);
/*
 * The direct RMA calls on block `index` of the PEs reached over the
 * network (ucp RMA on host blocks, from UVAS_UCX_RMA_MIN bytes up: PEs of
 * other nodes, or every PE with UVAS_TRANSPORT=ucx), all of them together:
 * each adds one to this PE's counter with a posted network atomic, which
 * cannot say who sent it. Exact once the sender's quiet has landed them.
 * Part of the view's peer_accesses, not of peer_top.
 */
uint32_t uvas_policy_network_accesses(size_t index);

/*
 * The part of those PE `pe`'s kernels made directly: the runs that
 * reached the block through a lease (the device touched the memory). A
 * kernel's call its host makes for it (through the request ring) counts
 * as the host's, whose CPU or copy engine touches the memory.
 */
uint32_t uvas_policy_peer_kernel_accesses(size_t index, int pe);

/* The policy in effect and its parameters as given ("hot-cold:ratio=0.5"). */
const char *uvas_policy_current(void);

/*
 * The layout of the structures above, raised whenever one changes. A
 * policy built as a shared object carries the one it was built against:
 * this header defines uvas_policy_abi in it. uvas refuses an object that
 * carries another, or none (built before the mark), which would read its
 * views at the wrong offsets: rebuild it against this header.
 */
#define UVAS_POLICY_ABI 2u
extern const unsigned uvas_policy_abi;
#ifdef __cplusplus
extern /* a const is internal to its unit in C++ otherwise */
#endif
__attribute__((weak)) const unsigned uvas_policy_abi = UVAS_POLICY_ABI;

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
