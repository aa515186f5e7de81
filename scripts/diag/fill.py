"""UVAS_DIAG_FILL=1: for the 31st to 60th unmapping of four chunks or
more (a migration stage's), each chunk's start and end in us from the
job's start, c for the calling thread and h for a service thread
(fault/fill.c). usage: fill.py TREE"""
import sys

from patch import patch

root = sys.argv[1]
f = "fault/fill.c"
patch(root, f, '''struct uvas_fill_job {
    struct uvas_fill_job *next;''', '''#include <stdio.h>
struct dchunk { double c0, c1; int helper; };
struct uvas_fill_job {
    double t0;
    struct dchunk dc[64];
    struct uvas_fill_job *next;''')
patch(root, f, '''static void run_chunk(struct uvas_fill *f, struct uvas_fill_job *j, uint32_t c)
{
    int e = do_op(j->op, j->addr + c * j->chunk, j->chunk);''', '''static _Thread_local int is_helper;
static void run_chunk(struct uvas_fill *f, struct uvas_fill_job *j, uint32_t c)
{
    double c0 = (double)uvas_os_now_ns();
    int e = do_op(j->op, j->addr + c * j->chunk, j->chunk);
    if (c < 64) {
        j->dc[c].c0 = c0 - j->t0;
        j->dc[c].c1 = (double)uvas_os_now_ns() - j->t0;
        j->dc[c].helper = is_helper;
    }''')
patch(root, f, '''        .first = (uint32_t)((hot - addr) / chunk),
    };''', '''        .first = (uint32_t)((hot - addr) / chunk),
    };
    j.t0 = (double)uvas_os_now_ns();''')
patch(root, f, '''    int err = j.err;
    pthread_mutex_unlock(&f->mu);''', '''    int err = j.err;
    pthread_mutex_unlock(&f->mu);
    static int diag = -1, count;
    if (diag < 0) diag = getenv("UVAS_DIAG_FILL") != NULL;
    if (diag && op == UVAS_FILL_UNMAP && j.n >= 4 && ++count > 30 && count <= 60) {
        fprintf(stderr, "dfill n %u total %.0f us:", j.n, ((double)uvas_os_now_ns() - j.t0) / 1e3);
        for (uint32_t c = 0; c < j.n && c < 64; c++)
            fprintf(stderr, " %s%.0f-%.0f", j.dc[c].helper ? "h" : "c", j.dc[c].c0 / 1e3,
                    j.dc[c].c1 / 1e3);
        fprintf(stderr, "\\n");
    }''')
patch(root, f, '''void uvas_fill_help(struct uvas_fill *f, unsigned i)
{''', '''void uvas_fill_help(struct uvas_fill *f, unsigned i)
{
    is_helper = 1;''')
