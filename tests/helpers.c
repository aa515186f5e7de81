/*
 * The bodies of the test programs' shared helpers (check.h, remote.h,
 * process/common.h), compiled once and linked into every test program.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "process/common.h"
#include "remote.h"

/* ---- check.h ---- */

/* Leave the process now, flushing what was printed. */
_Noreturn void tu_exit(int code)
{
    fflush(stdout);
    fflush(stderr);
    _exit(code);
}

_Noreturn void tu_fail_at(const char *file, int line, const char *cond, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%d: FAIL: %s: ", file, line, cond);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    const char *le = uvas_last_error();
    if (le && *le)
        fprintf(stderr, " [uvas_last_error: %s]", le);
    fputc('\n', stderr);
    tu_exit(TU_EXIT_FAIL);
}

void tu_tsan_base(void)
{
#if defined(__SANITIZE_THREAD__)
    tu_setenv("UVAS_BASE", "0x7e8000000000");
#endif
}

/* Remove every UVAS_* variable so a test starts from the defaults. */
void tu_clear_env(void)
{
    extern char **environ;
    for (;;) {
        char name[256];
        int found = 0;
        for (char **e = environ; e && *e; e++) {
            if (strncmp(*e, "UVAS_", 5) == 0) {
  const char *eq = strchr(*e, '=');
  size_t n = eq ? (size_t)(eq - *e) : strlen(*e);
  if (n >= sizeof name)
      n = sizeof name - 1;
  memcpy(name, *e, n);
  name[n] = '\0';
  found = 1;
  break;
            }
        }
        if (!found)
            break;
        unsetenv(name);
    }
    /* A suite's variant of a test sets UVAS_X through TU_SET_UVAS_X, which
     * the clearing above leaves (tests/meson.build: the staged variants).
     * Collected first: setenv may move environ. */
    char sets[8][256];
    size_t nsets = 0;
    for (char **e = environ; e && *e && nsets < 8; e++)
        if (strncmp(*e, "TU_SET_UVAS_", 12) == 0 && strlen(*e + 7) < sizeof sets[0])
            strcpy(sets[nsets++], *e + 7);
    for (size_t i = 0; i < nsets; i++) {
        char *eq = strchr(sets[i], '=');
        if (!eq)
            continue;
        *eq = '\0';
        tu_setenv(sets[i], eq + 1);
    }
}

void tu_setenv(const char *name, const char *value)
{
    if (setenv(name, value, 1) != 0) {
        fprintf(stderr, "setenv(%s) failed: %s\n", name, strerror(errno));
        tu_exit(TU_EXIT_FAIL);
    }
}

/* Seconds on the monotonic clock, for loops bounded by time. */
double tu_now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Bound the whole program: SIGALRM's default action kills it (a failure). */
void tu_deadline(unsigned seconds)
{
    signal(SIGALRM, SIG_DFL);
    alarm(seconds);
}

static const char *_Atomic tu_where_now = "the start";

void tu_where(const char *what)
{
    atomic_store_explicit(&tu_where_now, what, memory_order_release);
}

/* Every thread's stack, from gdb where it is installed: a hang in CI is
 * otherwise a bare TIMEOUT. Bounded: attaching can itself hang. */
static void dump_stacks(void)
{
    char pid[24];
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0); /* Yama, where present */
    pid_t g = fork();
    if (g == 0) {
        dup2(2, 1); /* the report goes to stderr */
        /* Symbols of uvas and libc only: reading every library's (the
         * Vulkan driver's LLVM) takes gdb longer than a test has left. */
        execlp("gdb", "gdb", "-nx", "-batch", "-iex", "set auto-solib-add off", "-p", pid, "-ex",
               "sharedlibrary libuvas", "-ex", "sharedlibrary libc.so", "-ex",
               "thread apply all bt 30", (char *)NULL);
        fprintf(stderr, "(no gdb here for the threads' stacks)\n");
        _exit(127);
    }
    if (g < 0)
        return;
    for (int i = 0; i < 600; i++) {
        if (waitpid(g, NULL, WNOHANG) == g)
            return;
        usleep(50000);
    }
    kill(g, SIGKILL);
    waitpid(g, NULL, 0);
    fprintf(stderr, "(gdb did not finish in 30 s)\n");
}

