/*
 * uvas — one flat, symmetric virtual address range whose blocks live in CPU
 * or GPU memory, placed on first touch and moved at run time.
 *
 * Conventions (as UCX and liburing): every fallible function returns 0 on
 * success and a negative UVAS_ERR_* status otherwise; functions that return
 * a pointer return NULL on failure and set errno. uvas_strerror() names a
 * status, uvas_last_error() gives the calling thread's detailed message for
 * its last failed call (which variable, which value, what to do).
 */
#ifndef UVAS_H
#define UVAS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with hidden visibility; this header is its ABI. */
#pragma GCC visibility push(default)

#define UVAS_VERSION_MAJOR 0
#define UVAS_VERSION_MINOR 1

/* ---- status codes ------------------------------------------------------ */

enum uvas_status {
    UVAS_OK = 0,
    UVAS_ERR_INVAL = -1,        /* bad argument: size 0, unknown bits, ...   */
    UVAS_ERR_NOT_OWNED = -2,    /* pointer not from a live uvas allocation   */
    UVAS_ERR_NOMEM = -3,        /* the range (or a tier) has no room         */
    UVAS_ERR_ADDR_IN_USE = -4,  /* the requested base address is taken       */
    UVAS_ERR_ENV = -5,          /* malformed or out-of-range environment     */
    UVAS_ERR_ALREADY_INIT = -6, /* init again with different options         */
    UVAS_ERR_NOT_INIT = -7,     /* call needs uvas_init first                */
    UVAS_ERR_PERM = -8,         /* the kernel refused (privilege)            */
    UVAS_ERR_SYS = -9,          /* a system call failed unexpectedly         */
    UVAS_ERR_NO_DEVICE = -10,   /* device tier requested, strict, none there */
    UVAS_ERR_DOUBLE_FREE = -11, /* the allocation was already freed          */
};

/* Name of a status ("UVAS_ERR_INVAL: invalid argument"). Never NULL. */
const char *uvas_strerror(int status);

/* The calling thread's message for its last failed uvas call. Every
 * fallible call clears it first, so it is "" after a success. */
const char *uvas_last_error(void);

/* ---- initialisation ---------------------------------------------------- */

/* Residence of a block, as reported by queries. */
enum uvas_residence {
    UVAS_RES_UNPOPULATED = 0, /* reserved, never touched: no memory behind it */
    UVAS_RES_HOST = 1,        /* CPU memory (the host tier)                   */
    UVAS_RES_DEVICE = 2,      /* GPU memory (the device tier)                 */
    UVAS_RES_COUNT = 3,
};

/* How first-touch faults reach the controller (see docs/fault-path.md). */
enum uvas_fault_mode {
    UVAS_FAULT_AUTO = 0, /* userfaultfd if the process may use it, else eager */
    UVAS_FAULT_UFFD = 1, /* userfaultfd; init fails if it is not available    */
    UVAS_FAULT_EAGER = 2 /* no interception: blocks are placed at allocation  */
};

/*
 * Options for uvas_init. Zero means "environment, then default" for every
 * field, so `struct uvas_options o = {0};` is the same as passing NULL.
 * The environment never overrides a non-zero field set here.
 */
struct uvas_options {
    size_t size;        /* bytes of address space (UVAS_SIZE, default 64G)   */
    uintptr_t base;     /* fixed base (UVAS_BASE, default UVAS_DEFAULT_BASE) */
    size_t block_size;  /* residency grain, 4K..2M (UVAS_BLOCK_SIZE)         */
    int fault_mode;     /* enum uvas_fault_mode (UVAS_FAULT)                 */
    unsigned fault_threads; /* fault service threads (UVAS_FAULT_THREADS)    */
    const char *policy; /* placement policy (UVAS_POLICY, "first-touch")     */
    unsigned flags;     /* UVAS_INIT_* bits                                  */
    int device;         /* GPU: 0 auto (UVAS_DEVICE), UVAS_DEVICE_OFF, or
                           1 + index in Vulkan's enumeration order          */
    size_t device_size; /* most device memory the tier takes
                           (UVAS_DEVICE_SIZE, SHMEM_DEVICE_SYMMETRIC_SIZE;
                           default: 90% of the device's budget)             */
};

