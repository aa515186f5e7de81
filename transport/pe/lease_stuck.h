/* Lease entries a kernel left pinned (lease_stuck.c). */
#ifndef UVAS_PE_LEASE_STUCK_H
#define UVAS_PE_LEASE_STUCK_H

#include <stddef.h>
#include <stdint.h>

/* A kernel that takes a pin on a lease entry and never gives it back (a
 * lost device, a kernel killed mid-access) leaves the entry's count above
 * zero for good; each later end of that lease would wait its bound for
 * zero. The count left behind is remembered here instead, per entry
 * (entries are named by their address), and a later end waits for it. */

/* What entry e has left behind (0: nothing; no lock when nothing is). */
uint32_t uvas_lease_stuck_left(const void *e);
/* Entry e has `left` pins behind it; 0 forgets it (they came back). */
void uvas_lease_stuck_set(const void *e, uint32_t left);
/* Entries remembered. */
size_t uvas_lease_stuck_count(void);
/* Forgets every entry (the lease table goes). */
void uvas_lease_stuck_clear(void);

#endif
