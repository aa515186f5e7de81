/*
 * Sharing a device pool with another process of the node (uvas_queue.h,
 * docs/queues.md). A device pool's blocks live in the device tier's slabs,
 * each exported as a descriptor; the blocks of one allocation need not be
 * contiguous there, and the slabs grow after the pool is exported. So the
 * pool's descriptor is one end of a socket pair whose other end the
 * exporter keeps: uvas_pool_export_pointer fixes the allocation's blocks in
 * their slots (migrate/shared.h) and sends down every such socket the slabs
 * that importer lacks (SCM_RIGHTS) and a record naming the blocks; the
 * importer reads them when it imports that pointer, imports the slabs
 * into its own device and gives an allocation of its own range those
 * blocks: an ordinary uvas pointer there, device-resident, for kernels
 * and copies.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "migrate/shared.h"
#include "queue/pool.h"
#include "uvas/status.h"

#define HELLO_MAGIC 0x4f4c4c4548564455ull /* "UDVHELLO" */
#define SLAB_MAGIC 0x42414c5348564455ull  /* "UDVHSLAB" */
#define REC_MAGIC 0x4345525f48564455ull   /* "UDVH_REC" */
#define RESEND_MAGIC 0x444e455348564455ull /* "UDVHSEND": the importer asks again */

struct hello {
    uint64_t magic;
    struct uvas_shared_dev dev;
    uint32_t tag; /* the exporter's records carry it */
    int32_t pid;
};

struct slab_msg {
    uint64_t magic;
    uint32_t slab;
};

struct rec_head {
    uint64_t magic;
    uint64_t id, size, head_off; /* the pointer is at head_off in its first block */
    uint32_t nblocks, pad;
};

struct rec_blk {
    uint32_t slab, pad;
    uint64_t off;
};

/* The exporter's: one per uvas_pool_export. */
struct chan {
    struct chan *next;
    int fd;
    uint8_t *sent; /* slabs this importer has (a bit each) */
    uint32_t nsent_bits;
};

struct rec {
    struct rec *next;
    struct rec_head h;
    struct rec_blk *b;
};

/* A device import's own state. */
struct uvas_pool_share {
    /* exporter */
    struct chan *chans;
    uint32_t tag;
    uint64_t next_id;
    /* importer */
    struct hello hello;
    uint32_t *slab_id; /* the exporter's slab -> our import + 1; 0: none */
    uint32_t nslab_id;
    struct rec *pending;
    bool gone; /* uvas_finalize took the imports: import the pool again */
};

static struct uvas_pool_share *share_of(struct uvas_pool *p)
{
    if (!p->share)
        p->share = calloc(1, sizeof *p->share);
    p->drop_share = uvas_pool_dev_drop;
    return p->share;
}

/* ---- the exporter ------------------------------------------------------------ */

int uvas_pool_dev_export(struct uvas_pool *p, int *fd, const char *fn)
{
    struct hello h = {.magic = HELLO_MAGIC, .pid = (int32_t)getpid()};
    if (!uvas_shared_describe(&h.dev))
        return uvas_fail(UVAS_ERR_NO_DEVICE, "%s: a device pool is shared from the device "
                         "tier, and this process has none (uvas_init, a Vulkan device)", fn);
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
        return uvas_fail(UVAS_ERR_SYS, "%s: socketpair: %s", fn, strerror(errno));
    struct chan *c = calloc(1, sizeof *c);
    uvas_pool_lock(p);
    struct uvas_pool_share *s = share_of(p);
    if (s && !s->tag)
        s->tag = ((uint32_t)getpid() * 2654435761u ^ (uint32_t)(uintptr_t)p) | 1;
    h.tag = s ? s->tag : 0;
    bool ok = c && s && send(sv[0], &h, sizeof h, MSG_NOSIGNAL) == (ssize_t)sizeof h;
    if (ok) {
        c->fd = sv[0];
        c->next = s->chans;
        s->chans = c;
        p->exported = true;
    }
    pthread_mutex_unlock(&p->mu);
    if (!ok) {
        free(c);
        close(sv[0]);
        close(sv[1]);
        return uvas_fail(UVAS_ERR_NOMEM, "%s: no memory for the pool's channel", fn);
    }
    *fd = sv[1];
    return UVAS_OK;
}

