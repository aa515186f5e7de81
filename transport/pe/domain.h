/*
 * Ordering domains (OpenSHMEM contexts, transport/shmem/ctx.c): the only
 * operations of this layer that complete after they return are active-
 * message puts (acknowledged later; quiet waits for the acknowledgements).
 * A put made while a thread uses a domain is counted in that domain too,
 * and its acknowledgement names the domain back, so a quiet of the domain
 * waits for its own puts and no others'. Domain ids are small numbers a
 * peer echoes; an id that names no open domain is ignored.
 */
#ifndef UVAS_PE_DOMAIN_H
#define UVAS_PE_DOMAIN_H

#include <stdint.h>

#include "transport/pe/pe.h" /* uvas_pe_domain_*: the calls above this layer */

#define UVAS_PE_DOMAINS 1024

/* For am.c: a put is leaving (the domain to name, 0 none) and arrived. */
unsigned uvas_domain_put_sent(void);
void uvas_domain_put_acked(uint64_t id);
/* A put that could not be sent after uvas_domain_put_sent. */
void uvas_domain_put_unsent(unsigned id);
/* The acknowledgement of a put of domain id (0: the default) said its
 * target pe refused it with status: the domain's next quiet fails. */
void uvas_domain_put_refused(uint64_t id, int pe, int status);
/* The first refusal of domain id's puts since its last quiet, as the
 * quiet's status (and message); UVAS_OK if none. */
int uvas_domain_refusal(unsigned id);

#endif
