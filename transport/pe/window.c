/*
 * Windows onto the local peers: each PE serves its host tier's memfd, its
 * residence table (sealed: it maps read-only), the pin table it keeps for
 * the asking peer (that peer's alone) and its device slabs' descriptors
 * over a Unix socket (in
 * the user's socket directory, uvas/rundir.h), and hands them only
 * to a process of the same user that is a PE of the same job: the peer's
 * credentials (SO_PEERCRED) must match the pid that PE published through
 * PMIx. Nothing is named in /dev/shm; a descriptor exists only in the
 * processes it was passed to.
 */
#include "transport/pe/window.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "transport/pe/job.h"
#include "uvas/stat_server.h"
#include "uvas/gate.h"
#include "uvas/internal.h"
#include "uvas/os.h"
#include "uvas/rundir.h"
#include "uvas/sock_server.h"
#include "uvas/status.h"

#define WIN_MAGIC 0x75766177u /* "uvaw" */

enum { REQ_HELLO = 1, REQ_SLAB = 2 };

struct win_req {
    uint32_t magic;
    uint32_t kind;
    int32_t rank;
    uint32_t arg;
    char nspace[PMIX_MAX_NSLEN + 1];
};

struct win_rep {
    int32_t status;
    uint32_t nfds;
    uint64_t range_size;
    uint64_t gates_len;
    uint64_t pins_len;
};

static int send_fds(int s, const struct win_rep *rep, const int *fds, unsigned nfds)
{
    struct iovec iov = {.iov_base = (void *)rep, .iov_len = sizeof *rep};
    char cbuf[CMSG_SPACE(sizeof(int) * 3)] = {0};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
    if (nfds) {
        m.msg_control = cbuf;
        m.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
        memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
    }
    return sendmsg(s, &m, MSG_NOSIGNAL) == (ssize_t)sizeof *rep ? 0 : -1;
}

static void serve_one(int s)
{
    struct win_req q;
    struct win_rep rep = {.status = UVAS_ERR_PERM};
    struct ucred cr;
    socklen_t cl = sizeof cr;
    if (getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cr, &cl) < 0)
        return;
    /* A peer may ask as soon as the fence lets it, before we have read
     * who the PEs are. */
    for (int i = 0; i < 10000 && !atomic_load(&uvas_job.peers_known); i++)
        usleep(1000);
    if (!atomic_load(&uvas_job.peers_known))
        return;
    /* Who asks, before waiting for the request: a process that is no PE
     * of the job (another user, or not one of the PEs' pids) is refused at
     * once. One that sent half a request held this server, the only one,
     * and every PE's requests behind it. */
    int rank = -1;
    for (int r = 0; cr.uid == getuid() && r < uvas_job.n && rank < 0; r++)
        if (uvas_job.peers[r].pid == cr.pid)
            rank = r;
    /* A refused asker's request is still read, briefly (closing on
     * unread bytes would reset its connection before it read the refusal). */
    struct pollfd pfd = {.fd = s, .events = POLLIN};
    bool got = rank >= 0 ? poll(&pfd, 1, 5000) == 1 &&
                               recv(s, &q, sizeof q, MSG_WAITALL) == (ssize_t)sizeof q
                         : poll(&pfd, 1, 200) == 1 &&
                               recv(s, &q, sizeof q, MSG_DONTWAIT) == (ssize_t)sizeof q;
    if (rank >= 0 && !got)
        return; /* (SO_RCVTIMEO bounds the recv: uvas/sock_server.h) */
    q.nspace[PMIX_MAX_NSLEN] = 0;
    bool member = rank >= 0 && q.magic == WIN_MAGIC && q.rank == rank &&
                  !strcmp(q.nspace, uvas_job.proc.nspace);
    if (!member) {
        /* One that asked nothing (another job's PE sweeping stale sockets
         * of older versions) is no intrusion: not worth a warning. */
        if (got)
            uvas_warn("refused a window request from pid %d uid %u (not a PE of this job "
                      "and user)", (int)cr.pid, (unsigned)cr.uid);
        send_fds(s, &rep, NULL, 0);
        return;
    }
    int fds[3];
    unsigned nfds = 0;
    _Atomic uint32_t *pins;
    if (q.kind == REQ_HELLO && q.rank != uvas_job.me &&
        uvas_gate_pins_get((unsigned)q.rank, &pins, &fds[2]) == UVAS_OK) {
        fds[nfds++] = uvas_g.memfd;
        fds[nfds++] = uvas_g.gate_fd;
        nfds++; /* the pins */
        rep.range_size = uvas_g.size;
        rep.gates_len = uvas_gate_table_bytes();
        rep.pins_len = uvas_gate_pins_bytes();
        rep.status = UVAS_OK;
    } else if (q.kind == REQ_SLAB && uvas_devtier_present(&uvas_g.devtier)) {
        pthread_mutex_lock(&uvas_g.devtier.mu);
        if (q.arg < uvas_g.devtier.nslabs && uvas_g.devtier.slabs[q.arg].fd >= 0) {
            fds[nfds++] = uvas_g.devtier.slabs[q.arg].fd;
            rep.status = UVAS_OK;
        } else {
            rep.status = UVAS_ERR_INVAL;
        }
        send_fds(s, &(struct win_rep){.status = rep.status, .nfds = nfds}, fds, nfds);
        pthread_mutex_unlock(&uvas_g.devtier.mu); /* the fd stays valid while sent */
        return;
    } else {
        rep.status = UVAS_ERR_INVAL;
    }
    rep.nfds = nfds;
    send_fds(s, &rep, fds, nfds);
}

