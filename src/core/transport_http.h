/*
 * transport_http.h - MCP over HTTP: Streamable HTTP (2025-03-26 and later)
 * and the legacy HTTP+SSE transport (2024-11-05), on the curl_uv engine.
 *
 * Each message is a POST; answers come as JSON or as an SSE stream; a GET
 * stream carries what the server sends on its own. Streams that break are
 * resumed with Last-Event-ID; a 404 for a request that carried a session
 * id fails that request with MCP_ESESSION (the owner re-initializes); a
 * server that stays unreachable is reported lost. In auto mode a 400, 404
 * or 405 to the first POST switches to the legacy transport, as the
 * specification's backwards-compatibility procedure says.
 */
#ifndef MCP_TRANSPORT_HTTP_H
#define MCP_TRANSPORT_HTTP_H

#include <uv.h>

#include "curl_uv.h"
#include "transport.h"

typedef enum {
  MCP_HTTP_AUTO = 0,         /* Streamable HTTP, falling back to legacy */
  MCP_HTTP_STREAMABLE,
  MCP_HTTP_SSE               /* the 2024-11-05 HTTP+SSE transport */
} mcp_http_mode_t;

typedef struct mcp_http_transport_opts_s {
  const char *url;
  mcp_http_mode_t mode;
  const char *const *headers;  /* extra "Name: value" lines */
  size_t nheaders;
  size_t max_message;          /* bytes of a JSON body or an SSE event */
  long connect_timeout_ms;     /* 0: libcurl's */
  long idle_timeout_ms;        /* a silent GET stream is reconnected after
                                  this; 0: five minutes */
  int max_failures;            /* consecutive failed reconnects before the
                                  server is declared gone; 0: 5 */
  const char *ca_file, *ca_path, *cert, *key;
  int insecure;
  mcp_trace_cb trace;          /* optional: every request's headers */
  void *trace_ud;
} mcp_http_transport_opts_t;

int mcp_transport_http_new(uv_loop_t *loop, mcp_curl_uv_t *cu,
                           const mcp_http_transport_opts_t *opts,
                           const mcp_transport_cb_t *cb, void *ud,
                           mcp_transport_t **out, mcp_error_t *err);

/* Replaces the extra headers sent from now on (rotating credentials). */
int mcp_transport_http_set_headers(mcp_transport_t *t,
                                   const char *const *headers, size_t n);

/* The "Authorization: ..." line sent from now on, or NULL for none (the
 * OAuth token, kept apart from the configured headers). */
int mcp_transport_http_set_authorization(mcp_transport_t *t,
                                         const char *line);

/* The Mcp-Param-* headers of tool's calls in the 2026-07-28 era, from its
 * x-mcp-header parameters: see mcp_routing_declare (routing.h). */
int mcp_transport_http_declare_params(mcp_transport_t *t, const char *tool,
                                      const char *decl, mcp_error_t *err);

/* DPoP (RFC 9449): proof makes the "DPoP: ..." line of each request
 * sent with an Authorization line (*line NULL: none; the transport frees
 * it); on_nonce hears every DPoP-Nonce header the server sends. NULL
 * proof: none. */
typedef int (*mcp_http_proof_cb)(void *ud, const char *method,
                                 const char *url, char **line,
                                 mcp_error_t *err);
void mcp_transport_http_set_proof(mcp_transport_t *t, mcp_http_proof_cb proof,
                                  void (*on_nonce)(void *ud,
                                                   const char *nonce),
                                  void *ud);

/* Forgets the session id (before initializing a new session). */
void mcp_transport_http_reset_session(mcp_transport_t *t);

/* "streamable-http" or "sse" once known, else NULL. */
const char *mcp_transport_http_kind(const mcp_transport_t *t);

#endif
