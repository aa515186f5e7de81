/*
 * OpenSHMEM's type-generic names from C++ (include/shmem_generic_cxx.h):
 * every generic RMA, atomic, point-to-point, collective and reduction
 * name, with and without a context, on every type its family takes,
 * reaches the typed routine of that type: the values that arrive say so
 * (a call that reached another width would move other bytes). Also the
 * deprecated generic names, shmem_sync(team) beside the active-set form,
 * fixed-width and size types through the C types they alias, complex
 * reductions (a GNU extension in C++), and a C++ program's static objects
 * as symmetric objects. Runs on any number of PEs >= 2 (skips on 1).
 */
#include <shmem.h>

#include <complex.h>
#include <cstring>
#include <type_traits>

#include "shmem-suite.h"

namespace {

template <typename T> struct Rma {
    static T dst[8], src[8], sym[8], strided[16];
    static uint64_t sig;
};
template <typename T> T Rma<T>::dst[8];
template <typename T> T Rma<T>::src[8];
template <typename T> T Rma<T>::sym[8];
template <typename T> T Rma<T>::strided[16];
template <typename T> uint64_t Rma<T>::sig;

template <typename T> void expect_from(const T *a, int pe, size_t n, int salt, const char *what,
                                       const char *type)
{
    for (size_t i = 0; i < n; i++)
        OK(a[i] == VAL(T, pe + salt, i), "PE %d: %s<%s>[%zu] is not PE %d's value", me, what,
           type, i, pe);
}

template <typename T> void fill(T *a, int pe, size_t n, int salt)
{
    for (size_t i = 0; i < n; i++)
        a[i] = VAL(T, pe + salt, i);
}

/* Every RMA name, plain and with the default context. */
template <typename T> void rma(const char *type)
{
    using R = Rma<T>;
    T local[8];
    for (int ctx = 0; ctx < 2; ctx++) {
        int salt = ctx * 11;
        fill(R::src, me, 8, salt);
        fill(R::sym, me, 8, salt);
        std::memset(R::dst, 0, sizeof R::dst);
        shmem_barrier_all();
        if (ctx)
            shmem_put(SHMEM_CTX_DEFAULT, R::dst, R::src, 8, right);
        else
            shmem_put(R::dst, R::src, 8, right);
        shmem_barrier_all();
        expect_from(R::dst, left, 8, salt, "shmem_put", type);

        if (ctx)
            shmem_get(SHMEM_CTX_DEFAULT, local, R::sym, 8, right);
        else
            shmem_get(local, R::sym, 8, right);
        expect_from(local, right, 8, salt, "shmem_get", type);

        shmem_barrier_all();
        std::memset(R::dst, 0, sizeof R::dst);
        shmem_barrier_all();
        if (ctx) {
            shmem_put_nbi(SHMEM_CTX_DEFAULT, R::dst, R::src, 8, right);
            shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
        } else {
            shmem_put_nbi(R::dst, R::src, 8, right);
            shmem_quiet();
        }
        shmem_barrier_all();
        expect_from(R::dst, left, 8, salt, "shmem_put_nbi", type);

        std::memset(local, 0, sizeof local);
        if (ctx) {
            shmem_get_nbi(SHMEM_CTX_DEFAULT, local, R::sym, 8, right);
            shmem_ctx_quiet(SHMEM_CTX_DEFAULT);
        } else {
            shmem_get_nbi(local, R::sym, 8, right);
            shmem_quiet();
        }
        expect_from(local, right, 8, salt, "shmem_get_nbi", type);

        T g = ctx ? shmem_g(SHMEM_CTX_DEFAULT, &R::sym[3], right) : shmem_g(&R::sym[3], right);
        OK(g == VAL(T, right + salt, 3), "PE %d: shmem_g<%s>", me, type);
        static_assert(std::is_same<decltype(shmem_g(&R::sym[3], 0)), T>::value,
                      "shmem_g returns the element type");

        shmem_barrier_all();
        if (ctx)
            shmem_p(SHMEM_CTX_DEFAULT, &R::dst[5], VAL(T, me + 3, 5), right);
        else
            shmem_p(&R::dst[5], VAL(T, me + 3, 5), right);
        shmem_barrier_all();
        OK(R::dst[5] == VAL(T, left + 3, 5), "PE %d: shmem_p<%s>", me, type);

        /* iput: every other element of strided[], from every element of src */
        std::memset(R::strided, 0, sizeof R::strided);
        shmem_barrier_all();
        if (ctx)
            shmem_iput(SHMEM_CTX_DEFAULT, R::strided, R::src, 2, 1, 8, right);
        else
            shmem_iput(R::strided, R::src, 2, 1, 8, right);
        shmem_barrier_all();
        for (size_t i = 0; i < 8; i++)
            OK(R::strided[2 * i] == VAL(T, left + salt, i) && R::strided[2 * i + 1] == T(0),
               "PE %d: shmem_iput<%s> element %zu", me, type, i);
        shmem_barrier_all();
        /* iget: every other element of the peer's strided[] */
        std::memset(local, 0, sizeof local);
        if (ctx)
            shmem_iget(SHMEM_CTX_DEFAULT, local, R::strided, 1, 2, 8, right);
        else
            shmem_iget(local, R::strided, 1, 2, 8, right);
        expect_from(local, me, 8, salt, "shmem_iget", type);

        for (int nbi = 0; nbi < 2; nbi++) {
            shmem_barrier_all();
            std::memset(R::dst, 0, sizeof R::dst);
            R::sig = 0;
            shmem_barrier_all();
            uint64_t s = (uint64_t)me + 1 + (uint64_t)nbi * 1000;
            if (ctx && nbi)
                shmem_put_signal_nbi(SHMEM_CTX_DEFAULT, R::dst, R::src, 8, &R::sig, s,
                                     SHMEM_SIGNAL_SET, right);
            else if (ctx)
                shmem_put_signal(SHMEM_CTX_DEFAULT, R::dst, R::src, 8, &R::sig, s,
                                 SHMEM_SIGNAL_SET, right);
            else if (nbi)
                shmem_put_signal_nbi(R::dst, R::src, 8, &R::sig, s, SHMEM_SIGNAL_SET, right);
            else
                shmem_put_signal(R::dst, R::src, 8, &R::sig, s, SHMEM_SIGNAL_SET, right);
            uint64_t want = (uint64_t)left + 1 + (uint64_t)nbi * 1000;
            OK(shmem_signal_wait_until(&R::sig, SHMEM_CMP_EQ, want) == want,
               "PE %d: shmem_put_signal<%s> signal", me, type);
            expect_from(R::dst, left, 8, salt, nbi ? "shmem_put_signal_nbi" : "shmem_put_signal",
                        type);
            shmem_quiet();
        }
    }
    shmem_barrier_all();
}

template <typename T> struct Amo {
    static T v, w;
};
template <typename T> T Amo<T>::v;
template <typename T> T Amo<T>::w;

/* fetch, set, swap (the AMO types, float and double), and the deprecated
 * shmem_fetch/shmem_set/shmem_swap. */
template <typename T> void amo_fss(const char *type)
{
    using A = Amo<T>;
    for (int ctx = 0; ctx < 3; ctx++) {
        shmem_barrier_all();
        A::v = T(me + 1);
        shmem_barrier_all();
        T got = ctx == 1 ? shmem_atomic_fetch(SHMEM_CTX_DEFAULT, &A::v, right)
              : ctx == 2 ? shmem_fetch(&A::v, right)
                         : shmem_atomic_fetch(&A::v, right);
        OK(got == T(right + 1), "PE %d: atomic fetch<%s> (form %d)", me, type, ctx);
        T f = T(0);
        if (ctx == 1)
            shmem_atomic_fetch_nbi(SHMEM_CTX_DEFAULT, &f, &A::v, right);
        else
            shmem_atomic_fetch_nbi(&f, &A::v, right);
        shmem_quiet();
        OK(f == T(right + 1), "PE %d: shmem_atomic_fetch_nbi<%s>", me, type);
        shmem_barrier_all();
        if (ctx == 1)
            shmem_atomic_set(SHMEM_CTX_DEFAULT, &A::v, T(me + 40), right);
        else if (ctx == 2)
            shmem_set(&A::v, T(me + 40), right);
        else
            shmem_atomic_set(&A::v, T(me + 40), right);
        shmem_barrier_all();
        OK(A::v == T(left + 40), "PE %d: atomic set<%s> (form %d)", me, type, ctx);
        shmem_barrier_all();
        T old = ctx == 1 ? shmem_atomic_swap(SHMEM_CTX_DEFAULT, &A::v, T(me + 60), right)
              : ctx == 2 ? shmem_swap(&A::v, T(me + 60), right)
                         : shmem_atomic_swap(&A::v, T(me + 60), right);
        OK(old == T(me + 40), "PE %d: atomic swap<%s> (form %d) returned the old value", me,
           type, ctx);
        shmem_barrier_all();
        OK(A::v == T(left + 60), "PE %d: atomic swap<%s> (form %d) stored", me, type, ctx);
        shmem_barrier_all();
        f = T(0);
        if (ctx == 1)
            shmem_atomic_swap_nbi(SHMEM_CTX_DEFAULT, &f, &A::v, T(me + 80), right);
        else
            shmem_atomic_swap_nbi(&f, &A::v, T(me + 80), right);
        shmem_quiet();
        OK(f == T(me + 60), "PE %d: shmem_atomic_swap_nbi<%s>", me, type);
        shmem_barrier_all();
        OK(A::v == T(left + 80), "PE %d: shmem_atomic_swap_nbi<%s> stored", me, type);
    }
    shmem_barrier_all();
}

/* compare_swap, inc, add and their fetching and nbi forms, on PE 0's
 * counter from every PE: the total says each landed once. */
template <typename T> void amo(const char *type)
{
    using A = Amo<T>;
    for (int form = 0; form < 3; form++) { /* 0 plain, 1 context, 2 deprecated */
        shmem_barrier_all();
        A::v = T(0);
        A::w = T(0);
        shmem_barrier_all();
        T a, b;
        if (form == 1) {
            a = shmem_atomic_fetch_inc(SHMEM_CTX_DEFAULT, &A::v, 0);
            shmem_atomic_inc(SHMEM_CTX_DEFAULT, &A::v, 0);
            b = shmem_atomic_fetch_add(SHMEM_CTX_DEFAULT, &A::v, T(2), 0);
            shmem_atomic_add(SHMEM_CTX_DEFAULT, &A::v, T(3), 0);
        } else if (form == 2) {
            a = shmem_finc(&A::v, 0);
            shmem_inc(&A::v, 0);
            b = shmem_fadd(&A::v, T(2), 0);
            shmem_add(&A::v, T(3), 0);
        } else {
            a = shmem_atomic_fetch_inc(&A::v, 0);
            shmem_atomic_inc(&A::v, 0);
            b = shmem_atomic_fetch_add(&A::v, T(2), 0);
            shmem_atomic_add(&A::v, T(3), 0);
        }
        OK(a < T(8 * npes) && b < T(8 * npes), "PE %d: fetching AMO<%s> (form %d) returned "
           "more than the total", me, type, form);
        T f1 = T(0), f2 = T(0);
        if (form == 1) {
            shmem_atomic_fetch_inc_nbi(SHMEM_CTX_DEFAULT, &f1, &A::v, 0);
            shmem_atomic_fetch_add_nbi(SHMEM_CTX_DEFAULT, &f2, &A::v, T(0), 0);
        } else {
            shmem_atomic_fetch_inc_nbi(&f1, &A::v, 0);
            shmem_atomic_fetch_add_nbi(&f2, &A::v, T(0), 0);
        }
        shmem_quiet();
        OK(f1 < T(8 * npes) && f2 >= T(1) && f2 <= T(8 * npes),
           "PE %d: nbi fetch_inc/fetch_add<%s>: %lld, %lld", me, type, (long long)f1,
           (long long)f2);
        shmem_barrier_all();
        /* 1 + 1 + 2 + 3 + 1 from each PE */
        if (me == 0)
            OK(A::v == T(8 * npes), "PE 0: AMOs<%s> (form %d) summed to %lld, want %d", type,
               form, (long long)A::v, 8 * npes);
        shmem_barrier_all();
        /* compare_swap: PE right's w is 0; exactly its left neighbour (me) swaps it in */
        T seen = form == 1 ? shmem_atomic_compare_swap(SHMEM_CTX_DEFAULT, &A::w, T(0),
                                                       T(me + 1), right)
               : form == 2 ? shmem_cswap(&A::w, T(0), T(me + 1), right)
                           : shmem_atomic_compare_swap(&A::w, T(0), T(me + 1), right);
        OK(seen == T(0), "PE %d: compare_swap<%s> (form %d) saw %lld", me, type, form,
           (long long)seen);
        shmem_barrier_all();
        OK(A::w == T(left + 1), "PE %d: compare_swap<%s> (form %d) stored", me, type, form);
        T f = T(9);
        if (form == 1)
            shmem_atomic_compare_swap_nbi(SHMEM_CTX_DEFAULT, &f, &A::w, T(0), T(99), right);
        else
            shmem_atomic_compare_swap_nbi(&f, &A::w, T(0), T(99), right);
        shmem_quiet();
        OK(f == T(me + 1), "PE %d: compare_swap_nbi<%s> (not equal) fetched %lld", me, type,
           (long long)f);
        shmem_barrier_all();
        OK(A::w == T(left + 1), "PE %d: compare_swap_nbi<%s> with a false condition stored",
           me, type);
    }
    shmem_barrier_all();
}

/* and, or, xor with their fetching and nbi forms: PE 0's word collects a
 * bit from each PE (or), then loses them (and), then flips them (xor). */
template <typename T> void amo_bit(const char *type)
{
    using A = Amo<T>;
    int n = npes < (int)(8 * sizeof(T)) ? npes : (int)(8 * sizeof(T));
    T all = T(0);
    for (int p = 0; p < n; p++)
        all = T(all | T(T(1) << p));
    T bit = me < n ? T(T(1) << me) : T(0);
    for (int form = 0; form < 2; form++) {
        shmem_barrier_all();
        A::v = T(0);
        shmem_barrier_all();
        T o = form ? shmem_atomic_fetch_or(SHMEM_CTX_DEFAULT, &A::v, bit, 0)
                   : shmem_atomic_fetch_or(&A::v, bit, 0);
        OK((o & bit) == T(0), "PE %d: fetch_or<%s> saw its own bit early", me, type);
        shmem_barrier_all();
        if (me == 0)
            OK(A::v == all, "PE 0: fetch_or<%s> from every PE: %#llx", type,
               (unsigned long long)A::v);
        shmem_barrier_all();
        if (form)
            shmem_atomic_and(SHMEM_CTX_DEFAULT, &A::v, T(~bit), 0);
        else
            shmem_atomic_and(&A::v, T(~bit), 0);
        shmem_barrier_all();
        if (me == 0)
            OK(A::v == T(0), "PE 0: and<%s> cleared every bit: %#llx", type,
               (unsigned long long)A::v);
        shmem_barrier_all();
        if (form)
            shmem_atomic_xor(SHMEM_CTX_DEFAULT, &A::v, bit, 0);
        else
            shmem_atomic_xor(&A::v, bit, 0);
        shmem_barrier_all();
        T x = form ? shmem_atomic_fetch_xor(SHMEM_CTX_DEFAULT, &A::v, T(0), 0)
                   : shmem_atomic_fetch_xor(&A::v, T(0), 0);
        OK(x == all, "PE %d: xor<%s> set every bit: %#llx", me, type, (unsigned long long)x);
        T a = form ? shmem_atomic_fetch_and(SHMEM_CTX_DEFAULT, &A::v, all, 0)
                   : shmem_atomic_fetch_and(&A::v, all, 0);
        OK(a == all, "PE %d: fetch_and<%s> with every bit kept them", me, type);
        shmem_barrier_all();
        T f[3] = {T(0), T(0), T(0)};
        if (form) {
            shmem_atomic_fetch_or_nbi(SHMEM_CTX_DEFAULT, &f[0], &A::v, T(0), 0);
            shmem_atomic_fetch_and_nbi(SHMEM_CTX_DEFAULT, &f[1], &A::v, all, 0);
            shmem_atomic_fetch_xor_nbi(SHMEM_CTX_DEFAULT, &f[2], &A::v, T(0), 0);
        } else {
            shmem_atomic_fetch_or_nbi(&f[0], &A::v, T(0), 0);
            shmem_atomic_fetch_and_nbi(&f[1], &A::v, all, 0);
            shmem_atomic_fetch_xor_nbi(&f[2], &A::v, T(0), 0);
        }
        shmem_quiet();
        OK(f[0] == all && f[1] == all && f[2] == all, "PE %d: fetching bitwise nbi<%s>", me,
           type);
    }
    shmem_barrier_all();
}

template <typename T> struct Flags {
    static T f[4];
};
template <typename T> T Flags<T>::f[4];

/* wait_until and test, single and over arrays, scalar and _vector: PE
 * left raises my flags; every form must see them. */
template <typename T> void p2p(const char *type)
{
    T *f = Flags<T>::f;
    shmem_barrier_all();
    for (int i = 0; i < 4; i++)
        f[i] = T(0);
    shmem_barrier_all();
    OK(shmem_test(&f[0], SHMEM_CMP_EQ, T(1)) == 0, "PE %d: shmem_test<%s> before", me, type);
    shmem_barrier_all();
    for (int i = 0; i < 4; i++)
        shmem_p(&f[i], T(1), right);
    shmem_wait_until(&f[0], SHMEM_CMP_EQ, T(1));
    shmem_wait_until_all(f, 4, NULL, SHMEM_CMP_EQ, T(1));
    size_t any = shmem_wait_until_any(f, 4, NULL, SHMEM_CMP_EQ, T(1));
    OK(any < 4, "PE %d: wait_until_any<%s>: %zu", me, type, any);
    size_t idx[4];
    OK(shmem_wait_until_some(f, 4, idx, NULL, SHMEM_CMP_EQ, T(1)) == 4,
       "PE %d: wait_until_some<%s>", me, type);
    T want[4] = {T(1), T(1), T(1), T(1)};
    shmem_wait_until_all_vector(f, 4, NULL, SHMEM_CMP_EQ, want);
    OK(shmem_wait_until_any_vector(f, 4, NULL, SHMEM_CMP_EQ, want) < 4,
       "PE %d: wait_until_any_vector<%s>", me, type);
    OK(shmem_wait_until_some_vector(f, 4, idx, NULL, SHMEM_CMP_EQ, want) == 4,
       "PE %d: wait_until_some_vector<%s>", me, type);
    OK(shmem_test(&f[1], SHMEM_CMP_EQ, T(1)) == 1, "PE %d: shmem_test<%s>", me, type);
    OK(shmem_test_all(f, 4, NULL, SHMEM_CMP_EQ, T(1)) == 1, "PE %d: test_all<%s>", me, type);
    int status[4] = {1, 0, 1, 1};
    OK(shmem_test_any(f, 4, status, SHMEM_CMP_EQ, T(1)) == 1,
       "PE %d: test_any<%s> with status", me, type);
    OK(shmem_test_some(f, 4, idx, NULL, SHMEM_CMP_NE, T(0)) == 4, "PE %d: test_some<%s>", me,
       type);
    OK(shmem_test_all_vector(f, 4, NULL, SHMEM_CMP_EQ, want) == 1,
       "PE %d: test_all_vector<%s>", me, type);
    OK(shmem_test_any_vector(f, 4, NULL, SHMEM_CMP_EQ, want) < 4,
       "PE %d: test_any_vector<%s>", me, type);
    OK(shmem_test_some_vector(f, 4, idx, NULL, SHMEM_CMP_EQ, want) == 4,
       "PE %d: test_some_vector<%s>", me, type);
    shmem_barrier_all();
}

/* The deprecated shmem_wait: until *ivar differs from the value. */
template <typename T> void wait_old(const char *type)
{
    T *f = Flags<T>::f;
    shmem_barrier_all();
    f[0] = T(5);
    shmem_barrier_all();
    shmem_p(&f[0], T(6), right);
    shmem_wait(&f[0], T(5));
    OK(f[0] == T(6), "PE %d: shmem_wait<%s>", me, type);
    shmem_barrier_all();
}

template <typename T> struct Coll {
    static T src[4], dst[4 * 16], red[4];
};
template <typename T> T Coll<T>::src[4];
template <typename T> T Coll<T>::dst[4 * 16];
template <typename T> T Coll<T>::red[4];

/* broadcast, collect, fcollect, alltoall, alltoalls over the world team. */
template <typename T> void coll(const char *type)
{
    using C = Coll<T>;
    shmem_team_t w = SHMEM_TEAM_WORLD;
    fill(C::src, me, 4, 0);
    std::memset(C::dst, 0, sizeof C::dst);
    shmem_barrier_all();
    OK(shmem_broadcast(w, C::dst, C::src, 4, 0) == 0, "shmem_broadcast<%s>", type);
    expect_from(C::dst, 0, 4, 0, "shmem_broadcast", type);
    shmem_barrier_all();
    OK(shmem_fcollect(w, C::dst, C::src, 2) == 0, "shmem_fcollect<%s>", type);
    for (int p = 0; p < npes; p++)
        expect_from(C::dst + 2 * p, p, 2, 0, "shmem_fcollect", type);
    shmem_barrier_all();
    OK(shmem_collect(w, C::dst, C::src, 1) == 0, "shmem_collect<%s>", type);
    for (int p = 0; p < npes; p++)
        expect_from(C::dst + p, p, 1, 0, "shmem_collect", type);
    /* alltoall, one element each: PE p's element j is VAL(p + j, 0) */
    T a2a[16];
    for (int p = 0; p < npes; p++)
        a2a[p] = VAL(T, me + p, 0);
    static T a2a_src[16];
    std::memcpy(a2a_src, a2a, sizeof a2a);
    shmem_barrier_all();
    OK(shmem_alltoall(w, C::dst, a2a_src, 1) == 0, "shmem_alltoall<%s>", type);
    for (int p = 0; p < npes; p++)
        OK(C::dst[p] == VAL(T, p + me, 0), "PE %d: shmem_alltoall<%s> from PE %d", me, type, p);
    shmem_barrier_all();
    OK(shmem_alltoalls(w, C::dst, a2a_src, 1, 1, 1) == 0, "shmem_alltoalls<%s>", type);
    for (int p = 0; p < npes; p++)
        OK(C::dst[p] == VAL(T, p + me, 0), "PE %d: shmem_alltoalls<%s> from PE %d", me, type,
           p);
    shmem_barrier_all();
}

/* Reduction sources: element i is i + 1, on PE 1 i + 2 (so min and max
 * differ, and sums and products name every PE). */
template <typename T> void reduce_src()
{
    for (int i = 0; i < 4; i++)
        Coll<T>::src[i] = T(i + (me == 1 ? 2 : 1));
    shmem_barrier_all();
}

/* sum and prod over the world team. */
template <typename T> void reduce_arith(const char *type)
{
    using C = Coll<T>;
    shmem_team_t w = SHMEM_TEAM_WORLD;
    reduce_src<T>();
    OK(shmem_sum_reduce(w, C::red, C::src, 4) == 0, "shmem_sum_reduce<%s>", type);
    for (int i = 0; i < 4; i++)
        OK(C::red[i] == T(npes * (i + 1) + 1), "PE %d: sum_reduce<%s>[%d]", me, type, i);
    shmem_barrier_all();
    OK(shmem_prod_reduce(w, C::red, C::src, 4) == 0, "shmem_prod_reduce<%s>", type);
    for (int i = 0; i < 4; i++) {
        T want = T(1);
        for (int p = 0; p < npes; p++)
            want = T(want * T(i + (p == 1 ? 2 : 1)));
        OK(C::red[i] == want, "PE %d: prod_reduce<%s>[%d]", me, type, i);
    }
    shmem_barrier_all();
}

/* min and max over the world team. */
template <typename T> void reduce_order(const char *type)
{
    using C = Coll<T>;
    shmem_team_t w = SHMEM_TEAM_WORLD;
    reduce_src<T>();
    OK(shmem_max_reduce(w, C::red, C::src, 4) == 0, "shmem_max_reduce<%s>", type);
    for (int i = 0; i < 4; i++)
        OK(C::red[i] == T(i + 2), "PE %d: max_reduce<%s>[%d]", me, type, i);
    shmem_barrier_all();
    OK(shmem_min_reduce(w, C::red, C::src, 4) == 0, "shmem_min_reduce<%s>", type);
    for (int i = 0; i < 4; i++)
        OK(C::red[i] == T(i + 1), "PE %d: min_reduce<%s>[%d]", me, type, i);
    shmem_barrier_all();
}

template <typename T> void reduce_bit(const char *type)
{
    using C = Coll<T>;
    shmem_team_t w = SHMEM_TEAM_WORLD;
    int n = npes < 7 ? npes : 7;
    T all = T(0);
    for (int p = 0; p < n; p++)
        all = T(all | T(T(1) << p));
    for (int i = 0; i < 4; i++)
        C::src[i] = me < n ? T(T(1) << me) : T(0);
    shmem_barrier_all();
    OK(shmem_or_reduce(w, C::red, C::src, 4) == 0, "shmem_or_reduce<%s>", type);
    OK(C::red[2] == all, "PE %d: or_reduce<%s>", me, type);
    shmem_barrier_all();
    OK(shmem_xor_reduce(w, C::red, C::src, 4) == 0, "shmem_xor_reduce<%s>", type);
    OK(C::red[1] == all, "PE %d: xor_reduce<%s>", me, type);
    shmem_barrier_all();
    OK(shmem_and_reduce(w, C::red, C::src, 4) == 0, "shmem_and_reduce<%s>", type);
    OK(C::red[3] == T(0), "PE %d: and_reduce<%s>", me, type);
    shmem_barrier_all();
}

#define EACH_RMA(F)                                                            \
    F<float>("float"); F<double>("double"); F<long double>("long double");    \
    F<char>("char"); F<signed char>("signed char"); F<short>("short");        \
    F<int>("int"); F<long>("long"); F<long long>("long long");                \
    F<unsigned char>("unsigned char"); F<unsigned short>("unsigned short");   \
    F<unsigned int>("unsigned int"); F<unsigned long>("unsigned long");       \
    F<unsigned long long>("unsigned long long");                              \
    F<int8_t>("int8_t"); F<uint16_t>("uint16_t"); F<int32_t>("int32_t");      \
    F<uint64_t>("uint64_t"); F<size_t>("size_t"); F<ptrdiff_t>("ptrdiff_t")
#define EACH_AMO(F)                                                            \
    F<int>("int"); F<long>("long"); F<long long>("long long");                \
    F<unsigned int>("unsigned int"); F<unsigned long>("unsigned long");       \
    F<unsigned long long>("unsigned long long"); F<int32_t>("int32_t");       \
    F<int64_t>("int64_t"); F<uint32_t>("uint32_t"); F<uint64_t>("uint64_t");  \
    F<size_t>("size_t"); F<ptrdiff_t>("ptrdiff_t")
#define EACH_AMO_BIT(F)                                                        \
    F<unsigned int>("unsigned int"); F<unsigned long>("unsigned long");       \
    F<unsigned long long>("unsigned long long"); F<int32_t>("int32_t");       \
    F<int64_t>("int64_t"); F<uint32_t>("uint32_t"); F<uint64_t>("uint64_t")
#define EACH_ORDER(F)                                                          \
    F<char>("char"); F<signed char>("signed char"); F<short>("short");        \
    F<int>("int"); F<long>("long"); F<long long>("long long");                \
    F<unsigned char>("unsigned char"); F<unsigned short>("unsigned short");   \
    F<unsigned int>("unsigned int"); F<unsigned long>("unsigned long");       \
    F<unsigned long long>("unsigned long long"); F<float>("float");           \
    F<double>("double"); F<long double>("long double"); F<size_t>("size_t");  \
    F<int16_t>("int16_t")
#define EACH_BIT(F)                                                            \
    F<unsigned char>("unsigned char"); F<unsigned short>("unsigned short");   \
    F<unsigned int>("unsigned int"); F<unsigned long>("unsigned long");       \
    F<unsigned long long>("unsigned long long"); F<int8_t>("int8_t");         \
    F<int16_t>("int16_t"); F<int32_t>("int32_t"); F<int64_t>("int64_t");      \
    F<long long>("long long")

#ifdef __GNUC__
__extension__ typedef double _Complex complexd;
__extension__ typedef float _Complex complexf;
complexd zsrc[3], zdst[3];
complexf csrc[3], cdst[3];

/* Complex sum and prod, as C programs ported to C++ keep writing them. */
void reduce_complex()
{
    shmem_team_t w = SHMEM_TEAM_WORLD;
    for (int i = 0; i < 3; i++) {
        __real__ zsrc[i] = me + i;
        __imag__ zsrc[i] = 1;
        __real__ csrc[i] = (float)(me + i);
        __imag__ csrc[i] = 2;
    }
    shmem_barrier_all();
    OK(shmem_sum_reduce(w, zdst, zsrc, 3) == 0, "shmem_sum_reduce<double _Complex>");
    OK(shmem_sum_reduce(w, cdst, csrc, 3) == 0, "shmem_sum_reduce<float _Complex>");
    double re = npes * (npes - 1) / 2.0;
    for (int i = 0; i < 3; i++) {
        OK(__real__ zdst[i] == re + npes * i && __imag__ zdst[i] == npes,
           "PE %d: sum_reduce<double _Complex>[%d]", me, i);
        OK(__real__ cdst[i] == (float)(re + npes * i) && __imag__ cdst[i] == 2.0f * npes,
           "PE %d: sum_reduce<float _Complex>[%d]", me, i);
    }
    shmem_barrier_all();
    OK(shmem_prod_reduce(w, zdst, zsrc, 3) == 0, "shmem_prod_reduce<double _Complex>");
    complexd want = zsrc[0];
    __real__ want = 0, __imag__ want = 0;
    for (int p = 0; p < npes; p++) {
        complexd z;
        __real__ z = p;
        __imag__ z = 1;
        want = p ? want * z : z;
    }
    OK(__real__ zdst[0] == __real__ want && __imag__ zdst[0] == __imag__ want,
       "PE %d: prod_reduce<double _Complex>", me);
    shmem_barrier_all();
}
#endif

/* A C++ program's global, as OpenSHMEM programs use them. */
long counter;

} // namespace

