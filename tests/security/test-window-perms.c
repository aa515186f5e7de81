/*
 * Who may touch a PE's memory. Run under mpirun with 2 PEs (more are fine:
 * only PEs 0 and 1 take part). PE 0 tries, from outside the job, every
 * way into PE 1's memory and checks each fails:
 *
 *  (a) another user (uid/gid 65534, a forked child of PE 0; skipped unless
 *      PE 0 runs as root): the socket directory /tmp/uvas-<uid> cannot be
 *      opened, searched or connected through (EACCES), nor can PE 1's
 *      /proc/<pid>/fd, /proc/<pid>/map_files and /proc/<pid>/mem; PE 1's
 *      uvas-stat endpoint (an abstract socket: anyone connects) answers
 *      nothing;
 *  (a') another user who gets past the directory anyway (it keeps
 *      CAP_DAC_OVERRIDE): the window server refuses a well-formed HELLO
 *      (status UVAS_ERR_PERM, no descriptors) because SO_PEERCRED says
 *      another uid, and the uvas-stat endpoint answers nothing;
 *  (a'') a thread of PE 0 itself with another effective uid (pid, rank and
 *      namespace all genuine; only the uid differs): refused;
 *  (a''') a process of the same user that is not a PE (a forked child of
 *      PE 0) claiming to be rank 1 (or rank 0) of this job: refused,
 *      because its pid is not the one that rank published through PMIx;
 *      the same for a device slab request and for a bad magic;
 *  (b) nothing named "uvas" exists in /dev/shm; the socket directory is
 *      0700 and the user's;
 *  (c) a process of ANOTHER job (this program in mode "intruder" under its
 *      own `mpirun -np 1`; without mpirun in PATH, the same program as a
 *      plain process) asking with its own namespace, or pretending this
 *      job's namespace and rank 1 or 0: refused;
 *  (d) the residence table: PE 0's mapping of PE 1's is read-only and
 *      cannot be made writable (mprotect: EACCES); the descriptor itself,
 *      as PE 1 hands it to a genuine PE, refuses a writable shared mapping,
 *      pwrite and truncation (EPERM: sealed with F_SEAL_FUTURE_WRITE and
 *      F_SEAL_SEAL); the pin table that comes with it is PE 0's own.
 *
 * So that none of this passes vacuously: PE 0 maps PE 1's window
 * (shmem_ptr is non-NULL and reads what PE 1 wrote), and, after every
 * attack, sends the very same hand-built request as itself (its own pid,
 * rank and namespace) and gets status OK and three descriptors: the
 * request layout below is right and the server survived the attacks.
 */
#include <shmem.h>

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <poll.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include "tests/check.h"
#include "transport/pe/job.h"
#include "transport/pe/window.h"
#include "uvas/rundir.h"

/* One judged fact, printed either way; whether it held. */
static bool expect(bool ok, const char *what)
{
    printf("    %s %s\n", ok ? "ok  " : "FAIL", what);
    return ok;
}

/* ---- the window protocol, as a client outside the library sees it ----
 * This mirrors struct win_req / struct win_rep and the constants in
 * transport/pe/window.c (private there). If window.c changes its layout, the
 * "control" request below stops getting status OK and the test fails
 * loudly rather than passing on malformed requests. */
#define WIN_MAGIC 0x75766177u /* "uvaw" */
enum { REQ_HELLO = 1, REQ_SLAB = 2 };
struct win_req {
    uint32_t magic;
    uint32_t kind;
    int32_t rank;
    uint32_t arg;
    char nspace[PMIX_MAX_NSLEN + 1];
};
struct win_rep {
    int32_t status;
    uint32_t nfds;
    uint64_t range_size;
    uint64_t gates_len;
    uint64_t pins_len;
};

/* Result of one request: the reply's status (or a negative errno-style
 * code below UVAS_ERR range when no reply came), descriptors received. */
#define NO_CONNECT (-1000)
#define NO_REPLY (-1001)
struct outcome {
    int status;   /* reply status, NO_CONNECT (errno in err), or NO_REPLY */
    int err;
    unsigned fds; /* descriptors that arrived (closed again unless kept) */
};
/* Set to keep the descriptors of the next request (the genuine PE's). */
static bool keep_fds;
static int kept[4];

