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
    /* Items split by hand: strtok passed over empty ones ("a=1,,b=2"),
     * and a key given twice kept its last value without a word. */
    const char *keys[32];
    size_t nkeys = 0;
    for (char *kv = buf[0] ? buf : NULL, *next; kv; kv = next) {
        next = strchr(kv, ',');
        if (next)
            *next++ = '\0';
        char *eq = strchr(kv, '=');
        size_t klen = eq ? (size_t)(eq - kv) : 0;
        if (!eq || !klen || !eq[1] || strspn(kv, "abcdefghijklmnopqrstuvwxyz"
                                                 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != klen ||
            eq[1] == ' ' || eq[1] == '\t') {
            snprintf(err, errlen, "'%s' is not key=value (a key of letters, digits and '_', "
                     "items split by single commas)", kv);
            return UVAS_ERR_INVAL;
        }
        *eq = '\0';
        for (size_t i = 0; i < nkeys; i++)
            if (!strcmp(keys[i], kv)) {
                snprintf(err, errlen, "%s is given twice", kv);
                return UVAS_ERR_INVAL;
            }
        if (nkeys == sizeof keys / sizeof keys[0]) {
            snprintf(err, errlen, "more than %zu parameters", nkeys);
            return UVAS_ERR_INVAL;
        }
        keys[nkeys++] = kv;
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
