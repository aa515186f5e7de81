/*
 * No descriptor of uvas's reaches a program the process execs: the range's
 * memfd, the userfaultfd, event descriptors and the device slabs' exported
 * descriptors (which a driver hands out without close-on-exec; before, an
 * exec'd program could map the parent's device memory through one) are
 * all close-on-exec. The program execs itself with "list": it names every
 * descriptor it holds beyond those the test had before uvas_init.
 */
#include <dirent.h>
#include <limits.h>

#include "process/common.h"
#include "uvas_policy.h"

/* The exec'd side: fail if a descriptor not in argv[2..] is open. */
static int list(int argc, char **argv)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return 1;
    int dfd = dirfd(d), leaked = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        int fd = atoi(e->d_name);
        if (fd == dfd)
            continue;
        int known = 0;
        for (int i = 2; i < argc; i++)
            known |= atoi(argv[i]) == fd;
        if (known)
            continue;
        char path[64], target[PATH_MAX] = "?";
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(path, target, sizeof target - 1);
        if (n >= 0)
            target[n] = 0;
        printf("leaked fd %d -> %s\n", fd, target);
        leaked++;
    }
    closedir(d);
    return leaked ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "list"))
        return list(argc, argv);
    tu_watchdog(60);
    /* What was open before uvas (the test runner's descriptors). */
    char *args[256] = {argv[0], "list"};
    int na = 2;
    static char nums[256][12];
    DIR *d = opendir("/proc/self/fd");
    CHECK(d != NULL, "opendir /proc/self/fd");
    for (struct dirent *e; (e = readdir(d)) && na < 250;) {
        if (e->d_name[0] == '.' || atoi(e->d_name) == dirfd(d))
            continue;
        snprintf(nums[na], sizeof nums[na], "%d", atoi(e->d_name));
        args[na] = nums[na];
        na++;
    }
    closedir(d);
    args[na] = NULL;

    struct uvas_range_desc r = tu_init_range("1G", "2M");
    char *p = uvas_malloc((size_t)8 << 20);
    CHECK(p != NULL, "uvas_malloc");
    memset(p, 7, (size_t)8 << 20);
    if (r.device_present) { /* device slabs exist and are exported */
        char *g = uvas_malloc_hint((size_t)4 << 20, UVAS_HINT_DEVICE);
        CHECK(g != NULL, "uvas_malloc_hint(DEVICE)");
        CHECK_OK(uvas_migrate(p, (size_t)8 << 20, UVAS_LOC_DEVICE, 0));
        CHECK_OK(uvas_device_access(g, 4096, 1, 1));
    } else {
        printf("no device tier (%s): host descriptors only\n", r.device_note);
    }
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0, "fork");
    if (pid == 0) {
        execv("/proc/self/exe", args);
        _exit(127);
    }
    int ws;
    CHECK(waitpid(pid, &ws, 0) == pid, "waitpid");
    CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "the exec'd program held descriptors of "
          "uvas's (listed above; status %#x)", ws);
    CHECK_OK(uvas_finalize());
    printf("ok\n");
    return 0;
}
