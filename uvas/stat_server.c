/*
 * The local endpoint uvas-stat reads a live process through: an abstract
 * Unix socket named UVAS_STAT_SERVER_PREFIX "<uid>/<pid>/<64 random bits>"
 * (endpoint.h). Abstract, so that it goes with the process however the
 * process ends (a file would outlive a crash); random, so that no other
 * user can bind the name first; uvas-stat checks the server's credentials
 * before it believes an answer, and the server answers only peers of the
 * same uid (SO_PEERCRED). One request per
 * connection: "stats", "map" (per allocation), "blocks" (one character
 * per block of every allocation) or "states" (every block that is in a
 * transition, mapped for the CPU, duplicated, closed or pinned: what to
 * look at when something waits) or "accesses" (every touched block's
 * accesses per agent, the kernels' counts among them). Served by one thread; the answers are
 * built from the same lock-free reads as uvas_query, so the process is
 * never stopped. UVAS_STAT=0 turns it off.
 */
#include "uvas/stat_server.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "uvas/atomics.h"
#include "uvas/gate.h"
#include "uvas/internal.h"
#include "uvas/os.h"
#include "uvas/sock_server.h"
#include "uvas/status.h"

static struct uvas_sock_server server = {.lfd = -1, .stopfd = -1};

/* One line per allocation: base, size, hints, residence counts, map. */
static void write_map(FILE *out, bool blocks_only)
{
    static const char glyph[UVAS_RES_COUNT] = {'.', 'H', 'D'};
    for (size_t bi = 0; bi < uvas_g.nblocks && !ferror(out);) {
        const struct uvas_block *b = &uvas_g.bt[bi];
        uint32_t owner = atomic_load_explicit(&b->owner, RLX);
        int kind = atomic_load_explicit(&b->kind, RLX);
        if (!owner || owner - 1 != bi) {
            bi++;
            continue;
        }
        size_t n = kind == UVAS_BK_EXTENT ? atomic_load_explicit(&b->nblocks, RLX) : 1;
        if (n == 0 || bi + n > uvas_g.nblocks)
            n = 1;
        size_t cnt[UVAS_RES_COUNT] = {0};
        uint64_t gpu = 0;
        char line[160];
        size_t k = 0;
        for (size_t i = bi; i < bi + n; i++) {
            int r = uvas_blk_res(atomic_load_explicit(&uvas_g.bt[i].state, RLX));
            cnt[r]++;
            gpu += atomic_load_explicit(&uvas_g.bt[i].gpu_acc, RLX);
            if (k < sizeof line - 4)
                line[k++] = glyph[r];
        }
        if (n > sizeof line - 4) {
            memcpy(line + sizeof line - 4, "...", 3);
            k = sizeof line - 1;
        }
        line[k] = '\0';
        if (blocks_only)
            fprintf(out, "%s\n", line);
        else
            fprintf(out, "%p %-6s %12zu B %-7s %5zu host %5zu device %5zu untouched %10llu "
                    "GPU accesses  %s\n",
                    (void *)uvas_block_addr(bi), kind == UVAS_BK_SLAB ? "slab" : "extent",
                    kind == UVAS_BK_SLAB ? uvas_g.block_size
                                         : (size_t)atomic_load_explicit(&b->size, RLX),
                    (const char *[]){"-", "host", "device", "?"}[atomic_load_explicit(&b->hints,
                                                                                      RLX) & 3],
                    cnt[UVAS_RES_HOST], cnt[UVAS_RES_DEVICE], cnt[UVAS_RES_UNPOPULATED],
                    (unsigned long long)gpu, line);
        bi += n;
    }
}

/* Blocks not at rest, one line each. */
static void write_states(FILE *out)
{
    static const char *res[] = {"untouched", "host", "device", "?"};
    size_t shown = 0;
    for (size_t bi = 0; bi < uvas_g.nblocks && !ferror(out); bi++) {
        struct uvas_block *b = &uvas_g.bt[bi];
        uint32_t s = atomic_load_explicit(&b->state, RLX);
        uint64_t g = uvas_g.gates ? atomic_load_explicit(&uvas_g.gates[bi], RLX) : 0;
        uint64_t pins = uvas_gate_pins_held(bi);
        int cpu = atomic_load_explicit(&b->cpu_mapped, RLX);
        int dup = atomic_load_explicit(&b->dup, RLX);
        if (!(s & UVAS_BLK_BUSY) && !cpu && !dup && !pins && uvas_gate_is_open(g))
            continue;
        /* The slot as the gate publishes it (b->dev_slot is its holder's). */
        fprintf(out, "block %zu (%p): %s%s, version %u, peers' slot %u%s%s, gate %s, %llu pins\n",
                bi, (void *)uvas_block_addr(bi), res[uvas_blk_res(s) & 3],
                s & UVAS_BLK_BUSY ? " IN A TRANSITION" : "", s / UVAS_BLK_VERSION_ONE,
                g & UVAS_GATE_DIRECT ? uvas_gate_slot(g) : 0,
                cpu ? ", CPU view" : "", dup ? ", duplicated" : "",
                uvas_gate_is_open(g) ? "open" : "closed", (unsigned long long)pins);
        shown++;
    }
    fprintf(out, "%zu of %zu blocks not at rest\n", shown, uvas_g.nblocks);
}

/* Every block some agent or PE has touched: its residence and the
 * accesses the policies see (CPU faults; the device's touches and, of
 * them, what kernels counted; other PEs' RMA, the PE with the most and
 * the network's part), in its current allocation. */