static int send_all(struct chan *c, const void *data, size_t len, int fd, const char *fn)
{
    struct iovec iov = {(void *)data, len};
    char cbuf[CMSG_SPACE(sizeof(int))];
    memset(cbuf, 0, sizeof cbuf);
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
    if (fd >= 0) {
        m.msg_control = cbuf;
        m.msg_controllen = sizeof cbuf;
        struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cm), &fd, sizeof fd);
    }
    if (sendmsg(c->fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)len)
        return UVAS_OK;
    if (errno == EPIPE || errno == ECONNRESET)
        return 1; /* the importer is gone: nothing to tell it */
    return uvas_fail(UVAS_ERR_NOMEM, "%s: an importer's channel takes no more (%s): it reads "
                     "what was sent when it imports pointers (uvas_pool_import_pointer)", fn,
                     errno == EAGAIN || errno == EMSGSIZE ? "full, or the record is too large"
                                                          : strerror(errno));
}

static bool has_slab(const struct chan *c, uint32_t slab)
{
    return slab < c->nsent_bits && (c->sent[slab / 8] >> (slab % 8) & 1);
}

static int mark_slab(struct chan *c, uint32_t slab)
{
    if (slab >= c->nsent_bits) {
        uint32_t bits = (slab / 64 + 1) * 64;
        uint8_t *n = realloc(c->sent, bits / 8);
        if (!n)
            return UVAS_ERR_NOMEM;
        memset(n + c->nsent_bits / 8, 0, (bits - c->nsent_bits) / 8);
        c->sent = n;
        c->nsent_bits = bits;
    }
    c->sent[slab / 8] |= (uint8_t)(1u << (slab % 8));
    return UVAS_OK;
}

/* Lock held. The slabs c lacks, then the record. */
static int send_record(struct chan *c, const struct rec_head *h, const struct rec_blk *b,
                       const uint32_t *slots, const char *fn)
{
    /* Slabs the importer could not take (read_one) go again. */
    struct slab_msg ask;
    while (recv(c->fd, &ask, sizeof ask, MSG_DONTWAIT) == (ssize_t)sizeof ask)
        if (ask.magic == RESEND_MAGIC && ask.slab < c->nsent_bits)
            c->sent[ask.slab / 8] &= (uint8_t)~(1u << (ask.slab % 8));
    for (uint32_t i = 0; i < h->nblocks; i++) {
        if (has_slab(c, b[i].slab))
            continue;
        int fd;
        int rc = uvas_shared_slab_fd(slots[i], &fd);
        if (rc)
            return uvas_fail(rc, "%s: %s", fn, uvas_last_error());
        struct slab_msg m = {SLAB_MAGIC, b[i].slab};
        rc = send_all(c, &m, sizeof m, fd, fn);
        close(fd);
        if (rc)
            return rc;
        if (mark_slab(c, b[i].slab))
            return uvas_fail(UVAS_ERR_NOMEM, "%s: no memory", fn);
    }
    size_t len = sizeof *h + h->nblocks * sizeof *b;
    char *msg = malloc(len);
    if (!msg)
        return uvas_fail(UVAS_ERR_NOMEM, "%s: no memory", fn);
    memcpy(msg, h, sizeof *h);
    memcpy(msg + sizeof *h, b, h->nblocks * sizeof *b);
    int rc = send_all(c, msg, len, -1, fn);
    free(msg);
    return rc;
}

static int export_pointer(struct uvas_pool *p, void *ptr, size_t size,
                          struct uvas_pool_ptr_data *out, const char *fn);

int uvas_pool_dev_export_pointer(struct uvas_pool *p, void *ptr, size_t size,
                                 struct uvas_pool_ptr_data *out, const char *fn)
{
    int rc = uvas_shared_enter(fn);
    if (rc)
        return rc;
    rc = export_pointer(p, ptr, size, out, fn);
    uvas_shared_leave();
    return rc;
}

