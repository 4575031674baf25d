/*
 * client.h - one MCP client connection: the single owner of the rpc
 * endpoint (and through it the transport), the numbered session, and the
 * era adapter through which a session begins (era.h; today the
 * 2025-11-25 handshake of session.c).
 *
 * Session expiry is handled here, once. A request that fails because the
 * server forgot the session (MCP_ESESSION from an HTTP transport) is held;
 * the first such failure of a session number starts one new handshake,
 * however many requests were in flight. The new session gets the next
 * number; what the client had set up is restored (the log level, resource
 * subscriptions, and roots announced again), then the held requests are
 * sent again, each once, with their ids and within their own deadlines,
 * and the owner hears of it through on_session. A request sent in an older
 * session than the current one is sent again at once. A request that
 * found no connection (MCP_ECONNECT: nothing was sent) waits too, and is
 * tried again with backoff and jitter within its deadline.
 *
 * Ownership: the client owns its rpc endpoint, which owns the transport
 * given to mcp_client_attach. After mcp_client_close the owner waits for
 * on_closed, after which the client is freed. Callbacks may call any
 * function here.
 */
#ifndef MCP_CLIENT_H
#define MCP_CLIENT_H

#include <cjson/cJSON.h>
#include <uv.h>

#include "auth/flow.h"
#include "error.h"
#include "rpc.h"
#include "schema.h"
#include "transport.h"
#include "transport_stdio.h"

typedef struct mcp_client_s mcp_client_t;

typedef void (*mcp_client_ready_cb)(void *data, const mcp_error_t *err,
                                    const cJSON *result);

typedef struct mcp_client_cb_s {
  /* As in mcp_rpc_handler_t. */
  int (*on_request)(void *ud, const cJSON *id, const char *method,
                    const cJSON *params);
  void (*on_notification)(void *ud, const char *method, const cJSON *params);
  void (*on_bad_message)(void *ud, const mcp_error_t *err, const char *text,
                         size_t len);
  void (*on_log)(void *ud, const char *line, size_t len);
  void (*on_lost)(void *ud, const mcp_error_t *err);
  void (*on_closed)(void *ud);
  /* Optional. A new session began after the last one expired: number is
   * its number (2 and up), result its InitializeResult (borrowed). */
  void (*on_session)(void *ud, unsigned number, const cJSON *result);
  /* Optional. The stdio server died (err) and a restart is due: calls
   * fail with ECLOSED until on_session reports the new session, or
   * on_lost the end of the restarts. */
  void (*on_down)(void *ud, const mcp_error_t *err);
} mcp_client_cb_t;

/* A client over a transport that has sessions that can expire (HTTP) sets
 * sessions = 1: it keeps each request's text until it is answered. */
mcp_client_t *mcp_client_new(uv_loop_t *loop, const mcp_rpc_opts_t *opts,
                             int sessions, const mcp_client_cb_t *cb,
                             void *ud);
/* The callbacks and user data a transport must be created with. */
const mcp_transport_cb_t *mcp_client_transport_cb(void);
void *mcp_client_transport_ud(mcp_client_t *c);
/* Takes ownership of t. reset_session (may be NULL) makes the transport
 * forget its session before a new handshake. */
void mcp_client_attach(mcp_client_t *c, mcp_transport_t *t,
                       void (*reset_session)(mcp_transport_t *t));
/* OAuth for the HTTP transport attached (call after mcp_client_attach):
 * the client owns auth from now on. A request the server refuses with 401,
 * or 403 for want of scope, waits for one round of auth (flow.h) and is
 * sent again with the new token, at most 3 times; the round's error
 * (MCP_ENEEDSAUTH, MCP_ENEEDSREG, MCP_EAUTH...) fails it otherwise. */
void mcp_client_use_auth(mcp_client_t *c, mcp_auth_t *auth);
/* Frees a client that never got a transport. */
void mcp_client_discard(mcp_client_t *c);

/* A stdio server (started with opts, which are copied) that dies is
 * started again, up to max times in a row (a good handshake starts the
 * count over), after backoff_ms, doubling each time. Calls made while it
 * is down fail at once with MCP_ECLOSED and its stderr tail; after the new
 * handshake the set-up is restored and on_session reports the session.
 * When no restart is left, on_lost reports the loss as without restarts.
 * Returns 0 or MCP_ENOMEM. */
int mcp_client_restart_stdio(mcp_client_t *c, const mcp_stdio_opts_t *opts,
                             unsigned max, uint64_t backoff_ms);

/* The handshake (see session.h); capabilities and client_info (may be
 * NULL) are copied, for the handshakes of later sessions. */
int mcp_client_initialize(mcp_client_t *c, const cJSON *capabilities,
                          const cJSON *client_info, uint64_t timeout_ms,
                          mcp_client_ready_cb cb, void *data,
                          mcp_error_t *err);
const char *mcp_client_version(const mcp_client_t *c);
/* Which era to speak: "auto" (the default: server/discover decides),
 * "2026-07-28" (that era or EVERSION: no fallback to initialize), or a
 * handshake revision ("2025-11-25"...: initialize at once). Before
 * mcp_client_initialize. 0 or MCP_EINVAL. */
int mcp_client_set_protocol(mcp_client_t *c, const char *protocol,
                            mcp_error_t *err);
/* "modern" (2026-07-28, stateless) or "legacy" (the handshake) once a
 * session began, else NULL. */
const char *mcp_client_era(const mcp_client_t *c);
unsigned mcp_client_session(const mcp_client_t *c);

/* As mcp_rpc_request / mcp_rpc_request_with. */
int mcp_client_request(mcp_client_t *c, const char *method,
                       const cJSON *params, const mcp_rpc_req_opts_t *opts,
                       mcp_rpc_done_cb cb, void *data, uint64_t *id_out,
                       mcp_error_t *err);
int mcp_client_request_with(mcp_client_t *c, const char *method,
                            mcp_jsonrpc_params_cb write_params,
                            void *params_ud, const mcp_rpc_req_opts_t *opts,
                            mcp_rpc_done_cb cb, void *data,
                            uint64_t *id_out, mcp_error_t *err);
int mcp_client_cancel(mcp_client_t *c, uint64_t id, const char *reason);
int mcp_client_notify(mcp_client_t *c, const char *method,
                      const cJSON *params, mcp_error_t *err);
int mcp_client_respond(mcp_client_t *c, const cJSON *id,
                       const cJSON *result, mcp_error_t *err);
int mcp_client_respond_error(mcp_client_t *c, const cJSON *id, int code,
                             const char *message, const cJSON *data,
                             mcp_error_t *err);

/* The rule for a tools/call result (the text received, or else its
 * tree): unless isError is true, its structuredContent must be present and
 * match the tool's outputSchema. Returns 0, MCP_ESCHEMA with why (its
 * keyword "" when there is no structuredContent), or the code that
 * stopped the validation (MCP_ETOOBIG, MCP_ENOMEM) with why->message. */
int mcp_client_check_tool_result(const mcp_schema_t *schema, const char *text,
                                 size_t len, const cJSON *tree, int max_depth,
                                 mcp_schema_failure_t *why);

void mcp_client_close(mcp_client_t *c);
void mcp_client_abort(mcp_client_t *c, const mcp_error_t *err);
int mcp_client_is_open(const mcp_client_t *c);
size_t mcp_client_pending(const mcp_client_t *c);
size_t mcp_client_diagnostics(const mcp_client_t *c, char *out, size_t cap);

#endif
