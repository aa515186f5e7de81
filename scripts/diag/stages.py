"""UVAS_DIAG_STAGES=1: per stage of each migration of more than four
stages, when its preparation (to the device: unmapping) began and ended,
when it was submitted, and its wait, in us from run_stages' start
(migrate/migrate.c). usage: stages.py TREE"""
import sys

from patch import patch

root = sys.argv[1]
f = "migrate/migrate.c"
patch(root, f, '''static int run_stages_(struct job *j, size_t m, bool to_device, unsigned flags, int rc)
{''', '''#include <stdio.h>
struct dstage { uint64_t u0, u1, s1, w0, w1; };
static struct dstage dst[4096];
static int run_stages_(struct job *j, size_t m, bool to_device, unsigned flags, int rc)
{
    static int diag = -1;
    if (diag < 0) diag = getenv("UVAS_DIAG_STAGES") != NULL;
    uint64_t T0 = uvas_os_now_ns();''')
patch(root, f, '''            int prc = rc;
            if (prc == UVAS_OK)''', '''            int prc = rc;
            if (next < 4096) dst[next].u0 = uvas_os_now_ns();
            if (prc == UVAS_OK)''')
patch(root, f, '''            st_rc[r] = prc ? prc : stage_submit(j, a, b, to_device, cf, &t[r], &lanes[r]);
            next++;''', '''            if (next < 4096) dst[next].u1 = uvas_os_now_ns();
            st_rc[r] = prc ? prc : stage_submit(j, a, b, to_device, cf, &t[r], &lanes[r]);
            if (next < 4096) dst[next].s1 = uvas_os_now_ns();
            next++;''')
patch(root, f, '''        if (st_rc[r] == UVAS_OK)
            st_rc[r] = stage_wait(&t[r]);''', '''        if (done < 4096) dst[done].w0 = uvas_os_now_ns();
        if (st_rc[r] == UVAS_OK)
            st_rc[r] = stage_wait(&t[r]);
        if (done < 4096) dst[done].w1 = uvas_os_now_ns();''')
patch(root, f, '''        done++;
    }
    return rc;
}''', '''        done++;
    }
    if (diag && nst > 4 && nst < 4096) {
        uint64_t T1 = uvas_os_now_ns();
        fprintf(stderr, "diag %s %zu stages total %.0f us\\n", to_device ? "to_dev" : "to_host",
                nst, (T1 - T0) / 1e3);
        for (size_t k = 0; k < nst; k++)
            fprintf(stderr, "diag  st %2zu prep %6.0f..%6.0f submitted %6.0f wait %6.0f..%6.0f\\n",
                    k, (dst[k].u0 - T0) / 1e3, (dst[k].u1 - T0) / 1e3, (dst[k].s1 - T0) / 1e3,
                    (dst[k].w0 - T0) / 1e3, (dst[k].w1 - T0) / 1e3);
    }
    return rc;
}''')
# The staging lanes' making (the branch staging only), once per process.
patch(root, "migrate/staging.c", '''        s = make();''', '''        uint64_t m0 = uvas_os_now_ns();
        s = make();
        if (getenv("UVAS_DIAG_STAGES"))
            fprintf(stderr, "diag lanes made in %.0f us\\n", (uvas_os_now_ns() - m0) / 1e3);''')
patch(root, "migrate/staging.c", '''#include <pthread.h>''', '''#include <pthread.h>
#include "uvas/os.h"
#include <stdio.h>
#include <stdlib.h>''')