static int export_pointer(struct uvas_pool *p, void *ptr, size_t size,
                          struct uvas_pool_ptr_data *out, const char *fn)
{
    struct uvas_shared_dev dev;
    if (!uvas_shared_describe(&dev))
        return uvas_fail(UVAS_ERR_NOT_INIT, "%s: the device tier is gone (uvas_finalize)", fn);
    size_t first = ((uintptr_t)ptr & ~(dev.block_size - 1)), last =
        (((uintptr_t)ptr + size - 1) & ~(dev.block_size - 1));
    uint32_t n = (uint32_t)((last - first) / dev.block_size + 1);
    uint32_t *slots = calloc(n, sizeof *slots);
    struct rec_blk *b = calloc(n, sizeof *b);
    if (!slots || !b) {
        free(slots);
        free(b);
        return uvas_fail(UVAS_ERR_NOMEM, "%s: no memory", fn);
    }
    int rc = uvas_shared_fix((void *)first, n, slots);
    if (rc)
        rc = uvas_fail(rc, "%s: %s", fn, uvas_last_error());
    for (uint32_t i = 0; i < n && !rc; i++)
        uvas_shared_where(slots[i], &b[i].slab, &b[i].off);
    uvas_pool_lock(p);
    struct uvas_pool_share *s = p->share;
    if (!s && !rc)
        rc = uvas_fail(UVAS_ERR_INVAL, "%s: the pool is not exported (uvas_pool_export)", fn);
    struct rec_head h = {.magic = REC_MAGIC, .id = s ? ++s->next_id : 0, .size = size,
                         .head_off = (uintptr_t)ptr - first, .nblocks = n};
    /* A channel that fails (its importer gone, or not reading) is closed:
     * that importer sees the end of it and is told the record never came;
     * the others go on. */
    for (struct chan **cp = s ? &s->chans : NULL; cp && *cp && !rc;) {
        int sent = send_record(*cp, &h, b, slots, fn);
        if (sent != UVAS_OK) {
            if (sent < 0)
                uvas_warn("%s; that importer's channel is closed", uvas_last_error());
            struct chan *dead = *cp;
            *cp = dead->next;
            close(dead->fd);
            free(dead->sent);
            free(dead);
            continue;
        }
        cp = &(*cp)->next;
    }
    uint32_t tag = s ? s->tag : 0;
    pthread_mutex_unlock(&p->mu);
    free(slots);
    free(b);
    if (rc)
        return rc;
    memset(out, 0, sizeof *out);
    out->h = (struct uvas_ipc_handle){.magic = UVAS_POOL_DEV_MAGIC, .offset = h.id,
                                      .size = size, .pid = (int32_t)getpid(), .tier = tag};
    return UVAS_OK;
}

/* ---- the importer ------------------------------------------------------------ */

bool uvas_pool_dev_is_channel(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode);
}

int uvas_pool_dev_import(int fd, struct uvas_pool **out, const char *fn)
{
    struct uvas_shared_dev mine;
    if (!uvas_shared_describe(&mine))
        return uvas_fail(UVAS_ERR_NO_DEVICE, "%s: a device pool's allocations are imported into "
                         "this process's device tier, and it has none (uvas_init, a Vulkan "
                         "device)", fn);
    struct ucred cr;
    socklen_t cl = sizeof cr;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) < 0)
        return uvas_fail(UVAS_ERR_PERM, "%s: the descriptor is not a uvas device pool's "
                         "(SO_PEERCRED: %s)", fn, strerror(errno));
    if (cr.uid != geteuid())
        return uvas_fail(UVAS_ERR_PERM, "%s: the pool's exporter (pid %d) belongs to user %u, "
                         "not to this process's user %u", fn, (int)cr.pid, (unsigned)cr.uid,
                         (unsigned)geteuid());
    struct hello h;
    ssize_t got = recv(fd, &h, sizeof h, MSG_DONTWAIT | MSG_PEEK);
    if (got != (ssize_t)sizeof h || h.magic != HELLO_MAGIC)
        return uvas_fail(UVAS_ERR_PERM, "%s: the descriptor is not a uvas device pool's (no "
                         "greeting from an exporter on it)", fn);
    if (memcmp(h.dev.uuid, mine.uuid, sizeof mine.uuid))
        return uvas_fail(UVAS_ERR_NO_DEVICE, "%s: the pool is on another device than this "
                         "process's (their deviceUUIDs differ): select the same one (UVAS_DEVICE)",
                         fn);
    if (h.dev.block_size != mine.block_size)
        return uvas_fail(UVAS_ERR_INVAL, "%s: the exporter's blocks are %llu bytes, this "
                         "process's %llu: set the same UVAS_BLOCK_SIZE in both", fn,
                         (unsigned long long)h.dev.block_size,
                         (unsigned long long)mine.block_size);
    if (h.dev.slab_bytes < h.dev.block_size || h.dev.slab_bytes % h.dev.block_size ||
        h.dev.slab_bytes > ((uint64_t)1 << 40))
        return uvas_fail(UVAS_ERR_INVAL, "%s: the exporter's greeting names slabs of %llu "
                         "bytes, not a whole number of its blocks", fn,
                         (unsigned long long)h.dev.slab_bytes);
    int kept = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (kept < 0)
        return uvas_fail(UVAS_ERR_SYS, "%s: dup: %s", fn, strerror(errno));
    (void)recv(kept, &h, sizeof h, MSG_DONTWAIT); /* the greeting, peeked above */
    const struct uvas_pool_props props = {UVAS_POOL_DEVICE, 0, 0};
    struct uvas_pool *p = uvas_pool_new(&props);
    struct uvas_pool_share *s = p ? share_of(p) : NULL;
    if (!s) {
        if (p)
            uvas_pool_delete(p);
        close(kept);
        return uvas_fail(UVAS_ERR_NOMEM, "%s: no memory for a pool", fn);
    }
    s->hello = h;
    p->fd = kept;
    *out = p;
    return UVAS_OK;
}

