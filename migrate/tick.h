/* The tick thread, for policies with a tick (tick.c). */
#ifndef UVAS_MIGRATE_TICK_H
#define UVAS_MIGRATE_TICK_H

#include "migrate/policy.h"

int uvas_policy_ticker_start(struct uvas_policy *p);
void uvas_policy_ticker_stop(void);

#endif
