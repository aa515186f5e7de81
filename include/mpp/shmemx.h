/* <mpp/shmemx.h>: the extensions under the old include path (mpp/shmem.h). */
#ifndef UVAS_MPP_SHMEMX_H
#define UVAS_MPP_SHMEMX_H
#include "../shmemx.h"
#endif