#define UVAS_DEVICE_OFF (-1)

/* Let the kernel choose the base (no symmetry across processes). */
#define UVAS_BASE_ANY ((uintptr_t)1)
/* Default base: 32 TiB, above ASan's shadow and below the mmap area. */
#define UVAS_DEFAULT_BASE ((uintptr_t)0x200000000000ull)

#define UVAS_INIT_QUIET 0x1u /* no warnings on stderr (errors still returned) */
/* UVAS_HINT_DEVICE fails (UVAS_ERR_NO_DEVICE) instead of falling back to
 * the host tier when there is no device (UVAS_DEVICE_STRICT=1). */
#define UVAS_INIT_DEVICE_STRICT 0x2u

/*
 * Reserve the range and start the controller. NULL: environment and
 * defaults. Calling again with the same effective options returns 0 and
 * changes nothing; with different ones, UVAS_ERR_ALREADY_INIT.
 * Any allocation function initialises implicitly with NULL, unless the
 * program has called uvas_finalize since its last uvas_init.
 */
int uvas_init(const struct uvas_options *opts);

/* Stop the controller and release the range; allocations become invalid.
 * Work already enqueued on queues (uvas_queue.h) runs first, its outcome
 * left for the queue's next sync (UVAS_ERR_INVAL from a queue's own host
 * function, which that work would wait for); calls other threads have in
 * flight (migrations, advice, allocations, frees, device accesses,
 * statistics) finish first; every call after it,
 * allocations included, fails with UVAS_ERR_NOT_INIT until uvas_init.
 * Touching range memory after it is the program's use after free
 * (SIGSEGV). */
int uvas_finalize(void);

/* ---- symmetric allocation ---------------------------------------------- */

#define UVAS_HINT_HOST 0x1u   /* keep in CPU memory                         */
#define UVAS_HINT_DEVICE 0x2u /* keep in GPU memory (host tier if no device) */
#define UVAS_HINT_MASK (UVAS_HINT_HOST | UVAS_HINT_DEVICE)

/*
 * Allocations are symmetric: the same sequence of allocation calls in two
 * processes with the same options returns the same addresses. Memory from
 * a never-touched block reads as zero.
 */
void *uvas_malloc(size_t size);
void *uvas_malloc_hint(size_t size, unsigned hints);
void *uvas_calloc(size_t nmemb, size_t size);
/* alignment: a power of two; up to the range size. */
void *uvas_aligned_alloc(size_t alignment, size_t size, unsigned hints);
/* As realloc(3); keeps the allocation's hints. size 0 is an error (EINVAL)
 * and leaves ptr untouched: use uvas_free to free. */
void *uvas_realloc(void *ptr, size_t size);

/* Free; NULL is a no-op. A pointer uvas does not own, or a double free, is
 * reported (stderr and uvas_last_error) and changes nothing. */
void uvas_free(void *ptr);
/* The same, returning the status instead of reporting it. */
int uvas_try_free(void *ptr);

/* ---- residency queries ------------------------------------------------- */

struct uvas_ptr_info {
    int residence;        /* enum uvas_residence of ptr's block, right now  */
    size_t block_size;    /* residency grain of the range                   */
    void *block_base;     /* start of ptr's block                           */
    void *alloc_base;     /* the allocation ptr belongs to                  */
    size_t alloc_size;    /* its requested size                             */
    unsigned alloc_hints; /* its UVAS_HINT_* bits                           */
    int duplicated;       /* DEVICE with a valid read-only host copy too    */
    int cpu_mapped;       /* DEVICE, and the CPU reaches it where it is     */
};

/* Where does ptr live right now? UVAS_ERR_NOT_OWNED if no live allocation
 * contains it. Lock-free; safe from any thread, but not beside a
 * uvas_finalize, which does not wait for it (a query racing the teardown
 * reads what it releases: the program's use after free). */
int uvas_query(const void *ptr, struct uvas_ptr_info *info);

struct uvas_range_info {
    size_t blocks[UVAS_RES_COUNT]; /* blocks of [ptr, ptr+len) per residence */
    size_t block_size;
};

