/*
 * check.h — tiny shared helpers for the uvas test programs.
 *
 * Exit status follows meson's convention: 0 pass, 1 fail, 77 skip.
 * CHECK() failures print file:line, the failed condition and a message,
 * then leave with _exit(1) (not exit(): a failing worker thread must not
 * run the library's destructors while other threads still use the range).
 */
#ifndef UVAS_TEST_CHECK_H
#define UVAS_TEST_CHECK_H

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "uvas.h"

#define TU_EXIT_PASS 0
#define TU_EXIT_FAIL 1
#define TU_EXIT_SKIP 77

/* Leave the process now, flushing what was printed. */
static inline void tu_exit(int code)
{
    fflush(stdout);
    fflush(stderr);
    _exit(code);
}

static inline void tu_fail_at(const char *file, int line, const char *cond,
                              const char *fmt, ...)
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

/* CHECK(cond, fmt, ...): fail the test with a message unless cond holds. */
#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        if (!(cond))                                                        \
            tu_fail_at(__FILE__, __LINE__, #cond, __VA_ARGS__);             \
    } while (0)

/* FAIL(fmt, ...): unconditional failure. */
#define FAIL(...) tu_fail_at(__FILE__, __LINE__, "FAIL", __VA_ARGS__)

/* Integer equality with both values printed. */
#define CHECK_EQ(a, b, what)                                                \
    do {                                                                    \
        long long tu_a_ = (long long)(a), tu_b_ = (long long)(b);           \
        if (tu_a_ != tu_b_)                                                 \
            tu_fail_at(__FILE__, __LINE__, #a " == " #b,                    \
                       "%s: got %lld (0x%llx), expected %lld (0x%llx)",     \
                       (what), tu_a_, (unsigned long long)tu_a_, tu_b_,     \
                       (unsigned long long)tu_b_);                          \
    } while (0)

/* A uvas status call must return `expected`. */
#define CHECK_STATUS(expr, expected)                                        \
    do {                                                                    \
        int tu_st_ = (expr);                                                \
        int tu_ex_ = (expected);                                            \
        if (tu_st_ != tu_ex_)                                               \
            tu_fail_at(__FILE__, __LINE__, #expr,                           \
                       "returned %d (%s), expected %d (%s)", tu_st_,        \
                       uvas_strerror(tu_st_), tu_ex_,                       \
                       uvas_strerror(tu_ex_));                              \
    } while (0)

#define CHECK_OK(expr) CHECK_STATUS((expr), UVAS_OK)

/* A pointer-returning uvas call must fail with NULL and errno `err`. */
#define CHECK_NULL_ERRNO(expr, err)                                         \
    do {                                                                    \
        errno = 0;                                                          \
        void *tu_p_ = (void *)(expr);                                       \
        int tu_e_ = errno;                                                  \
        if (tu_p_ != NULL)                                                  \
            tu_fail_at(__FILE__, __LINE__, #expr,                           \
                       "returned %p, expected NULL (errno %s)", tu_p_,      \
                       #err);                                               \
        if (tu_e_ != (err))                                                 \
            tu_fail_at(__FILE__, __LINE__, #expr,                           \
                       "errno %d (%s), expected %d (%s)", tu_e_,            \
                       strerror(tu_e_), (err), strerror(err));              \
    } while (0)

/* SKIP(fmt, ...): print "SKIP: why" and exit 77. */
#define SKIP(...)                                                           \
    do {                                                                    \
        printf("SKIP: ");                                                   \
        printf(__VA_ARGS__);                                                \
        printf("\n");                                                       \
        fprintf(stderr, "SKIP: ");                                          \
        fprintf(stderr, __VA_ARGS__);                                       \
        fprintf(stderr, "\n");                                              \
        tu_exit(TU_EXIT_SKIP);                                              \
    } while (0)

/* ---- environment --------------------------------------------------------- */

/* Remove every UVAS_* variable so a test starts from the defaults. */
static inline void tu_clear_env(void)
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
}

static inline void tu_setenv(const char *name, const char *value)
{
    if (setenv(name, value, 1) != 0) {
        fprintf(stderr, "setenv(%s) failed: %s\n", name, strerror(errno));
        tu_exit(TU_EXIT_FAIL);
    }
}

/* Seconds on the monotonic clock, for loops bounded by time. */
static inline double tu_now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Bound the whole program: SIGALRM's default action kills it (a failure). */
static inline void tu_deadline(unsigned seconds)
{
    signal(SIGALRM, SIG_DFL);
    alarm(seconds);
}

