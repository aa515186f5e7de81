/* The sides of a transfer (side.h). */
#include "transport/pe/side.h"

#include <string.h>

#include "uvas/copy_nt.h"
#include "uvas/os.h"
#include "uvas/status.h"

/* A side in our own range (or plain local memory). */
void uvas_side_own(const void *addr, bool write, struct uvas_side *s)
{
    *s = (struct uvas_side){0};
    if (!uvas_in_range(addr)) {
        s->kind = UVAS_SIDE_HOST;
        s->ptr = (char *)addr;
        return;
    }
    if (!uvas_g.alias || !uvas_job.own_pins)
        return; /* UVAS_SIDE_SLOW */
    size_t bi = uvas_block_index(addr);
    uint64_t w = uvas_gate_pin_quick(uvas_job.own_slots, uvas_job.own_pins, bi,
                                     &uvas_g.gates[bi], &s->pin);
    if (uvas_gate_is_open(w)) {
        switch (uvas_gate_res(w)) {
        case UVAS_RES_HOST:
            s->kind = UVAS_SIDE_HOST;
            s->ptr = uvas_g.alias + ((const char *)addr - uvas_g.base);
            return;
        case UVAS_RES_UNPOPULATED:
            if (!write) {
                s->kind = UVAS_SIDE_ZERO; /* reads as zero; stays untouched */
                return;
            }
            break;
        case UVAS_RES_DEVICE:
            if (w & UVAS_GATE_DIRECT) {
                s->kind = UVAS_SIDE_DEV;
                uvas_devpeer_own_slot(uvas_gate_slot(w), &s->dev);
                s->off = uvas_side_block_off(addr);
                return;
            }
            break;
        }
    }
    uvas_side_drop(s);
    s->kind = UVAS_SIDE_SLOW;
}

/* The target side at a peer whose windows we hold. */
void uvas_side_peer(struct uvas_peer *p, const void *addr, struct uvas_side *s)
{
    *s = (struct uvas_side){0};
    if (uvas_side_am_behind(p))
        return; /* UVAS_SIDE_SLOW */
    size_t bi = uvas_block_index(addr);
    uint64_t w = uvas_gate_pin_quick(p->slots, p->pins, bi, &p->gates[bi], &s->pin);
    if (uvas_gate_is_open(w)) {
        if (uvas_gate_res(w) == UVAS_RES_HOST) {
            s->kind = UVAS_SIDE_HOST;
            s->ptr = p->win + ((const char *)addr - uvas_g.base);
            s->peer = true;
            uvas_gate_count_if(p->slots, p->acc, bi);
            return;
        }
        if (uvas_gate_res(w) == UVAS_RES_DEVICE && (w & UVAS_GATE_DIRECT) &&
            uvas_devpeer_slot(p, uvas_gate_slot(w), &s->dev) == UVAS_OK) {
            s->kind = UVAS_SIDE_DEV;
            s->off = uvas_side_block_off(addr);
            uvas_gate_count_if(p->slots, p->acc, bi);
            return;
        }
    }
    uvas_side_drop(s);
    s->kind = UVAS_SIDE_SLOW;
}

void uvas_side_at(int pe, const void *addr, bool write, struct uvas_side *s)
{
    if (pe == uvas_job.me)
        uvas_side_own(addr, write, s);
    else if (uvas_job.peers[pe].local)
        uvas_side_peer(&uvas_job.peers[pe], addr, s);
    else
        *s = (struct uvas_side){.kind = UVAS_SIDE_SLOW};
}

/* Move n bytes from a fast side to a fast side; the path taken. */
int uvas_side_transfer(struct uvas_side *d, struct uvas_side *s, size_t n, int *path)
{
    static const char zeros[UVAS_PAGE];
    if (d->kind == UVAS_SIDE_HOST) {
        switch (s->kind) {
        case UVAS_SIDE_HOST:
            if (n >= uvas_copy_stream_min() && d->peer)
                uvas_copy_nt(d->ptr, s->ptr, n);
            else
                memcpy(d->ptr, s->ptr, n);
            *path = UVAS_PATH_CPU_CPU;
            return UVAS_OK;
        case UVAS_SIDE_ZERO: memset(d->ptr, 0, n); *path = UVAS_PATH_CPU_CPU; return UVAS_OK;
        case UVAS_SIDE_DEV: *path = UVAS_PATH_GPU_CPU; return uvas_devpeer_read(d->ptr, &s->dev, s->off, n);
        default: break;
        }
    } else if (d->kind == UVAS_SIDE_DEV) {
        switch (s->kind) {
        case UVAS_SIDE_HOST:
            if (d->dev.map && n <= uvas_job.devmap_max) {
                memcpy(d->dev.map + d->off, s->ptr, n);
                *path = UVAS_PATH_DEV_MAP;
                return UVAS_OK;
            }
            *path = UVAS_PATH_CPU_GPU;
            return uvas_devpeer_write(&d->dev, d->off, s->ptr, n);
        case UVAS_SIDE_ZERO:
            *path = UVAS_PATH_CPU_GPU;
            for (size_t k = 0; k < n; k += sizeof zeros) {
                int rc = uvas_devpeer_write(&d->dev, d->off + k, zeros,
                                            n - k < sizeof zeros ? n - k : sizeof zeros);
                if (rc)
                    return rc;
            }
            return UVAS_OK;
        case UVAS_SIDE_DEV:
            *path = UVAS_PATH_GPU_GPU;
            return uvas_devpeer_copy(&d->dev, d->off, &s->dev, s->off, n);
        default: break;
        }
    }
    return UVAS_ERR_INVAL;
}

/* Copy a fast side into plain memory and drop its pin. */
int uvas_side_materialize(struct uvas_side *s, void *buf, size_t n)
{
    int rc = UVAS_OK;
    switch (s->kind) {
    case UVAS_SIDE_HOST: memcpy(buf, s->ptr, n); break;
    case UVAS_SIDE_ZERO: memset(buf, 0, n); break;
    case UVAS_SIDE_DEV: rc = uvas_devpeer_read(buf, &s->dev, s->off, n); break;
    default: rc = UVAS_ERR_INVAL;
    }
    uvas_side_drop(s);
    return rc;
}

/* Bytes from a to the end of its block, capped. */
size_t uvas_side_room(const void *a, size_t n)
{
    if (!uvas_in_range(a))
        return n;
    size_t r = uvas_g.block_size - uvas_side_block_off(a);
    return n < r ? n : r;
}
