/*
 * uvas-stat: look at a running uvas process without stopping it. Talks to
 * the endpoint each process serves (uvas/stat_server.c), an abstract Unix
 * socket found in /proc/net/unix; only the same user gets an answer, and
 * an answer counts only from the process the name claims.
 *
 *   uvas-stat                  list the live uvas processes of this user
 *   uvas-stat PID              statistics and tier occupancy
 *   uvas-stat -m PID           residency per allocation (H host, D device, . untouched)
 *   uvas-stat -s PID           blocks not at rest: in a transition, CPU-mapped, pinned
 *   uvas-stat -a PID           accesses per touched block: CPU, device, kernels' counts
 *   uvas-stat -i SECONDS ...   refresh every SECONDS until interrupted
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "uvas/stat_server.h"

#define MAX_EPS 256

/* A listening endpoint of this user: the pid its name claims, the name. */
struct ep {
    long pid;
    char name[108];
};

/* This user's endpoints (of pid only, when pid > 0), from /proc/net/unix:
 * abstract names, which the kernel lists and removes with the process. */
static int find(long pid, struct ep *out, int max)
{
    FILE *f = fopen("/proc/net/unix", "r");
    if (!f)
        return -errno;
    char line[512], prefix[64];
    int pl = snprintf(prefix, sizeof prefix, "@" UVAS_STAT_SERVER_PREFIX "%u/", (unsigned)getuid());
    int n = 0;
    while (n < max && fgets(line, sizeof line, f)) {
        unsigned long flags;
        char path[256];
        /* Num RefCount Protocol Flags Type St Inode Path */
        if (sscanf(line, "%*s %*s %*s %lx %*s %*s %*s %255s", &flags, path) != 2 ||
            !(flags & 0x10000) /* __SO_ACCEPTCON: listening, not an accepted copy */ ||
            strncmp(path, prefix, (size_t)pl))
            continue;
        char *end;
        long p = strtol(path + pl, &end, 10);
        if (end == path + pl || *end != '/' || p <= 0 || (pid > 0 && p != pid) ||
            strlen(path) > sizeof out[n].name)
            continue;
        out[n].pid = p;
        memcpy(out[n].name, path + 1, strlen(path)); /* with its NUL */
        n++;
    }
    fclose(f);
    return n;
}

/* Send req to endpoint e and copy the answer to stdout. 0, or -errno. */
static int ask_at(const struct ep *e, const char *req)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    size_t nl = strlen(e->name);
    memcpy(a.sun_path + 1, e->name, nl);
    socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + nl);
    /* Non-blocking: anyone can bind a name like an endpoint's and leave
     * its queue full, where a blocking connect waits for ever (EAGAIN
     * here: the next candidate). Then a bound on every read. */
    /* A full queue may be a flood of other users' connections the server
     * is still refusing: asked again for a second before giving up (once,
     * four of five runs failed during such a flood; found by review). */
    int fd = -1;
    for (int tries = 0;; tries++) {
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
            return -errno;
        if (connect(fd, (struct sockaddr *)&a, len) == 0)
            break;
        int err = errno;
        close(fd);
        if (err != EAGAIN || tries == 50)
            return -err;
        nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
    }
    struct timeval tv = {.tv_sec = 10};
    if (fcntl(fd, F_SETFL, 0) < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) < 0) {
        int err = errno;
        close(fd);
        return -err;
    }
    /* Anybody can bind an abstract name: believe only the process it names. */
    struct ucred cred;
    socklen_t cl = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) < 0 || cred.uid != getuid() ||
        cred.pid != e->pid) {
        fprintf(stderr, "uvas-stat: ignoring @%s: it is served by pid %d of uid %u, not by the "
                "process it names (another program took a name like uvas's)\n", e->name,
                (int)cred.pid, (unsigned)cred.uid);
        close(fd);
        return -EACCES;
    }
    if (send(fd, req, strlen(req), MSG_NOSIGNAL) < 0 || shutdown(fd, SHUT_WR) < 0) {
        int err = errno;
        close(fd);
        return -err;
    }
    char buf[65536];
    ssize_t n;
    size_t total = 0;
    while ((n = read(fd, buf, sizeof buf)) > 0) {
        fwrite(buf, 1, (size_t)n, stdout);
        total += (size_t)n;
    }
    close(fd);
    return total ? 0 : -EPERM;
}

