/*
 * The world-team collectives (barrier, broadcast, collect, reductions,
 * all-to-all) and one classic active-set form.
 * Runs on any number of PEs >= 2 (skips on 1).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "shmem-suite.h"

/* ---- collectives ------------------------------------------------------------------- */

static void check_collectives(void)
{
    enum { B = 8, F = 4, R = 5, A = 3 };
    size_t ctotal = (size_t)npes * (npes + 1) / 2;
    long *bsrc = shmem_malloc(B * sizeof(long));
    long *bdst = shmem_malloc(B * sizeof(long));
    long *csrc = shmem_malloc((size_t)npes * sizeof(long));
    long *cdst = shmem_malloc(ctotal * sizeof(long));
    int *fsrc = shmem_malloc(F * sizeof(int));
    int *fdst = shmem_malloc((size_t)npes * F * sizeof(int));
    long *asrc = shmem_malloc((size_t)npes * A * sizeof(long));
    long *adst = shmem_malloc((size_t)npes * A * sizeof(long));
    int *iasrc = shmem_malloc((size_t)npes * sizeof(int));
    int *iadst = shmem_malloc((size_t)npes * sizeof(int));
    OK(bsrc && bdst && csrc && cdst && fsrc && fdst && asrc && adst && iasrc && iadst,
       "allocations");

    /* broadcast from the first and the last PE (the root's dest too). */
    int roots[2] = {0, npes - 1};
    for (int r = 0; r < 2; r++) {
        int root = roots[r];
        for (int i = 0; i < B; i++) {
            bsrc[i] = 100L * me + i;
            bdst[i] = -1;
        }
        shmem_barrier_all();
        OK_EQ(shmem_long_broadcast(SHMEM_TEAM_WORLD, bdst, bsrc, B, root), 0,
              "shmem_long_broadcast returns 0");
        for (int i = 0; i < B; i++)
            OK_EQ(bdst[i], 100L * root + i, "shmem_long_broadcast");
    }
    memset(bdst, 0, B * sizeof(long));
    shmem_barrier_all();
    OK_EQ(shmem_broadcastmem(SHMEM_TEAM_WORLD, bdst, bsrc, 3 * sizeof(long), npes - 1), 0,
          "shmem_broadcastmem");
    for (int i = 0; i < 3; i++)
        OK_EQ(bdst[i], 100L * (npes - 1) + i, "shmem_broadcastmem data");
    OK_EQ(bdst[3], 0, "shmem_broadcastmem wrote only nelems bytes");
    OK_EQ(shmem_broadcast(SHMEM_TEAM_WORLD, bdst, bsrc, B, 0), 0, "generic shmem_broadcast");
    for (int i = 0; i < B; i++)
        OK_EQ(bdst[i], (long)i, "generic shmem_broadcast data");

    /* classic broadcast64 on the world active set: the root's dest stays. */
    static long psync[SHMEM_BCAST_SYNC_SIZE];
    for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < B; i++) {
        bsrc[i] = 0x1000L * (me + 1) + i;
        bdst[i] = -7;
    }
    shmem_barrier_all();
    int croot = npes > 2 ? 1 : 0;
    shmem_broadcast64(bdst, bsrc, 4, croot, 0, 0, npes, psync);
    for (int i = 0; i < B; i++) {
        long want = (me != croot && i < 4) ? 0x1000L * (croot + 1) + i : -7;
        OK_EQ(bdst[i], want, "shmem_broadcast64 (classic)");
    }
    shmem_barrier_all();

    /* Classic calls on active sets that are not the whole job, each with
     * its pSync (SHMEM_SYNC_VALUE before, and put back after): the odd PEs
     * (logPE_stride 1 from PE 1), then the PEs from 1 on. Three barriers,
     * a broadcast, an fcollect and a sum to_all in a row on each pSync. */
    static long ps_b[SHMEM_BARRIER_SYNC_SIZE], ps_c[SHMEM_COLLECT_SYNC_SIZE];
    static long ps_r[SHMEM_REDUCE_SYNC_SIZE], aset_wrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 8];
    static long aset_src[4], aset_dst[4 * 64], aset_sum[1];
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
        ps_b[i] = ps_c[i] = ps_r[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    int sets[2][3] = {{1, 1, npes / 2}, {1, 0, npes - 1}};
    for (int s_ = 0; s_ < 2; s_++) {
        int st = sets[s_][0], lg = sets[s_][1], sz = sets[s_][2];
        int idx = (me - st) >> lg;
        bool in = me >= st && ((me - st) & ((1 << lg) - 1)) == 0 && idx < sz;
        if (sz < 1 || !in) {
            shmem_barrier_all();
            continue;
        }
        for (int r = 0; r < 3; r++)
            shmem_barrier(st, lg, sz, ps_b);
        aset_src[0] = 100 + me;
        shmem_broadcast64(aset_dst, aset_src, 1, sz - 1, st, lg, sz, ps_c);
        int last = st + ((sz - 1) << lg);
        if (me != last)
            OK_EQ(aset_dst[0], 100L + last, "classic broadcast on an active set");
        shmem_fcollect64(aset_dst, aset_src, 1, st, lg, sz, ps_c);
        for (int k = 0; k < sz; k++)
            OK_EQ(aset_dst[k], 100L + st + (k << lg), "classic fcollect on an active set");
        aset_src[0] = me;
        shmem_long_sum_to_all(aset_sum, aset_src, 1, st, lg, sz, aset_wrk, ps_r);
        long want = 0;
        for (int k = 0; k < sz; k++)
            want += st + (k << lg);
        OK_EQ(aset_sum[0], want, "classic sum_to_all on an active set");
        for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
            OK(ps_b[i] == SHMEM_SYNC_VALUE && ps_c[i] == SHMEM_SYNC_VALUE &&
                   ps_r[i] == SHMEM_SYNC_VALUE, "pSync put back to SHMEM_SYNC_VALUE");
        shmem_barrier_all();
    }

    /* collect: PE k contributes k + 1 elements, concatenated in PE order. */
    for (int i = 0; i <= me; i++)
        csrc[i] = 1000L * me + i;
    for (size_t i = 0; i < ctotal; i++)
        cdst[i] = -1;
    shmem_barrier_all();
    OK_EQ(shmem_long_collect(SHMEM_TEAM_WORLD, cdst, csrc, (size_t)me + 1), 0,
          "shmem_long_collect");
    size_t at = 0;
    for (int k = 0; k < npes; k++)
        for (int i = 0; i <= k; i++)
            OK_EQ(cdst[at++], 1000L * k + i, "shmem_long_collect data");
    /* collect where some PEs give nothing */
    for (size_t i = 0; i < ctotal; i++)
        cdst[i] = -1;
    shmem_barrier_all();
    OK_EQ(shmem_collect(SHMEM_TEAM_WORLD, cdst, csrc, (size_t)(me % 2)), 0,
          "generic shmem_collect");
    at = 0;
    for (int k = 0; k < npes; k++)
        if (k % 2)
            OK_EQ(cdst[at++], 1000L * k, "shmem_collect with empty contributions");
    OK_EQ(cdst[at], -1, "shmem_collect wrote past its total");

    /* fcollect */
    for (int i = 0; i < F; i++)
        fsrc[i] = 10 * me + i;
    shmem_barrier_all();
    OK_EQ(shmem_int_fcollect(SHMEM_TEAM_WORLD, fdst, fsrc, F), 0, "shmem_int_fcollect");
    for (int k = 0; k < npes; k++)
        for (int i = 0; i < F; i++)
            OK_EQ(fdst[k * F + i], 10 * k + i, "shmem_int_fcollect data");
    memset(fdst, 0, (size_t)npes * F * sizeof(int));
    shmem_barrier_all();
    OK_EQ(shmem_fcollectmem(SHMEM_TEAM_WORLD, fdst, fsrc, sizeof(int)), 0, "fcollectmem");
    for (int k = 0; k < npes; k++)
        OK_EQ(fdst[k], 10 * k, "shmem_fcollectmem data");

    /* alltoall: block j of PE k's source lands as block k of PE j's dest. */
    for (int j = 0; j < npes; j++)
        for (int i = 0; i < A; i++)
            asrc[j * A + i] = 10000L * me + 100L * j + i;
    for (int j = 0; j < npes; j++)
        iasrc[j] = me * 64 + j;
    shmem_barrier_all();
    OK_EQ(shmem_long_alltoall(SHMEM_TEAM_WORLD, adst, asrc, A), 0, "shmem_long_alltoall");
    for (int k = 0; k < npes; k++)
        for (int i = 0; i < A; i++)
            OK_EQ(adst[k * A + i], 10000L * k + 100L * me + i, "shmem_long_alltoall data");
    OK_EQ(shmem_alltoall(SHMEM_TEAM_WORLD, iadst, iasrc, 1), 0, "generic shmem_alltoall");
    for (int k = 0; k < npes; k++)
        OK_EQ(iadst[k], k * 64 + me, "generic shmem_alltoall data");

    /* reductions */
    int *is = shmem_malloc(R * sizeof(int)), *id = shmem_malloc(R * sizeof(int));
    long *ls = shmem_malloc(R * sizeof(long)), *ld = shmem_malloc(R * sizeof(long));
    double *ds = shmem_malloc(R * sizeof(double)), *dd = shmem_malloc(R * sizeof(double));
    int32_t *bs = shmem_malloc(R * sizeof(int32_t)), *bd = shmem_malloc(R * sizeof(int32_t));
    uint64_t *us = shmem_malloc(R * sizeof(uint64_t)), *ud = shmem_malloc(R * sizeof(uint64_t));
    OK(is && id && ls && ld && ds && dd && bs && bd && us && ud, "reduction allocations");
    /* the values each PE k gives for element i */
#define RV(k, i) ((((k) * 7 + (i) * 3) % 11) - 4)
#define PV(k, i) (((k) + (i)) % 3 + 1)
    long wsum[R], wmin[R], wmax[R], wprod[R];
    double dsum[R], dmin[R], dmax[R], dprod[R];
    for (int i = 0; i < R; i++) {
        wsum[i] = 0;
        wprod[i] = 1;
        wmin[i] = wmax[i] = RV(0, i);
        dsum[i] = 0;
        dprod[i] = 1;
        dmin[i] = dmax[i] = RV(0, i) + 0.5;
        for (int k = 0; k < npes; k++) {
            wsum[i] += RV(k, i);
            wprod[i] *= PV(k, i);
            if (RV(k, i) < wmin[i])
                wmin[i] = RV(k, i);
            if (RV(k, i) > wmax[i])
                wmax[i] = RV(k, i);
            dsum[i] += RV(k, i) + 0.5;
            dprod[i] *= PV(k, i) * 0.5;
            if (RV(k, i) + 0.5 < dmin[i])
                dmin[i] = RV(k, i) + 0.5;
            if (RV(k, i) + 0.5 > dmax[i])
                dmax[i] = RV(k, i) + 0.5;
        }
    }
#define SETV(expr)                                                                        \
    for (int i = 0; i < R; i++) {                                                         \
        is[i] = (int)(expr);                                                              \
        ls[i] = (long)(expr);                                                             \
        ds[i] = (double)(expr) + 0.5;                                                     \
    }                                                                                     \
    shmem_barrier_all()
    SETV(RV(me, i));
    OK_EQ(shmem_int_sum_reduce(SHMEM_TEAM_WORLD, id, is, R), 0, "int sum");
    OK_EQ(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, ld, ls, R), 0, "long sum");
    OK_EQ(shmem_double_sum_reduce(SHMEM_TEAM_WORLD, dd, ds, R), 0, "double sum");
    for (int i = 0; i < R; i++) {
        OK_EQ(id[i], wsum[i], "shmem_int_sum_reduce");
        OK_EQ(ld[i], wsum[i], "shmem_long_sum_reduce");
        OK(dd[i] == dsum[i], "shmem_double_sum_reduce [%d]: %g, expected %g", i, dd[i], dsum[i]);
    }
    OK_EQ(shmem_int_min_reduce(SHMEM_TEAM_WORLD, id, is, R), 0, "int min");
    OK_EQ(shmem_long_min_reduce(SHMEM_TEAM_WORLD, ld, ls, R), 0, "long min");
    OK_EQ(shmem_double_min_reduce(SHMEM_TEAM_WORLD, dd, ds, R), 0, "double min");
    for (int i = 0; i < R; i++) {
        OK_EQ(id[i], wmin[i], "shmem_int_min_reduce");
        OK_EQ(ld[i], wmin[i], "shmem_long_min_reduce");
        OK(dd[i] == dmin[i], "shmem_double_min_reduce [%d]: %g, expected %g", i, dd[i], dmin[i]);
    }
    OK_EQ(shmem_int_max_reduce(SHMEM_TEAM_WORLD, id, is, R), 0, "int max");
    OK_EQ(shmem_long_max_reduce(SHMEM_TEAM_WORLD, ld, ls, R), 0, "long max");
    OK_EQ(shmem_max_reduce(SHMEM_TEAM_WORLD, dd, ds, R), 0, "generic double max");
    for (int i = 0; i < R; i++) {
        OK_EQ(id[i], wmax[i], "shmem_int_max_reduce");
        OK_EQ(ld[i], wmax[i], "shmem_long_max_reduce");
        OK(dd[i] == dmax[i], "shmem_max_reduce(double) [%d]: %g, expected %g", i, dd[i], dmax[i]);
    }
    for (int i = 0; i < R; i++) {
        is[i] = PV(me, i);
        ls[i] = PV(me, i);
        ds[i] = PV(me, i) * 0.5;
    }
    shmem_barrier_all();
    OK_EQ(shmem_int_prod_reduce(SHMEM_TEAM_WORLD, id, is, R), 0, "int prod");
    OK_EQ(shmem_prod_reduce(SHMEM_TEAM_WORLD, ld, ls, R), 0, "generic long prod");
    OK_EQ(shmem_double_prod_reduce(SHMEM_TEAM_WORLD, dd, ds, R), 0, "double prod");
    for (int i = 0; i < R; i++) {
        OK_EQ(id[i], wprod[i], "shmem_int_prod_reduce");
        OK_EQ(ld[i], wprod[i], "shmem_prod_reduce(long)");
        OK(dd[i] == dprod[i], "shmem_double_prod_reduce [%d]: %g, expected %g", i, dd[i],
           dprod[i]);
    }
    /* bitwise: bit k set by PE k, bit 20 by all, bit 21 by PE 0 only */
    int32_t band = -1, bor = 0, bxor = 0;
    uint64_t uand = ~0ull, uor = 0, uxor = 0;
    for (int k = 0; k < npes; k++) {
        int32_t v = (int32_t)((1u << (k % 20)) | (1u << 20) | (k == 0 ? 1u << 21 : 0));
        uint64_t u = (1ull << (k % 60)) | (1ull << 63) | ((uint64_t)k << 32);
        band &= v;
        bor |= v;
        bxor ^= v;
        uand &= u;
        uor |= u;
        uxor ^= u;
    }
    for (int i = 0; i < R; i++) {
        bs[i] = (int32_t)((1u << (me % 20)) | (1u << 20) | (me == 0 ? 1u << 21 : 0));
        us[i] = (1ull << (me % 60)) | (1ull << 63) | ((uint64_t)me << 32);
    }
    shmem_barrier_all();
    OK_EQ(shmem_int32_and_reduce(SHMEM_TEAM_WORLD, bd, bs, R), 0, "int32 and");
    for (int i = 0; i < R; i++)
        OK_EQ(bd[i], band, "shmem_int32_and_reduce");
    OK_EQ(shmem_int32_or_reduce(SHMEM_TEAM_WORLD, bd, bs, R), 0, "int32 or");
    for (int i = 0; i < R; i++)
        OK_EQ(bd[i], bor, "shmem_int32_or_reduce");
    OK_EQ(shmem_int32_xor_reduce(SHMEM_TEAM_WORLD, bd, bs, R), 0, "int32 xor");
    for (int i = 0; i < R; i++)
        OK_EQ(bd[i], bxor, "shmem_int32_xor_reduce");
    OK_EQ(shmem_uint64_and_reduce(SHMEM_TEAM_WORLD, ud, us, R), 0, "uint64 and");
    for (int i = 0; i < R; i++)
        OK(ud[i] == uand, "shmem_uint64_and_reduce: %#llx, expected %#llx",
           (unsigned long long)ud[i], (unsigned long long)uand);
    OK_EQ(shmem_or_reduce(SHMEM_TEAM_WORLD, ud, us, R), 0, "generic uint64 or");
    for (int i = 0; i < R; i++)
        OK(ud[i] == uor, "shmem_or_reduce(uint64): %#llx, expected %#llx",
           (unsigned long long)ud[i], (unsigned long long)uor);
    OK_EQ(shmem_xor_reduce(SHMEM_TEAM_WORLD, ud, us, R), 0, "generic uint64 xor");
    for (int i = 0; i < R; i++)
        OK(ud[i] == uxor, "shmem_xor_reduce(uint64): %#llx, expected %#llx",
           (unsigned long long)ud[i], (unsigned long long)uxor);
    /* long long bitwise, through the generic (beyond 1.5's table, as
     * other implementations offer it) */
    static long long lls[R], lld[R];
    for (int i = 0; i < R; i++)
        lls[i] = (long long)us[i];
    shmem_barrier_all();
    OK_EQ(shmem_and_reduce(SHMEM_TEAM_WORLD, lld, lls, R), 0, "generic long long and");
    for (int i = 0; i < R; i++)
        OK(lld[i] == (long long)uand, "shmem_and_reduce(long long)");
    /* in place */
    for (int i = 0; i < R; i++)
        ls[i] = RV(me, i);
    shmem_barrier_all();
    OK_EQ(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, ls, ls, R), 0, "in-place long sum");
    for (int i = 0; i < R; i++)
        OK_EQ(ls[i], wsum[i], "in-place shmem_long_sum_reduce");
    /* the classic form */
    static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + R], rsync[SHMEM_REDUCE_SYNC_SIZE];
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        rsync[i] = SHMEM_SYNC_VALUE;
    for (int i = 0; i < R; i++)
        ls[i] = RV(me, i);
    shmem_barrier_all();
    shmem_long_sum_to_all(ld, ls, R, 0, 0, npes, pwrk, rsync);
    for (int i = 0; i < R; i++)
        OK_EQ(ld[i], wsum[i], "shmem_long_sum_to_all (classic)");
#undef SETV
#undef RV
#undef PV
    shmem_free(ud);
    shmem_free(us);
    shmem_free(bd);
    shmem_free(bs);
    shmem_free(dd);
    shmem_free(ds);
    shmem_free(ld);
    shmem_free(ls);
    shmem_free(id);
    shmem_free(is);
    shmem_free(iadst);
    shmem_free(iasrc);
    shmem_free(adst);
    shmem_free(asrc);
    shmem_free(fdst);
    shmem_free(fsrc);
    shmem_free(cdst);
    shmem_free(csrc);
    shmem_free(bdst);
    shmem_free(bsrc);
}

int main(void)
{
    int level = suite_start();
    check_collectives();
    suite_end("test-shmem-coll", level);
    return 0;
}