static void write_accesses(FILE *out)
{
    static const char *res[] = {"untouched", "host", "device", "?"};
    size_t shown = 0;
    for (size_t bi = 0; bi < uvas_g.nblocks && !ferror(out); bi++) {
        struct uvas_block *b = &uvas_g.bt[bi];
        if (!atomic_load_explicit(&b->owner, RLX))
            continue;
        unsigned long long cpu = atomic_load_explicit(&b->acc[0], RLX);
        unsigned long long dev = atomic_load_explicit(&b->acc[1], RLX);
        unsigned long long gpu = atomic_load_explicit(&b->gpu_acc, RLX);
        struct uvas_gate_peer_sum ps;
        uvas_gate_peer_sum(bi, &ps);
        uint32_t peers = ps.all, net = ps.network, pk = ps.kernels;
        int top = ps.top; /* -1: the network's alone */
        if (!(cpu | dev | peers))
            continue;
        fprintf(out, "block %zu (%p) %-9s cpu %10llu  device %10llu  (kernels counted %10llu)  "
                "moves %u", bi, (void *)uvas_block_addr(bi),
                res[uvas_blk_res(atomic_load_explicit(&b->state, RLX)) & 3], cpu, dev, gpu,
                atomic_load_explicit(&b->moves, RLX));
        if (peers) {
            fprintf(out, "  peers %10u (kernels %u", peers, pk);
            if (top >= 0)
                fprintf(out, "; most: PE %d, %u", top, uvas_gate_acc((unsigned)top, bi, NULL));
            if (net)
                fprintf(out, "; over the network %u", net);
            fputc(')', out);
        }
        fputc('\n', out);
        shown++;
    }
    fprintf(out, "%zu blocks touched\n", shown);
}

/* Answers go to the socket as they are written, never whole in memory
 * (`accesses` over a large range of small blocks is gigabytes).
 * MSG_NOSIGNAL: a client gone before its answer (uvas-stat | head) must
 * not end this process with SIGPIPE. A client that reads slowly is cut
 * off after UVAS_SOCK_SERVE_MAX_S: the writers stop at the stream's error. */
struct sink {
    int fd;
    uint64_t end;
};

static ssize_t sink_write(void *cookie, const char *buf, size_t len)
{
    struct sink *k = cookie;
    size_t off = 0;
    while (off < len) {
        ssize_t w = uvas_os_now_ns() < k->end ? send(k->fd, buf + off, len - off, MSG_NOSIGNAL)
                                              : -1;
        if (w <= 0)
            return -1;
        off += (size_t)w;
    }
    return (ssize_t)len;
}

static void answer(int fd)
{
    struct ucred cred;
    socklen_t cl = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cl) < 0 || cred.uid != getuid())
        return; /* another user: no answer at all */
    char req[32] = "";
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    if (poll(&pfd, 1, 1000) <= 0)
        return;
    ssize_t n = read(fd, req, sizeof req - 1);
    if (n <= 0)
        return;
    req[n] = '\0';
    req[strcspn(req, "\r\n")] = '\0';
    struct sink k = {.fd = fd, .end = uvas_os_now_ns() + UVAS_SOCK_SERVE_MAX_S * 1000000000ull};
    FILE *out = fopencookie(&k, "w", (cookie_io_functions_t){.write = sink_write});
    if (!out)
        return;
    setvbuf(out, NULL, _IOFBF, 64 << 10);
    if (!strcmp(req, "stats")) {
        fprintf(out, "pid %d, range %p + %zu MiB, block %zu KiB, policy %s\n", getpid(),
                (void *)uvas_g.base, uvas_g.size >> 20, uvas_g.block_size >> 10,
                uvas_g.cfg.policy);
        uvas_stats_print(out);
    } else if (!strcmp(req, "map") || !strcmp(req, "blocks")) {
        write_map(out, req[0] == 'b');
    } else if (!strcmp(req, "states")) {
        write_states(out);
    } else if (!strcmp(req, "accesses")) {
        write_accesses(out);
    } else {
        fprintf(out, "unknown request '%s': stats, map, blocks, states or accesses\n", req);
    }
    fclose(out);
}

/* Bind fd to a fresh abstract name of this process. 0, or -1 with errno. */
static int bind_name(int fd)
{
    for (int tries = 0; tries < 8; tries++) {
        uint64_t r;
        if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
            return -1;
        struct sockaddr_un a = {.sun_family = AF_UNIX};
        /* sun_path[0] stays 0: the abstract namespace. */
        int n = snprintf(a.sun_path + 1, sizeof a.sun_path - 1, UVAS_STAT_SERVER_PREFIX "%u/%d/%016llx",
                         (unsigned)getuid(), (int)getpid(), (unsigned long long)r);
        socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
        if (bind(fd, (struct sockaddr *)&a, len) == 0)
            return 0;
        if (errno != EADDRINUSE)
            return -1;
    }
    return -1;
}

int uvas_stat_server_start(void)
{
    const char *env = getenv("UVAS_STAT");
    if (env && !strcmp(env, "0"))
        return UVAS_OK;
    int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (lfd < 0 || bind_name(lfd) < 0 || listen(lfd, 8) < 0) {
        /* uvas-stat is a convenience: the library runs without it */
        uvas_warn("uvas-stat endpoint off: %s", strerror(errno));
        if (lfd >= 0)
            close(lfd);
        return UVAS_OK;
    }
    if (uvas_sock_server_start(&server, lfd, answer, "uvas-stat server") != UVAS_OK)
        uvas_warn("uvas-stat endpoint off: %s", uvas_last_error());
    return UVAS_OK;
}

void uvas_stat_server_stop(void)
{
    uvas_sock_server_stop(&server);
}
