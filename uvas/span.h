/*
 * The range arguments of the API ([ptr, ptr+len) of uvas_migrate,
 * uvas_advise, uvas_device_access): they must lie inside one live
 * allocation, not merely inside the range, or a length would reach free
 * blocks or a neighbour's memory.
 */
#ifndef UVAS_SPAN_H
#define UVAS_SPAN_H

#include <stdbool.h>
#include <stddef.h>

#include "uvas.h"

/* Status: UVAS_ERR_NOT_INIT, UVAS_ERR_INVAL (len 0, or past the end of the
 * allocation), UVAS_ERR_NOT_OWNED (ptr in no live allocation), each with a
 * message naming fn; on success *info describes ptr's allocation. */
int uvas_span_check(const void *ptr, size_t len, const char *fn, struct uvas_ptr_info *info);

/* The live allocation holding p, as [*base, *base + *size): false when
 * there is none. No message and no lock, for the paths that ask on every
 * operation (a put's symmetric check); racing a free, it answers for
 * either side. */
bool uvas_span_alloc(const void *p, char **base, size_t *size);

#endif
