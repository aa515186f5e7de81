/* Effective configuration: options, then environment, then defaults. */
#ifndef UVAS_CONFIG_H
#define UVAS_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uvas.h"

#define UVAS_MIN_SIZE ((size_t)16 << 20)
#define UVAS_MAX_SIZE ((size_t)64 << 40)
#define UVAS_SIZE_GRAIN ((size_t)2 << 20)
#define UVAS_DEFAULT_SIZE ((size_t)64 << 30)
#define UVAS_MIN_BLOCK ((size_t)4 << 10)
#define UVAS_MAX_BLOCK ((size_t)2 << 20)
#define UVAS_DEFAULT_BLOCK ((size_t)2 << 20)
#define UVAS_MAX_FAULT_THREADS 256u
#define UVAS_DEV_WANT_AUTO (-1)
#define UVAS_DEV_WANT_NONE (-2)
#define UVAS_USER_ADDR_END ((uintptr_t)0x800000000000ull)

#if defined(__SANITIZE_THREAD__)
/* ThreadSanitizer owns fixed regions of the address space (its shadow
 * covers 0x010000000000-0x200000000000 and it fences off the gaps), so
 * under it the kernel picks the base; symmetry then needs UVAS_BASE. */
#define UVAS_BUILD_DEFAULT_BASE UVAS_BASE_ANY
#else
#define UVAS_BUILD_DEFAULT_BASE UVAS_DEFAULT_BASE
#endif

struct uvas_config {
    size_t size;
    uintptr_t base; /* UVAS_BASE_ANY: kernel's choice */
    size_t block_size;
    int fault_mode;
    unsigned fault_threads; /* 0: one per CPU the process may run on */
    char policy[256];
    unsigned flags;
    int device;         /* UVAS_DEV_WANT_AUTO, UVAS_DEV_WANT_NONE or an index */
    char device_said[48]; /* how the program chose it, for messages ("UVAS_DEVICE=2") */
    size_t device_size; /* 0: the device's budget */
    const char *device_size_from; /* the variable that gave it, for messages */
    unsigned copy_queues; /* UVAS_COPY_QUEUES: 0 = as many as help (up to 2) */
    size_t stream_min;    /* UVAS_STREAM_MIN: 0 = by the processor, SIZE_MAX = never */
    bool huge_pages;      /* UVAS_HUGE_PAGES: the host tier in 2 MiB huge pages (hugetlbfs) */
    bool peer_counts;     /* UVAS_PEER_COUNTS: count other PEs' accesses (policy flag too) */
    int stage_first;      /* UVAS_STAGE_FIRST: -1 where imports pin (a GPU), 0 never, 1 always */
};

/* The huge page of UVAS_HUGE_PAGES: blocks are whole multiples of it. */
#define UVAS_HUGE_PAGE ((size_t)2 << 20)

struct uvas_options;

/* Checks a policy spec: 0, or nonzero with the reason in why. The policy
 * layer's parser (migrate/policy.h), passed in by the composition root:
 * the ground cannot parse what it does not know. */
typedef int (*uvas_policy_check_fn)(const char *spec, char *why, size_t len);

/* Resolve opts (may be NULL) against the environment. Status; the message
 * names the option or variable and the value at fault. check_policy may be
 * NULL (the spec is then only checked for length). */
int uvas_config_resolve(const struct uvas_options *opts, uvas_policy_check_fn check_policy,
                        struct uvas_config *out);

/* Parse "64G", "65536K", "4096" (binary suffixes). 0 on success. */
int uvas_parse_size(const char *s, size_t *out);

#endif
