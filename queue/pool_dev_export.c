/* A device pool's exporter: the channels, the slabs each importer has,
 * and the records of exported pointers (pool_dev.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "queue/pool_dev.h"
#include "uvas/status.h"

int uvas_pool_dev_export(struct uvas_pool *p, int *fd, const char *fn)
{
    struct pd_hello h = {.magic = PD_HELLO_MAGIC, .pid = (int32_t)getpid()};
    if (!uvas_shared_describe(&h.dev))
        return uvas_fail(UVAS_ERR_NO_DEVICE, "%s: a device pool is shared from the device "
                         "tier, and this process has none (uvas_init, a Vulkan device)", fn);
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
        return uvas_fail(UVAS_ERR_SYS, "%s: socketpair: %s", fn, strerror(errno));
    struct pd_chan *c = calloc(1, sizeof *c);
    uvas_pool_lock(p);
    struct uvas_pool_share *s = uvas_pool_dev_share(p);
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

static int send_all(struct pd_chan *c, const void *data, size_t len, int fd, const char *fn)
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

static bool has_slab(const struct pd_chan *c, uint32_t slab)
{
    return slab < c->nsent_bits && (c->sent[slab / 8] >> (slab % 8) & 1);
}

static int mark_slab(struct pd_chan *c, uint32_t slab)
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

/* Lock held. The slabs c lacks, then the record: its blocks inline, or
 * the head with list_fd (>= 0) holding them. */
static int send_record(struct pd_chan *c, const struct pd_rec_head *h, const struct pd_rec_blk *b,
                       const uint32_t *slots, int list_fd, const char *fn)
{
    /* Slabs the importer could not take (read_one) go again. */
    struct pd_slab_msg ask;
    while (recv(c->fd, &ask, sizeof ask, MSG_DONTWAIT) == (ssize_t)sizeof ask)
        if (ask.magic == PD_RESEND_MAGIC && ask.slab < c->nsent_bits)
            c->sent[ask.slab / 8] &= (uint8_t)~(1u << (ask.slab % 8));
    for (uint32_t i = 0; i < h->nblocks; i++) {
        if (has_slab(c, b[i].slab))
            continue;
        int fd;
        int rc = uvas_shared_slab_fd(slots[i], &fd);
        if (rc)
            return uvas_fail(rc, "%s: %s", fn, uvas_last_error());
        struct pd_slab_msg m = {PD_SLAB_MAGIC, b[i].slab};
        rc = send_all(c, &m, sizeof m, fd, fn);
        close(fd);
        if (rc)
            return rc;
        if (mark_slab(c, b[i].slab))
            return uvas_fail(UVAS_ERR_NOMEM, "%s: no memory", fn);
    }
    if (list_fd >= 0)
        return send_all(c, h, sizeof *h, list_fd, fn);
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
    struct pd_rec_blk *b = calloc(n, sizeof *b);
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
    struct pd_rec_head h = {.magic = PD_REC_MAGIC, .id = s ? ++s->next_id : 0, .size = size,
                            .head_off = (uintptr_t)ptr - first, .nblocks = n,
                            .flags = n > PD_REC_INLINE ? PD_REC_IN_FD : 0};
    int list_fd = -1;
    if (!rc && (h.flags & PD_REC_IN_FD))
        rc = uvas_shared_list_fd(b, (size_t)n * sizeof *b, &list_fd, fn);
    /* A channel that fails (its importer gone, or not reading) is closed:
     * that importer sees the end of it and is told the record never came;
     * the others go on. */
    for (struct pd_chan **cp = s ? &s->chans : NULL; cp && *cp && !rc;) {
        int sent = send_record(*cp, &h, b, slots, list_fd, fn);
        if (sent != UVAS_OK) {
            if (sent < 0)
                uvas_warn("%s; that importer's channel is closed", uvas_last_error());
            struct pd_chan *dead = *cp;
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
    if (list_fd >= 0)
        close(list_fd);
    free(slots);
    free(b);
    if (rc)
        return rc;
    memset(out, 0, sizeof *out);
    out->h = (struct uvas_ipc_handle){.magic = UVAS_POOL_DEV_MAGIC, .offset = h.id,
                                      .size = size, .pid = (int32_t)getpid(), .tier = tag};
    return UVAS_OK;
}
