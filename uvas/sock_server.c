/* A Unix-socket server on its own thread (sock_server.h). */
#include "uvas/sock_server.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "uvas.h"
#include "uvas/status.h"

static void *serve_main(void *arg)
{
    struct uvas_sock_server *s = arg;
    struct pollfd pfd[2] = {{.fd = s->lfd, .events = POLLIN}, {.fd = s->stopfd, .events = POLLIN}};
    for (;;) {
        if (poll(pfd, 2, -1) < 0 && errno != EINTR)
            break;
        if (pfd[1].revents)
            break;
        if (!(pfd[0].revents & POLLIN))
            continue;
        int fd = accept4(s->lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            continue; /* EINTR, ECONNABORTED: the next one */
        /* One client at a time: one that sends half a request, or does not
         * read its answer, must not hold the server (and the stop, which
         * joins it) for longer than this per call. */
        struct timeval tv = {.tv_sec = UVAS_SOCK_IO_TIMEOUT_S};
        (void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        (void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        s->serve(fd);
        close(fd);
    }
    return NULL;
}

int uvas_sock_server_start(struct uvas_sock_server *s, int lfd, void (*serve)(int fd),
                           const char *what)
{
    *s = (struct uvas_sock_server){.lfd = lfd, .stopfd = -1, .serve = serve};
    s->stopfd = eventfd(0, EFD_CLOEXEC);
    int e = s->stopfd < 0 ? errno : pthread_create(&s->th, NULL, serve_main, s);
    if (e) {
        uvas_sock_server_stop(s);
        return uvas_fail(UVAS_ERR_SYS, "cannot start the %s thread: %s", what, strerror(e));
    }
    s->running = true;
    return UVAS_OK;
}

void uvas_sock_server_stop(struct uvas_sock_server *s)
{
    if (s->running) {
        uint64_t one = 1;
        if (write(s->stopfd, &one, sizeof one) == sizeof one)
            pthread_join(s->th, NULL);
        s->running = false;
    }
    if (s->lfd >= 0)
        close(s->lfd);
    if (s->stopfd >= 0)
        close(s->stopfd);
    s->lfd = s->stopfd = -1;
}