/* Counts per residence of the blocks overlapping [ptr, ptr+len), which
 * must lie inside the range (allocated or not). */
int uvas_query_range(const void *ptr, size_t len, struct uvas_range_info *info);

/* One enum uvas_residence byte per block of [ptr, ptr+len) into map[0..n);
 * *nblocks gets the number of blocks (also when n is too small:
 * UVAS_ERR_INVAL then). */
int uvas_residency_map(const void *ptr, size_t len, uint8_t *map, size_t n,
                       size_t *nblocks);

/* Printable name: "unpopulated", "host", "device". */
const char *uvas_residence_name(int residence);

/* ---- migration ----------------------------------------------------------- */

#define UVAS_LOC_HOST UVAS_RES_HOST
#define UVAS_LOC_DEVICE UVAS_RES_DEVICE

#define UVAS_MIGRATE_ASYNC 0x1u /* queue it and return; uvas_migrate_wait */

/*
 * Move the blocks covering [ptr, ptr+len) to `location` (as
 * cudaMemPrefetchAsync): ptr must lie in a live allocation; whole blocks
 * move, so other allocations sharing them move too; untouched blocks are
 * populated there. Data is never lost or torn, also while other threads
 * read and write it. Synchronous unless UVAS_MIGRATE_ASYNC. To the device
 * with no device tier: UVAS_ERR_NO_DEVICE; to the host: 0. A full device
 * tier evicts its least recently migrated blocks; what still does not fit
 * stays on the host and UVAS_ERR_NOMEM is returned.
 */
int uvas_migrate(const void *ptr, size_t len, int location, unsigned flags);
/* Wait for every asynchronous migration issued so far; the first error
 * among them, if any. */
int uvas_migrate_wait(void);

enum uvas_advice {
    UVAS_ADVISE_PREFERRED_LOCATION = 1,   /* first touch places it there */
    UVAS_ADVISE_UNSET_PREFERRED_LOCATION = 2,
    /* Moving to the device keeps a read-only copy on the host: CPU reads
     * do not fault; a CPU write drops the device copy (the block is then
     * host-resident). location is ignored. */
    UVAS_ADVISE_READ_MOSTLY = 3,
    UVAS_ADVISE_UNSET_READ_MOSTLY = 4,    /* duplicates collapse to the host */
    /* A CPU access to a device-resident block maps the device memory at
     * the block's address instead of migrating it (stores go to the GPU;
     * loads through a PCIe BAR are slow: for data the CPU writes). Where
     * the driver offers no such mapping the block migrates as usual. */
    UVAS_ADVISE_ACCESSED_BY_CPU = 5,
    UVAS_ADVISE_UNSET_ACCESSED_BY_CPU = 6, /* mapped blocks fault again */
};
/* Advice for the blocks covering [ptr, ptr+len) (as cudaMemAdvise). */
int uvas_advise(const void *ptr, size_t len, int advice, int location);

/* ---- sharing host memory with another process -------------------------- */

/*
 * Memory kept in CPU memory (UVAS_HINT_HOST: it never migrates) can be
 * mapped by another process of the node, as cudaIpcGetMemHandle's, for the
 * queue floor's pool sharing (uvas_queue.h) and for programs of their own.
 * The exporter gets a descriptor of its host tier and a handle naming the
 * allocation; it passes both (the descriptor over a Unix socket, SCM_RIGHTS)
 * to a process it trusts; that process maps the allocation with
 * uvas_ipc_open, which needs no uvas_init. The descriptor reaches every
 * host-resident page of the exporter, as a PE's window does its peers':
 * uvas_ipc_open takes only descriptors of a uvas host tier owned by its own
 * user. Mapped memory is shared, coherent, and valid until the exporter
 * frees the allocation (a use after that is the importer's bug, as with
 * CUDA's handles). docs/queues.md.
 */
struct uvas_ipc_handle {
    uint64_t magic;  /* UVAS_IPC_MAGIC */
    uint64_t offset; /* of the allocation in the host tier */
    uint64_t size;   /* bytes of the allocation */
    int32_t pid;     /* the exporter */
    uint32_t tier;   /* its host tier's identity: uvas_ipc_open refuses the
                        handle with another descriptor (another exporter's,
                        or one from before its uvas_finalize) */
};
#define UVAS_IPC_MAGIC 0x3148435049534156ull /* "UVASIPC1" */

