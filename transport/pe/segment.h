/*
 * The program's own symmetric data: OpenSHMEM makes every global and
 * static variable a symmetric object. They live in the executable's
 * writable segment (data and bss, past its read-only-after-relocation
 * part), which every PE of the job has at its own load address (PIE, ASLR)
 * with the same layout: a peer's copy of a variable is at the same offset
 * in the peer's segment. So do the globals of the shared libraries loaded
 * with the program that link libuvas (OpenSHMEM code of the program's;
 * libc's or a driver's data are nobody's symmetric objects), each its own
 * segment, named in an offset by a key from its file name and size.
 * Libraries opened later (dlopen) are not. Peers cannot map another
 * process's segment, so accesses to them go as active messages that carry
 * the offset, which the owner checks against its own segments before it
 * touches anything (segment.c). Inside a segment, an access is held to
 * the one variable it starts in, where the file's symbol table tells the
 * variables (objects.h).
 */
#ifndef UVAS_PE_SEGMENT_H
#define UVAS_PE_SEGMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Find this process's segment (once; later calls return at once). */
void uvas_seg_init(void);
/* Is [a, a + len) inside one variable of a segment (len 0: a inside)? */
bool uvas_seg_has(const void *a, size_t len);
/* Is a inside a segment at all? */
bool uvas_seg_in(const void *a);
/* The variable holding a (*lo, *size), if its segment's are known. */
bool uvas_seg_object(const void *a, const void **lo, size_t *size);
/* a's offset, naming its segment (a inside one). */
uint64_t uvas_seg_offset(const void *a);
/* This process's address at offset off, if [off, off + len) lies inside
 * one variable of the segment off names; NULL otherwise (a peer's request
 * is checked so). */
char *uvas_seg_at(uint64_t off, size_t len);
/* The executable's segment's bounds, for messages. */
void uvas_seg_bounds(const void **lo, const void **hi);
/* How many segments (the executable's and the libraries'). */
int uvas_seg_count(void);
/* Segment i (< uvas_seg_count): its key, start and size, for peers. */
void uvas_seg_describe(int i, uint64_t *key, uint64_t *lo, uint64_t *size);
/* Split an offset into its segment's key and the offset inside it. */
static inline uint64_t uvas_seg_key_of(uint64_t off) { return off >> 40; }
static inline uint64_t uvas_seg_inner(uint64_t off) { return off & ((UINT64_C(1) << 40) - 1); }

#endif
