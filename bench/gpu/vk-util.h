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

/* A Vulkan 1.2 instance and its physical device number `want`
 * (vkEnumeratePhysicalDevices order); ends the program if there is none. */
static inline VkPhysicalDevice bench_vk_device(uint32_t want, VkInstance *inst)
{
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .apiVersion = VK_API_VERSION_1_2};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                .pApplicationInfo = &app};
    CHECK_VK(vkCreateInstance(&ici, NULL, inst));
    uint32_t n = 8;
    VkPhysicalDevice pds[8];
    CHECK_VK(vkEnumeratePhysicalDevices(*inst, &n, pds));
    if (n == 0 || want >= n) {
        fprintf(stderr, "%s: no device %u (%u found)\n", program_invocation_short_name, want, n);
        exit(1);
    }
    return pds[want];
}

#endif
