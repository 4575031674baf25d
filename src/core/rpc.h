/*
 * rpc.h - a JSON-RPC 2.0 endpoint over one transport.
 *
 * It numbers outgoing requests (ids are never reused within the endpoint),
 * keeps them in a pending table, times each one out, matches responses by
 * id (a response's id must be the very number we sent: "7" is not 7),
 * answers `ping` and unknown methods itself, and hands other requests and
 * notifications to its owner. It knows nothing of MCP beyond ping and
 * notifications/cancelled.
 *
 * Completion is exactly once: every request that was started completes
 * with its result, an error response (MCP_ERPC), MCP_ETIMEDOUT,
 * MCP_ECANCELED, MCP_ETOOBIG or MCP_ECLOSED. A request that fails to start
 * returns an error and never completes. Callbacks may call any function
 * here, including mcp_rpc_close.
 *
 * Ownership: the endpoint owns its transport. After mcp_rpc_close the
 * owner waits for on_closed, after which the endpoint is freed.
 */
#ifndef MCP_RPC_H
#define MCP_RPC_H

#include <stdint.h>

#include <cjson/cJSON.h>
#include <uv.h>

#include "error.h"
#include "jsonrpc.h"
#include "transport.h"

typedef struct mcp_rpc_s mcp_rpc_t;

/* On success err is NULL and value is the result. On MCP_ERPC value is
 * error.data (or NULL). value is valid only during the call. */
typedef void (*mcp_rpc_done_cb)(void *data, const mcp_error_t *err,
                                const cJSON *value);

/* The fast path of a result: its raw JSON text (valid during the call),
 * for an owner that decodes it itself. Errors still go to the done cb. */
typedef void (*mcp_rpc_raw_cb)(void *data, const char *text, size_t len);

/* A notifications/progress for a pending request; params borrowed. */
typedef void (*mcp_rpc_progress_cb)(void *data, const cJSON *params);

/* The values the owner is given (a request's id and params, a
 * notification's params, progress params, an error's data) are cJSON raw
 * items holding their exact text, to decode with the owner's own decoder:
 * a tree would hold numbers as doubles and strings as C strings. */
typedef struct mcp_rpc_handler_s {
  /* A request from the peer. Return 1 when the owner will answer it with
   * mcp_rpc_respond*, 0 to have it answered "method not found". */
  int (*on_request)(void *ud, const cJSON *id, const char *method,
                    const cJSON *params);
  void (*on_notification)(void *ud, const char *method, const cJSON *params);
  /* Something arrived that is not a usable message; the connection lives
   * on. text may be NULL (for instance when it was too big to keep). */
  void (*on_bad_message)(void *ud, const mcp_error_t *err, const char *text,
                         size_t len);
  void (*on_log)(void *ud, const char *line, size_t len);
  /* The transport is gone; every pending request fails right after. */
  void (*on_lost)(void *ud, const mcp_error_t *err);
  void (*on_closed)(void *ud);
  /* Optional. A request sent at this epoch failed without being run:
   * MCP_ESESSION (its session expired), MCP_ECONNECT (no connection) or
   * MCP_ENEEDSAUTH (refused for want of authorization; err has the
   * status and challenge; at most 3 times per request).
   * Return MCP_UNSENT_HOLD to keep it (its id, text and deadline) until
   * mcp_rpc_resend_held or mcp_rpc_fail_held, MCP_UNSENT_RESEND to send it
   * again at once, MCP_UNSENT_FAIL to let it fail with err. Only requests
   * whose text was kept (keep_texts) are asked. */
  int (*on_unsent)(void *ud, unsigned epoch, const mcp_error_t *err);
} mcp_rpc_handler_t;

enum { MCP_UNSENT_FAIL, MCP_UNSENT_HOLD, MCP_UNSENT_RESEND };

typedef struct mcp_rpc_opts_s {
  int max_depth;               /* JSON nesting limit; 0: default */
  uint64_t timeout_ms;         /* default per-request timeout; 0: default */
  int keep_texts;              /* keep each request's text while it is
                                * pending, so that it can be sent again in
                                * a new session (a transport with sessions
                                * that expire: HTTP) */
  mcp_trace_cb trace;          /* optional: "> " and "< " and each message
                                * sent and received (cut at TRACE_MAX) */
  void *trace_ud;
} mcp_rpc_opts_t;

