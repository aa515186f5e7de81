/*
 * A user without userfaultfd (no CAP_SYS_PTRACE, /dev/userfaultfd root
 * only, vm.unprivileged_userfaultfd=0): uvas_init works in eager mode, and
 * both notes say the whole story, uncut (they used to end mid-word at 256
 * bytes: "chmod 660 /dev/use", "sysctl vm.unprivil"): the fault note names
 * the admin fix in full, and the device note says the device tier is off
 * because of it and names the fix too. Run as root, a forked child drops to
 * uid/gid 65534; skipped where that user does get a userfaultfd.
 */
#include <grp.h>
#include <sys/wait.h>

#include "../check.h"

static int child(void)
{
    if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0) {
        printf("SKIP: cannot become uid 65534: %s\n", strerror(errno));
        return TU_EXIT_SKIP;
    }
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "256M");
    CHECK_OK(uvas_init(NULL));
    struct uvas_range_desc d = tu_range();
    if (d.fault_mode == UVAS_FAULT_UFFD) {
        printf("SKIP: uid 65534 gets a userfaultfd here (%s)\n", d.fault_note);
        uvas_finalize();
        return TU_EXIT_SKIP;
    }
    printf("fault note: %s\ndevice note: %s\n", d.fault_note, d.device_note);
    const char *fix_end = "vm.unprivileged_userfaultfd=1'";
    CHECK(strstr(d.fault_note, "chmod 660 /dev/userfaultfd") &&
          strstr(d.fault_note, fix_end), "the fault note does not name the whole fix: %s",
          d.fault_note);
    if (strstr(d.device_note, "UVAS_DEVICE=none") == NULL) {
        CHECK(strstr(d.device_note, "no device tier") != NULL, "device note: %s",
              d.device_note);
        CHECK(strstr(d.device_note, fix_end) != NULL, "the device note does not name the fix: "
              "%s", d.device_note);
    }
    /* Eager mode works: memory is placed at allocation. */
    char *p = uvas_malloc(1 << 20);
    CHECK(p != NULL, "uvas_malloc in eager mode");
    memset(p, 3, 1 << 20);
    uvas_free(p);
    CHECK_OK(uvas_finalize());
    return 0;
}

int main(void)
{
    tu_deadline(60);
    if (geteuid() != 0)
        SKIP("needs root to become another user (uid 65534)");
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0, "fork");
    if (pid == 0)
        tu_exit(child());
    int ws;
    CHECK(waitpid(pid, &ws, 0) == pid, "waitpid");
    CHECK(WIFEXITED(ws), "the unprivileged child died (status %#x)", ws);
    if (WEXITSTATUS(ws) == TU_EXIT_SKIP)
        return TU_EXIT_SKIP;
    CHECK_EQ(WEXITSTATUS(ws), 0, "the unprivileged child failed");
    printf("ok\n");
    return 0;
}
