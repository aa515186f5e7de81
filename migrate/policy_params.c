/* Parsing a policy's "k=v,k=v" parameters (policy.h), for the built-ins
 * and for policies loaded from shared objects. */
#include "migrate/policy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int uvas_policy_params(const char *params, char *err, size_t errlen,
                       int (*fn)(void *, const char *, const char *, char *, size_t), void *st)
{
    char buf[256];
    if (strlen(params) >= sizeof buf) {
        snprintf(err, errlen, "the parameters are too long");
        return UVAS_ERR_INVAL;
    }
    strcpy(buf, params);
    char *save = NULL;
    for (char *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq || eq == kv || !eq[1]) {
            snprintf(err, errlen, "'%s' is not key=value", kv);
            return UVAS_ERR_INVAL;
        }
        *eq = '\0';
        int rc = fn(st, kv, eq + 1, err, errlen);
        if (rc)
            return rc;
    }
    return UVAS_OK;
}

int uvas_policy_number(const char *key, const char *val, double lo, double hi, double *out,
                       char *err, size_t errlen)
{
    char *end;
    errno = 0;
    double v = strtod(val, &end);
    if (errno || end == val || *end || !(v >= lo && v <= hi)) { /* NaN: not in range */
        snprintf(err, errlen, "%s=%s: give a number from %g to %g", key, val, lo, hi);
        return UVAS_ERR_INVAL;
    }
    *out = v;
    return UVAS_OK;
}

/* "name" or "name:params"; a name with a '/' or ending in ".so" is a
 * shared object. */