static _Atomic unsigned tu_watch_seconds;
static _Atomic long long tu_watch_until; /* CLOCK_MONOTONIC ns */

static long long mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *watchdog(void *arg)
{
    (void)arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, NULL); /* the tests' signals are not for us */
    for (;;) { /* until the deadline, which a later tu_watchdog may move */
        long long left = atomic_load(&tu_watch_until) - mono_ns();
        if (left <= 0)
            break;
        struct timespec ts = {(time_t)(left / 1000000000LL), (long)(left % 1000000000LL)};
        nanosleep(&ts, NULL);
    }
    const char *pe = getenv("OMPI_COMM_WORLD_RANK");
    fprintf(stderr, "FAIL: the test hung for %u s (watchdog)%s%s, in %s; its threads:\n",
            atomic_load(&tu_watch_seconds), pe ? " on PE " : "", pe ? pe : "",
            atomic_load_explicit(&tu_where_now, memory_order_acquire));
    fflush(stderr);
    dump_stacks();
    /* Other PEs' watchdogs fire at about the same time: give their reports
     * time to be written before this exit makes mpirun end them. */
    if (pe)
        sleep(15);
    tu_exit(TU_EXIT_FAIL);
    return NULL;
}

void tu_watchdog(unsigned seconds)
{
    const char *e = getenv("TU_WATCHDOG_S"); /* a test's meson timeout may differ */
    unsigned s = e && atoi(e) > 0 ? (unsigned)atoi(e) : seconds;
    atomic_store(&tu_watch_seconds, s);
    bool started = atomic_exchange(&tu_watch_until, mono_ns() + (long long)s * 1000000000LL) != 0;
    if (!started) {
        pthread_t th;
        pthread_create(&th, NULL, watchdog, NULL);
        pthread_detach(th);
    }
}

struct uvas_range_desc tu_range(void)
{
    struct uvas_range_desc d;
    memset(&d, 0, sizeof d);
    int st = uvas_range(&d);
    CHECK(st == 0, "uvas_range returned %d (%s)", st, uvas_strerror(st));
    return d;
}

/*
 * For tests that need first-touch interception: after uvas_init, skip
 * unless the range runs in userfaultfd mode.
 */
struct uvas_range_desc tu_require_uffd(void)
{
    struct uvas_range_desc d = tu_range();
    if (d.fault_mode != UVAS_FAULT_UFFD)
        SKIP("userfaultfd is unavailable (fault_mode %d): %s", d.fault_mode,
             d.fault_note ? d.fault_note : "(no fault_note)");
    return d;
}

/* uvas_init with the environment; fail the test on error. */
void tu_init_env(void)
{
    int st = uvas_init(NULL);
    CHECK(st == 0, "uvas_init(NULL) returned %d (%s)", st,
          uvas_strerror(st));
}

int tu_in_range(const struct uvas_range_desc *d, const void *p,
                size_t len)
{
    uintptr_t b = (uintptr_t)d->base, a = (uintptr_t)p;
    return a >= b && len <= d->size && a - b <= d->size - len;
}

/* Read one byte through a volatile access (a real load, populates). */
unsigned char tu_read_byte(const void *p)
{
    return *(const volatile unsigned char *)p;
}

void tu_write_byte(void *p, unsigned char v)
{
    *(volatile unsigned char *)p = v;
}

int tu_residence(const void *p)
{
    struct uvas_ptr_info info;
    memset(&info, 0, sizeof info);
    int st = uvas_query(p, &info);
    CHECK(st == 0, "uvas_query(%p) returned %d (%s)", p, st,
          uvas_strerror(st));
    return info.residence;
}

struct uvas_stats tu_stats(void)
{
    struct uvas_stats s;
    memset(&s, 0, sizeof s);
    int st = uvas_stats_get(&s);
    CHECK(st == 0, "uvas_stats_get returned %d (%s)", st, uvas_strerror(st));
    return s;
}

/* Index of the first byte of [p, p+n) that is not `v`, or -1. Compared a
 * page at a time with memcmp's wide loads: read through a CPU view of
 * device memory (uncached on a discrete GPU) every load crosses the bus,
 * about 1 us each, so a byte loop over 4 MiB took seconds. */
