#!/usr/bin/env python3
"""The floors of uvas, bottom-up, and the rule that each looks only down.

Every #include "dir/file.h" of a source or header in a floor must name a
header of the same floor or of one below it (docs/architecture.md), and
only the system seam includes the headers for mapping memory and for
userfaultfd. Run by
the build (meson.build): a wrong-way include fails it, naming the file, the
header and both floors.

usage: check-floors.py SOURCE_ROOT [STAMP]
"""
import os
import re
import sys

# Bottom-up. A folder's files belong to the longest matching entry.
FLOORS = [
    ("uvas", "the ground: range, blocks, gates, allocator, tiers, configuration, system seam"),
    ("fault", "the fault service: reads userfaultfd events, hands them to a handler"),
    ("migrate", "the engine: transitions, policies, copies, imports, CPU views, fault decisions"),
    ("gpu", "kernels over uvas pointers: translation table, holds, launches"),
    ("uvas/api", "the controller's composition root: init/finalize, public allocation calls"),
    ("queue", "queue-ordered work: queues, events, pools (a client of the public API)"),
    ("transport/pe", "the PE layer: bootstrap, windows, UCX, active messages, dispatch"),
    ("transport/shmem", "the OpenSHMEM API over the PE layer"),
]
# What the OpenSHMEM floor may see below it: the PE layer's interface and
# the ground's status type, not the layer's or the ground's insides.
# The queue floor shares device pools through the engine's one interface
# for device memory shared between processes (migrate/shared.h), and lends
# uvas_finalize the drain of its queues (uvas/api/finalize.h).
NARROW = {"transport/shmem": {"transport/pe/pe.h", "uvas/status.h"},
          "queue": {"uvas/status.h", "migrate/shared.h", "uvas/api/finalize.h"}}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SYSTEM = re.compile(r'^\s*#\s*include\s+<([^>]+)>', re.M)
# The system seam: the only files that may map memory or speak to
# userfaultfd, and the fault reader, which parses its messages.
SEAM = {
    "sys/mman.h": {"uvas/os.c", "uvas/range.c", "uvas/uffd.c"},
    "linux/userfaultfd.h": {"uvas/uffd.c", "fault/service.c"},
}


def floor_of(path):
    best = None
    for i, (d, _) in enumerate(FLOORS):
        if path.startswith(d + "/") and (best is None or len(d) > len(FLOORS[best][0])):
            best = i
    return best


def main():
    root = sys.argv[1]
    errors = []
    for i, (d, _) in enumerate(FLOORS):
        top = os.path.join(root, d)
        for name in sorted(os.listdir(top)):
            rel = f"{d}/{name}"
            if not name.endswith((".c", ".h")) or floor_of(rel) != i:
                continue
            with open(os.path.join(root, rel), encoding="utf-8") as f:
                text = f.read()
            for h in SYSTEM.findall(text):
                if h in SEAM and rel not in SEAM[h]:
                    errors.append(f"{rel}: includes <{h}>, which only "
                                  f"{', '.join(sorted(SEAM[h]))} may: go through the "
                                  "system seam (uvas/os.h, uvas/uffd.h)")
            for h in INCLUDE.findall(text):
                j = floor_of(h)
                if j is None:
                    continue  # public headers (include/) and system ones
                if j > i:
                    errors.append(f"{rel}: includes {h}, which is in {FLOORS[j][0]}/, a floor "
                                  f"above {d}/ ({FLOORS[i][1]}): lower floors must not see "
                                  "upper ones; lend a hook from the composition root "
                                  "(uvas/api/init.c) instead")
                elif d in NARROW and j != i and h not in NARROW[d]:
                    errors.append(f"{rel}: includes {h}; {d}/ may see only "
                                  f"{', '.join(sorted(NARROW[d]))} below it")
    if errors:
        print("check-floors: %d wrong-way include(s):" % len(errors), file=sys.stderr)
        for e in errors:
            print("  " + e, file=sys.stderr)
        return 1
    if len(sys.argv) > 2:
        with open(sys.argv[2], "w") as f:
            f.write("floors ok\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
