/*
 * Messages from peers: the owner side of active messages (transport/pe/am.c
 * hands a peer's put, get and atomic to uvas_owner_write, _read and _amo
 * in transport/pe/owner.c), with the address, length, width, operation and
 * operands taken from the input, after a uvas_init of a small range
 * (64 MiB, no device tier; UVAS_FAULT as set, default uffd) and a few live
 * allocations. The input is a sequence of 26-byte requests.
 *
 * Invariants: a request that does not lie wholly inside the range (or an
 * atomic whose width is not 4 or 8, or whose target is misaligned) is
 * refused with an error status and changes nothing; one inside succeeds,
 * and what a put wrote a get reads back; an atomic does what its operation
 * says to the word (checked against a model) and returns the old value.
 */
#include <stdbool.h>

#include "fuzz.h"
#include "transport/pe/job.h"
#include "transport/pe/owner.h"
#include "uvas/gate.h"
#include "uvas/internal.h"

#define MAXLEN ((size_t)1 << 20) /* in-range transfers up to 1 MiB */

static char *base;
static size_t size;
static uint8_t *src, *dst;
static void *live[4];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("UVAS_SIZE", "64M", 1);
    setenv("UVAS_DEVICE", "none", 1);
    setenv("UVAS_FAULT", getenv("UVAS_FAULT") ? getenv("UVAS_FAULT") : "uffd", 1);
    setenv("UVAS_FAULT_THREADS", "1", 1);
    unsetenv("UVAS_POLICY");
    struct uvas_options o = {.flags = UVAS_INIT_QUIET};
    if (uvas_init(&o)) {
        fprintf(stderr, "fuzz-peer: uvas_init: %s\n", uvas_last_error());
        exit(1);
    }
    /* What shmem_init sets up for the owner side: its own pin table (the
     * owner's threads pin their gates to go through the host alias). */
    if (uvas_gate_pins_setup(1) || uvas_gate_pins_get(0, &uvas_job.own_pins, NULL)) {
        fprintf(stderr, "fuzz-peer: pin tables: %s\n", uvas_last_error());
        exit(1);
    }
    uvas_job.own_slots = uvas_gate_slots_of(uvas_job.own_pins);
    base = uvas_g.base;
    size = uvas_g.size;
    size_t sizes[4] = {100, 5000, (size_t)1 << 20, (size_t)3 << 20};
    for (int i = 0; i < 4; i++) {
        live[i] = uvas_malloc(sizes[i]);
        if (!live[i])
            exit(1);
        memset(live[i], 0x40 + i, sizes[i]);
    }
    src = malloc(MAXLEN);
    dst = malloc(MAXLEN);
    for (size_t i = 0; i < MAXLEN; i++)
        src[i] = (uint8_t)(i * 131 + 7);
    return 0;
}

/* An address from the input: mostly in the range, near its ends, or not. */
static char *address(uint8_t how, uint64_t x)
{
    switch (how % 8) {
    case 0: case 1: case 2: return base + x % size;
    case 3: return base + size - 1 - x % 4096;          /* the last page */
    case 4: return base + (x % 4) * 4096 + (x >> 2) % 64; /* the first blocks */
    case 5: return base + size + x % (1u << 24);         /* just past the end */
    case 6: return base - 1 - x % (1u << 24);            /* just before */
    default: return (char *)(uintptr_t)x;                /* anywhere */
    }
}

static size_t length(uint8_t how, uint32_t x, const char *addr)
{
    size_t room = uvas_in_range(addr) ? (size_t)(base + size - addr) : 0;
    switch ((how >> 3) % 6) {
    case 0: case 1: return x % 256;
    case 2: return x % MAXLEN;
    case 3: return room + x % 64;                 /* to the end, or past it */
    case 4: return SIZE_MAX - x % 64;             /* huge */
    default: return room >= x % 64 ? room - x % 64 : 0; /* up to the end */
    }
}

static bool inside(const char *addr, size_t n)
{
    return uvas_in_range(addr) && n <= (size_t)(base + size - addr);
}

static uint64_t model_amo(int op, uint64_t old, uint64_t v, uint64_t cmp, uint64_t mask)
{
    uint64_t r;
    switch (op) {
    case UVAS_AMO_SET: case UVAS_AMO_SWAP: r = v; break;
    case UVAS_AMO_CSWAP: r = (old & mask) == (cmp & mask) ? v : old; break;
    case UVAS_AMO_ADD: r = old + v; break;
    case UVAS_AMO_AND: r = old & v; break;
    case UVAS_AMO_OR: r = old | v; break;
    case UVAS_AMO_XOR: r = old ^ v; break;
    default: r = old;
    }
    return r & mask;
}

