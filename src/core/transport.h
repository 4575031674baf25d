/*
 * transport.h - what the RPC layer needs from a transport: send one
 * message, hear of messages, learn that the peer is gone, close.
 *
 * Transports frame and carry bytes; they do not parse JSON-RPC (rpc.c
 * does). Every transport reports each incoming message whole, reports an
 * over-limit message by size and id, and calls on_lost exactly once when
 * it can carry no more messages. After close, on_closed comes exactly once,
 * from the loop, when every resource is released; the transport frees
 * itself right after it.
 */
#ifndef MCP_TRANSPORT_H
#define MCP_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

typedef struct mcp_transport_s mcp_transport_t;

typedef struct mcp_transport_cb_s {
  /* text is one whole message, valid only during the call. */
  void (*on_message)(void *ud, const char *text, size_t len);
  /* A message over the limit was dropped; id is its raw top-level id. */
  void (*on_oversize)(void *ud, size_t size, const char *id, size_t id_len);
  /* A line of diagnostics from the peer (a child's stderr). */
  void (*on_log)(void *ud, const char *line, size_t len);
  /* No more messages will come or go; err says why. */
  void (*on_lost)(void *ud, const mcp_error_t *err);
  void (*on_closed)(void *ud);
  /* Transports that carry each request separately (HTTP) report here that
   * the request with this id can get no answer (its POST failed). */
  void (*on_request_failed)(void *ud, uint64_t id, const mcp_error_t *err);
  /* Whether the request with this id still waits for its answer, so that
   * a broken stream is worth resuming. */
  int (*is_pending)(void *ud, uint64_t id);
} mcp_transport_cb_t;

typedef struct mcp_transport_vt_s {
  /* Sends one message (text without a trailing newline). request_id is
   * the id of a request we send, 0 for anything else. */
  int (*send)(mcp_transport_t *t, const char *text, size_t len,
              uint64_t request_id, mcp_error_t *err);
  /* Begins an orderly close. Idempotent. */
  void (*close)(mcp_transport_t *t);
  /* Copies the peer's recent diagnostics (stderr tail); returns length. */
  size_t (*diagnostics)(const mcp_transport_t *t, char *out, size_t cap);
  /* Optional. The handshake is done with this protocol version: HTTP
   * starts sending MCP-Protocol-Version and opens its GET stream. */
  void (*initialized)(mcp_transport_t *t, const char *version);
  /* Optional. The request ended here (timeout, cancel): stop carrying it. */
  void (*cancel_request)(mcp_transport_t *t, uint64_t id);
  /* Optional. From now on the server is asked in the stateless era at
   * this version (NULL: the handshake era's ways again): HTTP sends
   * MCP-Protocol-Version on every POST with Mcp-Method and Mcp-Name, no
   * session id, opens no GET stream, and never falls back to the legacy
   * transport. */
  void (*set_era)(mcp_transport_t *t, const char *stateless_version);
} mcp_transport_vt_t;

struct mcp_transport_s {
  const mcp_transport_vt_t *vt;
};

#endif
