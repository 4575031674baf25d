/*
 * flow_int.h - what flow.c shares with the file that does a part of its
 * rounds (machine.c: the grants without a person). Not for anyone else:
 * the flow's state is flow.c's, and these functions are its own steps.
 */
#ifndef MCP_AUTH_FLOW_INT_H
#define MCP_AUTH_FLOW_INT_H

#include <cjson/cJSON.h>

#include "auth/callback.h"
#include "auth/challenge.h"
#include "auth/command.h"
#include "auth/dpop.h"
#include "auth/fetch.h"
#include "auth/flow.h"
#include "auth/grant.h"
#include "auth/jwt.h"
#include "auth/metadata.h"
#include "auth/pkce.h"
#include "auth/store.h"

#define MCP_AUTH_FLOW_URLS 4   /* candidate metadata URLs of a step */

typedef enum {
  S_IDLE, S_PRM, S_ASMETA, S_LEGACY, S_REFRESH, S_REGISTER, S_AUTHORIZE,
  S_TOKEN, S_EXCHANGE, S_NONCE, S_ASSERTION
} step_t;

typedef struct waiter_s {
  mcp_auth_done_cb cb;
  void *data;
  struct waiter_s *next;
} waiter_t;

struct mcp_auth_s {
  uv_loop_t *loop;
  mcp_curl_uv_t *cu;
  /* configuration (copies) */
  char *server_url, *resource, *origin;
  char *client_id, *client_secret, *scope, *redirect_cfg, *cimd_url;
  char *client_name, *store_dir, *ca_file;
  char **headers;
  size_t nheaders;
  int callback_port, interactive, insecure;
  mcp_trace_cb trace;
  void *trace_ud;
  uint64_t timeout_ms;
  mcp_auth_authorize_cb on_authorize;
  void *ud;
  mcp_auth_token_cb on_token;
  void *token_ud;
  mcp_auth_grant_t grant;
  char *auth_method, *assertion_path;
  char **assertion_argv;       /* a command that prints the assertion */
  char *idp_token_endpoint, *idp_client_id, *idp_client_secret;
  mcp_jwt_key_t *client_key;   /* private_key_jwt, or NULL */
  int dpop;                    /* DPoP wanted */
  /* DPoP: the key of dpop_issuer's tokens, and each server's nonce */
  mcp_jwt_key_t *dpop_key;
  char *dpop_issuer;
  mcp_dpop_nonce_t as_nonce, rs_nonce;
  unsigned char refused[32];   /* SHA-256 of an assertion refused for
                                  good: never sent again */
  /* what is held */
  mcp_auth_tokens_t tokens;    /* access_token NULL: none */
  char *header;                /* "Authorization: Bearer ..." */
  char *granted_scope;         /* asked for last, for a step-up's union */
  mcp_auth_peer_t peer;
  /* the round */
  step_t step;
  waiter_t *waiters;
  mcp_auth_fetch_t *fetch;
  int status;                  /* 401, 403, or 0 */
  mcp_auth_bearer_t challenge;
  char *urls[MCP_AUTH_FLOW_URLS];
  size_t nurls, url_i;
  mcp_error_t refusal;         /* why the last candidate was refused */
  mcp_auth_prm_t prm;
  mcp_auth_asmeta_t as;
  mcp_auth_client_t client;    /* client_id NULL: none yet */
  char *want_scope;            /* the scope this authorization asks */
  char *redirect_uri;
  char state[64];
  mcp_auth_pkce_t pkce;
  mcp_auth_callback_t *callback;
  mcp_auth_command_t *command; /* the assertion's command, running */
  char *req_endpoint, *req_body, *req_basic;   /* the token request, kept
                                                  for one nonce retry */
  /* private_key_jwt: the form without the client's assertion, and who
   * signs it for whom, so that the retry carries a fresh one (a jti is
   * used once, RFC 7523 section 3). NULL otherwise. */
  char *req_form, *req_signer, *req_audience;
  unsigned char req_assertion[32];  /* SHA-256 of the assertion it sends */
  char fetch_nonce[MCP_DPOP_MAX_NONCE];   /* the answer's DPoP-Nonce */
  unsigned nonce_retried : 1;  /* the token request went again once */
  unsigned proof_sent : 1;     /* it carried a DPoP proof */
  unsigned nonce_ok : 1;       /* S_NONCE: the MCP server's nonce is new */
  uv_timer_t person_timer;     /* the person's step */
  uv_timer_t refresh_timer;    /* before the token expires */
  uv_timer_t kick;             /* starts a round from the loop */
  int handles;                 /* open timers */
  unsigned closing : 1;
  unsigned background : 1;     /* the round is a timed refresh */
};


/* flow.c: ends the round (err NULL: a token is held), or with a message. */
void mcp__auth_finish(mcp_auth_t *a, const mcp_error_t *err);
void mcp__auth_fail(mcp_auth_t *a, int code, const char *fmt,
                    const char *detail);
/* flow.c: one request to a token endpoint, with client's authentication;
 * its answer comes back in step (S_TOKEN, S_EXCHANGE). */
void mcp__auth_token_request(mcp_auth_t *a, int step, const char *endpoint,
                             const mcp_auth_client_t *client,
                             const char **kv, size_t n);
/* flow.c: the RFC 8707 resource; the configured client for the issuer;
 * the scope to ask for (into a->want_scope). */
const char *mcp__auth_resource(const mcp_auth_t *a);
int mcp__auth_load_client(mcp_auth_t *a, const char *issuer);
int mcp__auth_choose_scope(mcp_auth_t *a);

/* machine.c: the grant oauth.grant names, in place of an authorization;
 * and the enterprise IdP's answer to its token exchange (S_EXCHANGE). */
void mcp__auth_machine_grant(mcp_auth_t *a);
void mcp__auth_exchanged(mcp_auth_t *a, int status, const cJSON *doc,
                         const mcp_error_t *err);

#endif
