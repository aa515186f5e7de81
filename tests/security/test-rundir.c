/*
 * Another user cannot deny uvas to a user by taking its socket directory
 * first: with /tmp/uvas-<uid> made by someone else (here root, for the
 * user uid 65533), the directory where a PE serves its window
 * (uvas/rundir.h) is a private /tmp/uvas-<uid>.XXXXXX instead, a socket
 * can be bound there, and releasing it removes it; uvas_init starts and
 * uvas-stat reads the process (its endpoint is an abstract socket, in no
 * directory). Before, every shmem_init of that user failed, the endpoint
 * was off, and the user could not remove the directory (sticky /tmp).
 * Needs root (to be both users); usage: test-rundir UVAS-STAT.
 */
#include <dirent.h>
#include <grp.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/wait.h>

#include "../check.h"
#include "uvas/rundir.h"

#define VICTIM 65533 /* not 65534: test-unprivileged runs as that one meanwhile */

static const char *uvas_stat;

/* The private directories of VICTIM in /tmp now (count; one name in out). */
static int private_dirs(char *out, size_t len)
{
    char prefix[32];
    int pl = snprintf(prefix, sizeof prefix, "uvas-%u.", VICTIM), n = 0;
    DIR *d = opendir("/tmp");
    for (struct dirent *e; d && (e = readdir(d));)
        if (!strncmp(e->d_name, prefix, (size_t)pl)) {
            snprintf(out, len, "/tmp/%.100s", e->d_name);
            n++;
        }
    if (d)
        closedir(d);
    return n;
}

static int victim(void)
{
    if (setgroups(0, NULL) < 0 || setgid(VICTIM) < 0 || setuid(VICTIM) < 0)
        FAIL("cannot become uid %d: %s", VICTIM, strerror(errno));
    tu_clear_env();
    unsetenv("XDG_RUNTIME_DIR");
    tu_setenv("UVAS_SIZE", "256M");
    char before[128] = "";
    int n0 = private_dirs(before, sizeof before);
    CHECK_OK(uvas_init(NULL));
    char dir[128] = "", got[96];
    CHECK_OK(uvas_rundir(got, sizeof got));
    CHECK_EQ(private_dirs(dir, sizeof dir), n0 + 1, "private socket directories");
    CHECK(!strcmp(got, dir), "uvas_rundir gave %s, the new private directory is %s", got, dir);
    struct stat st;
    CHECK(lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == VICTIM &&
          (st.st_mode & 0777) == 0700, "%s: not a 0700 directory of uid %d", dir, VICTIM);
    /* A PE's window socket, as transport/pe/window.c binds it. */
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%.90s/job-x-0.sock", dir);
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    CHECK(s >= 0 && bind(s, (struct sockaddr *)&a, sizeof a) == 0 && listen(s, 1) == 0,
          "cannot listen on %s: %s", a.sun_path, strerror(errno));
    close(s);
    unlink(a.sun_path);
    /* uvas-stat, run by the same user, finds the endpoint there. */
    char pid[16];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    fflush(stdout);
    pid_t c = fork();
    CHECK(c >= 0, "fork");
    if (c == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        execl(uvas_stat, uvas_stat, pid, (char *)NULL);
        _exit(127);
    }
    int ws;
    CHECK(waitpid(c, &ws, 0) == c && WIFEXITED(ws) && WEXITSTATUS(ws) == 0,
          "uvas-stat %s did not answer (status %#x)", pid, ws);
    CHECK_OK(uvas_finalize());
    CHECK(lstat(dir, &st) < 0 && errno == ENOENT, "%s is still there after uvas_finalize", dir);
    return 0;
}

int main(int argc, char **argv)
{
    tu_deadline(60);
    if (argc != 2)
        SKIP("usage: test-rundir PATH-TO-uvas-stat");
    uvas_stat = argv[1];
    if (geteuid() != 0)
        SKIP("needs root to act as two users");
    char taken[64];
    snprintf(taken, sizeof taken, "/tmp/uvas-%u", VICTIM);
    struct stat st;
    bool made = false;
    if (lstat(taken, &st) < 0) { /* the attack: root takes the victim's name */
        CHECK(mkdir(taken, 0755) == 0, "mkdir %s: %s", taken, strerror(errno));
        made = true;
    } else if (st.st_uid == VICTIM) {
        SKIP("%s belongs to uid %d already (a real session of that user?)", taken, VICTIM);
    }
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0, "fork");
    if (pid == 0)
        tu_exit(victim());
    int ws;
    CHECK(waitpid(pid, &ws, 0) == pid, "waitpid");
    if (made)
        rmdir(taken);
    CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "uid %d could not use uvas with %s taken "
          "(status %#x)", VICTIM, taken, ws);
    printf("ok: with %s taken by another user, uid %d's socket directory is a private one, "
           "finalize removed it, uvas-stat read the process\n", taken, VICTIM);
    return 0;
}
