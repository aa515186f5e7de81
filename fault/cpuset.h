/* Which CPUs the fault service threads run on. */
#ifndef UVAS_CPUSET_H
#define UVAS_CPUSET_H

/* Up to max CPU numbers this process may run on (hwloc's view of the
 * binding), in order; returns the count (>= 1). */
unsigned uvas_fault_cpus(int *cpus, unsigned max);

#endif
