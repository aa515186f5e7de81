/* The device side of transfers: peers' slabs and copies (devpeer.c). */
#ifndef UVAS_PE_DEVPEER_H
#define UVAS_PE_DEVPEER_H

#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "transport/pe/job.h"

struct uvas_devref {
    VkBuffer buf;
    VkDeviceSize off;
    char *map;               /* a CPU mapping of the same bytes, or NULL */
    VkDeviceAddress addr;    /* where kernels reach them (a peer's slot), or 0 */
};
int uvas_devpeer_init(void);
void uvas_devpeer_fini(void);
void uvas_devpeer_describe(struct uvas_dev_desc *d);
/* Where slot `slot` of peer p is, importing its slab on first use. */
int uvas_devpeer_slot(struct uvas_peer *p, uint32_t slot, struct uvas_devref *out);
/* Where our own slot is. */
void uvas_devpeer_own_slot(uint32_t slot, struct uvas_devref *out);
void uvas_devpeer_release_peer(struct uvas_peer *p);
/* Copies through the copy engine; host memory of any kind on one side
 * (staged). */
int uvas_devpeer_write(const struct uvas_devref *dst, size_t off, const void *src, size_t n);
int uvas_devpeer_read(void *dst, const struct uvas_devref *src, size_t off, size_t n);
int uvas_devpeer_copy(const struct uvas_devref *dst, size_t doff, const struct uvas_devref *src,
                      size_t soff, size_t n);

#endif