long tu_find_not(const void *p, size_t n, unsigned char v)
{
    static _Thread_local unsigned char pat[4096];
    static _Thread_local int pat_v = -1;
    if (pat_v != v) {
        memset(pat, v, sizeof pat);
        pat_v = v;
    }
    const unsigned char *c = (const unsigned char *)p;
    for (size_t i = 0; i < n; i += sizeof pat) {
        size_t k = n - i < sizeof pat ? n - i : sizeof pat;
        if (memcmp(c + i, pat, k) == 0)
            continue;
        for (size_t j = i; j < i + k; j++)
            if (c[j] != v)
                return (long)j;
        return (long)i; /* it differed and then did not: memory changing under a reader */
    }
    return -1;
}

/*
 * Run fn(arg) in a forked child (which must not inherit an initialised
 * range: call this before uvas_init in the parent). Returns the child's
 * exit status, or 128+signal if it was killed. The child is bounded by
 * `seconds` through alarm().
 */
int tu_run_child(int (*fn)(void *), void *arg, unsigned seconds)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "fork: %s\n", strerror(errno));
        tu_exit(TU_EXIT_FAIL);
    }
    if (pid == 0) {
        tu_deadline(seconds);
        tu_exit(fn(arg));
    }
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "waitpid: %s\n", strerror(errno));
            tu_exit(TU_EXIT_FAIL);
        }
    }
    if (WIFEXITED(ws))
        return WEXITSTATUS(ws);
    if (WIFSIGNALED(ws))
        return 128 + WTERMSIG(ws);
    return 255;
}

/* Write/read exactly n bytes on a descriptor (retrying short transfers). */
int tu_write_all(int fd, const void *buf, size_t n)
{
    const char *c = (const char *)buf;
    while (n > 0) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

int tu_read_all(int fd, void *buf, size_t n)
{
    char *c = (char *)buf;
    while (n > 0) {
        ssize_t r = read(fd, c, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        c += r;
        n -= (size_t)r;
    }
    return 0;
}

/* Deterministic PRNG (xorshift64*), the same in every process. */
uint64_t tu_rand(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 2685821657736338717ull;
}

/* Device-tier tests: a clean environment with a range of `size` in blocks
 * of `block`, uvas initialised, and a skip unless userfaultfd and the
 * device tier are there. */
struct uvas_range_desc tu_init_range(const char *size, const char *block)
{
    tu_clear_env();
    tu_setenv("UVAS_SIZE", size);
    tu_setenv("UVAS_BLOCK_SIZE", block);
    tu_init_env();
    return tu_require_uffd();
}

struct uvas_range_desc tu_init_device(const char *size, const char *block)
{
    return tu_init_device_policy(size, block, NULL);
}

struct uvas_range_desc tu_init_device_policy(const char *size, const char *block,
                                             const char *policy)
{
    tu_clear_env();
    tu_setenv("UVAS_SIZE", size);
    tu_setenv("UVAS_BLOCK_SIZE", block);
    if (policy)
        tu_setenv("UVAS_POLICY", policy);
    tu_init_env();
    struct uvas_range_desc d = tu_require_uffd();
    if (!d.device_present)
        SKIP("no device tier: %s", d.device_note);
    return d;
}

void tu_expect_refused(int st, int want, const char *word, const char *what)
{
    CHECK(st == want && strstr(uvas_last_error(), word), "%s: %s '%s' (expected %s saying '%s')",
          what, uvas_strerror(st), uvas_last_error(), uvas_strerror(want), word);
    printf("  %s: %s\n", what, uvas_last_error());
}

void tu_send_fds(int sock, const int *fds, int n, const void *data, size_t len)
{
    struct iovec iov = {(void *)data, len};
    char cbuf[CMSG_SPACE(4 * sizeof(int))];
    memset(cbuf, 0, sizeof cbuf);
    CHECK(n >= 1 && n <= 4, "tu_send_fds: %d descriptors (1 to 4)", n);
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
                       .msg_controllen = CMSG_SPACE((size_t)n * sizeof(int))};
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN((size_t)n * sizeof(int));
    memcpy(CMSG_DATA(c), fds, (size_t)n * sizeof(int));
    CHECK(sendmsg(sock, &m, 0) == (ssize_t)len, "sendmsg: %s", strerror(errno));
}

void tu_send_fd(int sock, int fd, const void *data, size_t len)
{
    tu_send_fds(sock, &fd, 1, data, len);
}

int tu_count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    CHECK(d != NULL, "opendir /proc/self/fd: %s", strerror(errno));
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n;
}

