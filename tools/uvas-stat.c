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
 *   uvas-stat -a PID           accesses per touched block: CPU, device, kernels' counts, other PEs'
 *   uvas-stat -i SECONDS ...   refresh every SECONDS until interrupted
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
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

/* How long uvas-stat keeps asking endpoints whose queues are full, in all:
 * anyone can bind names like an endpoint's and leave them full, and a
 * second per name stalled a listing for minutes (found by review). */
#define RETRY_BUDGET_S 2.0
#define RETRY_PAUSE_NS (20 * 1000 * 1000)

/* A listening endpoint of this user: the pid its name claims, the name. */
struct ep {
    long pid;
    size_t seq;      /* its place in /proc/net/unix: the order within a pid */
    int busy;        /* its queue was full when last asked */
    char name[108];
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Whether pid is a live process of this user; the last answers are kept,
 * since an impostor may bind hundreds of names claiming the same pid. */
static int mine(long pid)
{
    static long seen[64];
    static signed char ok[64];
    static unsigned next;
    for (unsigned i = 0; i < 64; i++)
        if (seen[i] == pid)
            return ok[i];
    char proc[64];
    struct stat st;
    snprintf(proc, sizeof proc, "/proc/%ld", pid);
    int yes = stat(proc, &st) == 0 && st.st_uid == getuid();
    seen[next % 64] = pid;
    ok[next % 64] = (signed char)yes;
    next++;
    return yes;
}

static int by_pid(const void *x, const void *y)
{
    const struct ep *a = x, *b = y;
    if (a->pid != b->pid)
        return a->pid < b->pid ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* This user's endpoints (of pid only, when pid > 0), from /proc/net/unix:
 * abstract names, which the kernel lists and removes with the process.
 * Only names that claim a live process of this user count: the uid in a
 * name proves nothing, so others' names must not crowd out the real ones
 * (no cap: a fixed table filled with them first). Sorted by pid. */
static int find(long pid, struct ep **out)
{
    *out = NULL;
    FILE *f = fopen("/proc/net/unix", "r");
    if (!f)
        return -errno;
    char line[512], prefix[64];
    int pl = snprintf(prefix, sizeof prefix, "@" UVAS_STAT_SERVER_PREFIX "%u/", (unsigned)getuid());
    struct ep *eps = NULL;
    size_t n = 0, cap = 0, seq = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long flags;
        char path[256];
        seq++;
        /* Num RefCount Protocol Flags Type St Inode Path */
        if (sscanf(line, "%*s %*s %*s %lx %*s %*s %*s %255s", &flags, path) != 2 ||
            !(flags & 0x10000) /* __SO_ACCEPTCON: listening, not an accepted copy */ ||
            strncmp(path, prefix, (size_t)pl))
            continue;
        char *end;
        long p = strtol(path + pl, &end, 10);
        if (end == path + pl || *end != '/' || p <= 0 || (pid > 0 && p != pid) ||
            strlen(path) > sizeof eps->name || !mine(p))
            continue;
        if (n == cap) {
            struct ep *m = realloc(eps, (cap = cap ? 2 * cap : 16) * sizeof *eps);
            if (!m) {
                free(eps);
                fclose(f);
                return -ENOMEM;
            }
            eps = m;
        }
        eps[n] = (struct ep){.pid = p, .seq = seq};
        memcpy(eps[n].name, path + 1, strlen(path)); /* with its NUL */
        n++;
    }
    fclose(f);
    if (n) /* eps is NULL with none: qsort's is declared never NULL */
        qsort(eps, n, sizeof *eps, by_pid);
    *out = eps;
    return (int)n;
}

/* Send req to endpoint e and copy the answer to stdout. 0, or -errno;
 * -EAGAIN: its queue is full (no waiting here: the caller retries). */
static int ask_at(struct ep *e, const char *req)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    size_t nl = strlen(e->name);
    memcpy(a.sun_path + 1, e->name, nl);
    socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + nl);
    /* Non-blocking: anyone can bind a name like an endpoint's and leave
     * its queue full, where a blocking connect waits for ever. Then a
     * bound on every read. */
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -errno;
    if (connect(fd, (struct sockaddr *)&a, len) < 0) {
        int err = errno;
        close(fd);
        e->busy = err == EAGAIN;
        return -err;
    }
    e->busy = 0;
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

/* Ask the n endpoints of one pid until one answers: each once, then the
 * full ones again until *deadline (a flood of other users' connections
 * the server is still refusing fills its queue for a while). 0, or the
 * last -errno. */
static int ask_pid(struct ep *eps, int n, const char *req, double deadline)
{
    int e = -ENOENT;
    for (int i = 0; i < n; i++)
        if (!(e = ask_at(&eps[i], req)))
            return 0;
    for (;;) {
        int busy = 0;
        for (int i = 0; i < n; i++)
            busy |= eps[i].busy;
        if (!busy || now_s() >= deadline)
            return e;
        nanosleep(&(struct timespec){0, RETRY_PAUSE_NS}, NULL);
        for (int i = 0; i < n; i++)
            if (eps[i].busy && !(e = ask_at(&eps[i], req)))
                return 0;
    }
}

/* pid's endpoint. 0, or -errno (-ENOENT: none found). */
static int ask(long pid, const char *req)
{
    struct ep *eps;
    int n = find(pid, &eps);
    int e = n < 0 ? n : n ? ask_pid(eps, n, req, now_s() + RETRY_BUDGET_S) : -ENOENT;
    free(eps);
    return e;
}

static int list(void)
{
    struct ep *eps;
    int n = find(0, &eps), found = 0;
    if (n < 0) {
        fprintf(stderr, "uvas-stat: cannot read /proc/net/unix: %s\n", strerror(-n));
        return 1;
    }
    double deadline = now_s() + RETRY_BUDGET_S; /* for all of them: others' names cost little */
    for (int i = 0, j; i < n; i = j) {
        for (j = i + 1; j < n && eps[j].pid == eps[i].pid;)
            j++;
        printf("== pid %ld\n", eps[i].pid);
        fflush(stdout);
        if (ask_pid(eps + i, j - i, "stats", deadline) == 0)
            found++;
        else
            printf("   (not answering)\n");
    }
    free(eps);
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

/* -i's argument: seconds, or -1. Shorter than 0.05 s asks the target
 * again and again (nan and inf did, through atof); all of it a number. */
static double parse_interval(const char *s)
{
    if (!isdigit((unsigned char)*s) && *s != '.')
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v) || v < 0.05 || v > 86400)
        return -1;
    return v;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: uvas-stat [-m] [-b] [-s] [-a] [-i SECONDS] [PID]\n"
               "  no PID   list the running uvas processes of this user\n"
               "  -m       residency per allocation\n"
               "  -b       one character per block of every allocation\n"
               "  -s       blocks in a transition, CPU-mapped, duplicated or pinned\n"
               "  -a       accesses per touched block (CPU, device, kernels' counts, other PEs')\n"
               "  -i SEC   refresh every SEC seconds (0.05 to 86400)\n");
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
            if ((every = parse_interval(optarg)) < 0) {
                fprintf(stderr, "uvas-stat: -i '%s': give the seconds between refreshes, a "
                        "number from 0.05 to 86400 (e.g. -i 2)\n", optarg);
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
        struct timespec ts = {.tv_sec = (time_t)every,
                              .tv_nsec = (long)((every - (double)(time_t)every) * 1e9)};
        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
            ;
    }
}
