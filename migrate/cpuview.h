/*
 * The CPU's view of a device-resident block at the block's own address,
 * for blocks advised UVAS_ADVISE_ACCESSED_BY_CPU: a CPU access then maps
 * the device memory instead of migrating the block. Chosen by what the
 * driver offers: an mmap of the exported slab fd (lavapipe: the fd is a
 * memfd), else a placed map of a block-sized allocation of host-visible
 * device memory (NVIDIA: VK_EXT_map_memory_placed maps whole allocations
 * only), else none (a CPU access migrates).
 *
 * Mapping replaces the range's memfd mapping for that block, so accesses
 * stop faulting; unmapping puts a registered memfd mapping back in one
 * mremap (no moment without one), so the next access faults.
 */
#ifndef UVAS_CPUVIEW_H
#define UVAS_CPUVIEW_H

#include <stdbool.h>
#include <stddef.h>

/* The method in use: "fd", "placed" or "none". */
const char *uvas_cpuview_method(void);
bool uvas_cpuview_available(void);
/* A view that maps the device memory where it is (the slab's descriptor),
 * not a copy of the block into memory of its own. */
bool uvas_cpuview_in_place(void);

/* Block bi is BUSY and device-resident: map its device memory there. */
int uvas_cpuview_map(size_t bi);
/* Block bi is BUSY: if its device memory is mapped, restore the memfd
 * mapping. Status. */
int uvas_cpuview_unmap(size_t bi);
/* Release the parking area of placed views (finalize, after the device
 * tier: the driver unmaps there when its memory is freed). */
void uvas_cpuview_fini(void);

#endif