/* ptr: the start of a live allocation made with UVAS_HINT_HOST (its
 * untouched blocks are placed now, zeroed, so both sides see the same
 * pages). *fd: a new descriptor of the host tier (close-on-exec; the
 * caller closes it). fd may be NULL when the caller has one already. */
int uvas_ipc_export(const void *ptr, struct uvas_ipc_handle *h, int *fd);
/* Map h's allocation through fd: *ptr (not inherited by a child). Status:
 * UVAS_ERR_PERM for a descriptor that is not a uvas host tier of this
 * user, UVAS_ERR_INVAL for a handle that is not one, is of another host
 * tier, or does not fit the descriptor. */
int uvas_ipc_open(int fd, const struct uvas_ipc_handle *h, void **ptr);
/* Unmap what uvas_ipc_open mapped for h at ptr; UVAS_ERR_INVAL for any
 * other pointer or handle (nothing is unmapped then). */
int uvas_ipc_close(void *ptr, const struct uvas_ipc_handle *h);
/* A close-on-exec duplicate of fd, checked as uvas_ipc_open checks it, for
 * a program that keeps the descriptor (an imported pool); uvas_ipc_drop
 * closes it. Status. */
int uvas_ipc_keep(int fd, int *kept);
void uvas_ipc_drop(int fd);

/* ---- the range and its configuration ---------------------------------- */

struct uvas_range_desc {
    void *base;
    size_t size;
    size_t block_size;
    int fault_mode;          /* the mode in effect (never AUTO)           */
    unsigned fault_threads;  /* 0 in eager mode                           */
    const char *policy;      /* name of the placement policy              */
    const char *fault_note;  /* why this fault mode (e.g. the admin fix)  */
    int device_present;      /* 1 if a device tier exists                 */
    const char *device_name;   /* "NVIDIA H100 80GB HBM3", "llvmpipe ..." */
    const char *device_driver; /* driver name and version                  */
    const char *device_kind;   /* "hardware", "software" or "none"         */
    size_t device_capacity;    /* bytes the device tier may take           */
    const char *device_note;   /* the device, or why there is none         */
    int device_numa_node;      /* NUMA node near the GPU, -1 unknown       */
    const char *device_pci;    /* PCI bus id, "" unknown                   */
    const char *device_cpuset; /* cores near the GPU (hwloc list), ""      */
    size_t host_page;          /* the host tier's page: 4096, or 2 MiB with
                                  UVAS_HUGE_PAGES=1 (the unit it maps)     */
};

int uvas_range(struct uvas_range_desc *desc);
/* The live range's number in this process (1 for the first uvas_init's,
 * then 2, ...), 0 while there is none. Memory kept across a uvas_finalize
 * (a pool's cache, a pointer saved aside) belongs to the range it came
 * from: once the number changed, it is gone. Lock-free. */
uint64_t uvas_range_generation(void);

/* ---- statistics --------------------------------------------------------- */

/* Accounting of one heap kind (allocations by hint), as HIP pool stats. */
struct uvas_heap_stats {
    size_t used_current;     /* bytes of live allocations (requested)    */
    size_t used_high;        /* high watermark of used_current           */
    size_t reserved_current; /* bytes of address space set aside (blocks)*/
    size_t reserved_high;
    size_t allocations;      /* live allocation count                    */
};

/* Physical memory of one tier. */
struct uvas_tier_stats {
    size_t blocks;           /* resident blocks                          */
    size_t bytes_current;    /* resident bytes                           */
    size_t bytes_high;
    uint64_t blocks_populated; /* blocks placed here by first touch      */
};

enum uvas_heap { UVAS_HEAP_UNIFIED = 0, UVAS_HEAP_HOST = 1, UVAS_HEAP_DEVICE = 2,
                 UVAS_HEAP_COUNT = 3 };

