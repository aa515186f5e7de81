/*
 * Helpers shared by the process-event tests (bodies in tests/helpers.c):
 * a SIGSEGV catcher for accesses the user's own action makes illegal (the
 * watchdog is check.h's tu_watchdog). Their range: tu_init_range (check.h).
 */
#ifndef UVAS_TEST_PROCESS_COMMON_H
#define UVAS_TEST_PROCESS_COMMON_H

#include <pthread.h>
#include <setjmp.h>
#include <sys/mman.h>
#include <time.h>

#include "check.h"

/* ---- a SIGSEGV/SIGBUS catcher (per thread) ---- */

void pe_catch_faults(void);

/* Read (write = 0) or write one byte at p; the signal it raised, or 0. */
int pe_try_access(volatile unsigned char *p, int write, unsigned char *val);

/* Is all of [p, p+len) mapped read-write from the host tier's memfd? Not
 * merely mapped: the fault service first reserves a hole with a PROT_NONE
 * placeholder, then maps the memfd over it, so "mapped" alone can be seen
 * while an access would still get SIGSEGV. */
int pe_mapped_from_memfd(void *p, size_t len);

int pe_wait_mapped(void *p, size_t len, unsigned ms);

void pe_pattern(unsigned char *p, size_t n, unsigned seed);

long pe_check_pattern(const unsigned char *p, size_t n, unsigned seed);

#endif
