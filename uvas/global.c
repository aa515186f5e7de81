/* The ground's state (internal.h): one per process. */
#include "uvas/internal.h"

struct uvas_global uvas_g = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .memfd = -1,
    .gate_fd = -1,
    .uffd = {.fd = -1},
};