int tu_fds_to(const char *what)
{
    DIR *d = opendir("/proc/self/fd");
    CHECK(d != NULL, "opendir /proc/self/fd: %s", strerror(errno));
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char target[256];
        if (e->d_name[0] == '.')
            continue;
        ssize_t len = readlinkat(dirfd(d), e->d_name, target, sizeof target - 1);
        if (len <= 0)
            continue; /* closed meanwhile (the directory's own, another thread's) */
        target[len] = 0;
        n += strstr(target, what) != NULL;
    }
    closedir(d);
    return n;
}

int tu_recv_fd(int sock, void *data, size_t len)
{
    struct iovec iov = {data, len};
    char cbuf[CMSG_SPACE(sizeof(int))];
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
                       .msg_controllen = sizeof cbuf};
    CHECK(recvmsg(sock, &m, 0) == (ssize_t)len, "recvmsg: %s", strerror(errno));
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    CHECK(c && c->cmsg_type == SCM_RIGHTS, "no descriptor came");
    int fd;
    memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return fd;
}

/* The block holding p is at residence res, with (mapped 1) or without a
 * CPU view of its device memory. */
void tu_expect_view(const void *p, int res, int mapped, const char *what)
{
    struct uvas_ptr_info info;
    CHECK_OK(uvas_query(p, &info));
    CHECK(info.residence == res && info.cpu_mapped == mapped, "%s: %s, cpu_mapped %d; expected "
          "%s, %d", what, uvas_residence_name(info.residence), info.cpu_mapped,
          uvas_residence_name(res), mapped);
}

/* n pseudo-random bytes, never zero: zeros would hide a lost block. */
void tu_fill_random(uint64_t *rng, unsigned char *dst, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char v = (unsigned char)(tu_rand(rng) >> 56);
        dst[i] = v ? v : 0xa5;
    }
}

/* Every block covering [p, p+len) has residence res. */
void tu_expect_blocks(const void *p, size_t len, int res, const char *what)
{
    struct uvas_range_info ri;
    CHECK_OK(uvas_query_range(p, len, &ri));
    size_t bs = ri.block_size;
    size_t n = (uintptr_t)((const char *)p + len - 1) / bs - (uintptr_t)p / bs + 1;
    CHECK(ri.blocks[res] == n,
          "%s: %zu of the %zu blocks covering %p+%zu are %s (unpopulated %zu, host %zu, "
          "device %zu)", what, ri.blocks[res], n, p, len, uvas_residence_name(res),
          ri.blocks[UVAS_RES_UNPOPULATED], ri.blocks[UVAS_RES_HOST],
          ri.blocks[UVAS_RES_DEVICE]);
}

/* Every block covering [p, p+len) reaches residence res within 10 s. For
 * blocks that a migration this thread did not wait for may still be
 * publishing (CPU-fault readahead maps a stage's pages, then publishes
 * them: a reader can be done with them first, and under load the
 * publication comes milliseconds later). */
void tu_settle_blocks(const void *p, size_t len, int res, const char *what)
{
    double end = tu_now_s() + 10;
    struct uvas_range_info ri;
    size_t bs = tu_range().block_size;
    size_t n = (uintptr_t)((const char *)p + len - 1) / bs - (uintptr_t)p / bs + 1;
    while (uvas_query_range(p, len, &ri) == UVAS_OK && ri.blocks[res] != n && tu_now_s() < end)
        usleep(1000);
    tu_expect_blocks(p, len, res, what);
}

/* The uvas-stat endpoint (an abstract socket "uvas-stat/<uid>/<pid>/...",
 * uvas/stat_server.c) that process pid of user uid listens on, as an address
 * to connect to; false when it has none. */
