/*
 * curl_uv.h - drives one libcurl multi handle from a libuv loop.
 *
 * The wiring is curl's multi-uv example: one non-repeating uv_timer_t for
 * CURLMOPT_TIMERFUNCTION and one uv_poll_t per socket, found again through
 * curl_multi_assign. libcurl is only ever called from the loop's own
 * callbacks (the poll and timer handles), never from inside its own
 * callbacks.
 *
 * Users attach transfers (mcp_curl_xfer_t, embedded in their own request
 * struct). A transfer's libcurl callbacks (write, header) must not call its
 * owner: they store what arrived and call mcp_curl_uv_mark(). After every
 * curl_multi_socket_action returns, the engine calls on_flush for each
 * marked transfer and then on_done for each finished one (it drains
 * curl_multi_info_read every time). So the owner's code never runs inside
 * libcurl, and may start or cancel transfers freely.
 *
 * Ownership: the engine owns the CURLM and its handles; it does not own the
 * easy handles or the transfers. mcp_curl_uv_close completes every
 * transfer still attached, then frees the engine from the last uv_close
 * callback, so the loop must be run after it (the caller's loop close does
 * that). Idle pooled connections do not keep the loop alive: the engine's
 * handles are referenced only while a transfer is attached.
 */
#ifndef MCP_CURL_UV_H
#define MCP_CURL_UV_H

#include "curl_dl.h"
#include <uv.h>

#include "error.h"

typedef struct mcp_curl_uv_s mcp_curl_uv_t;
typedef struct mcp_curl_xfer_s mcp_curl_xfer_t;

/* Called after socket_action returned, when mcp_curl_uv_mark was called
 * from one of the transfer's libcurl callbacks. */
typedef void (*mcp_curl_flush_cb)(mcp_curl_xfer_t *x);
/* Called once per attached transfer, after it left the multi handle: rc is
 * libcurl's result, or CURLE_ABORTED_BY_CALLBACK after mcp_curl_uv_cancel
 * or mcp_curl_uv_close. The transfer may be freed inside the call. */
typedef void (*mcp_curl_done_cb)(mcp_curl_xfer_t *x, CURLcode rc);

struct mcp_curl_xfer_s {
  CURL *easy;                    /* set by the owner; owned by the owner */
  mcp_curl_flush_cb on_flush;    /* set by the owner */
  mcp_curl_done_cb on_done;      /* set by the owner */
  /* Private to curl_uv.c. */
  mcp_curl_uv_t *cu;
  mcp_curl_xfer_t *prev, *next;  /* the engine's attached transfers */
  mcp_curl_xfer_t *mark_next;    /* the flush queue */
  mcp_curl_xfer_t *done_next;    /* the deferred completion queue */
  unsigned attached : 1;         /* added and not yet completed */
  unsigned in_multi : 1;         /* curl_multi_add_handle'd */
  unsigned marked : 1;           /* on the flush queue */
  unsigned cancelled : 1;        /* on the deferred completion queue */
};

/* Creates an engine on loop (calls curl_global_init the first time). */
int mcp_curl_uv_new(uv_loop_t *loop, mcp_curl_uv_t **out, mcp_error_t *err);

/* Completes every attached transfer with CURLE_ABORTED_BY_CALLBACK (their
 * on_done runs inside this call), runs curl_multi_cleanup and closes the
 * handles; the engine frees itself when the last close is done. */
void mcp_curl_uv_close(mcp_curl_uv_t *cu);

/* Adds x (x->easy and the callbacks set) to the multi handle. The first
 * socket_action happens from the loop, never inside this call. On failure
 * nothing is attached and on_done will not be called. */
int mcp_curl_uv_add(mcp_curl_uv_t *cu, mcp_curl_xfer_t *x, mcp_error_t *err);

/* Stops x: it leaves the multi handle now (or right after the current
 * socket_action, if one is running) and its on_done(CURLE_ABORTED_BY_
 * CALLBACK) runs from the loop on a later iteration, never inside this
 * call. No more on_flush is called. No-op for a transfer that is not
 * attached or already cancelled. */
void mcp_curl_uv_cancel(mcp_curl_xfer_t *x);

/* From a libcurl callback of x: queue an on_flush for after the current
 * socket_action. Touches no libcurl state. */
void mcp_curl_uv_mark(mcp_curl_xfer_t *x);

/* Number of transfers attached (for tests and diagnostics). */
size_t mcp_curl_uv_count(const mcp_curl_uv_t *cu);

/* An easy handle for a new transfer (a reset one from the pool when there
 * is one), and its return once the transfer is done and detached. */
CURL *mcp_curl_uv_easy(mcp_curl_uv_t *cu);
void mcp_curl_uv_release_easy(mcp_curl_uv_t *cu, CURL *easy);

#endif
