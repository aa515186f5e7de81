/* uvas_finalize's part of the gpu floor (kernel.h): the program's holds
 * let go, every kernel's device objects, then the context. Apart from
 * context.c, which the files it calls call. */
#include "gpu/kernel.h"

#include <pthread.h>

#include "gpu/context.h"

void uvas_gpu_fini(void)
{
    pthread_mutex_lock(&uvas_gpu.mu);
    uvas_gpu_holds_down();
    uvas_gpu_kernels_down();
    uvas_gpu_context_down();
    pthread_mutex_unlock(&uvas_gpu.mu);
}
