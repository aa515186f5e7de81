/*
 * The system seam (os.c, and uffd.c for userfaultfd): the base page, which
 * userfaultfd resolves and every mapping is cut in, and the memory calls
 * the ground's tables share. uvas runs on 4 KiB base pages (x86-64,
 * arm64 with 4K pages); uvas_init refuses another size rather than
 * mis-cut ranges (range.c).
 */
#ifndef UVAS_OS_H
#define UVAS_OS_H

#include <stdbool.h>
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

/* A memfd of bytes named name, mapped shared and writable here (and not
 * inherited by a child): tables peers map too. Status. */
int uvas_os_shared_table(const char *name, size_t bytes, bool sealable, int *fd, void **out);
/* Every later mapping of fd (a peer's) read-only, for good. Status. */
int uvas_os_seal_for_others(int fd, const char *name);
void uvas_os_shared_table_free(void *p, size_t bytes, int fd);
/* All of fd mapped shared and writable, not inherited by a child; NULL if
 * it cannot be (the caller does without). */
void *uvas_os_map_file(int fd, size_t bytes);
void uvas_os_unmap(void *p, size_t bytes);
/* Free the host tier's pages [off, off+len): every mapping of them reads
 * zero (and faults again) after. Status. */
int uvas_os_punch(int fd, size_t off, size_t len);

#endif