struct uvas_stats {
    struct uvas_heap_stats heap[UVAS_HEAP_COUNT];
    struct uvas_tier_stats tier[UVAS_RES_COUNT]; /* [HOST], [DEVICE] used */
    uint64_t faults;          /* userfaultfd events handled              */
    uint64_t faults_spurious; /* events for blocks already populated     */
    uint64_t faults_stray;    /* touches outside any live allocation     */
    uint64_t fault_ns_total;  /* time spent serving faults               */
    uint64_t fault_ns_max;
    uint64_t blocks_released; /* blocks returned to the OS by free       */
    uint64_t faults_device;   /* CPU accesses to device-resident blocks  */
    uint64_t migrations[UVAS_RES_COUNT];     /* blocks moved to [tier]   */
    uint64_t bytes_migrated[UVAS_RES_COUNT]; /* bytes moved to [tier]    */
    uint64_t evictions;       /* blocks pushed out of a full device tier */
    uint64_t device_touches;  /* blocks the device accessed (uvas_device_access) */
    uint64_t device_remote;   /* of those, served where they were (not moved) */
    uint64_t migrate_ns_total;
    /* where migration time went: copy engine, importing host pages,
     * unmapping and mapping the range's page tables */
    uint64_t migrate_ns_copy, migrate_ns_import, migrate_ns_map;
    /* Failures injected per site (UVAS_INJECT, docs/migration.md), indexed
     * device-alloc, export, map, dma, uffd, mmap, memfd, ucx; all 0 unless
     * injection is armed. New fields are only ever added at the end of
     * this struct: uvas_stats_get passes the caller's sizeof, so a program
     * built against an older header gets the prefix it knows. */
    uint64_t injected[8];
    /* Device slots kept out of use because the CPU view of their block
     * could not be unmapped when the block left them (docs/reliability.md). */
    uint64_t slots_quarantined;
    /* Kernels (uvas_gpu.h): launches (each kernel run, replays included), blocks made
     * reachable for them (a translation published), accesses that found no
     * translation, of those the ones served while the kernel waited, and
     * launches run again after faults they could not wait for. */
    uint64_t kernel_launches, kernel_translations, kernel_faults, kernel_fault_waits;
    uint64_t kernel_replays;
    uint64_t kernel_gpu_ns; /* time the kernels ran, by the device's clock (0 if it has none) */
    /* Accesses the kernels counted (include/uvas.glsl: a sample, scaled
     * back by the workgroup size), which the policies see as the device's. */
    uint64_t kernel_accesses;
    /* Runs that ran those launches (each one wait, its launches sent in
     * chunks): fewer than the launches where batches
     * (uvas_kernel_launch_batch, a queue's backlog) ran together. */
    uint64_t kernel_submissions;
    /* Blocks of other PEs lent to this PE's running kernels, which reach
     * them directly (include/shmem.glsl): device memory on this GPU, and
     * host memory (for stores); of those the ones taken back early for a
     * transition at their owner. */
    uint64_t kernel_peer_leases, kernel_peer_revokes;
    /* Kernels' OpenSHMEM calls the host served for them (include/shmem.glsl's
     * request ring): those that did not reach their memory directly. */
    uint64_t kernel_requests;
    /* Batches sent to the copy engine (migrations' stages, the zero fills
     * that place untouched blocks on the device, uvas_device_access; one
     * may go over both of its queues): blocks moved together go in few,
     * a block at a time in one each. */
    uint64_t copy_submissions;
    /* Blocks a migration copied through staging memory (the first move of
     * freshly written pages, docs/migration.md) whose imports the pinner
     * has yet to make: migrations of them until then are staged too. */
    uint64_t pin_pending;
    /* Block moves, either way, that went through staging memory instead of
     * an import of the block's host pages (UVAS_STAGE_FIRST). */
    uint64_t staged_blocks;
};

int uvas_stats_get_sized(struct uvas_stats *st, size_t size);
#define uvas_stats_get(st) uvas_stats_get_sized((st), sizeof *(st))
/* Reset every *_high watermark to its current value. */
int uvas_stats_reset_watermarks(void);
/* Human-readable statistics and a one-character-per-block residency map
 * ("." unpopulated, "H" host, "D" device), for demos and tools. */
int uvas_stats_print(FILE *out);
int uvas_residency_print(FILE *out, const void *ptr, size_t len);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif /* UVAS_H */