bool tu_stat_endpoint(pid_t pid, uid_t uid, struct sockaddr_un *a, socklen_t *len)
{
    FILE *f = fopen("/proc/net/unix", "r");
    if (!f)
        return false;
    char line[512], want[64], path[256];
    int wl = snprintf(want, sizeof want, "@uvas-stat/%u/%d/", (unsigned)uid, (int)pid);
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        unsigned long flags;
        if (sscanf(line, "%*s %*s %*s %lx %*s %*s %*s %255s", &flags, path) == 2 &&
            (flags & 0x10000) && !strncmp(path, want, (size_t)wl) &&
            strlen(path) < sizeof a->sun_path) {
            memset(a, 0, sizeof *a);
            a->sun_family = AF_UNIX;
            memcpy(a->sun_path + 1, path + 1, strlen(path) - 1);
            *len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path));
            found = true;
        }
    }
    fclose(f);
    return found;
}


/* Owned words (check.h). */
struct tu_owner_arg {
    struct tu_owners *o;
    int t;
};

static void *owner_writer(void *arg)
{
    struct tu_owner_arg *a = arg;
    struct tu_owners *o = a->o;
    int t = a->t;
    free(a);
    uint64_t v = 0;
    while (!atomic_load(&o->stop)) {
        v++;
        for (size_t k = 0; k < o->nword[t]; k++) {
            size_t i = o->word[t][k];
            uint64_t want = v == 1 ? o->pattern(i) : ((v - 1) << 8) | (uint64_t)t;
            uint64_t got = o->area[i];
            CHECK(got == want, "writer %d, pass %llu: word %zu (%s %zu) holds %#llx, last "
                  "stored %#llx: a lost write or a stale read", t, (unsigned long long)v, i,
                  o->unit, i / o->unit_words, (unsigned long long)got,
                  (unsigned long long)want);
            o->area[i] = (v << 8) | (uint64_t)t;
        }
    }
    return (void *)(uintptr_t)v;
}

static void *owner_reader(void *arg)
{
    struct tu_owners *o = arg;
    uint64_t passes = 0;
    while (!atomic_load(&o->stop)) {
        for (size_t i = 0; i < o->words; i += o->read_step)
            if (!o->owner[i])
                CHECK(o->area[i] == o->pattern(i), "reader: unowned word %zu (%s %zu) holds "
                      "%#llx, expected %#llx", i, o->unit, i / o->unit_words,
                      (unsigned long long)o->area[i], (unsigned long long)o->pattern(i));
        passes++;
    }
    return (void *)(uintptr_t)passes;
}

void tu_owners_start(struct tu_owners *o)
{
    CHECK(o->writers > 0 && o->writers <= TU_OWNERS_MAX && o->read_step > 0 && o->unit_words,
          "tu_owners: %d writers (1 to %d), read step %zu", o->writers, TU_OWNERS_MAX,
          o->read_step);
    o->owner = calloc(o->words, 1);
    CHECK(o->owner != NULL, "calloc");
    for (int t = 0; t < o->writers; t++)
        for (size_t k = 0; k < o->nword[t]; k++) {
            size_t i = o->word[t][k];
            CHECK(i < o->words && !o->owner[i], "tu_owners: word %zu given twice or past the "
                  "area", i);
            o->owner[i] = (uint8_t)(t + 1);
        }
    atomic_store(&o->stop, 0);
    for (int t = 0; t < o->writers; t++) {
        struct tu_owner_arg *a = malloc(sizeof *a);
        CHECK(a != NULL, "malloc");
        *a = (struct tu_owner_arg){o, t};
        CHECK(pthread_create(&o->wt[t], NULL, owner_writer, a) == 0, "pthread_create");
    }
    CHECK(pthread_create(&o->rt, NULL, owner_reader, o) == 0, "pthread_create");
}

void tu_owners_stop(struct tu_owners *o)
{
    atomic_store(&o->stop, 1);
    void *r;
    for (int t = 0; t < o->writers; t++) {
        pthread_join(o->wt[t], &r);
        o->last[t] = (uint64_t)(uintptr_t)r;
    }
    pthread_join(o->rt, &r);
    o->reads = (uint64_t)(uintptr_t)r;
}

