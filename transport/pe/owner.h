/* This PE applying an access to its own range (AM handlers,
 * own-PE operations): through the host alias or its device memory where
 * the block is, through the range (faults, policy) otherwise (owner.c). */
#ifndef UVAS_PE_OWNER_H
#define UVAS_PE_OWNER_H

#include <stddef.h>
#include <stdint.h>

#include "transport/pe/pe.h"

int uvas_owner_write(char *addr, const void *src, size_t n);
int uvas_owner_read(void *dst, const char *addr, size_t n);
int uvas_owner_amo(enum uvas_amo_op op, void *target, size_t width, uint64_t operand,
                   uint64_t compare, uint64_t *fetched);

/* AMO arithmetic on a local word (shared by every path). */
uint64_t uvas_amo_apply(enum uvas_amo_op op, void *target, size_t width, uint64_t operand,
                        uint64_t compare);

#endif