static struct outcome ask_raw(const char *path, uint32_t magic, uint32_t kind, int rank,
                              uint32_t arg, const char *nspace)
{
    struct outcome o = {.status = NO_REPLY};
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0) {
        o.status = NO_CONNECT;
        o.err = errno;
        return o;
    }
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    if (connect(s, (struct sockaddr *)&a, sizeof a) < 0) {
        o.status = NO_CONNECT;
        o.err = errno;
        close(s);
        return o;
    }
    struct win_req q = {.magic = magic, .kind = kind, .rank = rank, .arg = arg};
    snprintf(q.nspace, sizeof q.nspace, "%s", nspace);
    struct win_rep rep;
    char cbuf[CMSG_SPACE(sizeof(int) * 4)];
    struct iovec iov = {.iov_base = &rep, .iov_len = sizeof rep};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
                       .msg_controllen = sizeof cbuf};
    struct pollfd pfd = {.fd = s, .events = POLLIN};
    ssize_t got = -1;
    if (send(s, &q, sizeof q, MSG_NOSIGNAL) == (ssize_t)sizeof q && poll(&pfd, 1, 15000) == 1)
        got = recvmsg(s, &m, MSG_CMSG_CLOEXEC);
    close(s);
    if (got > 0)
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
                unsigned k = (unsigned)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
                for (unsigned i = 0; i < k; i++) {
                    int fd;
                    memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
                    if (keep_fds && o.fds < 4)
                        kept[o.fds] = fd;
                    else
                        close(fd);
                    o.fds++;
                }
            }
    if (got == (ssize_t)sizeof rep)
        o.status = rep.status;
    return o;
}

static struct outcome ask_hello(const char *path, int rank, const char *nspace)
{
    return ask_raw(path, WIN_MAGIC, REQ_HELLO, rank, 0, nspace);
}

/* The uvas-stat endpoint: bytes answered to "stats" (-1: no connection). */
static long stat_answer(const struct sockaddr_un *a, socklen_t alen, int *err)
{
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0 || connect(s, (const struct sockaddr *)a, alen) < 0) {
        *err = errno;
        if (s >= 0)
            close(s);
        return -1;
    }
    /* The endpoint may refuse and close first: no SIGPIPE for the asker
     * (it killed the attacking child under load: status 141). */
    (void)!send(s, "stats\n", 6, MSG_NOSIGNAL);
    long total = 0;
    char buf[4096];
    struct pollfd pfd = {.fd = s, .events = POLLIN};
    while (poll(&pfd, 1, 5000) == 1) {
        ssize_t n = read(s, buf, sizeof buf);
        if (n <= 0)
            break;
        total += n;
    }
    close(s);
    return total;
}

/* ---- forked children report through a pipe (no stdio after fork) ---- */
static int report_fd = -1;
static int child_fails;

static void say(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof line - 1)
        n = (int)sizeof line - 1;
    if (report_fd >= 0)
        (void)!write(report_fd, line, (size_t)n);
}

#define EXPECT(cond, ...)                                                                    \
    do {                                                                                     \
        if (cond) {                                                                          \
            say("  ok   ");                                                                  \
        } else {                                                                             \
            say("  FAIL ");                                                                  \
            child_fails++;                                                                   \
        }                                                                                    \
        say(__VA_ARGS__);                                                                    \
        say("\n");                                                                           \
    } while (0)

/* Run fn in a forked child; its lines are printed by the parent; returns
 * the child's exit status (0: every expectation held). */