/* The pid a socket's name ends in (uvas_window_sock_name), or 0. */
static int pid_of_name(const char *name)
{
    const char *dash = strrchr(name, '-');
    int pid = 0;
    for (const char *c = dash ? dash + 1 : ""; *c >= '0' && *c <= '9'; c++)
        if ((pid = pid * 10 + (*c - '0')) > 99999999)
            return 0; /* no pid: swept as before */
    return pid;
}

/* Sockets of PEs that were killed stay behind as files; one that nobody
 * listens on any more (ECONNREFUSED) is removed when a PE starts. One
 * whose process lives is another job's, left alone: connecting to it made
 * that job warn of a refused request (found by review). */
static void sweep_stale(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "job-", 4) || len < 9 || strcmp(e->d_name + len - 5, ".sock"))
            continue;
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        if (snprintf(a.sun_path, sizeof a.sun_path, "%s/%s", dir, e->d_name) >=
            (int)sizeof a.sun_path)
            continue;
        int pid = pid_of_name(e->d_name);
        if (pid > 0 && uvas_os_pid_alive(pid))
            continue;
        int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (s < 0)
            break;
        if (connect(s, (struct sockaddr *)&a, sizeof a) < 0 && errno == ECONNREFUSED)
            unlink(a.sun_path);
        close(s);
    }
    closedir(d);
}

