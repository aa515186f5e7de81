/*
 * Leases: blocks of other PEs on this GPU lent to this PE's running
 * kernels, which then reach them directly (include/shmem.glsl) instead of
 * through the host's proxy (gpu/ring.h). Host-resident blocks of theirs
 * are lent too, for stores: an import of the block's pages in our window
 * onto the peer's host tier, made once the run sent enough requests there
 * (UVAS_LEASE_HOST_AFTER) and kept until the run ends.
 *
 * A lease is this PE's pin on a peer's block whose gate says DIRECT
 * (device memory of the peer, in a slot of a slab we imported: the same
 * GPU), taken by the launching thread and held while a run of kernels
 * may use it; its entry in the leases' table (device memory the kernels
 * read) gives the slot's device address. A transition at the owner closes
 * the gate and waits for our pin like any other; it also bumps the want
 * word of our pin table there (uvas/gate.h), and our revoker thread,
 * watching those words, ends the leases whose gate is closed: the entry
 * is invalidated, the kernels' own pins on it drain, then our pin goes.
 * So a lease never keeps a peer's transition waiting for longer than the
 * kernels' accesses in flight take, whatever our kernel or our host are
 * doing meanwhile.
 *
 * The kernels' side is the Dekker pair of the gate (uvas/gate.h) again,
 * with both words in the table (device memory, the host's reads and
 * writes through its mapping): a kernel adds to the entry's pins, then
 * reads lent; the revoker clears lent, then reads pins. Measured on the
 * H100 with both words in device memory: no violation in 80000 rounds
 * (bench/gpu/host-order.c, docs/gpu-shmem-plan.md).
 *
 * The table (include/shmem.glsl mirrors it): a 32-byte header (npes,
 * nslots, the entries' device address), slot[npes] (the PE's row, -1 for
 * PEs kernels reach only through the host), then nslots rows of one
 * 16-byte entry per block of the range: lent (u64: 0, or the device
 * address of the block - its uvas address, with 1 in the low bits for
 * device memory, 2 for host memory: stores only), pins (u32), a pad.
 */
#ifndef UVAS_PE_LEASE_H
#define UVAS_PE_LEASE_H

#include <stddef.h>
#include <stdint.h>

/* After the windows and devpeer are up: which peers kernels may reach
 * (the table itself is made at the first run that asks for it). */
int uvas_lease_init(void);
void uvas_lease_fini(void);

/* The hooks lent to gpu/ (gpu/kernel.h struct uvas_gpu_pe). */
uint64_t uvas_lease_run_begin(void);
void uvas_lease_blocks(const size_t *blocks, size_t n);
void uvas_lease_run_end(void);

/* A request the proxy served at pe: lease the blocks of [addr, addr + n)
 * there if they are device memory kernels can reach, or host memory that
 * has seen UVAS_LEASE_HOST_AFTER requests this run, so the kernel's next
 * accesses go directly. */
void uvas_lease_range(int pe, const void *addr, size_t n);

#endif