void tu_owners_check(const struct tu_owners *o, const char *when)
{
    for (size_t i = 0; i < o->words; i++) {
        int t = o->owner[i] - 1;
        uint64_t want = t < 0 ? o->pattern(i) : (o->last[t] << 8) | (uint64_t)t;
        CHECK(o->area[i] == want, "%s: word %zu (%s %zu, writer %d) holds %#llx, expected "
              "%#llx", when, i, o->unit, i / o->unit_words, t, (unsigned long long)o->area[i],
              (unsigned long long)want);
    }
}

void tu_owners_check_moved(const struct tu_owners *o, void *p, size_t len)
{
    for (int pass = 0; pass < 2; pass++) {
        CHECK_OK(uvas_migrate(p, len, pass ? UVAS_LOC_HOST : UVAS_LOC_DEVICE, 0));
        tu_owners_check(o, pass ? "after the run, back on the host"
                                : "after the run, read from the device");
    }
}

/* ---- remote.h ---- */

static void remote_serve(int in, int out)
{
    struct remote_req q;
    while (tu_read_all(in, &q, sizeof q) == 0) {
        unsigned char *buf = malloc(q.len ? q.len : 1);
        if (!buf)
            tu_exit(TU_EXIT_FAIL);
        struct iovec local = {buf, q.len};
        struct iovec rem = {(void *)(uintptr_t)q.addr, q.len};
        struct remote_rep r = {0, 0};
        if (q.op == REMOTE_READ) {
            memset(buf, 0xee, q.len);
            r.ret = process_vm_readv(q.pid, &local, 1, &rem, 1, 0);
        } else {
            memset(buf, q.fill, q.len);
            r.ret = process_vm_writev(q.pid, &local, 1, &rem, 1, 0);
        }
        r.err = r.ret < 0 ? errno : 0;
        if (tu_write_all(out, &r, sizeof r) != 0)
            tu_exit(TU_EXIT_FAIL);
        if (q.op == REMOTE_READ && tu_write_all(out, buf, q.len) != 0)
            tu_exit(TU_EXIT_FAIL);
        free(buf);
    }
    tu_exit(0);
}

struct remote remote_start(unsigned seconds)
{
    int a[2], b[2];
    CHECK(pipe(a) == 0 && pipe(b) == 0, "pipe: %s", strerror(errno));
    /* Let any process (the helper) access this one, whatever Yama says. */
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    CHECK(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        tu_deadline(seconds);
        close(a[1]);
        close(b[0]);
        remote_serve(a[0], b[1]);
    }
    close(a[0]);
    close(b[1]);
    struct remote r = {pid, a[1], b[0]};
    return r;
}

/* Ask the helper to read len bytes at addr of this process into out. */
struct remote_rep remote_read(struct remote *r, const void *addr,
                              size_t len, void *out)
{
    struct remote_req q = {REMOTE_READ, getpid(), (uint64_t)(uintptr_t)addr,
             len, 0};
    struct remote_rep rep;
    CHECK(tu_write_all(r->req_fd, &q, sizeof q) == 0, "request to helper");
    CHECK(tu_read_all(r->rep_fd, &rep, sizeof rep) == 0, "reply from helper");
    CHECK(tu_read_all(r->rep_fd, out, len) == 0, "data from helper");
    return rep;
}

/* Ask the helper to write len bytes of `fill` at addr of this process. */
struct remote_rep remote_write(struct remote *r, void *addr,
                               size_t len, unsigned char fill)
{
    struct remote_req q = {REMOTE_WRITE, getpid(), (uint64_t)(uintptr_t)addr,
             len, fill};
    struct remote_rep rep;
    CHECK(tu_write_all(r->req_fd, &q, sizeof q) == 0, "request to helper");
    CHECK(tu_read_all(r->rep_fd, &rep, sizeof rep) == 0, "reply from helper");
    return rep;
}

void remote_stop(struct remote *r)
{
    close(r->req_fd);
    close(r->rep_fd);
    int ws = 0;
    waitpid(r->pid, &ws, 0);
    CHECK(WIFEXITED(ws) && WEXITSTATUS(ws) == 0,
          "the helper process failed (status 0x%x)", ws);
}

