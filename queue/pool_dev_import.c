/* A device pool's importer: the greeting, the exporter's slabs imported
 * into this process's device tier, and its records turned into
 * allocations of this process's range (pool_dev.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "queue/pool_dev.h"
#include "uvas.h"
#include "uvas/status.h"

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
    struct pd_hello h;
    ssize_t got = recv(fd, &h, sizeof h, MSG_DONTWAIT | MSG_PEEK);
    if (got != (ssize_t)sizeof h || h.magic != PD_HELLO_MAGIC)
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
    struct uvas_pool_share *s = p ? uvas_pool_dev_share(p) : NULL;
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
    struct pd_slab_msg m = {PD_RESEND_MAGIC, slab};
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

/* Read len bytes of the sealed list fd into out. Status. */
static int read_list(int fd, void *out, size_t len, const char *fn)
{
    /* Sealed first: only memory files take seals, so neither the fstat
     * nor the reads below can wait on a file system (a FUSE or NFS file
     * of the exporter's would). */
    const int need = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE;
    int seals = fcntl(fd, F_GET_SEALS);
    if (seals < 0 || (seals & need) != need)
        return uvas_fail(UVAS_ERR_INVAL, "%s: a record's block list on the pool's channel is "
                         "not a sealed memory file", fn);
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size != len)
        return uvas_fail(UVAS_ERR_INVAL, "%s: a record's block list on the pool's channel is "
                         "not a file of its %zu bytes", fn, len);
    for (size_t done = 0; done < len;) {
        ssize_t r = pread(fd, (char *)out + done, len - done, (off_t)done);
        if (r <= 0)
            return uvas_fail(UVAS_ERR_SYS, "%s: reading a record's block list: %s", fn,
                             r < 0 ? strerror(errno) : "it ended early");
        done += (size_t)r;
    }
    return UVAS_OK;
}

/* Lock held. A record, its blocks inline (len bytes after its head) or in
 * the sealed memfd fd: kept until its pointer is imported. Status. */
static int keep_record(struct uvas_pool_share *s, const struct pd_rec_head *h, const char *blocks,
                       size_t len, int fd, const char *fn)
{
    size_t want = (size_t)h->nblocks * sizeof(struct pd_rec_blk);
    bool in_fd = h->flags & PD_REC_IN_FD;
    struct uvas_range_desc rd;
    size_t most = uvas_range(&rd) == UVAS_OK && rd.block_size ? rd.size / rd.block_size : 0;
    if (most > PD_REC_MAX)
        most = PD_REC_MAX;
    if (!h->nblocks || h->nblocks > most || (in_fd ? len != 0 || fd < 0 : len != want))
        return uvas_fail(UVAS_ERR_INVAL, "%s: a record on the pool's channel is not one of its "
                         "exporter's (%u blocks, %zu bytes%s; this range holds %zu blocks)", fn,
                         h->nblocks, len,
                         in_fd ? (fd < 0 ? ", its list missing" : ", and a list") : "", most);
    if (want > PD_PENDING_MAX - s->pending_bytes)
        return uvas_fail(UVAS_ERR_NOMEM, "%s: the exporter sent more records than this process "
                         "keeps before their pointers are imported (%zu MiB of block lists): "
                         "the record was dropped; import pointers as they are exported", fn,
                         PD_PENDING_MAX >> 20);
    struct pd_rec *r = calloc(1, sizeof *r);
    if (r)
        r->b = malloc(want);
    if (!r || !r->b) {
        free(r);
        return uvas_fail(UVAS_ERR_NOMEM, "%s: no memory for a record of %u blocks", fn,
                         h->nblocks);
    }
    int rc = in_fd ? read_list(fd, r->b, want, fn) : (memcpy(r->b, blocks, want), UVAS_OK);
    if (rc) {
        free(r->b);
        free(r);
        return rc;
    }
    r->h = *h;
    r->next = s->pending;
    s->pending = r;
    s->pending_bytes += want;
    return UVAS_OK;
}

/* Lock held. One message off the channel: a slab (imported now) or a
 * record (kept until its pointer is imported). UVAS_OK, 1 when nothing is
 * waiting, or a status. */
