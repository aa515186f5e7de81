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

struct remote remote_start(unsigned seconds);

/* Ask the helper to read len bytes at addr of this process into out. */
struct remote_rep remote_read(struct remote *r, const void *addr,
                              size_t len, void *out);

/* Ask the helper to write len bytes of `fill` at addr of this process. */
struct remote_rep remote_write(struct remote *r, void *addr,
                               size_t len, unsigned char fill);

void remote_stop(struct remote *r);

#endif /* UVAS_TEST_REMOTE_H */
