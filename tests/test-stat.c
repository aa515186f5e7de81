/*
 * uvas-stat reads a live process: its statistics and residency per
 * allocation come back while the process keeps running, and match what
 * the process did. Another user gets nothing from the endpoint.
 * usage: test-stat PATH-TO-uvas-stat
 */
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <stdbool.h>

#include "check.h"

/* Run uvas-stat with args; its stdout into buf. Exit status. */
static int run_stat(const char *tool, const char *a1, const char *a2, char *buf, size_t len)
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
    ssize_t n;
    while (got < len - 1 && (n = read(fds[0], buf + got, len - 1 - got)) > 0)
        got += (size_t)n;
    buf[got] = '\0';
    close(fds[0]);
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

int main(int argc, char **argv)
{
    tu_deadline(40);
    if (argc < 2)
        SKIP("usage: test-stat PATH-TO-uvas-stat");
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "256M");
    tu_setenv("UVAS_BLOCK_SIZE", "64K");
    tu_init_env();
    tu_require_uffd();
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

    /* Another user: the directory is closed to it, and an answer is never
     * given to another uid. */
    if (getuid() == 0) {
        pid_t c = fork();
        CHECK(c >= 0, "fork");
        if (c == 0) {
            if (setgid(65534) || setuid(65534))
                _exit(3);
            struct sockaddr_un sa = {.sun_family = AF_UNIX};
            snprintf(sa.sun_path, sizeof sa.sun_path, "/tmp/uvas-0/%s.sock", pid);
            int fd = socket(AF_UNIX, SOCK_STREAM, 0);
            _exit(connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0 ? 1 : 0);
        }
        int st;
        waitpid(c, &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "another user reached the endpoint "
              "(status %d)", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    }
    uvas_free(a);
    CHECK_OK(uvas_finalize());
    char path[128];
    snprintf(path, sizeof path, "/tmp/uvas-%u/%s.sock", (unsigned)getuid(), pid);
    CHECK(access(path, F_OK) != 0, "the endpoint is removed by uvas_finalize");
    return 0;
}
