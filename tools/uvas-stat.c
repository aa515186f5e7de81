/*
 * uvas-stat: look at a running uvas process without stopping it. Talks to
 * the endpoint each process serves (uvas/endpoint.c) at
 * /tmp/uvas-<uid>/<pid>.sock; only the same user gets an answer.
 *
 *   uvas-stat                  list the live uvas processes of this user
 *   uvas-stat PID              statistics and tier occupancy
 *   uvas-stat -m PID           residency per allocation (H host, D device, . untouched)
 *   uvas-stat -s PID           blocks not at rest: in a transition, CPU-mapped, pinned
 *   uvas-stat -i SECONDS ...   refresh every SECONDS until interrupted
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static void dir_of(char *dir, size_t len)
{
    snprintf(dir, len, "/tmp/uvas-%u", (unsigned)getuid());
}

/* Send req to pid's endpoint and copy the answer to stdout. 0, or -errno. */
static int ask(long pid, const char *req)
{
    char dir[64];
    dir_of(dir, sizeof dir);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s/%ld.sock", dir, pid);
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

static int list(void)
{
    char dir[64];
    dir_of(dir, sizeof dir);
    DIR *d = opendir(dir);
    int found = 0;
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
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
        closedir(d);
    }
    if (!found)
        printf("no running uvas process of this user (endpoints in %s)\n", dir);
    return 0;
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
                fprintf(stderr, "uvas-stat: process %ld: %s\n", pid,
                        e == -ENOENT || e == -ECONNREFUSED
                            ? "no uvas endpoint (not a uvas process, gone, or UVAS_STAT=0)"
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
