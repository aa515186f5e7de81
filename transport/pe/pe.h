/*
 * The PE layer: what the OpenSHMEM API (transport/shmem/) is built on.
 * A PE is one process of the job; every PE maps the same flat range at the
 * same base, so a symmetric address names the same object on every PE.
 *
 * Every function returns UVAS_OK or a negative UVAS_ERR_* status with the
 * thread's message in uvas_last_error() (which call, which address, which
 * PE, what to do). Nothing here prints or exits on bad input: the OpenSHMEM
 * layer decides (transport/shmem/error.c).
 *
 * Dispatch (transport/pe/dispatch.c): each operation is cut at block
 * boundaries and each piece goes the way the residence of its target block
 * (and of a local source) says: a store into the peer's host tier, a copy
 * engine transfer into the peer's device memory, a write through a mapping
 * of that memory, or an active message to the owning PE.
 */
#ifndef UVAS_TRANSPORT_PE_H
#define UVAS_TRANSPORT_PE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Atomic operations on a 4- or 8-byte target. Operands and results travel
 * as the bits of the value, zero-extended to 64; ADD is two's complement
 * at the target's width (signed and unsigned alike). */
enum uvas_amo_op {
    UVAS_AMO_FETCH = 0, /* fetched = *t                                  */
    UVAS_AMO_SET,       /* *t = operand                                  */
    UVAS_AMO_SWAP,      /* fetched = *t, *t = operand                    */
    UVAS_AMO_CSWAP,     /* fetched = *t, if *t == compare: *t = operand  */
    UVAS_AMO_ADD,       /* fetched = *t, *t += operand                   */
    UVAS_AMO_AND,       /* fetched = *t, *t &= operand                   */
    UVAS_AMO_OR,
    UVAS_AMO_XOR,
    UVAS_AMO_COUNT
};

/* Thread levels, numbered as SHMEM_THREAD_*. */
enum { UVAS_PE_THREAD_SINGLE = 0, UVAS_PE_THREAD_FUNNELED = 1,
       UVAS_PE_THREAD_SERIALIZED = 2, UVAS_PE_THREAD_MULTIPLE = 3 };

/* Bootstrap through PMIx (under mpirun), start the controller at the base
 * all PEs agree on, connect to the peers. Collective. A second call is a
 * no-op returning UVAS_OK. Without PMIx (a plain ./prog) the job is one
 * PE. *provided gets the thread level granted (MULTIPLE always). */
int uvas_pe_init(int requested, int *provided);
/* Collective: quiet, barrier, disconnect, stop the controller. */
int uvas_pe_finalize(void);
bool uvas_pe_initialized(void);
/* One turn of a wait for what peers write (a counter, a flag): UCX's
 * progress where this PE runs it, a yield after the first turns, and now
 * and then a check that the PEs of the node live (a dead one ends the job
 * instead of leaving the wait for ever). turn counts from 0. */
void uvas_pe_wait_turn(unsigned turn);

int uvas_pe_me(void);
int uvas_pe_count(void);

/* End every PE of the job with this exit status (abort through PMIx). */
_Noreturn void uvas_pe_global_exit(int status);

/* Is [addr, addr+len) symmetric (inside a live allocation of the range)
 * and pe a PE of the job? UVAS_ERR_NOT_OWNED / UVAS_ERR_INVAL with a
 * message naming `call`. */
int uvas_pe_check(const char *call, const void *addr, size_t len, int pe);

/*
 * dest is symmetric (a PE's copy chosen by pe), src local memory of any
 * kind (also inside the range, at any residence). On return src may be
 * reused; the data is visible at the target after uvas_pe_quiet (often
 * earlier). nbi: src may not be reusable until quiet (the layer may queue).
 */
int uvas_pe_put(void *dest, const void *src, size_t n, int pe, bool nbi);
/* The small put to a peer of this node in one call, checks included (as
 * uvas_pe_check's): true when done; false, with nothing done and no error
 * set, for anything else (uvas_pe_check, then uvas_pe_put, which report). */
bool uvas_pe_put_quick(void *dest, const void *src, size_t n, int pe);
/* src symmetric; dest local. On return dest holds the data (nbi: after
 * quiet). */
int uvas_pe_get(void *dest, const void *src, size_t n, int pe, bool nbi);

/* One atomic on the 4- or 8-byte symmetric target at pe. fetched may be
 * NULL for the non-fetching forms. Atomic with respect to every other
 * uvas_pe_amo on the same target, whatever path each takes. */
int uvas_pe_amo(enum uvas_amo_op op, void *target, size_t width, uint64_t operand,
                uint64_t compare, uint64_t *fetched, int pe);

/* Every put, AMO and nbi op issued by this thread so far is complete and
 * visible at its target. */
int uvas_pe_quiet(void);
/* Puts and AMOs to each PE issued before are delivered before those issued
 * after (uvas: the same as quiet). */
int uvas_pe_fence(void);

/* All PEs: quiet, then wait for every PE (barrier_all); sync_all without
 * the quiet. */
int uvas_pe_barrier_all(void);
int uvas_pe_sync_all(void);

/* A local address by which this PE reaches dest at pe with loads and
 * stores, or NULL (another node, or a window that is off). A pointer into
 * pe's host tier: loads and stores through it bypass residence (only
 * valid while the block stays host-resident; see docs/transport.md). */
void *uvas_pe_ptr(const void *dest, int pe);

/* Where does the block holding addr live at pe, now? (enum uvas_residence,
 * or a negative status.) Reads pe's published residency table. */
int uvas_pe_residence(const void *addr, int pe);

/* Per-path counters of this PE's operations (for tests and tools). */
enum uvas_pe_path {
    UVAS_PATH_LOCAL = 0,   /* target is this PE                          */
    UVAS_PATH_CPU_CPU,     /* store/load into the peer's host tier        */
    UVAS_PATH_CPU_GPU,     /* local host source -> peer device (copy engine) */
    UVAS_PATH_GPU_CPU,     /* local device source -> peer host             */
    UVAS_PATH_GPU_GPU,     /* device to device (copy engine)              */
    UVAS_PATH_DEV_MAP,     /* through a CPU mapping of the peer's device memory */
    UVAS_PATH_AM,          /* active message to the owning PE             */
    UVAS_PATH_UCX_RMA,     /* ucp put/get on registered host memory       */
    UVAS_PATH_CMA,         /* cross-memory attach into a peer's globals    */
    UVAS_PATH_COUNT
};
struct uvas_pe_stats {
    uint64_t ops[UVAS_PATH_COUNT];
    uint64_t bytes[UVAS_PATH_COUNT];
    uint64_t am_served;    /* active messages this PE served as owner     */
    uint64_t gate_waits;   /* migrations that waited for peers' accesses  */
};
int uvas_pe_stats_get(struct uvas_pe_stats *st);
const char *uvas_pe_path_name(int path);

/* Ordering domains (OpenSHMEM contexts; domain.c): puts made while a
 * thread uses a domain are waited for by a quiet of that domain alone. */
/* A new domain's id in *id (not 0). Status. */
int uvas_pe_domain_open(unsigned *id);
/* After its quiet: the id may be handed out again. */
void uvas_pe_domain_close(unsigned id);
/* This thread's domain from now on (0: none); the previous one. */
unsigned uvas_pe_domain_use(unsigned id);
/* Wait for the domain's puts to complete. Status. */
int uvas_pe_domain_quiet(unsigned id);

#endif
