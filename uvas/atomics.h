/*
 * The one atomics header: C11 <stdatomic.h> and short names for the
 * memory orders, which every floor uses on the block table, the gates and
 * the counters. Say the order at each access; the names only shorten it.
 */
#ifndef UVAS_ATOMICS_H
#define UVAS_ATOMICS_H

#include <stdatomic.h>

#define RLX memory_order_relaxed
#define ACQ memory_order_acquire
#define REL memory_order_release
#define ACQ_REL memory_order_acq_rel
#define SEQ memory_order_seq_cst

/* Stores before it reach memory before stores after it, also through a
 * write-combining mapping (device memory mapped for the CPU, which a
 * device reads): sfence on x86, where ordinary store ordering does not
 * cover write-combining and a locked instruction on such memory costs
 * hundreds of microseconds; a release fence elsewhere. */
static inline void uvas_store_fence(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_sfence();
#else
    atomic_thread_fence(memory_order_release);
#endif
}

#endif
