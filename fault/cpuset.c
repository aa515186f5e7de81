/*
 * A fault is served fastest by a handler on the faulting core: the
 * faulting thread sleeps, the core goes idle and the handler pinned there
 * runs without a cross-core wake-up (8-15 us against 60-80 us measured on
 * the 2-vCPU VM, DESIGN-NOTES). So one handler per CPU of the process.
 */
#include "fault/cpuset.h"

#include <hwloc.h>
#include <sched.h>

unsigned uvas_fault_cpus(int *cpus, unsigned max)
{
    unsigned n = 0;
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) == 0) {
        hwloc_bitmap_t set = hwloc_bitmap_alloc();
        if (set && hwloc_topology_load(topo) == 0 &&
            hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0) {
            int i;
            hwloc_bitmap_foreach_begin(i, set) {
                if (n < max)
                    cpus[n++] = i;
            }
            hwloc_bitmap_foreach_end();
        }
        hwloc_bitmap_free(set);
        hwloc_topology_destroy(topo);
    }
    if (n == 0) { /* hwloc could not say: the kernel's affinity mask */
        cpu_set_t cs;
        if (sched_getaffinity(0, sizeof cs, &cs) == 0)
            for (int i = 0; i < CPU_SETSIZE && n < max; i++)
                if (CPU_ISSET(i, &cs))
                    cpus[n++] = i;
    }
    if (n == 0)
        cpus[n++] = -1; /* unpinned */
    return n;
}