typedef struct mcp_rpc_req_opts_s {
  uint64_t timeout_ms;         /* 0: the endpoint's default */
  int no_cancel;               /* never send notifications/cancelled */
  /* When set, the request carries _meta.progressToken (its own id, so
   * unique among active requests); each progress notification calls it
   * and restarts the timeout, but never past max_timeout_ms after the
   * start (0: ten times the timeout). */
  mcp_rpc_progress_cb on_progress;
  uint64_t max_timeout_ms;
  /* When set, a successful result is delivered here as text instead of
   * to the done callback as a tree: the message is never parsed into
   * cJSON. */
  mcp_rpc_raw_cb on_raw_result;
} mcp_rpc_req_opts_t;

mcp_rpc_t *mcp_rpc_new(uv_loop_t *loop, const mcp_rpc_opts_t *opts,
                       const mcp_rpc_handler_t *handler, void *ud);
/* The callbacks a transport must be created with, with the endpoint as
 * their user data. */
const mcp_transport_cb_t *mcp_rpc_transport_cb(void);
/* Takes ownership of t. */
void mcp_rpc_attach(mcp_rpc_t *rpc, mcp_transport_t *t);
/* Frees an endpoint that never got a transport. */
void mcp_rpc_discard(mcp_rpc_t *rpc);

int mcp_rpc_request(mcp_rpc_t *rpc, const char *method, const cJSON *params,
                    const mcp_rpc_req_opts_t *opts, mcp_rpc_done_cb cb,
                    void *data, uint64_t *id_out, mcp_error_t *err);
/* The same with params written straight into the outgoing message by
 * write_params(params_ud, id, ...) (NULL: no params). With
 * opts->on_progress, the endpoint adds _meta.progressToken = id to what it
 * wrote (params must then be an object). The request is not sent when
 * writing fails. */
int mcp_rpc_request_with(mcp_rpc_t *rpc, const char *method,
                         mcp_jsonrpc_params_cb write_params, void *params_ud,
                         const mcp_rpc_req_opts_t *opts, mcp_rpc_done_cb cb,
                         void *data, uint64_t *id_out, mcp_error_t *err);
/* Completes a pending request with MCP_ECANCELED and tells the peer
 * (unless the request is marked no_cancel). Returns MCP_EINVAL when the
 * id is not pending. */
int mcp_rpc_cancel(mcp_rpc_t *rpc, uint64_t id, const char *reason);
int mcp_rpc_notify(mcp_rpc_t *rpc, const char *method, const cJSON *params,
                   mcp_error_t *err);
int mcp_rpc_respond(mcp_rpc_t *rpc, const cJSON *id, const cJSON *result,
                    mcp_error_t *err);
int mcp_rpc_respond_error(mcp_rpc_t *rpc, const cJSON *id, int code,
                          const char *message, const cJSON *data,
                          mcp_error_t *err);

/* Fails every pending request with MCP_ECLOSED and closes the transport. */
void mcp_rpc_close(mcp_rpc_t *rpc);
/* The same, failing them with err instead (a dead keep-alive, say). */
void mcp_rpc_abort(mcp_rpc_t *rpc, const mcp_error_t *err);
int mcp_rpc_is_open(const mcp_rpc_t *rpc);
size_t mcp_rpc_pending_count(const mcp_rpc_t *rpc);
size_t mcp_rpc_diagnostics(const mcp_rpc_t *rpc, char *out, size_t cap);
/* Tells the transport the handshake is done (see transport.h). */
void mcp_rpc_initialized(mcp_rpc_t *rpc, const char *version);

/* Requests sent from now on are stamped with epoch (the owner's session
 * number), which on_unsent is told. */
void mcp_rpc_set_epoch(mcp_rpc_t *rpc, unsigned epoch);
/* The era's members for the _meta of every request from now on (text of
 * object members without braces, e.g. "\"a\":1,\"b\":{}"; copied), or
 * NULL for none. A caller's _meta keeps its other members. 0 or ENOMEM. */
int mcp_rpc_set_envelope(mcp_rpc_t *rpc, const char *members);
/* Tells the transport that requests are now of the stateless era at this
 * version (NULL: of the handshake era again); see transport.h set_era. */
void mcp_rpc_set_era(mcp_rpc_t *rpc, const char *stateless_version);
/* The endpoint's loop clock, in milliseconds. */
uint64_t mcp_rpc_now(const mcp_rpc_t *rpc);
/* Sends every held request again, as it was (same id), and stamps it with
 * the current epoch; one that cannot be sent fails with the reason. */
void mcp_rpc_resend_held(mcp_rpc_t *rpc);
/* Completes every held request with err. */
void mcp_rpc_fail_held(mcp_rpc_t *rpc, const mcp_error_t *err);
/* The text of the request sent last, valid until the next is sent. */
const char *mcp_rpc_last_request(const mcp_rpc_t *rpc, size_t *len);

#endif