/* Ask the exporter to send slab again with its next record (a failure
 * here must not lose it for good: it is sent once per channel). */
static void ask_again(struct uvas_pool *p, uint32_t slab)
{
    struct slab_msg m = {RESEND_MAGIC, slab};
    (void)send(p->fd, &m, sizeof m, MSG_DONTWAIT | MSG_NOSIGNAL);
}

/* Lock held. The exporter's slab through fd (consumed; -1: it did not
 * arrive). */
static int take_slab(struct uvas_pool *p, uint32_t slab, int fd, const char *fn)
{
    struct uvas_pool_share *s = p->share;
    if (fd < 0) {
        ask_again(p, slab);
        return uvas_fail(UVAS_ERR_SYS, "%s: the descriptor of the exporter's slab %u did not "
                         "arrive (this process is at its limit of open descriptors?): it was "
                         "asked for again; export the pointer again once there is room", fn, slab);
    }
    if (slab >= s->nslab_id) {
        uint32_t n = slab + 64;
        uint32_t *t = realloc(s->slab_id, n * sizeof *t);
        if (!t) {
            close(fd);
            ask_again(p, slab);
            return uvas_fail(UVAS_ERR_NOMEM, "%s: no memory", fn);
        }
        memset(t + s->nslab_id, 0, (n - s->nslab_id) * sizeof *t);
        s->slab_id = t;
        s->nslab_id = n;
    }
    if (s->slab_id[slab]) {
        close(fd);
        return UVAS_OK;
    }
    uint32_t id;
    int rc = uvas_shared_import(fd, &s->hello.dev, &id);
    if (rc) {
        ask_again(p, slab);
        return uvas_fail(rc, "%s: %s; it was asked for again: export the pointer again to "
                         "retry", fn, uvas_last_error());
    }
    s->slab_id[slab] = id + 1;
    return UVAS_OK;
}

/* Lock held. One message off the channel: a slab (imported now) or a
 * record (kept until its pointer is imported). UVAS_OK, 1 when nothing is
 * waiting, or a status. */
