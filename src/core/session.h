/*
 * session.h - the MCP session of the handshake era (2025-11-25 and older):
 * `initialize`, version negotiation, `notifications/initialized`, and what
 * the server told us about itself.
 *
 * The session rides on an rpc endpoint it does not own. The struct is
 * public so owners can embed it; treat its fields as read-only.
 */
#ifndef MCP_SESSION_H
#define MCP_SESSION_H

#include <cjson/cJSON.h>

#include "rpc.h"

#define MCP_LATEST_VERSION "2025-11-25"
/* The stateless era's revision (era_stateless.c). */
#define MCP_STATELESS_VERSION "2026-07-28"

typedef void (*mcp_session_ready_cb)(void *data, const mcp_error_t *err,
                                     const cJSON *result);

typedef struct mcp_session_s {
  mcp_rpc_t *rpc;              /* borrowed */
  char version[16];            /* the negotiated revision, "" before */
  cJSON *init_result;          /* the server's InitializeResult, owned */
  mcp_session_ready_cb cb;
  void *data;
  int initializing;
  int stateless;               /* the session is of the stateless era */
} mcp_session_t;

void mcp_session_init(mcp_session_t *s, mcp_rpc_t *rpc);
void mcp_session_free(mcp_session_t *s);

/* Returns 1 when luamcp speaks this revision. */
int mcp_session_version_supported(const char *version);

/* Sends `initialize` offering MCP_LATEST_VERSION with the given capabilities
 * and clientInfo (both borrowed; clientInfo NULL means luamcp's own). On a
 * good answer sends `notifications/initialized` and calls cb with the
 * result. An unsupported version completes with MCP_EVERSION and closes
 * the endpoint. The request is never cancelled. */
int mcp_session_initialize(mcp_session_t *s, const cJSON *capabilities,
                           const cJSON *client_info, uint64_t timeout_ms,
                           mcp_session_ready_cb cb, void *data,
                           mcp_error_t *err);

#endif
