/* The flat range: reserved address space over the host tier's memfd. */
#ifndef UVAS_RANGE_H
#define UVAS_RANGE_H

#include <stddef.h>
#include <stdint.h>

/* Create the memfd and map it at base (UVAS_BASE_ANY: anywhere). */
int uvas_range_map(uintptr_t base, size_t size, int *memfd, char **out);
void uvas_range_unmap(char *base, size_t size, int memfd);


#endif
