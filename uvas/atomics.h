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

#endif
