/* Statistics: collection, snapshot, watermarks and a printable form. */
#include "uvas/stats.h"

#include <stddef.h>
#include <string.h>

#include "uvas/atomics.h"
#include "uvas/inject.h"
#include "uvas/internal.h"
#include "uvas/status.h"

static void raise_high(_Atomic size_t *high, size_t v)
{
    size_t h = atomic_load_explicit(high, RLX);
    while (v > h && !atomic_compare_exchange_weak_explicit(high, &h, v, RLX, RLX))
        ;
}

void uvas_stats_block_in(int res, int populated)
{
    struct uvas_tier_ctr *t = &uvas_g.ctr.tier[res];
    size_t n = atomic_fetch_add_explicit(&t->blocks, 1, RLX) + 1;
    raise_high(&t->bytes_high, n << uvas_g.shift);
    if (populated)
        atomic_fetch_add_explicit(&t->populated, 1, RLX);
}

void uvas_stats_block_out(int res)
{
    atomic_fetch_sub_explicit(&uvas_g.ctr.tier[res].blocks, 1, RLX);
}

void uvas_stats_fault_time(uint64_t ns)
{
    atomic_fetch_add_explicit(&uvas_g.ctr.fault_ns_total, ns, RLX);
    uint64_t m = atomic_load_explicit(&uvas_g.ctr.fault_ns_max, RLX);
    while (ns > m && !atomic_compare_exchange_weak_explicit(&uvas_g.ctr.fault_ns_max, &m, ns,
                                                            RLX, RLX))
        ;
}

void uvas_stats_alloc(int heap, size_t size)
{
    struct uvas_heap_stats *h = &uvas_g.ctr.heap[heap];
    h->used_current += size;
    h->allocations++;
    if (h->used_current > h->used_high)
        h->used_high = h->used_current;
}

void uvas_stats_free(int heap, size_t size)
{
    struct uvas_heap_stats *h = &uvas_g.ctr.heap[heap];
    h->used_current -= size;
    h->allocations--;
}

void uvas_stats_reserve(int heap, long delta)
{
    struct uvas_heap_stats *h = &uvas_g.ctr.heap[heap];
    h->reserved_current += (size_t)delta;
    if (h->reserved_current > h->reserved_high)
        h->reserved_high = h->reserved_current;
}

/* All of it, into the caller's struct of `size` bytes (an older header's
 * struct is a prefix of this one). */
