/*
 * The system seam (os.c, and uffd.c for userfaultfd): the base page, which
 * userfaultfd resolves and every mapping is cut in, and the memory calls
 * the ground's tables share. uvas runs on 4 KiB base pages (x86-64,
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

/* Anonymous memory committed on first touch (NORESERVE): a table sized
 * for the whole range costs only the entries used. Status; the message
 * names `what`. */
int uvas_os_table(size_t bytes, const char *what, void **out);
void uvas_os_table_free(void *p, size_t bytes);
/* Give the pages of [p, p+bytes) back; they read zero after. */
void uvas_os_discard(void *p, size_t bytes);

#endif
