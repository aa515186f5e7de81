/*
 * The stat endpoint streams its answers: a long one (`accesses` over a
 * range of small blocks, a line per touched block) must not be built
 * whole in the served process's memory first. 262144 blocks of 4 KiB
 * touched, about 29 MB of answer read through the endpoint; the
 * process's peak resident size must not grow by the answer's size (built
 * in memory it grew by 34 MB; streamed, 128 KiB).
 */
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "check.h"

static long peak_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* Ask the endpoint; the answer's bytes and lines. */
static void ask(struct sockaddr_un *ep, socklen_t epl, const char *req, size_t *total,
                size_t *lines)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    CHECK(fd >= 0 && connect(fd, (struct sockaddr *)ep, epl) == 0, "connect: %s",
          strerror(errno));
    CHECK(send(fd, req, strlen(req), MSG_NOSIGNAL) == (ssize_t)strlen(req), "send");
    shutdown(fd, SHUT_WR);
    static char buf[1 << 16];
    ssize_t n;
    *total = *lines = 0;
    while ((n = read(fd, buf, sizeof buf)) > 0) {
        *total += (size_t)n;
        for (ssize_t i = 0; i < n; i++)
            *lines += buf[i] == '\n';
    }
    close(fd);
}

int main(void)
{
    tu_deadline(60);
    struct uvas_range_desc d = tu_init_range("2G", "4K");
    enum { NBLK = 262144 };
    size_t bytes = (size_t)NBLK * d.block_size;
    unsigned char *p = uvas_malloc(bytes);
    CHECK(p != NULL, "uvas_malloc");
    for (size_t i = 0; i < bytes; i += d.block_size)
        p[i] = 1;
    struct sockaddr_un ep;
    socklen_t epl;
    CHECK(tu_stat_endpoint(getpid(), getuid(), &ep, &epl), "no endpoint of this process");
    size_t total = 0, lines = 0;
    /* "states" first: it reads the whole block table as "accesses" does,
     * whose pages (a shared table: a read maps a page) are not the answer's. */
    ask(&ep, epl, "states", &total, &lines);
    long before = peak_kib();
    ask(&ep, epl, "accesses", &total, &lines);
    long grew = peak_kib() - before;
    printf("accesses: %zu bytes in %zu lines; peak resident size grew %ld KiB\n", total, lines,
           grew);
    CHECK(lines == NBLK + 1, "%zu lines for %d touched blocks (and the count)", lines, NBLK);
    CHECK(grew < (long)(total >> 10) / 4, "the answer (%zu KiB) was built in memory: the "
          "peak resident size grew %ld KiB", total >> 10, grew);
    uvas_free(p);
    CHECK_OK(uvas_finalize());
    return 0;
}
