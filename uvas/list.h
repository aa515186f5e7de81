/*
 * Intrusive doubly linked lists, circular around a head that is a link of
 * its own (empty: it points at itself), so that unlinking never asks
 * whether a link is the first. The owner's lock guards a list.
 */
#ifndef UVAS_LIST_H
#define UVAS_LIST_H

#include <stdbool.h>
#include <stddef.h>

struct uvas_link {
    struct uvas_link *next, *prev;
};

#define UVAS_LIST_INIT(head) {&(head), &(head)}

static inline void uvas_list_init(struct uvas_link *head)
{
    head->next = head->prev = head;
}

static inline bool uvas_list_empty(const struct uvas_link *head)
{
    return head->next == head;
}

static inline void uvas_list_add(struct uvas_link *head, struct uvas_link *l)
{
    l->next = head->next;
    l->prev = head;
    head->next->prev = l;
    head->next = l;
}

/* Unlink l, which is on a list (a link unlinked before is left alone:
 * its pointers are NULL). */
static inline void uvas_list_del(struct uvas_link *l)
{
    if (!l->next)
        return;
    l->prev->next = l->next;
    l->next->prev = l->prev;
    l->next = l->prev = NULL;
}

static inline bool uvas_list_linked(const struct uvas_link *l)
{
    return l->next != NULL;
}

/* The struct of type T whose member m is link l. */
#define uvas_list_entry(l, T, m) ((T *)((char *)(l) - offsetof(T, m)))

#endif
