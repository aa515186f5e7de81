/* What faults and process events mean (fault_handler.c): the handler the
 * composition root installs in the fault service. */
#ifndef UVAS_MIGRATE_FAULT_HANDLER_H
#define UVAS_MIGRATE_FAULT_HANDLER_H

#include "fault/service.h"

extern const struct uvas_fault_handler uvas_migrate_fault_handler;

#endif
