/*
 * A descriptor a third party makes without close-on-exec (a driver's
 * vkGetMemoryFdKHR) must not reach a child that another thread forks
 * while it is being made (uvas/os_fd.c). The maker here opens a memfd
 * without the flag and, before returning it, has a second thread fork;
 * the child looks for the memfd open without close-on-exec (what it
 * would exec with). Made as uvas did before (in the caller's table,
 * marked after) the child finds it: the test's control. Made apart
 * (uvas_os_fd_apart) it must not. Then the device tier on this machine's
 * driver: its first export tells whether later ones are made apart (on
 * lavapipe they are: its call keeps no file of its own), and a slab
 * exported apart still shows the device memory.
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "../check.h"
#include "uvas/internal.h"
#include "uvas/os.h"

static sem_t made, forked;
static char name[64];
static int child_found; /* the child's verdict: 1 found, 0 not, -1 broken */

/* In the child: is a memfd called `name` open here without close-on-exec? */
static int look(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return 2;
    int found = 0;
    char want[80], path[300], link[128];
    snprintf(want, sizeof want, "/memfd:%s", name);
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(path, link, sizeof link - 1);
        if (n <= 0)
            continue;
        link[n] = 0;
        int f = fcntl(atoi(e->d_name), F_GETFD);
        if (!strncmp(link, want, strlen(want)) && f >= 0 && !(f & FD_CLOEXEC))
            found = 1;
    }
    closedir(d);
    return found;
}

static void *forker(void *arg)
{
    (void)arg;
    sem_wait(&made);
    pid_t pid = fork();
    if (pid == 0)
        _exit(look());
    int st = 0;
    child_found = pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
                  WEXITSTATUS(st) > 1 ? -1 : WEXITSTATUS(st);
    sem_post(&forked);
    return NULL;
}

/* The maker: a memfd without close-on-exec, and a fork by another thread
 * before it is returned. */
static int make(void *arg)
{
    (void)arg;
    int fd = memfd_create(name, 0);
    sem_post(&made);
    sem_wait(&forked);
    return fd;
}

/* Made by `how` while another thread forks: did the child find it? */
static int round_of(bool apart, int round)
{
    snprintf(name, sizeof name, "unit-fd-apart-%d-%d", (int)getpid(), round);
    pthread_t th;
    CHECK(pthread_create(&th, NULL, forker, NULL) == 0, "pthread_create");
    int fd = -1, others = -1;
    if (apart) {
        CHECK_OK(uvas_os_fd_apart(make, NULL, &fd, &others));
        CHECK(others == 0, "the maker left %d other descriptors", others);
    } else {
        fd = make(NULL);
        uvas_os_cloexec(fd);
    }
    pthread_join(th, NULL);
    CHECK(fd >= 0, "no descriptor made");
    int f = fcntl(fd, F_GETFD);
    CHECK(f >= 0 && (f & FD_CLOEXEC), "the descriptor handed back is not close-on-exec");
    char path[64], link[128];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(path, link, sizeof link - 1);
    CHECK(n > 0, "readlink %s", path);
    link[n] = 0;
    CHECK(strstr(link, name) != NULL, "descriptor %d is %s, not the memfd made", fd, link);
    close(fd);
    CHECK(child_found >= 0, "the child could not look");
    return child_found;
}

int main(void)
{
    tu_deadline(60);
    sem_init(&made, 0, 0);
    sem_init(&forked, 0, 0);
    CHECK(round_of(false, 0) == 1,
          "control: a descriptor marked after it was made did not reach the child forked "
          "in between (the test cannot see what it looks for)");
    for (int r = 1; r <= 3; r++)
        CHECK(round_of(true, r) == 0,
              "a descriptor made apart reached a child forked while it was made (round %d)", r);

    /* The device tier: 256 MiB in four slabs of 64 MiB; blocks past the
     * first slab's are exported from slabs made after the first. */
    struct uvas_range_desc d = tu_init_device("512M", "2M");
    CHECK(uvas_g.devtier.export_probed, "the first slab's export did not probe the driver");
    if (!uvas_g.devtier.export_apart)
        SKIP("this driver's export (%s) left a file of its own open: exports are marked "
             "after they are made", d.device_name);
    size_t bytes = 192u << 20, bs = d.block_size;
    unsigned char *p = uvas_malloc(bytes);
    CHECK(p != NULL, "uvas_malloc");
    for (size_t i = 0; i < bytes; i += 4096)
        p[i] = (unsigned char)(i / 4096 * 7 + 1);
    CHECK_OK(uvas_migrate(p, bytes, UVAS_LOC_DEVICE, 0));
    CHECK(uvas_g.devtier.nslabs >= 3, "%u slabs for 192 MiB on the device", uvas_g.devtier.nslabs);
    for (uint32_t s = 0; s < uvas_g.devtier.nslabs; s++) {
        int f = fcntl(uvas_g.devtier.slabs[s].fd, F_GETFD);
        CHECK(f >= 0 && (f & FD_CLOEXEC), "slab %u's descriptor is not close-on-exec", s);
    }
    size_t last = bytes - bs;
    struct uvas_block *b = &uvas_g.bt[uvas_block_index(p + last)];
    int fd;
    uint64_t mem_off, map_off;
    CHECK_OK(uvas_devtier_export(&uvas_g.devtier, b->dev_slot, &fd, &mem_off, &map_off));
    if (map_off != UINT64_MAX) {
        unsigned char *m = mmap(NULL, bs, PROT_READ, MAP_SHARED, fd, (off_t)map_off);
        CHECK(m != MAP_FAILED, "mmap of the exported descriptor: %s", strerror(errno));
        for (size_t i = 0; i < bs; i += 4096)
            CHECK(m[i] == (unsigned char)((last + i) / 4096 * 7 + 1),
                  "byte %zu of the last block through a slab exported apart", last + i);
        munmap(m, bs);
    }
    close(fd);
    uvas_free(p);
    CHECK_OK(uvas_finalize());
    return 0;
}
