/* Whether the job's PEs are alive, and ending the job (liveness.c). */
#ifndef UVAS_PE_LIVENESS_H
#define UVAS_PE_LIVENESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Ends the job with a message if a PE of this node is gone (its pid; PEs
 * of other nodes are the launcher's and UCX's to report). */
void uvas_pe_check_alive(void);
/* Has process pid ended (gone, or a zombie its launcher has not reaped)? */
bool uvas_pe_pid_gone(pid_t pid);
/* The ground's gate-stuck hook (uvas/gate.h): a transition has waited
 * seconds for the pins of table t: is that peer alive? */
void uvas_pe_gate_stuck(size_t block, unsigned t, double secs);

#endif
