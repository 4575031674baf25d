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
 * Grants without a person (oauth.grant, see grant.h; machine.c) replace
 * step 4: client_credentials (a secret, or a private_key_jwt assertion
 * signed with the configured key), jwt_bearer (a workload's JWT read from
 * a file, or printed by a command, before each request), token_exchange
 * (an identity assertion exchanged at the enterprise IdP for an ID-JAG,
 * then jwt_bearer). They never open a browser, never register, and a
 * definitive refusal is not retried with the same assertion nor answered
 * with another grant. Their tokens are renewed before they expire by
 * running the grant again.
 *
 * DPoP (RFC 9449, oauth.dpop): where the authorization server supports
 * ES256 proofs, a key pair kept per issuer (store.h) signs a proof for
 * every token request and, when the token is DPoP-bound, for every
 * request to the MCP server (mcp_auth_proof), whose Authorization scheme
 * is then DPoP. A use_dpop_nonce refusal, from either server, sends the
 * request again once with the nonce that server gave (dpop.h).
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
  const char *grant;                 /* NULL: authorization_code (grant.h) */
  const char *private_key;           /* PEM file: private_key_jwt */
  const char *auth_method;           /* NULL: from the metadata and what
                                        is configured */
  const char *assertion;             /* file: the workload JWT (jwt_bearer)
                                        or the identity assertion
                                        (token_exchange) */
  const char *const *assertion_command;  /* or a command printing it
                                            (NULL-terminated argv) */
  const char *idp_token_endpoint;    /* token_exchange: the IdP's */
  const char *idp_client_id;         /* and the client there, or NULL */
  const char *idp_client_secret;
  int dpop;                          /* 1: DPoP-bound tokens where the
                                        authorization server offers them */
} mcp_auth_opts_t;

/* Shows the authorization URL to whoever will open it. NULL: the browser
 * ($BROWSER, else xdg-open), and the URL printed on stderr. */
typedef void (*mcp_auth_authorize_cb)(void *ud, const char *url);
/* A round ended: err NULL when a new token is held. */
typedef void (*mcp_auth_done_cb)(void *data, const mcp_error_t *err);
/* The token changed (header: "Authorization: Bearer ..." or
 * "Authorization: DPoP ...", or NULL). */
typedef void (*mcp_auth_token_cb)(void *ud, const char *header);

/* Copies o. Loads the tokens stored for the server, if any. */
int mcp_auth_new(uv_loop_t *loop, mcp_curl_uv_t *cu, const mcp_auth_opts_t *o,
                 mcp_auth_authorize_cb on_authorize, void *ud,
                 mcp_auth_t **out, mcp_error_t *err);
/* The one who sends the header (the client object) hears of new tokens. */
void mcp_auth_watch(mcp_auth_t *a, mcp_auth_token_cb cb, void *ud);
/* The Authorization line for the token held, or NULL. */
const char *mcp_auth_header(const mcp_auth_t *a);
/* "DPoP: <proof>" for a request to the MCP server (method, url) when
 * the token held is DPoP-bound; *line NULL otherwise. The caller frees
 * *line. */
int mcp_auth_proof(mcp_auth_t *a, const char *method, const char *url,
                   char **line, mcp_error_t *err);
/* The MCP server sent a DPoP-Nonce header: used in the next proofs. */
void mcp_auth_nonce(mcp_auth_t *a, const char *nonce);
/* The server answered status (401 or 403) with challenge (its
 * WWW-Authenticate, or NULL): runs a round, or joins the one running. cb
 * is called once, from the loop, unless the flow is closed first. */
int mcp_auth_challenge(mcp_auth_t *a, int status, const char *challenge,
                       mcp_auth_done_cb cb, void *data, mcp_error_t *err);
/* Cancels what runs (its callbacks are not called) and frees a, after
 * its handles have closed. */
void mcp_auth_close(mcp_auth_t *a);

#endif
