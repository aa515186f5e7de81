/*
 * remote.h — a helper process that accesses this process's memory with
 * process_vm_readv / process_vm_writev (another process's access,
 * guarantee 4). Start it with remote_start() BEFORE uvas_init, so that it
 * never has the range itself; it serves requests over pipes and never
 * touches the range in its own address space.
 */
#ifndef UVAS_TEST_REMOTE_H
#define UVAS_TEST_REMOTE_H

#include <sys/prctl.h>
#include <sys/uio.h>

#include "check.h"

#ifndef PR_SET_PTRACER
#define PR_SET_PTRACER 0x59616d61
#endif
#ifndef PR_SET_PTRACER_ANY
#define PR_SET_PTRACER_ANY ((unsigned long)-1)
#endif

enum { REMOTE_READ = 1, REMOTE_WRITE = 2 };

struct remote_req {
    int op;
    pid_t pid;
    uint64_t addr;
    uint64_t len;
    unsigned char fill; /* REMOTE_WRITE: the byte to write */
};

struct remote_rep {
    int64_t ret;
    int err;
};

struct remote {
    pid_t pid;
    int req_fd; /* parent writes requests */
    int rep_fd; /* parent reads replies   */
};

static void remote_serve(int in, int out)
{
    struct remote_req q;
    while (tu_read_all(in, &q, sizeof q) == 0) {
        unsigned char *buf = malloc(q.len ? q.len : 1);
        if (!buf)
            tu_exit(TU_EXIT_FAIL);
        struct iovec local = {buf, q.len};
        struct iovec rem = {(void *)(uintptr_t)q.addr, q.len};
        struct remote_rep r = {0, 0};
        if (q.op == REMOTE_READ) {
            memset(buf, 0xee, q.len);
            r.ret = process_vm_readv(q.pid, &local, 1, &rem, 1, 0);
        } else {
            memset(buf, q.fill, q.len);
            r.ret = process_vm_writev(q.pid, &local, 1, &rem, 1, 0);
        }
        r.err = r.ret < 0 ? errno : 0;
        if (tu_write_all(out, &r, sizeof r) != 0)
            tu_exit(TU_EXIT_FAIL);
        if (q.op == REMOTE_READ && tu_write_all(out, buf, q.len) != 0)
            tu_exit(TU_EXIT_FAIL);
        free(buf);
    }
    tu_exit(0);
}

static inline struct remote remote_start(unsigned seconds)
{
    int a[2], b[2];
    CHECK(pipe(a) == 0 && pipe(b) == 0, "pipe: %s", strerror(errno));
    /* Let any process (the helper) access this one, whatever Yama says. */
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    CHECK(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        tu_deadline(seconds);
        close(a[1]);
        close(b[0]);
        remote_serve(a[0], b[1]);
    }
    close(a[0]);
    close(b[1]);
    struct remote r = {pid, a[1], b[0]};
    return r;
}

/* Ask the helper to read len bytes at addr of this process into out. */
static inline struct remote_rep remote_read(struct remote *r, const void *addr,
                                            size_t len, void *out)
{
    struct remote_req q = {REMOTE_READ, getpid(), (uint64_t)(uintptr_t)addr,
                           len, 0};
    struct remote_rep rep;
    CHECK(tu_write_all(r->req_fd, &q, sizeof q) == 0, "request to helper");
    CHECK(tu_read_all(r->rep_fd, &rep, sizeof rep) == 0, "reply from helper");
    CHECK(tu_read_all(r->rep_fd, out, len) == 0, "data from helper");
    return rep;
}

/* Ask the helper to write len bytes of `fill` at addr of this process. */
static inline struct remote_rep remote_write(struct remote *r, void *addr,
                                             size_t len, unsigned char fill)
{
    struct remote_req q = {REMOTE_WRITE, getpid(), (uint64_t)(uintptr_t)addr,
                           len, fill};
    struct remote_rep rep;
    CHECK(tu_write_all(r->req_fd, &q, sizeof q) == 0, "request to helper");
    CHECK(tu_read_all(r->rep_fd, &rep, sizeof rep) == 0, "reply from helper");
    return rep;
}

static inline void remote_stop(struct remote *r)
{
    close(r->req_fd);
    close(r->rep_fd);
    int ws = 0;
    waitpid(r->pid, &ws, 0);
    CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0,
          "the helper process failed (status 0x%x)", ws);
}

#endif /* UVAS_TEST_REMOTE_H */
