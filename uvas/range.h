/* The flat range: reserved address space over the host tier's memfd. */
#ifndef UVAS_RANGE_H
#define UVAS_RANGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The host tier's memfd is named so (uvas_ipc_open checks a descriptor
 * by it). */
#define UVAS_HOST_TIER_NAME "uvas-host-tier"

/* Create the memfd and map it at base (UVAS_BASE_ANY: anywhere); huge:
 * of 2 MiB huge pages (hugetlbfs), refused with a message saying what to
 * reserve when the system has none free. */
int uvas_range_map(uintptr_t base, size_t size, bool huge, int *memfd, char **out);
void uvas_range_unmap(char *base, size_t size, int memfd);


#endif
