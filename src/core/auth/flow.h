/*
 * flow.h - the OAuth 2.1 client of one MCP server: what the client object
 * (client.h) calls when the server answers 401, or 403 for want of scope.
 *
 * A round, started by mcp_auth_challenge, runs, in the order of the MCP
 * specification (2025-11-25 and 2026-07-28 alike):
 *   1. protected-resource metadata (RFC 9728): the challenge's
 *      resource_metadata, else the path-aware, then the root well-known
 *      URL; without any, the 2025-03-26 fallbacks (metadata at the
 *      server's origin, else its /authorize, /token, /register);
 *   2. authorization-server metadata (RFC 8414, then OpenID Connect, in
 *      the order for issuers with and without a path), whose issuer must
 *      be the one asked for;
 *   3. on a 401, a refresh when the tokens held come from that same
 *      server and have a refresh token;
 *   4. else an authorization: client identity (configured credentials, a
 *      client ID metadata document, dynamic registration), PKCE S256, a
 *      state, RFC 8707 resource, the scope the specification chooses, the
 *      browser (or the owner's on_authorize) sent to the authorization
 *      endpoint, the code taken at a loopback redirect server, the RFC
 *      9207 issuer checked, the code exchanged for tokens.
 * Tokens and registrations are kept by store.h, keyed by issuer and
 * resource; tokens held are refreshed before they expire. Rounds are not
 * run twice at once: a challenge that comes while one runs waits for it.
 *
 * Without interactive set, a round that needs a person fails with
 * MCP_ENEEDSAUTH, or MCP_ENEEDSREG when no client identity can be had,
 * and the message says which command to run. Nothing is ever logged with
 * a token in it.
 */
#ifndef MCP_AUTH_FLOW_H
#define MCP_AUTH_FLOW_H

#include <stdint.h>

#include <uv.h>

#include "curl_uv.h"
#include "error.h"

typedef struct mcp_auth_s mcp_auth_t;

typedef struct mcp_auth_opts_s {
  const char *server_url;            /* the MCP endpoint */
  const char *client_id;             /* pre-registered, or NULL */
  const char *client_secret;         /* with it, or NULL */
  const char *scope;                 /* NULL: chosen as the spec says */
  const char *redirect_uri;          /* NULL: http://127.0.0.1:<port>/callback */
  int callback_port;                 /* 0: an ephemeral port */
  const char *client_metadata_url;   /* a client ID metadata document */
  const char *client_name;           /* NULL: "luamcp" */
  const char *store_dir;             /* NULL: mcp_auth_store_dir(); "":
                                        nothing kept on disk */
  const char *const *headers;        /* configured "Name: value" lines, sent
                                        to the MCP server's origin */
  size_t nheaders;
  int interactive;                   /* 0: ENEEDSAUTH, never a browser */
  uint64_t timeout_ms;               /* the person's step; 0: 5 minutes */
  const char *ca_file;
  int insecure;
  mcp_trace_cb trace;                /* optional: the flow's requests */
  void *trace_ud;
} mcp_auth_opts_t;

/* Shows the authorization URL to whoever will open it. NULL: the browser
 * ($BROWSER, else xdg-open), and the URL printed on stderr. */
typedef void (*mcp_auth_authorize_cb)(void *ud, const char *url);
/* A round ended: err NULL when a new token is held. */
typedef void (*mcp_auth_done_cb)(void *data, const mcp_error_t *err);
/* The token changed (header: "Authorization: Bearer ...", or NULL). */
typedef void (*mcp_auth_token_cb)(void *ud, const char *header);

/* Copies o. Loads the tokens stored for the server, if any. */
int mcp_auth_new(uv_loop_t *loop, mcp_curl_uv_t *cu, const mcp_auth_opts_t *o,
                 mcp_auth_authorize_cb on_authorize, void *ud,
                 mcp_auth_t **out, mcp_error_t *err);
/* The one who sends the header (the client object) hears of new tokens. */
void mcp_auth_watch(mcp_auth_t *a, mcp_auth_token_cb cb, void *ud);
/* "Authorization: Bearer <token>" for the token held, or NULL. */
const char *mcp_auth_header(const mcp_auth_t *a);
/* The server answered status (401 or 403) with challenge (its
 * WWW-Authenticate, or NULL): runs a round, or joins the one running. cb
 * is called once, from the loop, unless the flow is closed first. */
int mcp_auth_challenge(mcp_auth_t *a, int status, const char *challenge,
                       mcp_auth_done_cb cb, void *data, mcp_error_t *err);
/* Cancels what runs (its callbacks are not called) and frees a, after
 * its handles have closed. */
void mcp_auth_close(mcp_auth_t *a);

#endif