static int in_child(const char *title, int (*fn)(void *), void *arg)
{
    int p[2];
    CHECK(pipe(p) == 0, "pipe");
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    CHECK(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        close(p[0]);
        report_fd = p[1];
        child_fails = 0;
        alarm(30);
        int rc = fn(arg);
        _exit(rc ? rc : child_fails ? 1 : 0);
    }
    close(p[1]);
    printf("%s\n", title);
    char buf[4096];
    ssize_t n;
    while ((n = read(p[0], buf, sizeof buf)) > 0)
        fwrite(buf, 1, (size_t)n, stdout);
    close(p[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    fflush(stdout);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* What the attacks need to know. */
static struct target {
    char dir[96];
    char win_path[108];   /* PE 1's window server */
    struct sockaddr_un stat_addr; /* PE 1's uvas-stat endpoint (abstract) */
    socklen_t stat_len;
    char nspace[PMIX_MAX_NSLEN + 1];
    pid_t pid1;
} T;

static int drop_to_nobody(bool keep_dac)
{
    if (keep_dac && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
        return 3;
    if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
        return 3;
    if (getuid() != 65534 || geteuid() != 65534)
        return 3;
    if (keep_dac) {
        /* Back in the effective set: reading and searching any directory. */
        struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
        struct __user_cap_data_struct d[2] = {{0}};
        if (syscall(SYS_capget, &h, d) < 0)
            return 3;
        d[0].effective = d[0].permitted & ((1u << CAP_DAC_OVERRIDE) |
                                           (1u << CAP_DAC_READ_SEARCH));
        d[1].effective = 0;
        if (syscall(SYS_capset, &h, d) < 0)
            return 3;
    }
    return 0;
}

/* (a) another user, plain. */
static int attack_other_user(void *arg)
{
    (void)arg;
    if (drop_to_nobody(false))
        return 3;
    say("  (running as uid %u gid %u)\n", (unsigned)getuid(), (unsigned)getgid());
    errno = 0;
    int fd = open(T.dir, O_RDONLY | O_DIRECTORY);
    int e = errno;
    EXPECT(fd < 0 && e == EACCES, "open(%s) as another user: %s", T.dir,
           fd < 0 ? strerror(e) : "OPENED");
    if (fd >= 0)
        close(fd);
    struct stat st;
    errno = 0;
    int r = stat(T.win_path, &st);
    e = errno;
    EXPECT(r < 0 && e == EACCES, "stat(PE 1's window socket): %s", r < 0 ? strerror(e) : "OK");
    struct outcome o = ask_hello(T.win_path, 1, T.nspace);
    EXPECT(o.status == NO_CONNECT && o.err == EACCES && o.fds == 0,
           "connect(PE 1's window socket) as another user: %s",
           o.status == NO_CONNECT ? strerror(o.err) : "CONNECTED");
    int se = 0;
    /* Abstract: any user connects, and gets nothing. */
    long got = stat_answer(&T.stat_addr, T.stat_len, &se);
    EXPECT(got == 0, "PE 1's uvas-stat endpoint, another user: %ld bytes answered%s%s", got,
           got < 0 ? ", no connection: " : "", got < 0 ? strerror(se) : "");
    /* The memfds are also reachable through /proc/<pid>/fd of the owner. */
    static const char *const procs[] = {"fd", "map_files"};
    for (int i = 0; i < 2; i++) {
        char p[64];
        snprintf(p, sizeof p, "/proc/%d/%s", (int)T.pid1, procs[i]);
        errno = 0;
        DIR *d = opendir(p);
        e = errno;
        EXPECT(!d && (e == EACCES || e == EPERM), "opendir(%s): %s", p,
               d ? "OPENED" : strerror(e));
        if (d)
            closedir(d);
        for (int n = 0; n < 64; n++) { /* whatever descriptor the memfd has */
            snprintf(p, sizeof p, "/proc/%d/fd/%d", (int)T.pid1, n);
            if (i == 0 && (fd = open(p, O_RDWR)) >= 0) {
                EXPECT(0, "open(%s) as another user succeeded", p);
                close(fd);
            }
        }
    }
    char p[64];
    snprintf(p, sizeof p, "/proc/%d/mem", (int)T.pid1);
    errno = 0;
    fd = open(p, O_RDWR);
    e = errno;
    EXPECT(fd < 0 && (e == EACCES || e == EPERM), "open(%s): %s", p,
           fd < 0 ? strerror(e) : "OPENED");
    if (fd >= 0)
        close(fd);
    return 0;
}

/* (a') another user that gets past the directory: the servers themselves
 * must refuse (SO_PEERCRED). */
static int attack_other_user_dac(void *arg)
{
    (void)arg;
    if (drop_to_nobody(true))
        return 3;
    say("  (running as uid %u with CAP_DAC_OVERRIDE: the directory does not stop it)\n",
        (unsigned)geteuid());
    struct outcome o = ask_hello(T.win_path, 1, T.nspace);
    EXPECT(o.status == UVAS_ERR_PERM && o.fds == 0,
           "HELLO as rank 1 of this job, another uid: status %d, %u fds (want %d, 0)",
           o.status, o.fds, UVAS_ERR_PERM);
    o = ask_raw(T.win_path, WIN_MAGIC, REQ_SLAB, 1, 0, T.nspace);
    EXPECT(o.status == UVAS_ERR_PERM && o.fds == 0,
           "SLAB 0 as rank 1 of this job, another uid: status %d, %u fds", o.status, o.fds);
    int se = 0;
    long got = stat_answer(&T.stat_addr, T.stat_len, &se);
    EXPECT(got == 0, "uvas-stat endpoint, another uid: %ld bytes answered%s%s", got,
           got < 0 ? ", no connection: " : "", got < 0 ? strerror(se) : "");
    return 0;
}

/* (a''') the same user, not a PE. */
static int attack_same_user(void *arg)
{
    (void)arg;
    say("  (pid %d, uid %u: not a PE)\n", (int)getpid(), (unsigned)getuid());
    struct outcome o = ask_hello(T.win_path, 1, T.nspace);
    EXPECT(o.status == UVAS_ERR_PERM && o.fds == 0,
           "HELLO claiming rank 1 of this job: status %d, %u fds (want %d, 0)", o.status,
           o.fds, UVAS_ERR_PERM);
    o = ask_hello(T.win_path, 0, T.nspace);
    EXPECT(o.status == UVAS_ERR_PERM && o.fds == 0,
           "HELLO claiming rank 0 (this child's parent): status %d, %u fds", o.status, o.fds);
    o = ask_raw(T.win_path, WIN_MAGIC, REQ_SLAB, 0, 0, T.nspace);
    EXPECT(o.status == UVAS_ERR_PERM && o.fds == 0,
           "SLAB 0 claiming rank 0: status %d, %u fds", o.status, o.fds);
    o = ask_hello(T.win_path, -1, T.nspace);
    EXPECT(o.status == UVAS_ERR_PERM && o.fds == 0, "HELLO as rank -1: status %d, %u fds",
           o.status, o.fds);
    o = ask_hello(T.win_path, 1 << 30, T.nspace);
    EXPECT(o.status == UVAS_ERR_PERM && o.fds == 0, "HELLO as rank 2^30: status %d, %u fds",
           o.status, o.fds);
    /* The uvas-stat endpoint is per user, not per job: it answers. */
    int se = 0;
    long got = stat_answer(&T.stat_addr, T.stat_len, &se);
    EXPECT(got > 0, "uvas-stat endpoint, same user (control): %ld bytes", got);
    return 0;
}

/* (a'') a thread of PE 0 with another effective uid: only the uid is wrong.
 * Credentials are per thread in Linux; the raw system calls (not glibc's
 * setresuid, which changes every thread) change this thread's only. */
struct uid_probe {
    struct outcome o;
    int err;
};

static void *uid_thread(void *arg)
{
    struct uid_probe *u = arg;
    if (syscall(SYS_setresuid, -1, 65534, -1) < 0) {
        u->err = errno;
        return NULL;
    }
    syscall(SYS_setfsuid, 0); /* path lookup as the owner: reach the socket */
    u->o = ask_hello(T.win_path, shmem_my_pe(), T.nspace);
    if (syscall(SYS_setresuid, -1, 0, -1) < 0) /* real uid is still 0 */
        u->err = errno;
    return NULL;
}

/* ---- (c) another job --------------------------------------------------- */

static int intruder(int argc, char **argv)
{
    /* argv: intruder WIN_PATH NSPACE */
    if (argc < 4)
        return 2;
    tu_deadline(60);
    shmem_init();
    const char *mine = uvas_job.pmix ? uvas_job.proc.nspace : "";
    int fails = 0;
    struct {
        const char *what;
        int rank;
        const char *ns;
    } tries[] = {
        {"its own namespace, rank 0", 0, mine},
        {"its own namespace, rank 1", 1, mine},
        {"the victim's namespace, rank 1", 1, argv[3]},
        {"the victim's namespace, rank 0", 0, argv[3]},
    };
    printf("intruder: pid %d, job namespace '%s' (victim's '%s'), pmix %d\n", (int)getpid(),
           mine, argv[3], (int)uvas_job.pmix);
    for (unsigned i = 0; i < sizeof tries / sizeof tries[0]; i++) {
        struct outcome o = ask_hello(argv[2], tries[i].rank, tries[i].ns);
        bool ok = o.status == UVAS_ERR_PERM && o.fds == 0;
        printf("  %s another job, HELLO with %s: status %d, %u fds\n", ok ? "ok  " : "FAIL",
               tries[i].what, o.status, o.fds);
        fails += !ok;
    }
    fflush(stdout);
    shmem_finalize();
    return fails ? 1 : 0;
}

/* Start the intruder as its own job; its status (0: every try refused). */
/* Run args with env; its exit status (124: it ran past 90 s). */
static int spawn(char **args, char **env)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    CHECK(pid >= 0, "fork");
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, 0);
        execve(args[0], args, env);
        _exit(127);
    }
    int st = 0;
    for (int i = 0; i < 900; i++) { /* 90 s */
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid)
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        usleep(100 * 1000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    return 124;
}

static int run_intruder(const char *self)
{
    extern char **environ;
    /* The inner mpirun must not believe it is part of our job. */
    char **env = calloc(512, sizeof *env);
    CHECK(env != NULL, "calloc");
    int k = 0;
    const char *preload = NULL;
    for (char **e = environ; *e && k < 500; e++) {
        if (!strncmp(*e, "OMPI_", 5) || !strncmp(*e, "PMIX_", 5) || !strncmp(*e, "ORTE_", 5) ||
            !strncmp(*e, "OPAL_", 5) || !strncmp(*e, "PRTE_", 5) || !strncmp(*e, "HWLOC_", 6))
            continue;
        if (!strncmp(*e, "LD_PRELOAD=", 11)) { /* the sanitizer runtime: PEs only */
            preload = *e;
            continue;
        }
        env[k++] = *e;
    }
    env[k++] = "OMPI_MCA_rmaps_base_oversubscribe=1";
    env[k] = NULL;
    char mpirun[4096] = "";
    const char *path = getenv("PATH");
    for (const char *p = path; p && *p;) {
        const char *c = strchr(p, ':');
        size_t n = c ? (size_t)(c - p) : strlen(p);
        snprintf(mpirun, sizeof mpirun, "%.*s/mpirun", (int)n, p);
        if (access(mpirun, X_OK) == 0)
            break;
        mpirun[0] = 0;
        p = c ? c + 1 : p + n;
    }
    char *tail[] = {(char *)self, "intruder", T.win_path, T.nspace, NULL};
    char *args[16];
    int a = 0, rc = -1;
    if (mpirun[0]) {
        printf("(c) another job: %s -np 1 %s intruder ...\n", mpirun, self);
        args[a++] = mpirun;
        args[a++] = "--allow-run-as-root";
        args[a++] = "-np";
        args[a++] = "1";
        if (preload) {
            args[a++] = "-x";
            args[a++] = (char *)preload;
        }
        memcpy(args + a, tail, sizeof tail);
        rc = spawn(args, env);
        /* 0: every try refused, 1: one was not; anything else: the inner
         * job never ran (a launcher that cannot nest, as on some machines) */
        if (rc == 0 || rc == 1) {
            free(env);
            return rc;
        }
        printf("(c) the nested mpirun did not run (status %d): a plain process of one PE "
               "instead\n", rc);
    } else {
        printf("(c) another job: no mpirun in PATH; a plain process of one PE\n");
    }
    if (preload)
        env[k++] = (char *)preload, env[k] = NULL;
    rc = spawn(tail, env);
    free(env);
    return rc;
}

static void check_devshm(void)
{
    DIR *d = opendir("/dev/shm");
    if (!d) {
        printf("(b) /dev/shm: cannot list (%s): nothing there to open\n", strerror(errno));
        return;
    }
    int n = 0, named = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        n++;
        if (strcasestr(e->d_name, "uvas") || strcasestr(e->d_name, "gate")) {
            printf("  FAIL /dev/shm/%s exists\n", e->d_name);
            named++;
        }
    }
    closedir(d);
    CHECK(named == 0, "%d uvas-named entries in /dev/shm", named);
    printf("(b) /dev/shm: %d entries, none of uvas's\n", n);
}

/* The protection of the mapping containing addr in /proc/self/maps. */
static void mapping_of(const void *addr, char *perms, char *name, size_t len)
{
    strcpy(perms, "?");
    name[0] = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        char pr[8];
        int off = 0;
        if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %n", &lo, &hi, pr, &off) >= 3 &&
            (uintptr_t)addr >= lo && (uintptr_t)addr < hi) {
            strcpy(perms, pr);
            snprintf(name, len, "%s", line + off);
            name[strcspn(name, "\n")] = 0;
            break;
        }
    }
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "intruder"))
        return intruder(argc, argv);
    tu_deadline(150);
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    if (n < 2) {
        shmem_finalize();
        SKIP("needs 2 PEs: run under mpirun -np 2");
    }
    if (!uvas_job.windows || !uvas_job.peers[1 - me].local) {
        shmem_finalize();
        SKIP("windows are off (UVAS_TRANSPORT=ucx or another node): nothing to attack");
    }
    enum { N = 4096 };
    long *buf = shmem_malloc_with_hints(N * sizeof(long), SHMEM_MALLOC_HOST_HEAP);
    CHECK(buf != NULL, "shmem_malloc");
    for (int i = 0; i < N; i++)
        buf[i] = (long)me * 1000003 + i;
    shmem_barrier_all();
    int fails = 0;
    if (me == 0) {
        /* The window works for a PE of the job. */
        const long *w = shmem_ptr(buf, 1);
        CHECK(w != NULL, "shmem_ptr(buf, 1) is NULL: PE 0 has no window onto PE 1");
        for (int i = 0; i < N; i++)
            CHECK_EQ(w[i], 1000003L + i, "PE 1's data through PE 0's window");
        printf("PE 0 reads PE 1's memory through its window (shmem_ptr %p): ok\n",
               (const void *)w);

        struct uvas_peer *p1 = &uvas_job.peers[1];
        CHECK_OK(uvas_rundir(T.dir, sizeof T.dir));
        snprintf(T.win_path, sizeof T.win_path, "%s", p1->sock_path);
        snprintf(T.nspace, sizeof T.nspace, "%s", uvas_job.proc.nspace);
        T.pid1 = p1->pid;
        CHECK(tu_stat_endpoint(T.pid1, getuid(), &T.stat_addr, &T.stat_len),
              "PE 1 (pid %d) has no uvas-stat endpoint in /proc/net/unix", (int)T.pid1);
        char want[160];
        CHECK_OK(uvas_window_sock_name(want, sizeof want, T.dir, T.nspace, 1, (int)T.pid1));
        CHECK(!strcmp(T.win_path, want), "PE 1's socket is %s, expected %s", T.win_path, want);
        printf("PE 1: pid %d, window server %s, uvas-stat @%s\n", (int)T.pid1, T.win_path,
               T.stat_addr.sun_path + 1);

        /* (b) the directory and /dev/shm */
        struct stat st;
        CHECK(lstat(T.dir, &st) == 0, "lstat(%s): %s", T.dir, strerror(errno));
        CHECK(S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700 && st.st_uid == getuid(),
              "%s: mode %o uid %u", T.dir, st.st_mode & 0777, (unsigned)st.st_uid);
        printf("(b) %s: a directory of mode 0700 owned by uid %u: ok\n", T.dir,
               (unsigned)st.st_uid);
        check_devshm();

        /* (d) the residence table: peers map it read-only and cannot do
         * otherwise (sealed); each peer gets its own pin table. */
        char gperm[8], gname[256], pperm[8], pname[256];
        mapping_of((const void *)p1->gates, gperm, gname, sizeof gname);
        mapping_of((const void *)p1->pins, pperm, pname, sizeof pname);
        printf("(d) PE 0 maps PE 1's residence table %s (%s), its pin table for PE 0 %s (%s)\n",
               gperm, gname, pperm, pname);
        fails += !expect(!strcmp(gperm, "r--s"), "the residence table is mapped r--s");
        fails += !expect(!strcmp(pperm, "rw-s"), "the pin table is mapped rw-s");
        errno = 0;
        fails += !expect(mprotect((void *)p1->gates, 4096, PROT_READ | PROT_WRITE) < 0 &&
                             errno == EACCES,
                         "mprotect of the residence mapping to writable fails with EACCES");
        keep_fds = true;
        struct outcome h = ask_hello(T.win_path, 0, T.nspace);
        keep_fds = false;
        CHECK(h.status == UVAS_OK && h.fds == 3, "PE 0's own HELLO: status %d, %u fds",
              h.status, h.fds);
        int gfd = kept[1];
        errno = 0;
        void *wmap = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, gfd, 0);
        fails += !expect(wmap == MAP_FAILED && errno == EPERM,
                         "a writable shared mapping of the residence table fails with EPERM");
        if (wmap != MAP_FAILED)
            munmap(wmap, 4096);
        uint64_t zero = 0;
        errno = 0;
        fails += !expect(pwrite(gfd, &zero, sizeof zero, 0) < 0 && errno == EPERM,
                         "pwrite into the residence table fails with EPERM");
        errno = 0;
        fails += !expect(ftruncate(gfd, 0) < 0 && errno == EPERM,
                         "shrinking the residence table fails with EPERM");
        int seals = fcntl(gfd, F_GET_SEALS);
        fails += !expect(seals >= 0 && (seals & F_SEAL_FUTURE_WRITE) && (seals & F_SEAL_SEAL),
                         "the residence table is sealed (F_SEAL_FUTURE_WRITE | F_SEAL_SEAL)");
        errno = 0;
        fails += !expect(fcntl(gfd, F_ADD_SEALS, F_SEAL_WRITE) < 0 && errno == EPERM,
                         "its seals cannot be changed");
        /* The pin table that came with it is the one PE 0 already maps. */
        volatile uint32_t *pmap = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED,
                                       kept[2], 0);
        CHECK(pmap != MAP_FAILED, "mapping the pin table: %s", strerror(errno));
        fails += !expect((const void *)pmap != (const void *)p1->pins &&
                             atomic_load(&p1->pins[0]) == pmap[0],
                         "PE 1 hands PE 0 the same pin table again");
        munmap((void *)pmap, 4096);
        for (int i = 0; i < 3; i++)
            close(kept[i]);

        /* (a) another user */
        if (getuid() != 0) {
            printf("(a) another user: SKIP (PE 0 is not root: cannot become uid 65534)\n");
        } else {
            int rc = in_child("(a) another user (uid 65534):", attack_other_user, NULL);
            if (rc == 3) {
                printf("(a) SKIP: cannot change to uid 65534\n");
            } else if (rc) {
                printf("(a) FAILED (status %d)\n", rc);
                fails++;
            }
            rc = in_child("(a') another user past the directory (CAP_DAC_OVERRIDE kept):",
                          attack_other_user_dac, NULL);
            if (rc == 3) {
                printf("(a') SKIP: cannot keep CAP_DAC_OVERRIDE as uid 65534\n");
            } else if (rc) {
                printf("(a') FAILED (status %d)\n", rc);
                fails++;
            }
            struct uid_probe u = {.o = {.status = NO_REPLY}};
            pthread_t th;
            CHECK(pthread_create(&th, NULL, uid_thread, &u) == 0, "pthread_create");
            pthread_join(th, NULL);
            CHECK(getuid() == 0 && geteuid() == 0, "this thread's uid changed");
            if (u.err) {
                printf("(a'') SKIP: cannot change one thread's uid: %s\n", strerror(u.err));
            } else {
                bool ok = u.o.status == UVAS_ERR_PERM && u.o.fds == 0;
                printf("(a'') a thread of PE 0 with euid 65534 (genuine pid, rank 0, "
                       "namespace):\n  %s HELLO: status %d, %u fds\n", ok ? "ok  " : "FAIL",
                       u.o.status, u.o.fds);
                fails += !ok;
            }
        }
        /* (a''') the same user, not a PE */
        int rc = in_child("(a''') the same user, not a PE of the job (a child of PE 0):",
                          attack_same_user, NULL);
        if (rc) {
            printf("(a''') FAILED (status %d)\n", rc);
            fails++;
        }
        /* (c) another job */
        rc = run_intruder(argv[0]);
        if (rc) {
            printf("(c) FAILED: the intruder ended with status %d\n", rc);
            fails++;
        }
        /* (e) a process of the same user, no PE, that sends one byte of a
         * request and holds the connection: the server (one thread) must
         * not wait for the rest while PEs ask (before, the control below
         * waited until the holder let go). */
        int hold[2];
        CHECK(pipe(hold) == 0, "pipe");
        fflush(stdout);
        pid_t holder = fork();
        CHECK(holder >= 0, "fork");
        if (holder == 0) {
            close(hold[0]);
            int hs = socket(AF_UNIX, SOCK_STREAM, 0);
            struct sockaddr_un ha = {.sun_family = AF_UNIX};
            snprintf(ha.sun_path, sizeof ha.sun_path, "%s", T.win_path);
            if (hs < 0 || connect(hs, (struct sockaddr *)&ha, sizeof ha) < 0 ||
                send(hs, "x", 1, MSG_NOSIGNAL) != 1)
                _exit(1);
            (void)!write(hold[1], "h", 1);
            sleep(60);
            _exit(0);
        }
        close(hold[1]);
        char hb;
        CHECK(read(hold[0], &hb, 1) == 1, "the holder did not connect");
        close(hold[0]);
        usleep(200 * 1000); /* the server has taken the holder's connection */
        double t0 = tu_now_s();
        struct outcome ho = ask_hello(T.win_path, 0, T.nspace);
        double held = tu_now_s() - t0;
        kill(holder, SIGKILL);
        waitpid(holder, NULL, 0);
        bool hok = ho.status == UVAS_OK && ho.fds == 3 && held < 8;
        printf("(e) a PE's HELLO while a non-PE holds a half-sent request: status %d, %u fds "
               "after %.1f s (want 0, 3, under 8 s): %s\n", ho.status, ho.fds, held,
               hok ? "ok" : "FAIL");
        fails += !hok;
        /* The control: PE 0 itself, with the same hand-built request. */
        struct outcome o = ask_hello(T.win_path, 0, T.nspace);
        bool ok = o.status == UVAS_OK && o.fds == 3;
        printf("control: PE 0's own HELLO to PE 1, the same request layout: status %d, %u "
               "fds (want 0, 3): %s\n", o.status, o.fds, ok ? "ok" : "FAIL");
        CHECK(ok, "the control request was not served: the request layout no longer "
              "mirrors transport/pe/window.c, or PE 1's server died");
        fflush(stdout);
    }
    /* PE 1 must still serve its data unharmed. */
    shmem_barrier_all();
    if (me == 0) {
        long v = shmem_long_g(buf + 17, 1);
        CHECK_EQ(v, 1000003L + 17, "PE 1's data after the attacks");
    }
    shmem_barrier_all();
    shmem_finalize();
    if (me == 0) {
        CHECK(fails == 0, "%d of the attacks were not refused", fails);
        printf("test-window-perms: every forbidden access failed\n");
    }
    return 0;
}
