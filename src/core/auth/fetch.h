/*
 * fetch.h - one HTTP exchange of the OAuth flow: a metadata GET, or a
 * form (or JSON) POST to a token or registration endpoint, whose answer is
 * a JSON document.
 *
 * Every such URL came from a server and is untrusted: the answer has a
 * size limit, redirects are followed only within the same origin, and the
 * connection is refused (MCP_EREFUSED) when the address it reaches is
 * private, loopback or link-local, unless it is the MCP server's own
 * address (server-side request forgery).
 */
#ifndef MCP_AUTH_FETCH_H
#define MCP_AUTH_FETCH_H

#include <cjson/cJSON.h>

#include "curl_uv.h"
#include "error.h"

#define MCP_AUTH_MAX_DOCUMENT (256u * 1024u)

typedef struct mcp_auth_fetch_s mcp_auth_fetch_t;

/* The MCP server's host and its address as first seen; shared by the
 * fetches of one flow. */
typedef struct mcp_auth_peer_s {
  char host[256];       /* the MCP server URL's host */
  char ip[64];          /* its address, once a fetch has reached it */
} mcp_auth_peer_t;

typedef struct mcp_auth_fetch_opts_s {
  const char *method;                 /* "GET" or "POST" */
  const char *url;
  const char *body;                   /* POST only */
  const char *content_type;           /* of the body */
  const char *const *headers;         /* more "Name: value" lines */
  size_t nheaders;
  long timeout_ms;
  mcp_auth_peer_t *peer;              /* NULL: no address check */
  const char *ca_file;
  int insecure;
  mcp_trace_cb trace;                 /* optional, as in mcp_http_opts_t */
  void *trace_ud;
  char *nonce;                        /* optional: gets the answer's
                                         DPoP-Nonce header ("" if none),
                                         at most nonce_cap - 1 bytes */
  size_t nonce_cap;
} mcp_auth_fetch_opts_t;

/* status: the HTTP status (0 when err); doc: the answer as JSON, NULL
 * when it is not (doc is freed after the call). */
typedef void (*mcp_auth_fetch_cb)(void *ud, int status, const cJSON *doc,
                                  const mcp_error_t *err);

int mcp_auth_fetch_start(mcp_curl_uv_t *cu, const mcp_auth_fetch_opts_t *o,
                         mcp_auth_fetch_cb cb, void *ud,
                         mcp_auth_fetch_t **out, mcp_error_t *err);
/* The callback is not called after this. */
void mcp_auth_fetch_cancel(mcp_auth_fetch_t *f);

#endif
