/* NUMA and core placement near the device, through hwloc. */
#include "uvas/locality.h"

#include <hwloc.h>

static int with_topology(int (*fn)(hwloc_topology_t, const struct uvas_vulkan *, void *, size_t),
                         const struct uvas_vulkan *d, void *base, size_t size)
{
    if (d->numa_node < 0 && !d->cpuset[0])
        return 0;
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo))
        return 0;
    int rc = 0;
    if (hwloc_topology_load(topo) == 0)
        rc = fn(topo, d, base, size);
    hwloc_topology_destroy(topo);
    return rc;
}

static int membind(hwloc_topology_t topo, const struct uvas_vulkan *d, void *base, size_t size)
{
    if (d->numa_node < 0 || hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE) < 2)
        return 0;
    hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
    hwloc_bitmap_only(nodes, (unsigned)d->numa_node);
    /* BIND without STRICT on one node is the kernel's "preferred" policy:
     * pages go there while it has room, elsewhere after. */
    int rc = hwloc_set_area_membind(topo, base, size, nodes, HWLOC_MEMBIND_BIND,
                                    HWLOC_MEMBIND_BYNODESET) == 0;
    hwloc_bitmap_free(nodes);
    return rc;
}

static int cpubind(hwloc_topology_t topo, const struct uvas_vulkan *d, void *base, size_t size)
{
    (void)base, (void)size;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    int rc = 0;
    if (d->cpuset[0] && hwloc_bitmap_list_sscanf(set, d->cpuset) == 0 &&
        !hwloc_bitmap_isequal(set, hwloc_topology_get_topology_cpuset(topo)))
        rc = hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_THREAD) == 0;
    hwloc_bitmap_free(set);
    return rc;
}

int uvas_locality_bind_memory(const struct uvas_vulkan *d, void *base, size_t size)
{
    return with_topology(membind, d, base, size);
}

int uvas_locality_bind_thread(const struct uvas_vulkan *d)
{
    return with_topology(cpubind, d, NULL, 0);
}
