/*
 * The system seam's descriptors that a third party makes: a driver's
 * export (vkGetMemoryFdKHR) has no close-on-exec flag to ask for, and
 * Mesa's lavapipe returns a descriptor without it
 * (bench/gpu/vk-export-flags.c). Marking it afterwards leaves a window in
 * which a fork, vfork or posix_spawn by another thread of the program
 * copies it into a child that then execs: the child holds device memory.
 * No lock closes that window (posix_spawn runs no fork handlers), so the
 * descriptor is made where no child can copy it: in a thread with a
 * descriptor table of its own, and handed to the process's table over a
 * socket, close-on-exec as it arrives (MSG_CMSG_CLOEXEC).
 */
#include "uvas/os.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "uvas.h"
#include "uvas/status.h"

int uvas_os_fd_count(void)
{
    /* thread-self: a table of this thread's own (/proc/self is the
     * leader's). */
    DIR *d = opendir("/proc/thread-self/fd");
    if (!d)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n - 1; /* the directory's own descriptor */
}

void uvas_os_cloexec(int fd)
{
    int f = fcntl(fd, F_GETFD);
    if (f >= 0)
        fcntl(fd, F_SETFD, f | FD_CLOEXEC);
}

struct apart {
    int (*make)(void *arg);
    void *arg;
    int sock;     /* the thread's end */
    int err;      /* errno of the thread's own calls; 0 */
    bool made;    /* make gave a descriptor */
    int others;   /* descriptors make left besides it; -1 unknown */
};

static void *apart_main(void *p)
{
    struct apart *a = p;
    if (unshare(CLONE_FILES) < 0) {
        a->err = errno;
        return NULL;
    }
    int before = uvas_os_fd_count();
    int fd = a->make(a->arg);
    if (fd < 0)
        return NULL;
    a->made = true;
    int after = uvas_os_fd_count();
    a->others = before < 0 || after < 0 ? -1 : after - before - 1;
    char ctl[CMSG_SPACE(sizeof(int))];
    memset(ctl, 0, sizeof ctl);
    char byte = 0;
    struct iovec iov = {.iov_base = &byte, .iov_len = 1};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
                       .msg_controllen = sizeof ctl};
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
    if (sendmsg(a->sock, &m, MSG_NOSIGNAL) < 0)
        a->err = errno;
    close(fd); /* the table dies with the thread; this is tidier */
    return NULL;
}

int uvas_os_fd_apart(int (*make)(void *arg), void *arg, int *fd, int *others)
{
    *fd = -1;
    *others = -1;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0)
        return uvas_fail(UVAS_ERR_SYS, "socketpair for a descriptor made apart: %s",
                         strerror(errno));
    struct apart a = {.make = make, .arg = arg, .sock = sv[1], .others = -1};
    /* The thread takes no signal of the program's. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t th;
    int e = pthread_create(&th, NULL, apart_main, &a);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (e == 0)
        pthread_join(th, NULL);
    int rc = UVAS_OK;
    if (e)
        rc = uvas_fail(UVAS_ERR_SYS, "cannot start a thread to make a descriptor apart: %s",
                       strerror(e));
    else if (a.err)
        rc = uvas_fail(UVAS_ERR_SYS, "making a descriptor apart: %s", strerror(a.err));
    else if (a.made) {
        char ctl[CMSG_SPACE(sizeof(int))], byte;
        struct iovec iov = {.iov_base = &byte, .iov_len = 1};
        struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
                           .msg_controllen = sizeof ctl};
        ssize_t got;
        do
            got = recvmsg(sv[0], &m, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
        while (got < 0 && errno == EINTR);
        struct cmsghdr *c = got < 0 ? NULL : CMSG_FIRSTHDR(&m);
        if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int)))
            rc = uvas_fail(UVAS_ERR_SYS, "a descriptor made apart did not arrive%s%s",
                           got < 0 ? ": " : "", got < 0 ? strerror(errno) : "");
        else {
            memcpy(fd, CMSG_DATA(c), sizeof *fd);
            *others = a.others;
        }
    }
    close(sv[0]);
    close(sv[1]);
    return rc;
}
