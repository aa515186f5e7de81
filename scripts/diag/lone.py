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
# (the line a mark goes after, the mark): lone_to_device, then lone_to_host
MARKS = [
    ("        rc = stage_ops(j, 0, 1, true, &op);", '        uvas_dg_mark("ops");'),
    ("            break; /* the pieces sent are waited for, the block stays */",
     '        uvas_dg_mark(dgn("u", p));'),
    ("                                UVAS_COPY_SOON | UVAS_COPY_SPREAD, &t[p]);",
     '        uvas_dg_mark(dgn("s", p));'),
    ("        int rp = stage_wait(&t[p]);", '        uvas_dg_mark(dgn("w", p));'),
    ("    finish_to_device(j, rc);", '    uvas_dg_mark("fin");'),
    ("        rc = recheck_shadows(j, 0, 1);", '        uvas_dg_mark("chk");'),
    ("        rc = stage_ops(j, 0, 1, false, &op);", '        uvas_dg_mark("ops");'),
    ("                                UVAS_COPY_SOON | UVAS_COPY_SPREAD, &t[sent]);",
     '        uvas_dg_mark(dgn("s", sent));'),
    ("            int rp = stage_wait(&t[p]);", '            uvas_dg_mark(dgn("w", p));'),
    ("            map_range(at + mapped, len);", '            uvas_dg_mark(dgn("m", p));'),
    ("    finish_to_host(j, rc);", '    uvas_dg_mark("fin");'),
    ("        uvas_gate_batch_end();", '        uvas_dg_mark("taken");'),
]
for line, mark in MARKS:
    after(root, f, line, mark)
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
