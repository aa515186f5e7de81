/* PMIx bootstrap and the exchange of what PEs publish (boot.c). */
#ifndef UVAS_PE_BOOT_H
#define UVAS_PE_BOOT_H

#include <stdbool.h>
#include <stddef.h>

int uvas_boot_start(void);
int uvas_boot_put(const char *key, const void *data, size_t len);
/* Every PE reaches it; exchange: what each put is readable after it. */
int uvas_boot_fence(bool exchange);
int uvas_boot_get(int rank, const char *key, void *data, size_t len);
int uvas_boot_get_alloc(int rank, const char *key, void **data, size_t *len);
void uvas_boot_abort(int status, const char *msg);
void uvas_boot_stop(void);

#endif
