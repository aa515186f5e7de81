/* What the plain-Vulkan benchmarks of bench/gpu/ share: a clock and a
 * check that ends the program naming the call that failed. */
#ifndef BENCH_VK_UTIL_H
#define BENCH_VK_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <vulkan/vulkan.h>

static inline double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

#define CHECK_VK(x)                                                                      \
    do {                                                                                 \
        VkResult r_ = (x);                                                               \
        if (r_ != VK_SUCCESS) {                                                          \
            fprintf(stderr, "%s: %s failed (VkResult %d)\n", program_invocation_short_name, \
                    #x, r_);                                                             \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

#endif
