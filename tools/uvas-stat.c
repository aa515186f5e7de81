/*
 * uvas-stat: look at a running uvas process without stopping it. Talks to
 * the endpoint each process serves (uvas/endpoint.c) at <dir>/<pid>.sock,
 * dir being the user's socket directory (uvas/rundir.h: $XDG_RUNTIME_DIR/uvas,
 * /tmp/uvas-<uid>, or a private /tmp/uvas-<uid>.XXXXXX when another user took
 * that name); only the same user gets an answer.
 *
 *   uvas-stat                  list the live uvas processes of this user
 *   uvas-stat PID              statistics and tier occupancy
 *   uvas-stat -m PID           residency per allocation (H host, D device, . untouched)
 *   uvas-stat -s PID           blocks not at rest: in a transition, CPU-mapped, pinned
 *   uvas-stat -i SECONDS ...   refresh every SECONDS until interrupted
 */
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX_DIRS 16

/* A directory of this user that nobody else may enter. */
static bool private_dir(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid() &&
           !(st.st_mode & 077);
}

/* The places a uvas process of this user may have its endpoint, in the
 * order uvas/rundir.c tries them. */
static int dirs(char out[MAX_DIRS][96])
{
    int n = 0;
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    if (xdg && *xdg && snprintf(out[n], 96, "%s/uvas", xdg) < 96 && private_dir(out[n]))
        n++;
    snprintf(out[n], 96, "/tmp/uvas-%u", (unsigned)getuid());
    if (private_dir(out[n]))
        n++;
    char prefix[40];
    int pl = snprintf(prefix, sizeof prefix, "uvas-%u.", (unsigned)getuid());
    DIR *d = opendir("/tmp");
    for (struct dirent *e; d && (e = readdir(d)) && n < MAX_DIRS;)
        if (!strncmp(e->d_name, prefix, (size_t)pl) &&
            snprintf(out[n], 96, "/tmp/%s", e->d_name) < 96 && private_dir(out[n]))
            n++;
    if (d)
        closedir(d);
    return n;
}

/* Send req to the endpoint at path and copy the answer to stdout. 0, or -errno. */
static int ask_at(const char *path, const char *req)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (snprintf(a.sun_path, sizeof a.sun_path, "%s", path) >= (int)sizeof a.sun_path)
        return -ENAMETOOLONG;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        int e = errno;
        close(fd);
        if (e == ECONNREFUSED) /* the process is gone: its socket is stale */
            unlink(a.sun_path);
        return -e;
    }
    if (write(fd, req, strlen(req)) < 0 || shutdown(fd, SHUT_WR) < 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    char buf[65536];
    ssize_t n;
    size_t total = 0;
    while ((n = read(fd, buf, sizeof buf)) > 0) {
        fwrite(buf, 1, (size_t)n, stdout);
        total += (size_t)n;
    }
    close(fd);
    return total ? 0 : -EPERM; /* no answer: another user's process */
}

/* pid's endpoint, wherever it is. 0, or -errno (-ENOENT: none found). */
static int ask(long pid, const char *req)
{
    char d[MAX_DIRS][96];
    int n = dirs(d), e = -ENOENT;
    for (int i = 0; i < n && e == -ENOENT; i++) {
        char path[160];
        snprintf(path, sizeof path, "%.100s/%ld.sock", d[i], pid);
        e = ask_at(path, req);
    }
    return e;
}

static int list(void)
{
    char d[MAX_DIRS][96];
    int n = dirs(d), found = 0;
    for (int i = 0; i < n; i++) {
        DIR *dd = opendir(d[i]);
        for (struct dirent *e; dd && (e = readdir(dd));) {
            char *end;
            long pid = strtol(e->d_name, &end, 10);
            if (end == e->d_name || strcmp(end, ".sock"))
                continue;
            printf("== pid %ld\n", pid);
            if (ask(pid, "stats") == 0)
                found++;
            else
                printf("   (not answering)\n");
        }
        if (dd)
            closedir(dd);
    }
    if (!found)
        printf("no running uvas process of this user (looked in %d director%s: "
               "$XDG_RUNTIME_DIR/uvas, /tmp/uvas-%u, /tmp/uvas-%u.*)\n", n, n == 1 ? "y" : "ies",
               (unsigned)getuid(), (unsigned)getuid());
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
    fprintf(f, "usage: uvas-stat [-m] [-b] [-s] [-i SECONDS] [PID]\n"
               "  no PID   list the running uvas processes of this user\n"
               "  -m       residency per allocation\n"
               "  -b       one character per block of every allocation\n"
               "  -s       blocks in a transition, CPU-mapped, duplicated or pinned\n"
               "  -i SEC   refresh every SEC seconds\n");
}

int main(int argc, char **argv)
{
    const char *req = "stats";
    double every = 0;
    int opt;
    while ((opt = getopt(argc, argv, "mbsi:h")) != -1) {
        switch (opt) {
        case 'm': req = "map"; break;
        case 'b': req = "blocks"; break;
        case 's': req = "states"; break;
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
            list();
        } else {
            int e = ask(pid, req);
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
