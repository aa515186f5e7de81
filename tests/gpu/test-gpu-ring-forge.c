/*
 * A kernel that writes the library's words it can reach (here the request
 * ring's header, include/shmem.glsl) must not make a launch report
 * success for calls that never happened, nor spoil later launches: a
 * kernel that takes a request ticket and never posts it (its call, and
 * every one after it, then did nothing) fails its launch, naming the
 * ring; the next launch, of a correct kernel, works.
 */
#include <shmem.h>
#include <string.h>

#include "check.h"

struct args {
    uint64_t out;
    uint32_t mode;
};

int main(void)
{
    tu_deadline(60);
    tu_clear_env();
    tu_setenv("UVAS_SIZE", "1G");
    shmem_init();
    uvas_kernel_t *k = tu_kernel("ring-forge");
    uint32_t *out = shmem_malloc(64);
    CHECK(out != NULL, "shmem_malloc");
    struct args a = {(uintptr_t)out, 0};
    out[0] = 0;
    CHECK_OK(tu_launch(k, 1, &a, sizeof a));
    CHECK_EQ(out[0], 7, "the correct kernel's store");

    a.mode = 1;
    out[0] = 0;
    int rc = tu_launch(k, 1, &a, sizeof a);
    CHECK(rc != UVAS_OK, "a launch whose kernel took a ticket it never posted succeeded");
    CHECK(strstr(uvas_last_error(), "request ring's head"), "the message: %s",
          uvas_last_error());

    a.mode = 0;
    out[0] = 0;
    CHECK_OK(tu_launch(k, 1, &a, sizeof a));
    CHECK_EQ(out[0], 7, "the next correct kernel's store");

    shmem_free(out);
    uvas_kernel_free(k);
    shmem_finalize();
    printf("test-gpu-ring-forge: a ticket never posted failed its launch; the next one ran\n");
    return 0;
}