static void one(struct fz_in *in)
{
    uint8_t kind = fz_u8(in), how = fz_u8(in);
    uint64_t x = fz_u64(in);
    uint32_t y = fz_u32(in);
    uint64_t operand = fz_u64(in);
    uint32_t cmp32 = fz_u32(in);
    char *addr = address(how, x);

    switch (kind % 3) {
    case 0: { /* put, then get it back */
        size_t n = length(how, y, addr);
        bool ok = inside(addr, n);
        if (ok && n > MAXLEN)
            n = MAXLEN; /* a valid but large put: cut to what we can source */
        size_t off = (size_t)(operand % MAXLEN);
        if (ok && n > MAXLEN - off)
            off = MAXLEN - n;
        int rc = uvas_owner_write(addr, src + off, n);
        if (!ok) {
            /* src + off holds fewer than n bytes: a wrong "yes" also reads
             * past it, which ASan reports. */
            FZ_CHECK(rc == UVAS_ERR_NOT_OWNED, "put %p+%zu outside the range: %d", (void *)addr,
                     n, rc);
            break;
        }
        FZ_CHECK(rc == UVAS_OK, "put %p+%zu: %d (%s)", (void *)addr, n, rc, uvas_last_error());
        memset(dst, 0xee, n);
        rc = uvas_owner_read(dst, addr, n);
        FZ_CHECK(rc == UVAS_OK, "get %p+%zu: %d", (void *)addr, n, rc);
        FZ_CHECK(!memcmp(dst, src + off, n), "get %p+%zu read other bytes than put", (void *)addr,
                 n);
        break;
    }
    case 1: { /* get */
        size_t n = length(how, y, addr);
        bool ok = inside(addr, n);
        int rc = uvas_owner_read(dst, addr, ok ? (n < MAXLEN ? n : MAXLEN) : n);
        if (ok)
            FZ_CHECK(rc == UVAS_OK, "get %p+%zu: %d", (void *)addr, n, rc);
        else
            FZ_CHECK(rc == UVAS_ERR_NOT_OWNED, "get %p+%zu outside the range: %d", (void *)addr,
                     n, rc);
        break;
    }
    default: { /* atomic */
        static const size_t widths[8] = {8, 4, 8, 4, 0, 1, 2, 16};
        size_t width = widths[(y >> 8) % 8];
        if ((y >> 11) & 1)
            width = y >> 24; /* any byte, as it arrives in a message */
        int op = (int)(y % (UVAS_AMO_COUNT + 2));
        if (how & 0x80) /* aligned in-range targets more often */
            addr = (char *)((uintptr_t)addr & ~(uintptr_t)7);
        bool ok = (width == 4 || width == 8) && inside(addr, width) &&
                  !((uintptr_t)addr & (width - 1));
        uint64_t mask = width == 4 ? 0xffffffffull : ~0ull;
        uint64_t before = 0, after = 0, fetched = 0xdeadbeef;
        if (ok)
            FZ_CHECK(uvas_owner_read(&before, addr, width) == UVAS_OK, "read %p", (void *)addr);
        int rc = uvas_owner_amo((enum uvas_amo_op)op, addr, width, operand, cmp32 | (x << 32),
                                &fetched);
        if (!ok) {
            FZ_CHECK(rc != UVAS_OK, "atomic op %d width %zu at %p accepted", op, width,
                     (void *)addr);
            break;
        }
        if (op >= UVAS_AMO_COUNT) /* an unknown operation changes nothing */
            FZ_CHECK(rc != UVAS_OK || true, "unknown op");
        else
            FZ_CHECK(rc == UVAS_OK, "atomic op %d width %zu at %p: %d", op, width, (void *)addr,
                     rc);
        FZ_CHECK(uvas_owner_read(&after, addr, width) == UVAS_OK, "read %p", (void *)addr);
        uint64_t want = model_amo(op, before, operand, cmp32 | (x << 32), mask);
        FZ_CHECK((after & mask) == want, "op %d width %zu: %#llx -> %#llx, want %#llx", op,
                 width, (unsigned long long)before, (unsigned long long)after,
                 (unsigned long long)want);
        if (rc == UVAS_OK && op != UVAS_AMO_SET && op < UVAS_AMO_COUNT)
            FZ_CHECK((fetched & mask) == (before & mask), "op %d returned %#llx, was %#llx", op,
                     (unsigned long long)fetched, (unsigned long long)before);
    }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size_in)
{
    struct fz_in in = {data, size_in};
    for (int i = 0; i < 64 && in.n; i++)
        one(&in);
    /* The allocations are still there (no request freed or moved them). */
    struct uvas_ptr_info info;
    for (int i = 0; i < 4; i++)
        FZ_CHECK(uvas_query(live[i], &info) == UVAS_OK && info.alloc_base == live[i],
                 "allocation %d lost", i);
    return 0;
}
