/* Active messages to a block's owner (am.c). */
#ifndef UVAS_PE_AM_H
#define UVAS_PE_AM_H

#include <stddef.h>
#include <stdint.h>

#include "transport/pe/pe.h"

int uvas_am_init(void);
int uvas_am_put(int pe, void *dest, const void *src, size_t n);
int uvas_am_get(int pe, void *dest, const void *src, size_t n);
int uvas_am_amo(int pe, enum uvas_amo_op op, void *target, size_t width, uint64_t operand,
                uint64_t compare, uint64_t *fetched);
int uvas_am_residence(int pe, const void *addr, int *res);
/* The same on the peer's program segment, at offset off (segment.h). */
int uvas_am_seg_put(int pe, uint64_t off, const void *src, size_t n);
int uvas_am_seg_get(int pe, void *dest, uint64_t off, size_t n);
int uvas_am_seg_amo(int pe, enum uvas_amo_op op, uint64_t off, size_t width, uint64_t operand,
                    uint64_t compare, uint64_t *fetched);
int uvas_am_quiet(void);
/* A reply as an owner sends one, to PE `to`, naming `cookie`: what
 * tests/multi/test-am-forged.c forges (a reply that answers no request in
 * flight must write nowhere). */
void uvas_am_send_reply(int to, uint64_t cookie, uint64_t value);

#endif
