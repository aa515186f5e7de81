/*
 * Bootstrap through PMIx: rank and size from the launcher (Open MPI's
 * mpirun runs a PMIx server), and a put/fence/get exchange of what each PE
 * publishes (its UCX address, rkeys, fd server, device). A process started
 * without a launcher is a job of one PE.
 */
#include "transport/pe/boot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "transport/pe/job.h"
#include "uvas/status.h"

/* The launcher is gone (mpirun killed, or it crashed): nobody will end
 * this job any more, and a PE left waiting would wait, or spin, for ever
 * (found orphaned after a runner's timeout killed mpirun). PMIx's progress
 * thread runs this when the server's connection drops. */
static void launcher_lost(size_t id, pmix_status_t status, const pmix_proc_t *source,
                          pmix_info_t info[], size_t ninfo, pmix_info_t *results,
                          size_t nresults, pmix_event_notification_cbfunc_fn_t cbfunc,
                          void *cbdata)
{
    (void)id, (void)status, (void)source, (void)info, (void)ninfo, (void)results,
        (void)nresults, (void)cbfunc, (void)cbdata;
    /* Only the async-signal-safe: the process ends here, whatever its
     * threads hold. */
    static const char msg[] = "uvas: this PE lost its launcher (mpirun is gone); ending it\n";
    if (write(STDERR_FILENO, msg, sizeof msg - 1) < 0) {
        /* nowhere to say it */
    }
    _exit(1);
}

int uvas_boot_start(void)
{
    pmix_proc_t me;
    /* PMIx_Init prints nothing and fails fast when no server is there. */
    if (!getenv("PMIX_RANK") && !getenv("PMIX_NAMESPACE")) {
        uvas_job.pmix = false;
        uvas_job.me = 0;
        uvas_job.n = 1;
        return UVAS_OK;
    }
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS)
        return uvas_fail(UVAS_ERR_SYS, "PMIx_Init failed (%s): start the program with "
                         "mpirun, or without PMIX_* variables for a single PE",
                         PMIx_Error_string(rc));
    uvas_job.pmix = true;
    uvas_job.proc = me;
    /* Blocking (no callback): a status >= 0 is the handler's reference. */
    pmix_status_t lost = PMIX_ERR_LOST_CONNECTION;
    rc = PMIx_Register_event_handler(&lost, 1, NULL, 0, launcher_lost, NULL, NULL);
    if (rc < 0 && rc != PMIX_OPERATION_SUCCEEDED)
        uvas_warn("PMIx refused a handler for the launcher's loss (%s): if mpirun dies, "
                  "this PE will not notice", PMIx_Error_string(rc));
    uvas_job.me = (int)me.rank;
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || !v) {
        PMIx_Finalize(NULL, 0);
        uvas_job.pmix = false;
        return uvas_fail(UVAS_ERR_SYS, "PMIx knows no job size (%s)", PMIx_Error_string(rc));
    }
    uvas_job.n = (int)v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    return UVAS_OK;
}

int uvas_boot_put(const char *key, const void *data, size_t len)
{
    if (!uvas_job.pmix)
        return UVAS_OK;
    pmix_value_t val;
    PMIX_VALUE_CONSTRUCT(&val);
    val.type = PMIX_BYTE_OBJECT;
    val.data.bo.bytes = (char *)data;
    val.data.bo.size = len;
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &val);
    if (rc != PMIX_SUCCESS)
        return uvas_fail(UVAS_ERR_SYS, "PMIx_Put(%s) failed: %s", key, PMIx_Error_string(rc));
    return UVAS_OK;
}

int uvas_boot_fence(bool exchange)
{
    if (!uvas_job.pmix)
        return UVAS_OK;
    pmix_status_t rc = exchange ? PMIx_Commit() : PMIX_SUCCESS;
    if (rc != PMIX_SUCCESS)
        return uvas_fail(UVAS_ERR_SYS, "PMIx_Commit failed: %s", PMIx_Error_string(rc));
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, uvas_job.proc.nspace, PMIX_RANK_WILDCARD);
    pmix_info_t info;
    bool collect = exchange;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    rc = PMIx_Fence(&wild, 1, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS)
        return uvas_fail(UVAS_ERR_SYS, "PMIx_Fence failed: %s (a PE of the job is gone?)",
                         PMIx_Error_string(rc));
    return UVAS_OK;
}

int uvas_boot_get_alloc(int rank, const char *key, void **data, size_t *len)
{
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, uvas_job.proc.nspace, (pmix_rank_t)rank);
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&p, key, NULL, 0, &v);
    if (rc != PMIX_SUCCESS || !v || v->type != PMIX_BYTE_OBJECT) {
        if (v)
            PMIX_VALUE_RELEASE(v);
        return uvas_fail(UVAS_ERR_SYS, "PE %d published no '%s' (%s)", rank, key,
                         PMIx_Error_string(rc));
    }
    *len = v->data.bo.size;
    *data = malloc(*len ? *len : 1);
    if (!*data) {
        PMIX_VALUE_RELEASE(v);
        return uvas_fail(UVAS_ERR_NOMEM, "out of memory reading '%s'", key);
    }
    memcpy(*data, v->data.bo.bytes, *len);
    PMIX_VALUE_RELEASE(v);
    return UVAS_OK;
}

int uvas_boot_get(int rank, const char *key, void *data, size_t len)
{
    void *d;
    size_t n;
    int rc = uvas_boot_get_alloc(rank, key, &d, &n);
    if (rc)
        return rc;
    if (n != len) {
        free(d);
        return uvas_fail(UVAS_ERR_SYS, "PE %d published '%s' with %zu bytes, expected %zu "
                         "(PEs built from different uvas versions?)", rank, key, n, len);
    }
    memcpy(data, d, len);
    free(d);
    return UVAS_OK;
}

void uvas_boot_abort(int status, const char *msg)
{
    if (uvas_job.pmix) {
        pmix_proc_t wild;
        PMIX_LOAD_PROCID(&wild, uvas_job.proc.nspace, PMIX_RANK_WILDCARD);
        PMIx_Abort(status, msg, &wild, 1);
    }
}

void uvas_boot_stop(void)
{
    if (uvas_job.pmix)
        PMIx_Finalize(NULL, 0);
    uvas_job.pmix = false;
}
