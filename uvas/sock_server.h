/*
 * A Unix-socket server on its own thread: accepts connections on a
 * listening socket and hands each to serve(), one at a time, until
 * stopped. The uvas-stat server (stat_server.c) and a PE's window server
 * (transport/pe/window.c) are two of these; each checks its peer's
 * credentials itself.
 */
#ifndef UVAS_SOCK_SERVER_H
#define UVAS_SOCK_SERVER_H

#include <pthread.h>
#include <stdbool.h>

struct uvas_sock_server {
    int lfd;        /* the listening socket (the server owns it once started) */
    int stopfd;     /* eventfd that ends the thread */
    pthread_t th;
    bool running;
    void (*serve)(int fd); /* one connection; the server closes fd after */
};

/* Serve the listening socket lfd (bound, listening, CLOEXEC) with serve.
 * Status; on failure lfd is closed. */
int uvas_sock_server_start(struct uvas_sock_server *s, int lfd, void (*serve)(int fd),
                           const char *what);
/* Stop the thread (a connection being served finishes first) and close
 * the socket. Safe on a server never started. */
void uvas_sock_server_stop(struct uvas_sock_server *s);

#endif
