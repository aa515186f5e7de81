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

/* Each read or write of a connection gives up after this many seconds
 * (SO_RCVTIMEO, SO_SNDTIMEO), and serve() bounds a connection's whole
 * time with UVAS_SOCK_SERVE_MAX_S: a client that sends half a request or
 * never reads its answer holds neither the server nor its stop. */
#define UVAS_SOCK_IO_TIMEOUT_S 2
#define UVAS_SOCK_SERVE_MAX_S 10

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
/* Stop the thread (a connection being served finishes first, within
 * UVAS_SOCK_SERVE_MAX_S) and close the socket. Safe on a server never
 * started. */
void uvas_sock_server_stop(struct uvas_sock_server *s);

#endif