/* pid's endpoint. 0, or -errno (-ENOENT: none found). */
static int ask(long pid, const char *req)
{
    static struct ep eps[MAX_EPS];
    int n = find(pid, eps, MAX_EPS), e = n < 0 ? n : -ENOENT;
    for (int i = 0; i < n && e; i++)
        e = ask_at(&eps[i], req);
    return e;
}

static int list(void)
{
    static struct ep eps[MAX_EPS];
    int n = find(0, eps, MAX_EPS), found = 0;
    if (n < 0) {
        fprintf(stderr, "uvas-stat: cannot read /proc/net/unix: %s\n", strerror(-n));
        return 1;
    }
    for (int i = 0; i < n; i++) {
        printf("== pid %ld\n", eps[i].pid);
        if (ask_at(&eps[i], "stats") == 0)
            found++;
        else
            printf("   (not answering)\n");
    }
    if (!found)
        printf("no running uvas process of this user (in this network namespace)\n");
    return 0;
}

/* Why pid has no endpoint this user can reach. */
static const char *why_none(long pid, char *buf, size_t len)
{
    char proc[64];
    struct stat st;
    snprintf(proc, sizeof proc, "/proc/%ld", pid);
    if (stat(proc, &st) < 0)
        return "no such process";
    if (st.st_uid != getuid()) {
        snprintf(buf, len, "it belongs to uid %u: uvas-stat reads only your own processes "
                 "(their endpoints answer the same user only; run it as that user)",
                 (unsigned)st.st_uid);
        return buf;
    }
    return "no uvas endpoint (not a uvas process, or UVAS_STAT=0)";
}

static void usage(FILE *f)
{
    fprintf(f, "usage: uvas-stat [-m] [-b] [-s] [-a] [-i SECONDS] [PID]\n"
               "  no PID   list the running uvas processes of this user\n"
               "  -m       residency per allocation\n"
               "  -b       one character per block of every allocation\n"
               "  -s       blocks in a transition, CPU-mapped, duplicated or pinned\n"
               "  -a       accesses per touched block (CPU, device, kernels' counts)\n"
               "  -i SEC   refresh every SEC seconds\n");
}

int main(int argc, char **argv)
{
    const char *req = "stats";
    double every = 0;
    int opt;
    while ((opt = getopt(argc, argv, "mbsai:h")) != -1) {
        switch (opt) {
        case 'm': req = "map"; break;
        case 'b': req = "blocks"; break;
        case 's': req = "states"; break;
        case 'a': req = "accesses"; break;
        case 'i':
            every = atof(optarg);
            if (every <= 0) {
                fprintf(stderr, "uvas-stat: -i takes a positive number of seconds\n");
                return 2;
            }
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc - 1) {
        usage(stderr);
        return 2;
    }
    long pid = 0;
    if (optind == argc - 1) {
        char *end;
        pid = strtol(argv[optind], &end, 10);
        if (*end || pid <= 0) {
            fprintf(stderr, "uvas-stat: '%s' is not a process id\n", argv[optind]);
            return 2;
        }
    }
    for (;;) {
        if (every > 0)
            printf("\033[H\033[2J");
        if (!pid) {
            if (list())
                return 1;
        } else {
            int e = ask(pid, req);
            if (e == -EACCES)
                return 1;
            if (e) {
                char why[200];
                fprintf(stderr, "uvas-stat: process %ld: %s\n", pid,
                        e == -ENOENT || e == -ECONNREFUSED || e == -EPERM
                            ? why_none(pid, why, sizeof why)
                            : strerror(-e));
                return 1;
            }
        }
        fflush(stdout);
        if (every <= 0)
            return 0;
        usleep((useconds_t)(every * 1e6));
    }
}
