/*
 * Copies whose destination the copying core will not read again soon (a
 * peer's window): non-temporal stores, which write whole lines without
 * first reading them into this core's caches, then a store fence, so the
 * bytes are visible before any store that follows (a gate's release, a
 * quiet's signal). Other architectures: memcpy.
 */
#ifndef UVAS_COPY_NT_H
#define UVAS_COPY_NT_H

#include <stddef.h>

void uvas_copy_nt(void *dst, const void *src, size_t n);

/* The size from which a copy into another process's memory streams
 * (UVAS_STREAM_MIN; docs/transport.md has the measurement). */
size_t uvas_copy_stream_min(void);

#endif
