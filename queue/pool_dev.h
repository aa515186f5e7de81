/*
 * Sharing a device pool (pool_dev.c, pool_dev_export.c, pool_dev_import.c):
 * the channel's messages and each side's state, internal to queue/.
 */
#ifndef UVAS_QUEUE_POOL_DEV_H
#define UVAS_QUEUE_POOL_DEV_H

#include <stdbool.h>
#include <stdint.h>

#include "migrate/shared.h"
#include "queue/pool.h"

#define PD_HELLO_MAGIC 0x4f4c4c4548564455ull /* "UDVHELLO" */
#define PD_SLAB_MAGIC 0x42414c5348564455ull  /* "UDVHSLAB" */
#define PD_REC_MAGIC 0x4345525f48564455ull   /* "UDVH_REC" */
#define PD_RESEND_MAGIC 0x444e455348564455ull /* "UDVHSEND": the importer asks again */

struct pd_hello {
    uint64_t magic;
    struct uvas_shared_dev dev;
    uint32_t tag; /* the exporter's records carry it */
    int32_t pid;
};

struct pd_slab_msg {
    uint64_t magic;
    uint32_t slab;
};

struct pd_rec_head {
    uint64_t magic;
    uint64_t id, size, head_off; /* the pointer is at head_off in its first block */
    uint32_t nblocks, flags;
};

/* A record's blocks follow its head in the message, up to this many; more
 * go in a sealed memfd sent with it (PD_REC_IN_FD): a packet larger than
 * the socket's send buffer (208 KiB by default, 13000 blocks) is refused. */
#define PD_REC_INLINE 256
#define PD_REC_IN_FD 1u
/* The most blocks an importer takes in one record (a 256 MiB list; its
 * own range's blocks, if fewer), and in the records it holds that were not
 * imported yet: a hostile exporter's records cost it a packet each. */
#define PD_REC_MAX (1u << 24)
#define PD_PENDING_MAX ((size_t)64 << 20)

struct pd_rec_blk {
    uint32_t slab, pad;
    uint64_t off;
};

/* The exporter's: one per uvas_pool_export. */
struct pd_chan {
    struct pd_chan *next;
    int fd;
    uint8_t *sent; /* slabs this importer has (a bit each) */
    uint32_t nsent_bits;
};

struct pd_rec {
    struct pd_rec *next;
    struct pd_rec_head h;
    struct pd_rec_blk *b;
};

/* A device import's own state. */
struct uvas_pool_share {
    /* exporter */
    struct pd_chan *chans;
    uint32_t tag;
    uint64_t next_id;
    /* importer */
    struct pd_hello hello;
    uint32_t *slab_id; /* the exporter's slab -> our import + 1; 0: none */
    uint32_t nslab_id;
    struct pd_rec *pending;
    size_t pending_bytes; /* of their block lists */
    bool gone; /* uvas_finalize took the imports: import the pool again */
};

/* p's sharing state, made on first use (NULL: no memory). */
struct uvas_pool_share *uvas_pool_dev_share(struct uvas_pool *p);

#endif