/* ---- the range ------------------------------------------------------------ */

static inline struct uvas_range_desc tu_range(void)
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
static inline struct uvas_range_desc tu_require_uffd(void)
{
    struct uvas_range_desc d = tu_range();
    if (d.fault_mode != UVAS_FAULT_UFFD)
        SKIP("userfaultfd is unavailable (fault_mode %d): %s", d.fault_mode,
             d.fault_note ? d.fault_note : "(no fault_note)");
    return d;
}

/* uvas_init with the environment; fail the test on error. */
static inline void tu_init_env(void)
{
    int st = uvas_init(NULL);
    CHECK(st == 0, "uvas_init(NULL) returned %d (%s)", st,
          uvas_strerror(st));
}

static inline int tu_in_range(const struct uvas_range_desc *d, const void *p,
                              size_t len)
{
    uintptr_t b = (uintptr_t)d->base, a = (uintptr_t)p;
    return a >= b && len <= d->size && a - b <= d->size - len;
}

/* Read one byte through a volatile access (a real load, populates). */
static inline unsigned char tu_read_byte(const void *p)
{
    return *(const volatile unsigned char *)p;
}

static inline void tu_write_byte(void *p, unsigned char v)
{
    *(volatile unsigned char *)p = v;
}

static inline int tu_residence(const void *p)
{
    struct uvas_ptr_info info;
    memset(&info, 0, sizeof info);
    int st = uvas_query(p, &info);
    CHECK(st == 0, "uvas_query(%p) returned %d (%s)", p, st,
          uvas_strerror(st));
    return info.residence;
}

static inline struct uvas_stats tu_stats(void)
{
    struct uvas_stats s;
    memset(&s, 0, sizeof s);
    int st = uvas_stats_get(&s);
    CHECK(st == 0, "uvas_stats_get returned %d (%s)", st, uvas_strerror(st));
    return s;
}

/* Index of the first byte of [p, p+n) that is not `v`, or -1. */
static inline long tu_find_not(const void *p, size_t n, unsigned char v)
{
    const unsigned char *c = (const unsigned char *)p;
    for (size_t i = 0; i < n; i++)
        if (c[i] != v)
            return (long)i;
    return -1;
}

/* ---- child processes ------------------------------------------------------ */

/*
 * Run fn(arg) in a forked child (which must not inherit an initialised
 * range: call this before uvas_init in the parent). Returns the child's
 * exit status, or 128+signal if it was killed. The child is bounded by
 * `seconds` through alarm().
 */
static inline int tu_run_child(int (*fn)(void *), void *arg, unsigned seconds)
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
static inline int tu_write_all(int fd, const void *buf, size_t n)
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

static inline int tu_read_all(int fd, void *buf, size_t n)
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
static inline uint64_t tu_rand(uint64_t *s)
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
static inline struct uvas_range_desc tu_init_device(const char *size, const char *block)
{
    tu_clear_env();
    tu_setenv("UVAS_SIZE", size);
    tu_setenv("UVAS_BLOCK_SIZE", block);
    tu_init_env();
    struct uvas_range_desc d = tu_require_uffd();
    if (!d.device_present)
        SKIP("no device tier: %s", d.device_note);
    return d;
}

/* The block holding p is at residence res, with (mapped 1) or without a
 * CPU view of its device memory. */
static inline void tu_expect_view(const void *p, int res, int mapped, const char *what)
{
    struct uvas_ptr_info info;
    CHECK_OK(uvas_query(p, &info));
    CHECK(info.residence == res && info.cpu_mapped == mapped, "%s: %s, cpu_mapped %d; expected "
          "%s, %d", what, uvas_residence_name(info.residence), info.cpu_mapped,
          uvas_residence_name(res), mapped);
}

/* n pseudo-random bytes, never zero: zeros would hide a lost block. */
static inline void tu_fill_random(uint64_t *rng, unsigned char *dst, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char v = (unsigned char)(tu_rand(rng) >> 56);
        dst[i] = v ? v : 0xa5;
    }
}

/* Every block covering [p, p+len) has residence res. */
static inline void tu_expect_blocks(const void *p, size_t len, int res, const char *what)
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
static inline void tu_settle_blocks(const void *p, size_t len, int res, const char *what)
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
 * uvas/endpoint.c) that process pid of user uid listens on, as an address
 * to connect to; false when it has none. */
static inline bool tu_stat_endpoint(pid_t pid, uid_t uid, struct sockaddr_un *a, socklen_t *len)
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

#endif /* UVAS_TEST_CHECK_H */
