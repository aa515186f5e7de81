/*
 * UCX, loaded when the PE layer starts rather than linked.
 *
 * libucm (UCX's memory hooks) patches libc's mmap, munmap, mremap and
 * madvise when it is loaded, in "bistro" mode, to watch for unmapped
 * memory. Its mremap override drops MREMAP_FIXED's new address, and every
 * call through it takes UCM's event lock, also inside the driver and next
 * to userfaultfd's blocking remap events. uvas registers its memory once
 * and needs none of that, so it loads UCX itself (dlopen) after setting
 * UCX_MEM_MMAP_HOOK_MODE=none and UCX_MEM_MALLOC_HOOKS=no unless the user
 * set them; a program that only uses uvas_* never loads UCX at all.
 *
 * Include after <ucp/api/ucp.h>; the names below then call through the
 * table.
 */
#ifndef UVAS_TRANSPORT_UCX_SYM_H
#define UVAS_TRANSPORT_UCX_SYM_H

#include <ucp/api/ucp.h>

#define UVAS_UCX_SYMS(X)                                                                      \
    X(ucp_am_recv_data_nbx)                                                                   \
    X(ucp_am_send_nbx)                                                                        \
    X(ucp_atomic_op_nbx)                                                                      \
    X(ucp_cleanup)                                                                            \
    X(ucp_config_modify)                                                                      \
    X(ucp_config_read)                                                                        \
    X(ucp_config_release)                                                                     \
    X(ucp_ep_close_nbx)                                                                       \
    X(ucp_ep_create)                                                                          \
    X(ucp_ep_rkey_unpack)                                                                     \
    X(ucp_get_nbx)                                                                            \
    X(ucp_init_version)                                                                       \
    X(ucp_mem_map)                                                                            \
    X(ucp_mem_unmap)                                                                          \
    X(ucp_put_nbx)                                                                            \
    X(ucp_request_check_status)                                                               \
    X(ucp_request_free)                                                                       \
    X(ucp_rkey_buffer_release)                                                                \
    X(ucp_rkey_destroy)                                                                       \
    X(ucp_rkey_pack)                                                                          \
    X(ucp_worker_arm)                                                                         \
    X(ucp_worker_create)                                                                      \
    X(ucp_worker_destroy)                                                                     \
    X(ucp_worker_flush_nbx)                                                                   \
    X(ucp_worker_get_address)                                                                 \
    X(ucp_worker_get_efd)                                                                     \
    X(ucp_worker_progress)                                                                    \
    X(ucp_worker_release_address)                                                             \
    X(ucp_worker_set_am_recv_handler)                                                         \
    X(ucs_status_string)

struct uvas_ucx_sym {
#define UVAS_UCX_FIELD(name) __typeof__(&name) p_##name;
    UVAS_UCX_SYMS(UVAS_UCX_FIELD)
#undef UVAS_UCX_FIELD
};
extern struct uvas_ucx_sym uvas_ucx;

/* Load libucp once. Status, with a message naming the library. */
int uvas_ucx_load(void);

#ifndef UVAS_UCX_SYM_IMPL
#define ucp_am_recv_data_nbx uvas_ucx.p_ucp_am_recv_data_nbx
#define ucp_am_send_nbx uvas_ucx.p_ucp_am_send_nbx
#define ucp_atomic_op_nbx uvas_ucx.p_ucp_atomic_op_nbx
#define ucp_cleanup uvas_ucx.p_ucp_cleanup
#define ucp_config_modify uvas_ucx.p_ucp_config_modify
#define ucp_config_read(a, b, c) uvas_ucx.p_ucp_config_read(a, b, c)
#define ucp_config_release uvas_ucx.p_ucp_config_release
#define ucp_ep_close_nbx uvas_ucx.p_ucp_ep_close_nbx
#define ucp_ep_create uvas_ucx.p_ucp_ep_create
#define ucp_ep_rkey_unpack uvas_ucx.p_ucp_ep_rkey_unpack
#define ucp_get_nbx uvas_ucx.p_ucp_get_nbx
#define ucp_init_version uvas_ucx.p_ucp_init_version
#define ucp_mem_map uvas_ucx.p_ucp_mem_map
#define ucp_mem_unmap uvas_ucx.p_ucp_mem_unmap
#define ucp_put_nbx uvas_ucx.p_ucp_put_nbx
#define ucp_request_check_status uvas_ucx.p_ucp_request_check_status
#define ucp_request_free uvas_ucx.p_ucp_request_free
#define ucp_rkey_buffer_release uvas_ucx.p_ucp_rkey_buffer_release
#define ucp_rkey_destroy uvas_ucx.p_ucp_rkey_destroy
#define ucp_rkey_pack uvas_ucx.p_ucp_rkey_pack
#define ucp_worker_arm uvas_ucx.p_ucp_worker_arm
#define ucp_worker_create uvas_ucx.p_ucp_worker_create
#define ucp_worker_destroy uvas_ucx.p_ucp_worker_destroy
#define ucp_worker_flush_nbx uvas_ucx.p_ucp_worker_flush_nbx
#define ucp_worker_get_address uvas_ucx.p_ucp_worker_get_address
#define ucp_worker_get_efd uvas_ucx.p_ucp_worker_get_efd
#define ucp_worker_progress uvas_ucx.p_ucp_worker_progress
#define ucp_worker_release_address uvas_ucx.p_ucp_worker_release_address
#define ucp_worker_set_am_recv_handler uvas_ucx.p_ucp_worker_set_am_recv_handler
#define ucs_status_string uvas_ucx.p_ucs_status_string
#endif

#endif
