/* Where uvas's sockets live (rundir.h). */
#include "uvas/rundir.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "uvas/internal.h"
#include "uvas/status.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static char dir[96];
static bool made_private;

/* A directory of this user that nobody else may enter. */
static bool private_dir(const char *path, uid_t *owner)
{
    struct stat st;
    if (lstat(path, &st) < 0)
        return false;
    if (owner)
        *owner = st.st_uid;
    return S_ISDIR(st.st_mode) && st.st_uid == getuid() && !(st.st_mode & 077);
}

static int resolve(void)
{
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    char path[sizeof dir];
    struct stat st;
    if (xdg && *xdg && xdg[0] == '/' && lstat(xdg, &st) == 0 && S_ISDIR(st.st_mode) &&
        st.st_uid == getuid() && !(st.st_mode & 022) &&
        snprintf(path, sizeof path, "%s/uvas", xdg) < (int)sizeof path) {
        if ((mkdir(path, 0700) == 0 || errno == EEXIST) && private_dir(path, NULL)) {
            snprintf(dir, sizeof dir, "%s", path);
            return UVAS_OK;
        }
    }
    snprintf(path, sizeof path, "/tmp/uvas-%u", (unsigned)getuid());
    uid_t owner = getuid();
    if ((mkdir(path, 0700) == 0 || errno == EEXIST) && private_dir(path, &owner)) {
        snprintf(dir, sizeof dir, "%s", path);
        return UVAS_OK;
    }
    /* Taken (another user's, or open to others): a name nobody can guess. */
    char tmpl[sizeof dir];
    snprintf(tmpl, sizeof tmpl, "/tmp/uvas-%u.XXXXXX", (unsigned)getuid());
    if (!mkdtemp(tmpl))
        return uvas_fail(UVAS_ERR_SYS, "%s is not a private directory of this user (owner uid "
                         "%u) and no private one could be made in /tmp: %s", path,
                         (unsigned)owner, strerror(errno));
    uvas_warn("%s belongs to uid %u or is open to others: sockets go to %s instead (set "
              "XDG_RUNTIME_DIR, or have %s removed)", path, (unsigned)owner, tmpl, path);
    snprintf(dir, sizeof dir, "%s", tmpl);
    made_private = true;
    return UVAS_OK;
}

int uvas_rundir(char *out, size_t len)
{
    pthread_mutex_lock(&mu);
    int rc = dir[0] ? UVAS_OK : resolve();
    if (rc == UVAS_OK && snprintf(out, len, "%s", dir) >= (int)len)
        rc = uvas_fail(UVAS_ERR_SYS, "the socket directory %s is too long", dir);
    pthread_mutex_unlock(&mu);
    return rc;
}

void uvas_rundir_release(void)
{
    pthread_mutex_lock(&mu);
    if (made_private)
        rmdir(dir); /* only when empty: a peer's socket may still be there */
    made_private = false;
    dir[0] = 0;
    pthread_mutex_unlock(&mu);
}