int uvas_stats_get_sized(struct uvas_stats *out, size_t size)
{
    uvas_clear_error();
    if (!out)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_stats_get: st is NULL");
    if (size < offsetof(struct uvas_stats, faults))
        return uvas_fail(UVAS_ERR_INVAL, "uvas_stats_get: a struct of %zu bytes is not a "
                         "struct uvas_stats (rebuild against uvas.h)", size);
    if (!atomic_load(&uvas_g.ready))
        return uvas_fail(UVAS_ERR_NOT_INIT, "uvas_stats_get: call uvas_init first");
    struct uvas_stats all, *st = &all;
    memset(st, 0, sizeof *st);
    pthread_mutex_lock(&uvas_g.lock);
    memcpy(st->heap, uvas_g.ctr.heap, sizeof st->heap);
    pthread_mutex_unlock(&uvas_g.lock);
    for (int r = 0; r < UVAS_RES_COUNT; r++) {
        struct uvas_tier_ctr *t = &uvas_g.ctr.tier[r];
        st->tier[r].blocks = atomic_load_explicit(&t->blocks, RLX);
        st->tier[r].bytes_current = st->tier[r].blocks << uvas_g.shift;
        st->tier[r].bytes_high = atomic_load_explicit(&t->bytes_high, RLX);
        st->tier[r].blocks_populated = atomic_load_explicit(&t->populated, RLX);
    }
    st->faults = atomic_load_explicit(&uvas_g.ctr.faults, RLX);
    st->faults_spurious = atomic_load_explicit(&uvas_g.ctr.faults_spurious, RLX);
    st->faults_stray = atomic_load_explicit(&uvas_g.ctr.faults_stray, RLX);
    st->fault_ns_total = atomic_load_explicit(&uvas_g.ctr.fault_ns_total, RLX);
    st->fault_ns_max = atomic_load_explicit(&uvas_g.ctr.fault_ns_max, RLX);
    st->blocks_released = atomic_load_explicit(&uvas_g.ctr.blocks_released, RLX);
    st->faults_device = atomic_load_explicit(&uvas_g.ctr.faults_device, RLX);
    for (int r = 0; r < UVAS_RES_COUNT; r++) {
        st->migrations[r] = atomic_load_explicit(&uvas_g.ctr.migrations[r], RLX);
        st->bytes_migrated[r] = atomic_load_explicit(&uvas_g.ctr.bytes_migrated[r], RLX);
    }
    st->evictions = atomic_load_explicit(&uvas_g.ctr.evictions, RLX);
    st->slots_quarantined = atomic_load_explicit(&uvas_g.ctr.slots_quarantined, RLX);
    st->kernel_launches = atomic_load_explicit(&uvas_g.ctr.kernel_launches, RLX);
    st->kernel_translations = atomic_load_explicit(&uvas_g.ctr.kernel_translations, RLX);
    st->kernel_faults = atomic_load_explicit(&uvas_g.ctr.kernel_faults, RLX);
    st->kernel_fault_waits = atomic_load_explicit(&uvas_g.ctr.kernel_fault_waits, RLX);
    st->kernel_replays = atomic_load_explicit(&uvas_g.ctr.kernel_replays, RLX);
    st->kernel_gpu_ns = atomic_load_explicit(&uvas_g.ctr.kernel_gpu_ns, RLX);
    st->kernel_accesses = atomic_load_explicit(&uvas_g.ctr.kernel_accesses, RLX);
    st->kernel_submissions = atomic_load_explicit(&uvas_g.ctr.kernel_submissions, RLX);
    st->kernel_peer_leases = atomic_load_explicit(&uvas_g.ctr.kernel_peer_leases, RLX);
    st->kernel_peer_revokes = atomic_load_explicit(&uvas_g.ctr.kernel_peer_revokes, RLX);
    st->kernel_requests = atomic_load_explicit(&uvas_g.ctr.kernel_requests, RLX);
    st->copy_submissions = atomic_load_explicit(&uvas_g.ctr.copy_submissions, RLX);
    st->pin_pending = atomic_load_explicit(&uvas_g.ctr.pin_pending, RLX);
    st->staged_blocks = atomic_load_explicit(&uvas_g.ctr.staged_blocks, RLX);
    st->device_touches = atomic_load_explicit(&uvas_g.ctr.device_touches, RLX);
    st->device_remote = atomic_load_explicit(&uvas_g.ctr.device_remote, RLX);
    st->migrate_ns_total = atomic_load_explicit(&uvas_g.ctr.migrate_ns_total, RLX);
    st->migrate_ns_copy = atomic_load_explicit(&uvas_g.ctr.migrate_ns_copy, RLX);
    st->migrate_ns_import = atomic_load_explicit(&uvas_g.ctr.migrate_ns_import, RLX);
    st->migrate_ns_map = atomic_load_explicit(&uvas_g.ctr.migrate_ns_map, RLX);
    _Static_assert(UVAS_INJ_COUNT == sizeof st->injected / sizeof st->injected[0],
                   "uvas_stats.injected has a slot per injection site");
    for (int i = 0; i < UVAS_INJ_COUNT; i++)
        st->injected[i] = uvas_inject_count((enum uvas_inject_site)i);
    memcpy(out, st, size < sizeof all ? size : sizeof all);
    return UVAS_OK;
}

int uvas_stats_reset_watermarks(void)
{
    uvas_clear_error();
    if (!atomic_load(&uvas_g.ready))
        return uvas_fail(UVAS_ERR_NOT_INIT, "uvas_stats_reset_watermarks: call uvas_init first");
    pthread_mutex_lock(&uvas_g.lock);
    for (int h = 0; h < UVAS_HEAP_COUNT; h++) {
        uvas_g.ctr.heap[h].used_high = uvas_g.ctr.heap[h].used_current;
        uvas_g.ctr.heap[h].reserved_high = uvas_g.ctr.heap[h].reserved_current;
    }
    pthread_mutex_unlock(&uvas_g.lock);
    for (int r = 0; r < UVAS_RES_COUNT; r++) {
        struct uvas_tier_ctr *t = &uvas_g.ctr.tier[r];
        atomic_store_explicit(&t->bytes_high, atomic_load_explicit(&t->blocks, RLX) << uvas_g.shift,
                              RLX);
    }
    return UVAS_OK;
}

static void print_bytes(FILE *out, size_t b)
{
    static const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)b;
    int u = 0;
    while (v >= 1024 && u < 4) {
        v /= 1024;
        u++;
    }
    fprintf(out, u ? "%8.2f %-3s" : "%8.0f %-3s", v, unit[u]);
}

