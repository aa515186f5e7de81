/*
 * The system seam's constants: the base page, which userfaultfd resolves
 * and every mapping is cut in. uvas runs on 4 KiB base pages (x86-64,
 * arm64 with 4K pages); uvas_init refuses another size rather than
 * mis-cut ranges (range.c).
 */
#ifndef UVAS_OS_H
#define UVAS_OS_H

#include <stddef.h>
#include <stdint.h>

#define UVAS_PAGE ((size_t)4096)

static inline uintptr_t uvas_page_down(uintptr_t a)
{
    return a & ~(uintptr_t)(UVAS_PAGE - 1);
}

static inline uintptr_t uvas_page_up(uintptr_t a)
{
    return (a + UVAS_PAGE - 1) & ~(uintptr_t)(UVAS_PAGE - 1);
}

#endif
