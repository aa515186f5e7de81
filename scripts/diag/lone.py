"""UVAS_DIAG_LONE=1: for the first 80 migrations of 2 MiB, marks in us
from uvas_migrate's entry (migrate/api.c, migrate/migrate.c): span and
query (argument checks), taken (the block taken, its gate closed), lone
(lone_to_device or lone_to_host), chk (the punched-shadow check), ops
(the import found), u<p> piece p unmapped, s<p> submitted, w<p> waited
for, m<p> mapped, fin (published), end (returned). usage: lone.py TREE"""
import sys

from patch import patch

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
patch(root, f, '''    if (rc == UVAS_OK) {
        protect_read_mostly(j, 0, 1);
        rc = stage_ops(j, 0, 1, true, &op);
    }
    for (size_t p = 0; rc == UVAS_OK && p < n; p++) {
        if (!j->dup)
            unmap_range(at + p * len, len);
        piece[p] = op_piece(&op, p * len, len);
        rc = uvas_copier_submit(&uvas_mg.copier, &piece[p], 1,
                                UVAS_COPY_SOON | UVAS_COPY_SPREAD, &t[p]);
        if (rc == UVAS_OK)
            count_queued(t, piece, p);
    }
    for (size_t p = 0; p < n && t[p].bytes; p++) {
        int rp = stage_wait(&t[p]);
        if (rc == UVAS_OK)
            rc = rp;
    }
    stage_put(j, 0, 1);
    finish_to_device(j, rc);
    return rc;''', '''    uvas_dg_mark("lone");
    if (rc == UVAS_OK) {
        protect_read_mostly(j, 0, 1);
        rc = stage_ops(j, 0, 1, true, &op);
    }
    uvas_dg_mark("ops");
    for (size_t p = 0; rc == UVAS_OK && p < n; p++) {
        if (!j->dup)
            unmap_range(at + p * len, len);
        uvas_dg_mark(dgn("u", p));
        piece[p] = op_piece(&op, p * len, len);
        rc = uvas_copier_submit(&uvas_mg.copier, &piece[p], 1,
                                UVAS_COPY_SOON | UVAS_COPY_SPREAD, &t[p]);
        uvas_dg_mark(dgn("s", p));
        if (rc == UVAS_OK)
            count_queued(t, piece, p);
    }
    for (size_t p = 0; p < n && t[p].bytes; p++) {
        int rp = stage_wait(&t[p]);
        uvas_dg_mark(dgn("w", p));
        if (rc == UVAS_OK)
            rc = rp;
    }
    stage_put(j, 0, 1);
    finish_to_device(j, rc);
    uvas_dg_mark("fin");
    return rc;''')
patch(root, f, '''    if (rc == UVAS_OK)
        rc = recheck_shadows(j, 0, 1);
    if (rc == UVAS_OK)
        rc = stage_ops(j, 0, 1, false, &op);
    for (; rc == UVAS_OK && sent < n; sent++) {
        piece[sent] = op_piece(&op, sent * len, len);
        rc = uvas_copier_submit(&uvas_mg.copier, &piece[sent], 1,
                                UVAS_COPY_SOON | UVAS_COPY_SPREAD, &t[sent]);''', '''    uvas_dg_mark("lone");
    if (rc == UVAS_OK)
        rc = recheck_shadows(j, 0, 1);
    uvas_dg_mark("chk");
    if (rc == UVAS_OK)
        rc = stage_ops(j, 0, 1, false, &op);
    uvas_dg_mark("ops");
    for (; rc == UVAS_OK && sent < n; sent++) {
        piece[sent] = op_piece(&op, sent * len, len);
        rc = uvas_copier_submit(&uvas_mg.copier, &piece[sent], 1,
                                UVAS_COPY_SOON | UVAS_COPY_SPREAD, &t[sent]);
        uvas_dg_mark(dgn("s", sent));''')
patch(root, f, '''            int rp = stage_wait(&t[p]);
            if (rc == UVAS_OK)
                rc = rp;
            if (rc != UVAS_OK)
                continue; /* the later pieces are waited for, not mapped */
            if (p == 0)
                show_host(j);
            map_range(at + mapped, len);
            mapped += len;''', '''            int rp = stage_wait(&t[p]);
            uvas_dg_mark(dgn("w", p));
            if (rc == UVAS_OK)
                rc = rp;
            if (rc != UVAS_OK)
                continue; /* the later pieces are waited for, not mapped */
            if (p == 0)
                show_host(j);
            map_range(at + mapped, len);
            uvas_dg_mark(dgn("m", p));
            mapped += len;''')
patch(root, f, '''    stage_put(j, 0, 1);
    finish_to_host(j, rc);
    return rc;''', '''    stage_put(j, 0, 1);
    finish_to_host(j, rc);
    uvas_dg_mark("fin");
    return rc;''')
patch(root, f, '''        uvas_gate_batch_end();
        int r = to == UVAS_RES_DEVICE''', '''        uvas_gate_batch_end();
        uvas_dg_mark("taken");
        int r = to == UVAS_RES_DEVICE''')
a = "migrate/api.c"
patch(root, a, '''static int migrate_entered(''', '''void uvas_dg_begin(void);
void uvas_dg_mark(const char *w);
void uvas_dg_end(size_t len);
static int migrate_entered(''')
patch(root, a, '''int uvas_migrate(const void *ptr, size_t len, int location, unsigned flags)
{
    int entered = uvas_api_enter("uvas_migrate");''', '''int uvas_migrate(const void *ptr, size_t len, int location, unsigned flags)
{
    uvas_dg_begin();
    int entered = uvas_api_enter("uvas_migrate");
    uvas_dg_mark("enter");''')
patch(root, a, '''    int rc = migrate_entered(ptr, len, location, flags);
    uvas_api_leave();
    return rc;
}

static int migrate_wait_entered''', '''    int rc = migrate_entered(ptr, len, location, flags);
    uvas_api_leave();
    uvas_dg_end(len);
    return rc;
}

static int migrate_wait_entered''')
patch(root, a, '''    int rc = blocks_of(ptr, len, &first, &n, "uvas_migrate");
    if (rc)
        return rc;
    if (location != UVAS_LOC_HOST''', '''    int rc = blocks_of(ptr, len, &first, &n, "uvas_migrate");
    uvas_dg_mark("span");
    if (rc)
        return rc;
    if (location != UVAS_LOC_HOST''')
patch(root, a, '''    if (flags & UVAS_MIGRATE_ASYNC)
        return uvas_migrate_enqueue(first, n, location);''', '''    uvas_dg_mark("query");
    if (flags & UVAS_MIGRATE_ASYNC)
        return uvas_migrate_enqueue(first, n, location);''')
