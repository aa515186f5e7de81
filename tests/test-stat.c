/*
 * uvas-stat reads a live process: its statistics and residency per
 * allocation come back while the process keeps running, and match what
 * the process did. Another user gets nothing from the endpoint, and a
 * name like the endpoint's bound by another user is not believed. The
 * endpoint is an abstract socket: it goes with its process, even one
 * that is killed (a socket file stayed behind until the next start).
 * usage: test-stat PATH-TO-uvas-stat
 */
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <stdbool.h>

#include "check.h"

/* The other user's impostor names with full queues: for this process, for
 * the other user's own process, for a pid that cannot exist (pid_max is at
 * most 2^22). Together past the 256 names uvas-stat used to keep. */
enum { NSTALL_MINE = 40, NSTALL_THEIRS = 20, NSTALL = 340 };
#define NO_SUCH_PID 2147483600L

/* Run uvas-stat with args; its stdout into buf. Exit status, or 124 when
 * it was still running after `limit` seconds (then killed). */
static int run_stat_within(const char *tool, const char *a1, const char *a2, char *buf,
                           size_t len, double limit)
{
    int fds[2];
    CHECK(pipe(fds) == 0, "pipe");
    pid_t pid = fork();
    CHECK(pid >= 0, "fork");
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        execl(tool, tool, a1, a2, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    size_t got = 0;
    ssize_t n = 1;
    double end = tu_now_s() + limit;
    bool late = false;
    while (got < len - 1 && n > 0) {
        struct pollfd pf = {.fd = fds[0], .events = POLLIN};
        double left = end - tu_now_s();
        if (left <= 0 || poll(&pf, 1, (int)(left * 1000) + 1) == 0) {
            late = true;
            break;
        }
        if ((n = read(fds[0], buf + got, len - 1 - got)) > 0)
            got += (size_t)n;
    }
    buf[got] = '\0';
    if (late)
        kill(pid, SIGKILL);
    close(fds[0]);
    int st;
    waitpid(pid, &st, 0);
    return late ? 124 : WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static int run_stat(const char *tool, const char *a1, const char *a2, char *buf, size_t len)
{
    return run_stat_within(tool, a1, a2, buf, len, 30);
}

/* Bind `name` for listening with a full queue (one connection nobody
 * accepts), as an impostor that stalls whoever waits for it. 0 or -1. */
static int bind_full(const char *name)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    int n = snprintf(sa.sun_path + 1, sizeof sa.sun_path - 1, "%s", name);
    socklen_t sl = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
    int sf = socket(AF_UNIX, SOCK_STREAM, 0);
    int filler = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
    if (sf < 0 || filler < 0 || bind(sf, (struct sockaddr *)&sa, sl) < 0 || listen(sf, 0) < 0 ||
        connect(filler, (struct sockaddr *)&sa, sl) < 0)
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    tu_deadline(50);
    if (argc < 2)
        SKIP("usage: test-stat PATH-TO-uvas-stat");
    tu_init_range("256M", "64K");
    unsigned char *a = uvas_malloc(8 * 65536);
    CHECK(a != NULL, "uvas_malloc");
    a[0] = 1;             /* block 0 */
    a[3 * 65536] = 1;     /* block 3 */
    char pid[32], out[16384];
    snprintf(pid, sizeof pid, "%d", (int)getpid());

    CHECK_EQ(run_stat(argv[1], pid, NULL, out, sizeof out), 0, "uvas-stat PID exit status");
    CHECK(strstr(out, "policy first-touch") && strstr(out, "faults"), "uvas-stat PID printed: "
          "%s", out);
    CHECK_EQ(run_stat(argv[1], "-m", pid, out, sizeof out), 0, "uvas-stat -m PID exit status");
    char addr[32];
    snprintf(addr, sizeof addr, "%p", (void *)a);
    CHECK(strstr(out, addr) && strstr(out, "H..H....") && strstr(out, "2 host"),
          "uvas-stat -m shows the allocation at %s with blocks 0 and 3 on the host: %s", addr,
          out);
    /* -a: accesses per touched block: blocks 0 and 3, one CPU fault each. */
    CHECK_EQ(run_stat(argv[1], "-a", pid, out, sizeof out), 0, "uvas-stat -a PID exit status");
    char b0[64], b3[64];
    snprintf(b0, sizeof b0, "(%p) host      cpu          1  device          0", (void *)a);
    snprintf(b3, sizeof b3, "(%p) host      cpu          1", (void *)(a + 3 * 65536));
    CHECK(strstr(out, b0) && strstr(out, b3) && strstr(out, "2 blocks touched"),
          "uvas-stat -a lists blocks 0 and 3 with one CPU access each: %s", out);
    /* -s: blocks not at rest. A read-mostly block on the device is one
     * (duplicated); without a device tier the list is empty. */
    bool dup = tu_range().device_present &&
               uvas_advise(a + 3 * 65536, 65536, UVAS_ADVISE_READ_MOSTLY, 0) == UVAS_OK &&
               uvas_migrate(a + 3 * 65536, 65536, UVAS_LOC_DEVICE, 0) == UVAS_OK;
    CHECK_EQ(run_stat(argv[1], "-s", pid, out, sizeof out), 0, "uvas-stat -s PID exit status");
    char dline[64];
    snprintf(dline, sizeof dline, "(%p): device, version", (void *)(a + 3 * 65536));
    CHECK(dup ? strstr(out, dline) && strstr(out, "duplicated") && strstr(out, "1 of ")
              : strstr(out, "0 of ") != NULL,
          "uvas-stat -s %s: %s", dup ? "shows the duplicated block" : "shows no block", out);
    printf("uvas-stat -s: %s\n", out);
    CHECK_EQ(run_stat(argv[1], NULL, NULL, out, sizeof out), 0, "uvas-stat (list)");
    char me[48];
    snprintf(me, sizeof me, "== pid %s", pid);
    CHECK(strstr(out, me), "the list names this process: %s", out);
    CHECK(run_stat(argv[1], "999999999", NULL, out, sizeof out) == 1, "a pid with no endpoint");

    /* Clients that go before their answer (uvas-stat | head): the answer's
     * write met a closed socket and SIGPIPE ended this process. */
    struct sockaddr_un ep;
    socklen_t epl;
    CHECK(tu_stat_endpoint(getpid(), getuid(), &ep, &epl), "no endpoint of this process");
    for (int i = 0; i < 20; i++) {
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        CHECK(fd >= 0 && connect(fd, (struct sockaddr *)&ep, epl) == 0, "connect: %s",
              strerror(errno));
        CHECK(send(fd, "stats", 5, MSG_NOSIGNAL) == 5, "send");
        close(fd);
    }
    usleep(200 * 1000); /* the server answered them all, into closed sockets */
    CHECK_EQ(run_stat(argv[1], pid, NULL, out, sizeof out), 0,
             "uvas-stat after 20 clients left before their answers");
    /* A client that asks for a long answer and never reads it held the
     * server (and uvas_finalize, which joins it) for as long as it stayed. */
    enum { NOBJ = 3000 }; /* a line each in the map: 336 KB, past the socket's buffers */
    static void *objs[NOBJ];
    for (int i = 0; i < NOBJ; i++)
        CHECK((objs[i] = uvas_malloc(65536)) != NULL, "uvas_malloc %d", i);
    int hold = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK(hold >= 0 && connect(hold, (struct sockaddr *)&ep, epl) == 0, "connect: %s",
          strerror(errno));
    CHECK(send(hold, "map", 3, MSG_NOSIGNAL) == 3, "send");
    usleep(300 * 1000);
    double t0 = tu_now_s();
    int hold_rc = run_stat(argv[1], pid, NULL, out, sizeof out);
    double waited = tu_now_s() - t0;
    close(hold);
    CHECK(hold_rc == 0 && waited < 15, "uvas-stat while another client left %d allocations' "
          "map unread: status %d after %.1f s", NOBJ, hold_rc, waited);
    printf("uvas-stat answered in %.1f s while a client left a long answer unread\n", waited);
    for (int i = 0; i < NOBJ; i++)
        uvas_free(objs[i]);

    /* Another user: connects (an abstract socket has no file mode) but
     * gets no answer; and an endpoint name of this process bound by that
     * user is ignored by uvas-stat. */
    if (getuid() == 0) {
        struct sockaddr_un sa;
        socklen_t sl;
        CHECK(tu_stat_endpoint(getpid(), getuid(), &sa, &sl), "no endpoint of this process in "
              "/proc/net/unix");
        int ready[2];
        CHECK(pipe(ready) == 0, "pipe");
        fflush(stdout);
        pid_t c = fork();
        CHECK(c >= 0, "fork");
        if (c == 0) {
            close(ready[0]);
            if (setgid(65534) || setuid(65534))
                _exit(3);
            /* Set after setuid, which clears it: a parent that fails (or
             * is killed at its deadline) must not leave this child, and
             * the names it binds, behind. */
            if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() == 1)
                _exit(3);
            /* uvas-stat run by this other user names the rule, not "no
             * endpoint" (exit 6: it did not). */
            char cmd[600], said[512] = "";
            snprintf(cmd, sizeof cmd, "%.500s %s 2>&1", argv[1], pid);
            FILE *ps = popen(cmd, "r");
            if (!ps)
                _exit(6);
            size_t got = fread(said, 1, sizeof said - 1, ps);
            said[got] = 0;
            int pst = pclose(ps);
            if (!WIFEXITED(pst) || WEXITSTATUS(pst) != 1 || !strstr(said, "belongs to uid 0"))
                _exit(6);
            signal(SIGPIPE, SIG_IGN); /* the endpoint may close before the request */
            int fd = socket(AF_UNIX, SOCK_STREAM, 0);
            if (connect(fd, (struct sockaddr *)&sa, sl) < 0)
                _exit(4);
            (void)!write(fd, "stats", 5);
            shutdown(fd, SHUT_WR);
            char b[64];
            if (read(fd, b, sizeof b) > 0) /* 0, or ECONNRESET: the request went unread */
                _exit(1);                    /* answered another user */
            close(fd);
            /* The impostor: this process's name, another pid and uid. */
            struct sockaddr_un fake = {.sun_family = AF_UNIX};
            int n = snprintf(fake.sun_path + 1, sizeof fake.sun_path - 1,
                             "uvas-stat/0/%s/0000000000000000", pid);
            int lf = socket(AF_UNIX, SOCK_STREAM, 0);
            if (bind(lf, (struct sockaddr *)&fake,
                     (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n)) < 0 ||
                listen(lf, 8) < 0)
                _exit(5);
            /* Names like the endpoint's whose queues are full: a
             * blocking connect to one waited for ever (uvas-stat hung),
             * a second of retries each stalled it for minutes. Many for
             * this process, more for a pid that does not exist and for a
             * process of this other user: those filled uvas-stat's table
             * of 256 names and hid the real endpoint from the list. */
            struct rlimit nofile;
            if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur < 2048 &&
                nofile.rlim_max >= 2048) {
                nofile.rlim_cur = 2048;
                setrlimit(RLIMIT_NOFILE, &nofile);
            }
            char name[100];
            for (int k = 0; k < NSTALL; k++) {
                long who = k < NSTALL_MINE ? (long)getppid()
                           : k < NSTALL_MINE + NSTALL_THEIRS ? (long)getpid()
                                                             : NO_SUCH_PID;
                snprintf(name, sizeof name, "uvas-stat/0/%ld/%016x", who, k + 1);
                if (bind_full(name))
                    _exit(5);
            }
            close(ready[1]); /* listening: the parent may look */
            for (;;) { /* answer anyone who asks, as a real endpoint would */
                int s = accept(lf, NULL, NULL);
                if (s >= 0) {
                    (void)!write(s, "IMPOSTOR\n", 9);
                    close(s);
                }
            }
        }
        close(ready[1]);
        char b;
        CHECK(read(ready[0], &b, 1) == 0, "pipe");
        close(ready[0]);
        /* Generous against a loaded machine; a second per impostor was
         * minutes. */
        double t0 = tu_now_s();
        int stat_rc = run_stat_within(argv[1], pid, NULL, out, sizeof out, 15);
        double stat_s = tu_now_s() - t0;
        t0 = tu_now_s();
        int list_rc = run_stat_within(argv[1], NULL, NULL, out + strlen(out) + 1,
                                      sizeof out - strlen(out) - 1, 15);
        double list_s = tu_now_s() - t0;
        const char *listed = out + strlen(out) + 1;
        int st;
        bool alive = waitpid(c, &st, WNOHANG) == 0;
        kill(c, SIGKILL);
        waitpid(c, &st, 0);
        CHECK(alive, "the other user's child ended early (status %#x: 1 = answered, 3 = no "
              "setuid, 4 = no connection, 5 = no bind, 6 = uvas-stat did not name the owner)",
              st);
        CHECK(stat_rc == 0 && strstr(out, "faults") && !strstr(out, "IMPOSTOR"),
              "uvas-stat %s with an impostor endpoint beside the real one (status %d): %s", pid,
              stat_rc, out);
        printf("with %d impostor names: uvas-stat PID took %.1f s, the list %.1f s\n", NSTALL,
               stat_s, list_s);
        CHECK(list_rc == 0 && !strstr(listed, "IMPOSTOR"), "uvas-stat list with an impostor "
              "(status %d, 124: still running after 15 s): %s", list_rc, listed);
        char me[48], them[48], none[48];
        snprintf(me, sizeof me, "== pid %s\n", pid);
        snprintf(them, sizeof them, "== pid %d\n", (int)c);
        snprintf(none, sizeof none, "== pid %ld\n", NO_SUCH_PID);
        const char *at = strstr(listed, me);
        CHECK(at && !strstr(at + 1, me) && strstr(at, "faults"), "the list shows this process "
              "once, with its statistics, among the impostors: %s", listed);
        CHECK(!strstr(listed, them) && !strstr(listed, none), "the list shows names claiming a "
              "process of another user, or none: %s", listed);
    }
    uvas_free(a);
    CHECK_OK(uvas_finalize());
    struct sockaddr_un sa;
    socklen_t sl;
    CHECK(!tu_stat_endpoint(getpid(), getuid(), &sa, &sl), "the endpoint is gone after "
          "uvas_finalize");

    /* A process killed with its endpoint open leaves nothing behind. */
    int ready[2];
    CHECK(pipe(ready) == 0, "pipe");
    fflush(stdout);
    pid_t c = fork();
    CHECK(c >= 0, "fork");
    if (c == 0) {
        close(ready[0]);
        if (uvas_init(NULL) != UVAS_OK)
            _exit(3);
        close(ready[1]);
        pause();
        _exit(0);
    }
    close(ready[1]);
    char b;
    CHECK(read(ready[0], &b, 1) == 0, "pipe");
    close(ready[0]);
    bool had = tu_stat_endpoint(c, getuid(), &sa, &sl);
    kill(c, SIGKILL);
    int st;
    waitpid(c, &st, 0);
    CHECK(had, "the child (pid %d) had no endpoint", (int)c);
    CHECK(!tu_stat_endpoint(c, getuid(), &sa, &sl), "the endpoint of the killed child (pid %d) "
          "is still listed", (int)c);
    /* Where the socket file of the killed child used to stay behind. */
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    char left[2][160];
    snprintf(left[0], sizeof left[0], "%.100s/uvas/%d.sock", xdg ? xdg : "/nonexistent", (int)c);
    snprintf(left[1], sizeof left[1], "/tmp/uvas-%u/%d.sock", (unsigned)getuid(), (int)c);
    for (int i = 0; i < 2; i++)
        CHECK(access(left[i], F_OK) != 0, "%s stayed behind the killed child", left[i]);
    printf("the endpoint went with the killed process: ok\n");
    return 0;
}
