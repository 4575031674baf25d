/*
 * era.h - the seam between the client and the protocol era a server
 * speaks: how a session begins and what was agreed. The client owns all
 * the rest (numbering, renewal, restore, resend, restarts) and calls only
 * this to start a session.
 *
 * Today there is one era, the handshake of 2025-11-25 and its
 * predecessors (session.c: initialize, version negotiation,
 * notifications/initialized). The stateless 2026-07-28 era (server/discover,
 * per-request _meta) comes behind the same seam.
 */
#ifndef MCP_ERA_H
#define MCP_ERA_H

#include "session.h"

typedef struct mcp_era_s {
  const char *name;            /* the era's latest revision */
  /* Begins a session over s's endpoint with the client's capabilities and
   * clientInfo (borrowed); cb gets what the server said about itself. */
  int (*begin)(mcp_session_t *s, const cJSON *capabilities,
               const cJSON *client_info, uint64_t timeout_ms,
               mcp_session_ready_cb cb, void *data, mcp_error_t *err);
} mcp_era_t;

/* The handshake era (2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05). */
extern const mcp_era_t mcp_era_handshake;
/* Either era, as the server's answer to server/discover says
 * (era_stateless.c): the stateless era (2026-07-28), else the
 * handshake. */
extern const mcp_era_t mcp_era_auto;
/* The stateless era only: a server of the older era is EVERSION. */
extern const mcp_era_t mcp_era_stateless;

#endif
