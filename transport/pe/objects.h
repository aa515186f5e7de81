/*
 * The program's symmetric objects one by one: the bounds of each global
 * and static variable in a writable segment (segment.h), read from the
 * ELF symbol table of the file the segment was loaded from. A put to a
 * global is held to its variable, as one to the heap is held to its
 * allocation: an over-long one would run into the next variable. Objects
 * that the dynamic linker copied into the program from a system library
 * (versioned copy relocations: libc's stdout, environ) are left out: they
 * are nobody's symmetric objects. A file without a symbol table (stripped)
 * gives no objects; its segment is then held to the segment's bounds.
 */
#ifndef UVAS_PE_OBJECTS_H
#define UVAS_PE_OBJECTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct uvas_obj {
    uintptr_t lo, hi;
};

struct uvas_objs {
    struct uvas_obj *o; /* sorted by lo, not overlapping */
    size_t n;
    bool known; /* the file had a symbol table */
};

/* The objects of the file at path, loaded at bias, that lie in [lo, hi). */
void uvas_objs_load(struct uvas_objs *t, const char *path, uintptr_t bias, uintptr_t lo,
                    uintptr_t hi);
/* The object holding address a, or NULL. */
const struct uvas_obj *uvas_objs_find(const struct uvas_objs *t, uintptr_t a);
/* Does one object hold [a, a + len) (len 0: a)? True where no objects are
 * known. */
bool uvas_objs_cover(const struct uvas_objs *t, uintptr_t a, size_t len);

#endif