static int read_one(struct uvas_pool *p, const char *fn)
{
    struct uvas_pool_share *s = p->share;
    size_t cap = 1 << 20;
    char *buf = malloc(cap);
    if (!buf)
        return uvas_fail(UVAS_ERR_NOMEM, "%s: no memory", fn);
    char cbuf[CMSG_SPACE(sizeof(int))];
    struct iovec iov = {buf, cap};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
                       .msg_controllen = sizeof cbuf};
    ssize_t got = recvmsg(p->fd, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    int fd = -1;
    for (struct cmsghdr *c = got >= 0 ? CMSG_FIRSTHDR(&m) : NULL; c; c = CMSG_NXTHDR(&m, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
            c->cmsg_len == CMSG_LEN(sizeof(int)))
            memcpy(&fd, CMSG_DATA(c), sizeof fd);
    int rc = UVAS_OK;
    struct slab_msg sm;
    struct rec_head rh;
    if (got < 0) {
        rc = errno == EAGAIN ? 1 : uvas_fail(UVAS_ERR_SYS, "%s: reading the pool's channel: %s",
                                             fn, strerror(errno));
    } else if (got == 0) {
        rc = 1; /* the exporter closed it: what it sent was read */
    } else if ((size_t)got == sizeof sm && (memcpy(&sm, buf, sizeof sm), sm.magic == SLAB_MAGIC) &&
               sm.slab < (1u << 20)) {
        rc = take_slab(p, sm.slab, fd, fn);
        fd = -1;
    } else if ((size_t)got >= sizeof rh && (memcpy(&rh, buf, sizeof rh), rh.magic == REC_MAGIC) &&
               (size_t)got == sizeof rh + (size_t)rh.nblocks * sizeof(struct rec_blk)) {
        struct rec *r = calloc(1, sizeof *r);
        if (r)
            r->b = malloc(rh.nblocks * sizeof *r->b);
        if (!r || !r->b) {
            free(r);
            rc = uvas_fail(UVAS_ERR_NOMEM, "%s: no memory", fn);
        } else {
            r->h = rh;
            memcpy(r->b, buf + sizeof rh, rh.nblocks * sizeof *r->b);
            r->next = s->pending;
            s->pending = r;
        }
    } else {
        rc = uvas_fail(UVAS_ERR_INVAL, "%s: a message on the pool's channel is not one of its "
                       "exporter's (%zd bytes)", fn, got);
    }
    if (fd >= 0)
        close(fd);
    free(buf);
    return rc;
}

static struct rec *take_record(struct uvas_pool_share *s, uint64_t id)
{
    for (struct rec **rp = &s->pending; *rp; rp = &(*rp)->next)
        if ((*rp)->h.id == id) {
            struct rec *r = *rp;
            *rp = r->next;
            return r;
        }
    return NULL;
}

static int import_pointer(struct uvas_pool *p, const struct uvas_pool_ptr_data *data,
                          void **ptr, const char *fn);

int uvas_pool_dev_import_pointer(struct uvas_pool *p, const struct uvas_pool_ptr_data *data,
                                 void **ptr, const char *fn)
{
    int rc = uvas_shared_enter(fn);
    if (rc)
        return rc;
    rc = import_pointer(p, data, ptr, fn);
    uvas_shared_leave();
    return rc;
}

static int import_pointer(struct uvas_pool *p, const struct uvas_pool_ptr_data *data,
                          void **ptr, const char *fn)
{
    struct uvas_pool_share *s = p->share;
    if (data->h.magic != UVAS_POOL_DEV_MAGIC)
        return uvas_fail(UVAS_ERR_INVAL, "%s: the record is not a handle of a device pool's "
                         "allocation (uvas_pool_export_pointer)", fn);
    if (data->h.tier != s->hello.tag || data->h.pid != s->hello.pid)
        return uvas_fail(UVAS_ERR_INVAL, "%s: the record is of another pool than the one "
                         "imported here", fn);
    uvas_pool_lock(p); /* which finds out whether the range went since */
    if (s->gone) {
        pthread_mutex_unlock(&p->mu);
        return uvas_fail(UVAS_ERR_NOT_INIT, "%s: uvas_finalize took this pool's imports with "
                         "the range: import a new descriptor of the pool (uvas_pool_export)", fn);
    }
    struct rec *r = take_record(s, data->h.offset);
    int rc = UVAS_OK;
    while (!r && rc == UVAS_OK) {
        rc = read_one(p, fn);
        r = take_record(s, data->h.offset);
    }
    pthread_mutex_unlock(&p->mu);
    if (!r)
        return rc < 0 ? rc : uvas_fail(UVAS_ERR_INVAL, "%s: record %llu was not sent to this "
                                       "descriptor (exported to another importer, imported "
                                       "already, or made up)", fn,
                                       (unsigned long long)data->h.offset);
    const uint64_t bs = s->hello.dev.block_size;
    rc = r->h.size == data->h.size && r->h.head_off < bs && r->h.nblocks &&
                 r->h.size <= (uint64_t)r->h.nblocks * bs - r->h.head_off
             ? UVAS_OK
             : uvas_fail(UVAS_ERR_INVAL, "%s: the record does not match what its exporter "
                         "sent", fn);
    uint32_t *slots = rc ? NULL : calloc(r->h.nblocks, sizeof *slots);
    if (!rc && !slots)
        rc = uvas_fail(UVAS_ERR_NOMEM, "%s: no memory", fn);
    uint32_t made = 0;
    pthread_mutex_lock(&p->mu);
    for (; !rc && made < r->h.nblocks; made++) {
        const struct rec_blk *e = &r->b[made];
        if (e->slab >= s->nslab_id || !s->slab_id[e->slab] ||
            e->off > s->hello.dev.slab_bytes - bs || e->off % bs)
            rc = uvas_fail(UVAS_ERR_INVAL, "%s: block %u names slab %u at %llu, which its "
                           "exporter did not send", fn, made, e->slab,
                           (unsigned long long)e->off);
        else if ((rc = uvas_shared_slot(s->slab_id[e->slab] - 1, e->off, &slots[made])))
            rc = uvas_fail(rc, "%s: %s", fn, uvas_last_error());
        if (rc)
            break;
    }
    pthread_mutex_unlock(&p->mu);
    char *base = NULL;
    struct imported *im = NULL;
    if (!rc) {
        im = calloc(1, sizeof *im);
        base = im ? uvas_malloc_hint((size_t)r->h.nblocks * bs, 0) : NULL;
        if (!base)
            rc = uvas_fail(UVAS_ERR_NOMEM, "%s: no room for %u blocks in this process's range: "
                           "%s", fn, r->h.nblocks, uvas_last_error());
        else if ((uintptr_t)base % bs)
            rc = uvas_fail(UVAS_ERR_INVAL, "%s: the range gave an allocation not on a block",
                           fn);
    }
    if (!rc) {
        rc = uvas_shared_adopt(base, made, slots);
        made = 0; /* adopted or freed by it */
        if (rc)
            rc = uvas_fail(rc, "%s: %s", fn, uvas_last_error());
    }
    for (uint32_t i = 0; i < made; i++) /* the slots of a failure before adopt */
        uvas_shared_unslot(slots[i]);
    if (rc) {
        if (base && uvas_shared_release(base)) /* adopted in part, or not at all */
            (void)uvas_try_free(base);
        free(im);
        free(slots);
        free(r->b);
        free(r);
        return rc;
    }
    im->ptr = base + r->h.head_off;
    im->base = base;
    im->h = data->h;
    uvas_pool_lock(p);
    im->next = p->imports;
    p->imports = im;
    p->use.used += (size_t)r->h.size;
    p->use.reserved += (size_t)r->h.nblocks * bs;
    if (p->use.used > p->use.used_high)
        p->use.used_high = p->use.used;
    if (p->use.reserved > p->use.reserved_high)
        p->use.reserved_high = p->use.reserved;
    pthread_mutex_unlock(&p->mu);
    free(slots);
    free(r->b);
    free(r);
    *ptr = im->ptr;
    return UVAS_OK;
}

/* ---- both sides: the end ------------------------------------------------------ */

void uvas_pool_dev_drop(struct uvas_pool *p, bool range_gone)
{
    struct uvas_pool_share *s = p->share;
    if (!s)
        return;
    /* The range's blocks and the device tier's imports are let go only
     * while they are there: a uvas_finalize before (or racing) this took
     * them already. */
    bool entered = !range_gone && uvas_shared_enter("uvas_pool_destroy") == UVAS_OK;
    while (s->chans) {
        struct chan *c = s->chans;
        s->chans = c->next;
        close(c->fd);
        free(c->sent);
        free(c);
    }
    struct imported *im = p->imports;
    p->imports = NULL;
    while (im) {
        struct imported *n = im->next;
        if (entered && uvas_shared_release(im->base)) /* the blocks let go of their slots */
            uvas_warn("uvas_pool_destroy: %s", uvas_last_error());
        free(im);
        im = n;
    }
    /* With the range went the device tier and what it imported. */
    for (uint32_t i = 0; i < s->nslab_id && entered; i++)
        if (s->slab_id[i])
            uvas_shared_unimport(s->slab_id[i] - 1);
    free(s->slab_id);
    s->slab_id = NULL;
    s->nslab_id = 0;
    while (s->pending) {
        struct rec *r = s->pending;
        s->pending = r->next;
        free(r->b);
        free(r);
    }
    p->use.used = p->use.reserved = 0;
    if (entered)
        uvas_shared_leave();
    if (range_gone && p->fd >= 0) { /* still an imported pool, of nothing now */
        s->gone = true;
        return;
    }
    free(s);
    p->share = NULL;
    if (p->fd >= 0) {
        close(p->fd);
        p->fd = -1;
    }
}
