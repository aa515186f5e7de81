/*
 * The name of a PE's fd server socket (transport/pe/window.c): two PEs
 * of one user on one node never get the same one, whatever their jobs'
 * PMIx namespaces (Open MPI 5 names them prterun-<host>-<pid>@1, long
 * with a long host name, and two jobs' names may differ only at the
 * end), and a name fits a Unix socket address with the run directory in
 * front of it. The second PE's socket replaced the first's before.
 */
#include <stdio.h>
#include <sys/un.h>

#include "../check.h"
#include "transport/pe/window.h"

int main(void)
{
    const char *dir = "/run/user/4294967294/uvas";
    char a[108], b[108], c[108], d[108];
    const char *ns1 = "prterun-a-very-long-host-name-of-a-cluster-node-0042-1234567@1";
    const char *ns2 = "prterun-a-very-long-host-name-of-a-cluster-node-0042-1234568@1";
    CHECK_OK(uvas_window_sock_name(a, sizeof a, dir, ns1, 3, 1000));
    CHECK_OK(uvas_window_sock_name(b, sizeof b, dir, ns2, 3, 1001));
    CHECK(strcmp(a, b) != 0, "two jobs' PE 3 share '%s'", a);
    CHECK_OK(uvas_window_sock_name(c, sizeof c, dir, ns1, 4, 1002));
    CHECK(strcmp(a, c) != 0, "PEs 3 and 4 of one job share '%s'", a);
    /* The same job and rank in another process (a PE started again). */
    CHECK_OK(uvas_window_sock_name(d, sizeof d, dir, ns1, 3, 1003));
    CHECK(strcmp(a, d) != 0, "two processes share '%s'", a);
    struct sockaddr_un sa;
    CHECK(strlen(a) < sizeof sa.sun_path, "'%s' does not fit a socket address", a);
    CHECK(strncmp(a, dir, strlen(dir)) == 0 && a[strlen(dir)] == '/', "'%s' is not in %s", a,
          dir);
    const char *base = a + strlen(dir) + 1;
    CHECK(strncmp(base, "job-", 4) == 0 && strcmp(base + strlen(base) - 5, ".sock") == 0,
          "'%s' is not job-*.sock (the stale-socket sweep looks for those)", base);
    printf("unit-window-name: %s\n", base);
    /* A directory too long for any name is refused, not cut. */
    char longdir[200];
    memset(longdir, 'd', sizeof longdir - 1);
    longdir[0] = '/';
    longdir[sizeof longdir - 1] = 0;
    CHECK(uvas_window_sock_name(a, sizeof a, longdir, ns1, 3, 1000) != UVAS_OK,
          "a name past a socket address's size was accepted");
    return 0;
}