static int read_one(struct uvas_pool *p, const char *fn)
{
    struct uvas_pool_share *s = p->share;
    /* The message's own length (MSG_TRUNC: a packet socket says it), so a
     * buffer of that size and no more; a record is 16 bytes a block. */
    ssize_t len = recv(p->fd, NULL, 0, MSG_DONTWAIT | MSG_PEEK | MSG_TRUNC);
    if (len < 0)
        return errno == EAGAIN ? 1 : uvas_fail(UVAS_ERR_SYS, "%s: reading the pool's channel: %s",
                                               fn, strerror(errno));
    size_t cap = len > 0 ? (size_t)len : 1;
    char *buf = malloc(cap);
    if (!buf)
        return uvas_fail(UVAS_ERR_NOMEM, "%s: no memory for a message of %zu bytes on the pool's "
                         "channel", fn, cap);
    /* Room for more descriptors than a message of the exporter's carries
     * (one), so that extra ones arrive here and are closed: those that do
     * not fit are closed by the kernel (MSG_CTRUNC). */
    char cbuf[CMSG_SPACE(4 * sizeof(int))];
    struct iovec iov = {buf, cap};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
                       .msg_controllen = sizeof cbuf};
    ssize_t got = recvmsg(p->fd, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    int fd = -1, nfd = 0;
    for (struct cmsghdr *c = got >= 0 ? CMSG_FIRSTHDR(&m) : NULL; c; c = CMSG_NXTHDR(&m, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        for (size_t k = 0; k < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); k++) {
            int f;
            memcpy(&f, CMSG_DATA(c) + k * sizeof(int), sizeof f);
            if (nfd++ == 0)
                fd = f;
            else
                close(f);
        }
    }
    int rc = UVAS_OK;
    /* Truncated control data with nothing installed is a descriptor this
     * process had no room for (its limit of open files): a slab asked for
     * again below. With one installed, more came than fit. */
    bool ctrunc = m.msg_flags & MSG_CTRUNC;
    if (got >= 0 && (nfd > 1 || (ctrunc && nfd) || (m.msg_flags & MSG_TRUNC))) {
        if (fd >= 0)
            close(fd);
        free(buf);
        return uvas_fail(UVAS_ERR_INVAL, "%s: a message on the pool's channel carries %d "
                         "descriptors%s, where its exporter sends one at most", fn, nfd,
                         ctrunc ? " and more" : "");
    }
    struct pd_slab_msg sm;
    struct pd_rec_head rh;
    if (got < 0) {
        rc = errno == EAGAIN ? 1 : uvas_fail(UVAS_ERR_SYS, "%s: reading the pool's channel: %s",
                                             fn, strerror(errno));
    } else if (got == 0) {
        rc = 1; /* the exporter closed it: what it sent was read */
    } else if ((size_t)got == sizeof sm && (memcpy(&sm, buf, sizeof sm), sm.magic == PD_SLAB_MAGIC) &&
               sm.slab < (1u << 20)) {
        rc = take_slab(p, sm.slab, fd, fn);
        fd = -1;
    } else if ((size_t)got >= sizeof rh && (memcpy(&rh, buf, sizeof rh), rh.magic == PD_REC_MAGIC)) {
        rc = keep_record(s, &rh, buf + sizeof rh, (size_t)got - sizeof rh, fd, fn);
    } else {
        rc = uvas_fail(UVAS_ERR_INVAL, "%s: a message on the pool's channel is not one of its "
                       "exporter's (%zd bytes)", fn, got);
    }
    if (fd >= 0)
        close(fd);
    free(buf);
    return rc;
}

static struct pd_rec *take_record(struct uvas_pool_share *s, uint64_t id)
{
    for (struct pd_rec **rp = &s->pending; *rp; rp = &(*rp)->next)
        if ((*rp)->h.id == id) {
            struct pd_rec *r = *rp;
            *rp = r->next;
            s->pending_bytes -= (size_t)r->h.nblocks * sizeof *r->b;
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
    struct pd_rec *r = take_record(s, data->h.offset);
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
        const struct pd_rec_blk *e = &r->b[made];
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
