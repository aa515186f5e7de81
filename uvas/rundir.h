/*
 * Where uvas's sockets live (the uvas-stat endpoint, the PE windows'
 * servers): a directory only this user can enter, that no other user can
 * take first.
 *  1. $XDG_RUNTIME_DIR/uvas, when the session has a runtime directory (owned
 *     by the user, closed to others: systemd's /run/user/<uid>);
 *  2. else /tmp/uvas-<uid>, if it is the user's own and mode 0700;
 *  3. else, when another user made that name first (sticky /tmp: the user
 *     could not remove it), a private /tmp/uvas-<uid>.XXXXXX from mkdtemp,
 *     which nobody can pre-create; removed again at uvas_finalize.
 * Peers learn a PE's window socket path through PMIx; uvas-stat looks in
 * all three places (tools/uvas-stat.c).
 */
#ifndef UVAS_RUNDIR_H
#define UVAS_RUNDIR_H

#include <stddef.h>

/* The directory, made if needed (the same one for the life of the
 * controller). Status, with a message naming what is wrong. */
int uvas_rundir(char *out, size_t len);
/* At finalize: a private directory (case 3) is removed once empty. */
void uvas_rundir_release(void);

#endif