/* ---- process/common.h ---- */

static _Thread_local sigjmp_buf pe_jb;
static _Thread_local volatile int pe_armed;
static _Thread_local volatile int pe_sig;
static void pe_on_fault(int sig)
{
    if (!pe_armed) { /* not expected: die with the signal */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    pe_sig = sig;
    siglongjmp(pe_jb, 1);
}

void pe_catch_faults(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = pe_on_fault;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_NODEFER;
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
}

/* Read (write = 0) or write one byte at p; the signal it raised, or 0. */
int pe_try_access(volatile unsigned char *p, int write, unsigned char *val)
{
    pe_sig = 0;
    if (sigsetjmp(pe_jb, 1) == 0) {
        pe_armed = 1;
        if (write)
            *p = *val;
        else
            *val = *p;
    }
    pe_armed = 0;
    return pe_sig;
}

/* Is all of [p, p+len) mapped read-write from the host tier's memfd? Not
 * merely mapped: the fault service first reserves a hole with a PROT_NONE
 * placeholder, then maps the memfd over it, so "mapped" alone can be seen
 * while an access would still get SIGSEGV. */
int pe_mapped_from_memfd(void *p, size_t len)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return 0;
    uintptr_t want = (uintptr_t)p, end = want + len;
    char line[512];
    while (want < end && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        char perms[8];
        int off = 0;
        if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %n", &lo, &hi, perms, &off) < 3)
            continue;
        if (hi <= want || lo > want)
            continue;
        if (perms[0] != 'r' || perms[1] != 'w' || !strstr(line + off, "uvas-host-tier"))
            break;
        want = hi;
    }
    fclose(f);
    return want >= end;
}

int pe_wait_mapped(void *p, size_t len, unsigned ms)
{
    for (unsigned i = 0; i < ms * 10; i++) {
        if (pe_mapped_from_memfd(p, len))
            return 1;
        struct timespec ts = {.tv_nsec = 100000};
        nanosleep(&ts, NULL);
    }
    return pe_mapped_from_memfd(p, len);
}

void pe_pattern(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)((i * 131u + seed * 7u + (i >> 12)) | 1u);
}

long pe_check_pattern(const unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (unsigned char)((i * 131u + seed * 7u + (i >> 12)) | 1u))
            return (long)i;
    return -1;
}

void *tu_read_file(const char *path, size_t *bytes)
{
    FILE *f = fopen(path, "rb");
    CHECK(f, "cannot open %s: %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    CHECK(n > 0, "%s is empty", path);
    void *buf = malloc((size_t)n);
    CHECK(buf && fread(buf, 1, (size_t)n, f) == (size_t)n, "cannot read %s", path);
    fclose(f);
    *bytes = (size_t)n;
    return buf;
}

void *tu_spirv(const char *name, size_t *bytes)
{
    char exe[4096], path[4200];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    CHECK(n > 0, "readlink /proc/self/exe: %s", strerror(errno));
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    *slash = 0;
    snprintf(path, sizeof path, "%s/%s.spv", exe, name);
    return tu_read_file(path, bytes);
}

uvas_kernel_t *tu_kernel(const char *path)
{
    size_t n;
    void *code = tu_spirv(path, &n);
    uvas_kernel_t *k = NULL;
    int st = uvas_kernel_load(code, n, "main", &k);
    free(code);
    if (st == UVAS_ERR_NO_DEVICE)
        SKIP("no device runs kernels here: %s", uvas_last_error());
    CHECK(st == UVAS_OK, "uvas_kernel_load(%s): %s: %s", path, uvas_strerror(st),
          uvas_last_error());
    return k;
}

int tu_launch(uvas_kernel_t *k, uint32_t n, const void *args, size_t size)
{
    uint32_t g[3] = {(n + 63) / 64, 1, 1};
    return uvas_kernel_launch(k, g, args, size, 0);
}

void tu_gate_wait(void *gate)
{
    struct tu_gate *g = gate;
    pthread_mutex_lock(&g->mu);
    while (!g->open)
        pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
}

void tu_gate_open(struct tu_gate *g)
{
    pthread_mutex_lock(&g->mu);
    g->open = 1;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}
