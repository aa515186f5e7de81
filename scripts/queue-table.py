#!/usr/bin/env python3
"""Write the queue table (docs/queues.md, the README) from a run of `scripts/device-run.sh queue`:
uvas-bench queue's output (queue.txt) beside bench/cuda/malloc-async.cu's
(cuda-queue.txt) in the same run, as time per iteration and ratios, and
where vk-fill.txt has it, the same kernel over plain device addresses in
plain Vulkan, 1000 dependent dispatches (the device's time per dispatch:
the floor Vulkan sets under uvas's loop), and where queue-array.txt has
it (uvas-bench queue -A), uvas's loop with the fill through uvas_array.

usage: queue-table.py RESULTS_DIR DOC...   (RESULTS_DIR holds queue.txt,
cuda-queue.txt and commit.txt)
"""
import os
import re
import sys


def metrics(path):
    m = {}
    if os.path.exists(path):
        for line in open(path):
            x = re.match(r"metric (\S+) (\S+)", line)
            if x:
                m[x.group(1)] = float(x.group(2))
    return m


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    d, docs = sys.argv[1], sys.argv[2:]
    u, c = metrics(os.path.join(d, "queue.txt")), metrics(os.path.join(d, "cuda-queue.txt"))
    v = metrics(os.path.join(d, "vk-fill.txt"))
    sp = metrics(os.path.join(d, "queue-array.txt"))  # the fill through uvas_array, if run
    commit = open(os.path.join(d, "commit.txt")).read().strip()
    # The card, where the run says (device.txt: "NVIDIA H200, driver ..."); H100 before.
    card = "H100"
    if os.path.exists(os.path.join(d, "device.txt")):
        card = open(os.path.join(d, "device.txt")).read().split(",")[0].replace("NVIDIA ", "")
    sizes = [k.split(".")[1] for k in u if k.endswith(".async_us")]
    lines = ["%s, one run at %s (`bench/results/%s`): microseconds per iteration of "
             "allocate, a kernel writing every element, free, 1000 iterations on one queue; "
             "the pool's reserved memory at the end." % (card, commit,
                                                         os.path.basename(d.rstrip("/"))),
             "",
             "| size | uvas queue-ordered | of it, the device busy | uvas synchronous | "
             "cudaMallocAsync | uvas queue / CUDA | " +
             ("uvas queue-ordered, the fill through uvas_array (of CUDA's) | " if sp else "") +
             "plain Vulkan, the kernel alone (device) | reserved at end (uvas, CUDA) |",
             "| --- | --- | --- | --- | --- | --- | " + ("--- | " if sp else "") + "--- | --- |"]
    for s in sizes:
        a, sy = u["queue.%s.async_us" % s], u["queue.%s.sync_us" % s]
        ca = c.get("cuda_queue.%s.async_us" % s)
        r = u.get("queue.%s.reserved_kib" % s, 0)
        cr = c.get("cuda_queue.%s.reserved_kib" % s)
        dev = u.get("queue.%s.device_us" % s)
        raw = v.get("vk_fill.kernel.%s.dependent_us" % s)
        spa = sp.get("queue_array.%s.async_us" % s)
        span_cell = ("%.1f (%.2fx) | " % (spa, spa / ca) if spa and ca else "- | ") if sp else ""
        lines.append("| %s | %.1f | %s | %.1f | %s | %s | %s%s | %d KiB, %s |" % (
            s, a, "%.1f" % dev if dev is not None else "-", sy, "%.1f" % ca if ca else "-",
            "%.2fx" % (a / ca) if ca else "-", span_cell,
            "%.1f (%.2fx CUDA's iteration)" % (raw, raw / ca) if raw and ca else "-", r,
            "%d KiB" % cr if cr is not None else "-"))
    a, b = "<!-- queue-table -->", "<!-- /queue-table -->"
    for doc in docs:
        text = open(doc).read()
        if a not in text or b not in text:
            sys.exit("queue-table.py: %s has no %s ... %s markers" % (doc, a, b))
        text = text[:text.index(a) + len(a)] + "\n" + "\n".join(lines) + "\n" + text[text.index(b):]
        open(doc, "w").write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