static int stats_print_entered(FILE *out)
{
    uvas_clear_error();
    if (!out)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_stats_print: out is NULL (give a FILE *, e.g. "
                         "stdout)");
    struct uvas_stats st;
    int rc = uvas_stats_get(&st);
    if (rc)
        return rc;
    static const char *heap_name[] = {"unified", "host", "device"};
    fprintf(out, "device tier: %s\n", uvas_g.device_note);
    fprintf(out, "heap       allocs        used     used-high    reserved\n");
    for (int h = 0; h < UVAS_HEAP_COUNT; h++) {
        fprintf(out, "%-8s %8zu  ", heap_name[h], st.heap[h].allocations);
        print_bytes(out, st.heap[h].used_current);
        fputs("  ", out);
        print_bytes(out, st.heap[h].used_high);
        fputs("  ", out);
        print_bytes(out, st.heap[h].reserved_current);
        fputc('\n', out);
    }
    fprintf(out, "tier       blocks    resident  resident-high  populated\n");
    for (int r = UVAS_RES_HOST; r < UVAS_RES_COUNT; r++) {
        fprintf(out, "%-8s %8zu  ", uvas_residence_name(r), st.tier[r].blocks);
        print_bytes(out, st.tier[r].bytes_current);
        fputs("   ", out);
        print_bytes(out, st.tier[r].bytes_high);
        fprintf(out, "   %8llu\n", (unsigned long long)st.tier[r].blocks_populated);
    }
    double avg = st.faults ? (double)st.fault_ns_total / (double)st.faults / 1000.0 : 0.0;
    fprintf(out, "faults %llu (spurious %llu, stray %llu), service %.1f us avg, %.1f us max, "
                 "blocks released %llu\n",
            (unsigned long long)st.faults, (unsigned long long)st.faults_spurious,
            (unsigned long long)st.faults_stray, avg, (double)st.fault_ns_max / 1000.0,
            (unsigned long long)st.blocks_released);
    fprintf(out, "migrations: %llu to device (%.1f MiB), %llu to host (%.1f MiB), %llu "
                 "evictions, %llu CPU faults on device blocks, %.1f ms migrating, %llu copy "
                 "submissions\n",
            (unsigned long long)st.migrations[UVAS_RES_DEVICE],
            (double)st.bytes_migrated[UVAS_RES_DEVICE] / (1 << 20),
            (unsigned long long)st.migrations[UVAS_RES_HOST],
            (double)st.bytes_migrated[UVAS_RES_HOST] / (1 << 20),
            (unsigned long long)st.evictions, (unsigned long long)st.faults_device,
            (double)st.migrate_ns_total / 1e6, (unsigned long long)st.copy_submissions);
    if (st.staged_blocks || st.pin_pending)
        fprintf(out, "staging: %llu block moves through staging memory, %llu imports pending\n",
                (unsigned long long)st.staged_blocks, (unsigned long long)st.pin_pending);
    if (st.kernel_launches)
        fprintf(out, "kernels: %llu launches in %llu submissions (%.1f ms on the device), %llu "
                     "translations, %llu faults (%llu served waiting), %llu replays, %llu "
                     "accesses counted, %llu OpenSHMEM calls served by the host\n",
                (unsigned long long)st.kernel_launches,
                (unsigned long long)st.kernel_submissions, (double)st.kernel_gpu_ns / 1e6,
                (unsigned long long)st.kernel_translations, (unsigned long long)st.kernel_faults,
                (unsigned long long)st.kernel_fault_waits, (unsigned long long)st.kernel_replays,
                (unsigned long long)st.kernel_accesses, (unsigned long long)st.kernel_requests);
    if (st.kernel_peer_leases)
        fprintf(out, "kernels' leases on other PEs' device memory: %llu (%llu taken back "
                     "early)\n", (unsigned long long)st.kernel_peer_leases,
                (unsigned long long)st.kernel_peer_revokes);
    const char *sep = "injected failures:";
    for (int i = 0; i < UVAS_INJ_COUNT; i++)
        if (st.injected[i]) {
            fprintf(out, "%s %s %llu", sep, uvas_inject_site_name((enum uvas_inject_site)i),
                    (unsigned long long)st.injected[i]);
            sep = ",";
        }
    if (*sep == ',')
        fputc('\n', out);
    return UVAS_OK;
}

int uvas_stats_print(FILE *out)
{
    int entered = uvas_api_enter("uvas_stats_print");
    if (entered)
        return entered;
    int rc = stats_print_entered(out);
    uvas_api_leave();
    return rc;
}