/* FNV-1a: the namespace in 64 bits. */
static uint64_t name_hash(const char *s)
{
    uint64_t h = 14695981039346656037ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

int uvas_window_sock_name(char *buf, size_t n, const char *dir, const char *nspace, int rank,
                          int pid)
{
    /* Peers learn the path through PMIx, so the name need only be unique
     * here: the namespace's hash (its first 40 characters were its name,
     * and two Open MPI 5 jobs' namespaces could share them), the rank,
     * and the process. */
    struct sockaddr_un a;
    int k = snprintf(buf, n, "%s/job-%016llx-%d-%d.sock", dir,
                     (unsigned long long)name_hash(nspace), rank, pid);
    if (k < 0 || (size_t)k >= n || (size_t)k >= sizeof a.sun_path)
        return uvas_fail(UVAS_ERR_SYS, "the fd server's socket path in %s is too long for a "
                         "socket address (%zu bytes)", dir, sizeof a.sun_path);
    return UVAS_OK;
}

int uvas_window_serve(void)
{
    char dir[96];
    int rc = uvas_rundir(dir, sizeof dir);
    if (rc)
        return rc;
    sweep_stale(dir);
    rc = uvas_window_sock_name(uvas_job.sock_path, sizeof uvas_job.sock_path, dir,
                               uvas_job.proc.nspace, uvas_job.me, (int)getpid());
    if (rc)
        return rc;
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        return uvas_fail(UVAS_ERR_SYS, "socket: %s", strerror(errno));
    /* Bound and listening under a private name first, then renamed: a
     * socket is never visible as job-*.sock while it refuses connections,
     * so another PE's sweep cannot take it for a stale one. */
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s/tmp-%d.sock", dir, (int)getpid());
    unlink(a.sun_path);
    if (bind(s, (struct sockaddr *)&a, sizeof a) < 0 || listen(s, 64) < 0 ||
        rename(a.sun_path, uvas_job.sock_path) < 0) {
        int e = errno;
        close(s);
        unlink(a.sun_path);
        return uvas_fail(UVAS_ERR_SYS, "cannot listen on %s: %s", uvas_job.sock_path,
                         strerror(e));
    }
    return uvas_sock_server_start(&uvas_job.server, s, serve_one, "window server");
}

void uvas_window_stop(void)
{
    uvas_sock_server_stop(&uvas_job.server);
    if (uvas_job.sock_path[0])
        unlink(uvas_job.sock_path);
    uvas_job.sock_path[0] = 0;
}

/* One request to p's server; fds received into fds[0..*nfds). */
static int ask(struct uvas_peer *p, uint32_t kind, uint32_t arg, struct win_rep *rep, int *fds,
               unsigned maxfds, unsigned *nfds)
{
    *nfds = 0;
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        return uvas_fail(UVAS_ERR_SYS, "socket: %s", strerror(errno));
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", p->sock_path);
    if (connect(s, (struct sockaddr *)&a, sizeof a) < 0) {
        int e = errno;
        close(s);
        return uvas_fail(UVAS_ERR_SYS, "cannot reach PE %d at %s: %s", p->rank, p->sock_path,
                         strerror(e));
    }
    struct win_req q = {.magic = WIN_MAGIC, .kind = kind, .rank = uvas_job.me, .arg = arg};
    snprintf(q.nspace, sizeof q.nspace, "%s", uvas_job.proc.nspace);
    char cbuf[CMSG_SPACE(sizeof(int) * 3)];
    struct iovec iov = {.iov_base = rep, .iov_len = sizeof *rep};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
                       .msg_controllen = sizeof cbuf};
    struct pollfd pfd = {.fd = s, .events = POLLIN};
    ssize_t got = -1;
    if (send(s, &q, sizeof q, MSG_NOSIGNAL) == (ssize_t)sizeof q && poll(&pfd, 1, 10000) == 1)
        got = recvmsg(s, &m, MSG_CMSG_CLOEXEC);
    close(s);
    /* Descriptors that came are ours to close, whatever else came with them. */
    for (struct cmsghdr *c = got >= 0 ? CMSG_FIRSTHDR(&m) : NULL; c; c = CMSG_NXTHDR(&m, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            unsigned k = (unsigned)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            for (unsigned i = 0; i < k; i++) {
                int fd;
                memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
                if (*nfds < maxfds)
                    fds[(*nfds)++] = fd;
                else
                    close(fd);
            }
        }
    if (got != (ssize_t)sizeof *rep) {
        for (unsigned i = 0; i < *nfds; i++)
            close(fds[i]);
        *nfds = 0;
        return uvas_fail(UVAS_ERR_SYS, "PE %d did not answer a window request", p->rank);
    }
    if (rep->status != UVAS_OK) {
        for (unsigned i = 0; i < *nfds; i++)
            close(fds[i]);
        *nfds = 0;
        return uvas_fail(rep->status, "PE %d refused the window request (%s)", p->rank,
                         uvas_strerror(rep->status));
    }
    return UVAS_OK;
}

int uvas_window_open(struct uvas_peer *p)
{
    struct win_rep rep;
    int fds[3];
    unsigned n;
    int rc = ask(p, REQ_HELLO, 0, &rep, fds, 3, &n);
    if (rc)
        return rc;
    if (n != 3 || rep.range_size != uvas_g.size || rep.gates_len != uvas_gate_table_bytes() ||
        rep.pins_len != uvas_gate_pins_bytes()) {
        for (unsigned i = 0; i < n; i++)
            close(fds[i]);
        return uvas_fail(UVAS_ERR_SYS, "PE %d's window does not match this PE's range", p->rank);
    }
    void *w = NULL, *g = NULL, *pn = NULL;
    rc = uvas_os_map(fds[0], 0, uvas_g.size, UVAS_OS_RW | UVAS_OS_NORESERVE | UVAS_OS_NOFORK,
                     NULL, &w);
    /* The residence table is the owner's to write: it is sealed so. */
    if (!rc)
        rc = uvas_os_map(fds[1], 0, rep.gates_len, UVAS_OS_READ | UVAS_OS_NOFORK, NULL, &g);
    if (!rc)
        rc = uvas_os_map(fds[2], 0, rep.pins_len, UVAS_OS_RW | UVAS_OS_NOFORK, NULL, &pn);
    for (unsigned i = 0; i < 3; i++)
        close(fds[i]);
    if (rc) {
        uvas_os_unmap(w, uvas_g.size);
        uvas_os_unmap(g, rep.gates_len);
        return uvas_fail(UVAS_ERR_NOMEM, "cannot map PE %d's window: %s", p->rank,
                         uvas_last_error());
    }
    p->win = w;
    p->gates = g;
    p->gates_len = rep.gates_len;
    p->pins = pn;
    p->slots = uvas_gate_slots_of(pn);
    p->acc = uvas_gate_acc_of(pn);
    p->pins_len = rep.pins_len;
    return UVAS_OK;
}

void uvas_window_close(struct uvas_peer *p)
{
    uvas_os_unmap(p->win, uvas_g.size);
    uvas_os_unmap((void *)p->gates, p->gates_len);
    uvas_os_unmap((void *)p->pins, p->pins_len);
    p->win = NULL;
    p->gates = NULL;
    p->pins = NULL;
    p->slots = NULL;
    p->acc = NULL;
}

int uvas_window_slab_fd(struct uvas_peer *p, uint32_t slab, int *fd)
{
    struct win_rep rep;
    unsigned n;
    int rc = ask(p, REQ_SLAB, slab, &rep, fd, 1, &n);
    if (rc == UVAS_OK && n != 1)
        rc = uvas_fail(UVAS_ERR_SYS, "PE %d sent no descriptor for device slab %u", p->rank,
                       slab);
    return rc;
}
