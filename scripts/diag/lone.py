"""UVAS_DIAG_LONE=1: for the first 80 migrations of 2 MiB, marks in us
from uvas_migrate's entry (migrate/api.c, migrate/migrate.c): span and
query (argument checks), taken (the block taken, its gate closed), chk
(the punched-shadow check, to the host), ops (the import found), u<p>
piece p unmapped, s<p> submitted, w<p> waited for, m<p> mapped, fin
(published), end (returned). usage: lone.py TREE"""
import sys

from patch import after, patch

root = sys.argv[1]
f = "migrate/migrate.c"
patch(root, f, '''/* Take a block for a transition; false if it is in one and we may not wait. */''', '''#include <stdio.h>
static _Thread_local uint64_t dg_t0;
static _Thread_local char dg_buf[1024];
static _Thread_local int dg_len;
void uvas_dg_begin(void);
void uvas_dg_mark(const char *w);
void uvas_dg_end(size_t len);
void uvas_dg_begin(void) { dg_t0 = uvas_os_now_ns(); dg_len = 0; }
void uvas_dg_mark(const char *w)
{
    if (dg_len < 900)
        dg_len += snprintf(dg_buf + dg_len, sizeof dg_buf - (size_t)dg_len, " %s@%.1f", w,
                           (double)(uvas_os_now_ns() - dg_t0) / 1e3);
}
void uvas_dg_end(size_t len)
{
    static int diag = -1, cnt;
    if (diag < 0) diag = getenv("UVAS_DIAG_LONE") != NULL;
    if (diag && len == ((size_t)2 << 20) && cnt++ < 80)
        fprintf(stderr, "dlone%s end@%.1f\\n", dg_buf, (double)(uvas_os_now_ns() - dg_t0) / 1e3);
}
static const char *dgn(const char *base, size_t p)
{
    static _Thread_local char b[8][16];
    snprintf(b[p & 7], 16, "%s%zu", base, p);
    return b[p & 7];
}

/* Take a block for a transition; false if it is in one and we may not wait. */''')
# lone_to_device
after(root, f, "        rc = stage_ops(j, 0, 1, true, &op);", '        uvas_dg_mark("ops");')
after(root, f, "            unmap_range(at + p * len, len);", '        uvas_dg_mark(dgn("u", p));')
after(root, f, "                                UVAS_COPY_SOON | UVAS_COPY_SPREAD, &t[p]);",
      '        uvas_dg_mark(dgn("s", p));')
after(root, f, "        int rp = stage_wait(&t[p]);", '        uvas_dg_mark(dgn("w", p));')
after(root, f, "    finish_to_device(j, rc);", '    uvas_dg_mark("fin");')
# lone_to_host
after(root, f, "        rc = recheck_shadows(j, 0, 1);", '        uvas_dg_mark("chk");')
after(root, f, "        rc = stage_ops(j, 0, 1, false, &op);", '        uvas_dg_mark("ops");')
after(root, f, "                                UVAS_COPY_SOON | UVAS_COPY_SPREAD, &t[sent]);",
      '        uvas_dg_mark(dgn("s", sent));')
after(root, f, "            int rp = stage_wait(&t[p]);", '            uvas_dg_mark(dgn("w", p));')
after(root, f, "            map_range(at + mapped, len);", '            uvas_dg_mark(dgn("m", p));')
after(root, f, "    finish_to_host(j, rc);", '    uvas_dg_mark("fin");')
after(root, f, "        uvas_gate_batch_end();", '        uvas_dg_mark("taken");')
a = "migrate/api.c"
patch(root, a, '''static int migrate_entered(''', '''void uvas_dg_begin(void);
void uvas_dg_mark(const char *w);
void uvas_dg_end(size_t len);
static int migrate_entered(''')
after(root, a, "int uvas_migrate(const void *ptr, size_t len, int location, unsigned flags)\n{",
      "    uvas_dg_begin();")
patch(root, a, """    int rc = migrate_entered(ptr, len, location, flags);
    uvas_api_leave();
    return rc;""", """    int rc = migrate_entered(ptr, len, location, flags);
    uvas_api_leave();
    uvas_dg_end(len);
    return rc;""")
after(root, a, '    int rc = blocks_of(ptr, len, &first, &n, "uvas_migrate");', '    uvas_dg_mark("span");')
patch(root, a, """    if (flags & UVAS_MIGRATE_ASYNC)
        return uvas_migrate_enqueue(first, n, location);""", """    uvas_dg_mark("query");
    if (flags & UVAS_MIGRATE_ASYNC)
        return uvas_migrate_enqueue(first, n, location);""")