int main()
{
    int level = suite_start();

    EACH_RMA(rma);
    EACH_AMO(amo_fss);
    amo_fss<float>("float");
    amo_fss<double>("double");
    EACH_AMO(amo);
    EACH_AMO_BIT(amo_bit);
    EACH_AMO(p2p);
    p2p<short>("short");
    p2p<unsigned short>("unsigned short");
    wait_old<short>("short");
    wait_old<int>("int");
    wait_old<long>("long");
    wait_old<long long>("long long");
    EACH_RMA(coll);
    EACH_ORDER(reduce_arith);
    EACH_ORDER(reduce_order);
    EACH_BIT(reduce_bit);
#ifdef __GNUC__
    reduce_complex();
#endif

    /* shmem_sync(team) in C++ (an overload) beside the active-set form */
    static long psync[SHMEM_BARRIER_SYNC_SIZE];
    for (long &s : psync)
        s = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    shmem_atomic_inc(&counter, 0);
    shmem_quiet();
    OK(shmem_sync(SHMEM_TEAM_WORLD) == 0, "shmem_sync(SHMEM_TEAM_WORLD)");
    shmem_sync(0, 0, npes, psync);
    if (me == 0)
        OK(counter == npes, "PE 0: a C++ global counted %ld of %d increments", counter, npes);

    suite_end("shmem-cxx", level);
    return 0;
}
