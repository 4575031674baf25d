/*
 * flow.c - the OAuth 2.1 client of one MCP server (see flow.h).
 *
 * One round at a time, as a chain of steps: each step starts one fetch
 * (fetch.h) or waits for the redirect (callback.h), and its completion
 * starts the next step or ends the round. Round data lives in the object
 * and is reset when a round ends.
 */
#include "auth/flow.h"
#include "auth/flow_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "auth/browser.h"
#include "auth/callback.h"
#include "auth/challenge.h"
#include "auth/command.h"
#include "auth/dpop.h"
#include "auth/fetch.h"
#include "auth/grant.h"
#include "auth/jwt.h"
#include "auth/metadata.h"
#include "auth/pkce.h"
#include "auth/store.h"
#include "auth/urls.h"
#include "curl_dl.h"
#include "json.h"

#define FETCH_TIMEOUT_MS 30000
#define PERSON_TIMEOUT_MS (5u * 60u * 1000u)
#define REFRESH_EARLY_S 60       /* refresh this long before expiry */
#define REFRESH_MIN_S 5          /* and never sooner than this */
#define MAX_HEADERS 16

static void next_prm(mcp_auth_t *a);
static void free_config(mcp_auth_t *a);
static void close_now(mcp_auth_t *a);
static void next_asmeta(mcp_auth_t *a);
static void have_metadata(mcp_auth_t *a);
static void need_authorization(mcp_auth_t *a);
static void authorize(mcp_auth_t *a);

static char *
dup_string(const char *s)
{
  size_t n;
  char *d;

  if (s == NULL)
    return NULL;
  n = strlen(s) + 1;
  d = malloc(n);
  if (d != NULL)
    memcpy(d, s, n);
  return d;
}

/* Replaces *slot with a copy of s; MCP_ENOMEM when it cannot. */
static int
set_string(char **slot, const char *s)
{
  char *d = dup_string(s);

  if (s != NULL && d == NULL)
    return MCP_ENOMEM;
  free(*slot);
  *slot = d;
  return 0;
}

static void
free_urls(mcp_auth_t *a)
{
  size_t i;

  for (i = 0; i < a->nurls; i++)
    free(a->urls[i]);
  a->nurls = a->url_i = 0;
}

/* ---- ending a round ------------------------------------------------------ */

static void
stop_person_step(mcp_auth_t *a)
{
  if (a->callback != NULL) {
    mcp_auth_callback_close(a->callback);
    a->callback = NULL;
  }
  uv_timer_stop(&a->person_timer);
}

/* Overwrites and frees the token request kept for a retry. */
static void
forget_request(mcp_auth_t *a)
{
  if (a->req_body != NULL)
    memset(a->req_body, 0, strlen(a->req_body));
  if (a->req_basic != NULL)
    memset(a->req_basic, 0, strlen(a->req_basic));
  free(a->req_body);
  free(a->req_basic);
  free(a->req_endpoint);
  free(a->req_form);
  free(a->req_signer);
  free(a->req_audience);
  a->req_body = a->req_basic = a->req_endpoint = NULL;
  a->req_form = a->req_signer = a->req_audience = NULL;
  memset(a->req_assertion, 0, sizeof a->req_assertion);
}

static void
reset_round(mcp_auth_t *a)
{
  stop_person_step(a);
  forget_request(a);
  mcp_auth_command_cancel(a->command);
  a->command = NULL;
  uv_timer_stop(&a->kick);
  if (a->fetch != NULL) {
    mcp_auth_fetch_cancel(a->fetch);
    a->fetch = NULL;
  }
  mcp_auth_bearer_free(&a->challenge);
  free_urls(a);
  mcp_auth_prm_free(&a->prm);
  mcp_auth_asmeta_free(&a->as);
  mcp_auth_client_free(&a->client);
  free(a->want_scope);
  free(a->redirect_uri);
  a->want_scope = a->redirect_uri = NULL;
  memset(&a->pkce, 0, sizeof a->pkce);
  memset(a->state, 0, sizeof a->state);
  mcp_error_clear(&a->refusal);
  a->step = S_IDLE;
  a->background = 0;
}

/* Ends the round: err NULL when a token is held. */
static void
finish(mcp_auth_t *a, const mcp_error_t *err)
{
  waiter_t *w = a->waiters, *next;
  mcp_error_t copy;

  if (err != NULL)
    copy = *err;
  a->waiters = NULL;
  reset_round(a);
  for (; w != NULL; w = next) {
    next = w->next;
    w->cb(w->data, err != NULL ? &copy : NULL);
    free(w);
  }
}

static void
fail(mcp_auth_t *a, int code, const char *fmt, const char *detail)
{
  mcp_error_t err;

  mcp_error_set(&err, code, fmt, detail);
  finish(a, &err);
}

/* ---- tokens held --------------------------------------------------------- */

static void refresh_due(uv_timer_t *t);

static int
keep_on_disk(const mcp_auth_t *a)
{
  return a->store_dir != NULL;
}

/* The token held is DPoP-bound, and its key is at hand. */
static int
is_dpop(const mcp_auth_t *a)
{
  return a->tokens.token_type != NULL &&
         strcmp(a->tokens.token_type, "DPoP") == 0 && a->dpop_key != NULL;
}

/* The DPoP key for issuer: the one in use, else the one kept, else a new
 * one (kept at once, so the tokens it binds stay usable). 0 or an
 * error; generate 0: only a kept key. */
static int
dpop_key_for(mcp_auth_t *a, const char *issuer, int generate,
             mcp_error_t *err)
{
  mcp_auth_dpop_key_t kept;
  mcp_jwt_key_t *key = NULL;
  int rc;

  if (a->dpop_key != NULL && a->dpop_issuer != NULL &&
      strcmp(a->dpop_issuer, issuer) == 0)
    return 0;
  memset(&kept, 0, sizeof kept);
  rc = MCP_ENOENT;
  if (keep_on_disk(a) &&
      mcp_auth_store_load_dpop_key(a->store_dir, issuer, &kept, err) == 0)
    rc = mcp_jwt_key_import(kept.key, &key, err);
  mcp_auth_dpop_key_free(&kept);
  if (rc != 0 && !generate)
    return rc;
  if (rc != 0) {
    rc = mcp_jwt_key_generate(&key, err);
    if (rc != 0)
      return rc;
    /* Kept beside the tokens it will bind. A store that cannot be
     * written costs what it costs for tokens: this process keeps the
     * key, the next one binds new tokens to a new key. */
    if (keep_on_disk(a)) {
      kept.issuer = dup_string(issuer);
      if (kept.issuer != NULL &&
          mcp_jwt_key_export(key, &kept.key, err) == 0)
        mcp_auth_store_save_dpop_key(a->store_dir, &kept, err);
      mcp_auth_dpop_key_free(&kept);
      mcp_error_clear(err);
    }
  }
  mcp_jwt_key_free(a->dpop_key);
  a->dpop_key = key;
  /* A new server's nonces are not the old one's. */
  memset(&a->as_nonce, 0, sizeof a->as_nonce);
  memset(&a->rs_nonce, 0, sizeof a->rs_nonce);
  if (set_string(&a->dpop_issuer, issuer) != 0)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  return 0;
}

/* The header for the token held, told to the watcher; the refresh timer
 * set for its expiry. */
static int
use_tokens(mcp_auth_t *a)
{
  const char *scheme = is_dpop(a) ? "DPoP" : "Bearer";
  char *h = NULL;
  long long now = (long long) time(NULL), due;
  size_t len;

  if (a->tokens.access_token != NULL) {
    len = strlen(a->tokens.access_token) + 32;
    h = malloc(len);
    if (h == NULL)
      return MCP_ENOMEM;
    /* RFC 9449 section 7.1: a bound token goes with the DPoP scheme. */
    snprintf(h, len, "Authorization: %s %s", scheme, a->tokens.access_token);
  }
  if (a->header != NULL)
    memset(a->header, 0, strlen(a->header));
  free(a->header);
  a->header = h;
  uv_timer_stop(&a->refresh_timer);
  /* Tokens of a grant without a person are renewed by running it
   * again (they rarely come with a refresh token). */
  if ((a->tokens.refresh_token != NULL || a->grant != MCP_AUTH_CODE) &&
      a->tokens.expires_at > 0 && a->tokens.token_endpoint != NULL) {
    /* A minute before it expires, or after three quarters of a short
     * life, so a token of a few seconds is not refreshed in a loop. */
    due = a->tokens.expires_at - now;
    if (due - REFRESH_EARLY_S > due * 3 / 4)
      due -= REFRESH_EARLY_S;
    else
      due = due * 3 / 4;
    /* A server that hands out tokens of a second or none gets no loop
     * of refreshes: at most one every REFRESH_MIN_S. */
    if (due < REFRESH_MIN_S)
      due = REFRESH_MIN_S;
    uv_timer_start(&a->refresh_timer, refresh_due, (uint64_t) due * 1000u, 0);
  }
  if (a->on_token != NULL)
    a->on_token(a->token_ud, a->header);
  return 0;
}

static void
forget_tokens(mcp_auth_t *a)
{
  mcp_error_t ignored;

  if (keep_on_disk(a) && a->tokens.resource != NULL)
    mcp_auth_store_delete_tokens(a->store_dir, a->resource, &ignored);
  mcp_auth_tokens_free(&a->tokens);
  use_tokens(a);
}

/* The RFC 8707 resource: what the protected-resource metadata names, or
 * the server's own canonical URI. */
static const char *
resource_param(const mcp_auth_t *a)
{
  return a->prm.resource != NULL ? a->prm.resource : a->resource;
}

/* ---- fetching ------------------------------------------------------------ */

static void fetched(void *ud, int status, const cJSON *doc,
                    const mcp_error_t *err);

/* Starts one fetch of the round. to_server: the request goes to the MCP
 * server's origin and carries the configured headers. */
static int
start_fetch(mcp_auth_t *a, const char *method, const char *url,
            const char *body, const char *content_type,
            const char *const *extra, size_t nextra)
{
  const char *lines[MAX_HEADERS];
  mcp_auth_fetch_opts_t o;
  mcp_error_t err;
  size_t n = 0, i;
  char *origin = NULL;

  for (i = 0; i < nextra && n < MAX_HEADERS; i++)
    lines[n++] = extra[i];
  if (mcp_auth_origin(url, &origin, &err) == 0 &&
      strcmp(origin, a->origin) == 0) {
    for (i = 0; i < a->nheaders && n < MAX_HEADERS; i++)
      lines[n++] = a->headers[i];
  }
  free(origin);
  memset(&o, 0, sizeof o);
  o.method = method;
  o.url = url;
  o.body = body;
  o.content_type = content_type;
  o.headers = lines;
  o.nheaders = n;
  o.timeout_ms = FETCH_TIMEOUT_MS;
  o.peer = &a->peer;
  o.ca_file = a->ca_file;
  o.insecure = a->insecure;
  o.trace = a->trace;
  o.trace_ud = a->trace_ud;
  o.nonce = a->fetch_nonce;
  o.nonce_cap = sizeof a->fetch_nonce;
  if (mcp_auth_fetch_start(a->cu, &o, fetched, a, &a->fetch, &err) != 0) {
    finish(a, &err);
    return -1;
  }
  return 0;
}

/* ---- 1. protected-resource metadata ------------------------------------- */

static void
start_round(mcp_auth_t *a)
{
  char *prm[2];
  size_t n = 0, i;
  mcp_error_t err;

  if (a->challenge.resource_metadata != NULL) {
    if (!mcp_auth_url_allowed(a->challenge.resource_metadata)) {
      fail(a, MCP_EREFUSED, "the server's resource_metadata %.120s is "
           "neither https nor loopback http: not fetched",
           a->challenge.resource_metadata);
      return;
    }
    a->urls[a->nurls++] = dup_string(a->challenge.resource_metadata);
  }
  if (mcp_auth_prm_urls(a->server_url, prm, &n, &err) != 0) {
    finish(a, &err);
    return;
  }
  for (i = 0; i < n; i++) {
    if (a->nurls < MCP_AUTH_FLOW_URLS && (a->nurls == 0 ||
                                strcmp(a->urls[0], prm[i]) != 0))
      a->urls[a->nurls++] = prm[i];
    else
      free(prm[i]);
  }
  a->step = S_PRM;
  next_prm(a);
}

static void
next_prm(mcp_auth_t *a)
{
  mcp_error_t err;
  char *base = NULL;

  if (a->url_i < a->nurls) {
    start_fetch(a, "GET", a->urls[a->url_i++], NULL, NULL, NULL, 0);
    return;
  }
  if (a->refusal.code == MCP_EAUTH) {
    /* A document that named another resource is not skipped over. */
    finish(a, &a->refusal);
    return;
  }
  /* No protected-resource metadata anywhere: the 2025-03-26 way, the
   * authorization server at the MCP server's own origin. */
  free_urls(a);
  if (mcp_auth_origin(a->server_url, &base, &err) != 0) {
    finish(a, &err);
    return;
  }
  a->urls[0] = malloc(strlen(base) + 40);
  if (a->urls[0] == NULL) {
    free(base);
    fail(a, MCP_ENOMEM, "%s", "out of memory");
    return;
  }
  sprintf(a->urls[0], "%s/.well-known/oauth-authorization-server", base);
  a->nurls = 1;
  a->url_i = 1;
  free(base);
  a->step = S_LEGACY;
  {
    static const char *const version[] = {
      "MCP-Protocol-Version: 2025-03-26"
    };
    start_fetch(a, "GET", a->urls[0], NULL, NULL, version, 1);
  }
}

static void
prm_fetched(mcp_auth_t *a, int status, const cJSON *doc,
            const mcp_error_t *err)
{
  mcp_error_t e;
  char *as_urls[3];
  size_t n = 0, i;

  if (err != NULL && err->code == MCP_EREFUSED) {
    finish(a, err);
    return;
  }
  if (err != NULL || status != 200 || doc == NULL) {
    next_prm(a);
    return;
  }
  if (mcp_auth_prm_read(doc, a->resource, &a->prm, &e) != 0) {
    a->refusal = e;
    next_prm(a);
    return;
  }
  /* 2. The authorization server's metadata, in the specification's
   * order. */
  free_urls(a);
  if (mcp_auth_as_metadata_urls(a->prm.authorization_server, as_urls, &n,
                                &e) != 0) {
    finish(a, &e);
    return;
  }
  for (i = 0; i < n; i++)
    a->urls[i] = as_urls[i];
  a->nurls = n;
  a->step = S_ASMETA;
  next_asmeta(a);
}

/* ---- 2. authorization-server metadata ------------------------------------ */

static void
next_asmeta(mcp_auth_t *a)
{
  if (a->url_i < a->nurls) {
    start_fetch(a, "GET", a->urls[a->url_i++], NULL, NULL, NULL, 0);
    return;
  }
  if (a->refusal.code != 0) {
    finish(a, &a->refusal);
    return;
  }
  fail(a, MCP_EAUTH, "no metadata found for the authorization server %.120s",
       a->prm.authorization_server);
}

static void
asmeta_fetched(mcp_auth_t *a, int status, const cJSON *doc,
               const mcp_error_t *err)
{
  mcp_error_t e;

  if (err != NULL && err->code == MCP_EREFUSED) {
    finish(a, err);
    return;
  }
  if (err != NULL || status != 200 || doc == NULL) {
    next_asmeta(a);
    return;
  }
  /* Metadata naming another issuer is not used at all (no endpoint of it
   * is ever called), and the next URL is tried. */
  if (mcp_auth_asmeta_read(doc, a->prm.authorization_server, &a->as,
                           &e) != 0) {
    a->refusal = e;
    next_asmeta(a);
    return;
  }
  have_metadata(a);
}

static void
legacy_fetched(mcp_auth_t *a, int status, const cJSON *doc,
               const mcp_error_t *err)
{
  mcp_error_t e;
  char *base = NULL;

  if (err != NULL && err->code == MCP_EREFUSED) {
    finish(a, err);
    return;
  }
  if (mcp_auth_origin(a->server_url, &base, &e) != 0) {
    finish(a, &e);
    return;
  }
  if (err != NULL || status != 200 || doc == NULL ||
      mcp_auth_asmeta_read(doc, NULL, &a->as, &e) != 0) {
    mcp_auth_asmeta_free(&a->as);
    if (mcp_auth_asmeta_default(base, &a->as, &e) != 0) {
      free(base);
      finish(a, &e);
      return;
    }
  }
  free(base);
  have_metadata(a);
}

/* ---- 3. refresh ---------------------------------------------------------- */

static void token_request(mcp_auth_t *a, step_t step, const char *endpoint,
                          const mcp_auth_client_t *client, const char **kv,
                          size_t n);

static void
start_refresh(mcp_auth_t *a, const char *token_endpoint)
{
  const char *kv[12];
  size_t n = 0;

  kv[n++] = "grant_type";
  kv[n++] = "refresh_token";
  kv[n++] = "refresh_token";
  kv[n++] = a->tokens.refresh_token;
  kv[n++] = "resource";
  kv[n++] = resource_param(a);
  token_request(a, S_REFRESH, token_endpoint, &a->client, kv, n);
}

/* The client identity for the issuer: configured, else stored. */
static int
load_client(mcp_auth_t *a, const char *issuer)
{
  mcp_error_t err;

  mcp_auth_client_free(&a->client);
  if (a->client_id != NULL) {
    a->client.client_id = dup_string(a->client_id);
    a->client.client_secret = dup_string(a->client_secret);
    a->client.issuer = dup_string(issuer);
    if (a->client.client_id == NULL || a->client.issuer == NULL)
      return MCP_ENOMEM;
    if (a->auth_method != NULL)
      a->client.auth_method = dup_string(a->auth_method);
    else if (a->client_key != NULL)
      a->client.auth_method = dup_string("private_key_jwt");
    else if (a->client_secret == NULL)
      a->client.auth_method = dup_string("none");
    else if (a->as.issuer == NULL || a->as.auth_basic || !a->as.auth_post)
      a->client.auth_method = dup_string("client_secret_basic");
    else
      a->client.auth_method = dup_string("client_secret_post");
    return a->client.auth_method == NULL ? MCP_ENOMEM : 0;
  }
  if (keep_on_disk(a) &&
      mcp_auth_store_load_client(a->store_dir, issuer, &a->client,
                                 &err) == 0)
    return 0;
  mcp_auth_client_free(&a->client);
  return MCP_ENOENT;
}

/* The tokens held came from another authorization server than the one
 * the server names now: they, and that server's client, are not used. */
static void
have_metadata(mcp_auth_t *a)
{
  mcp_error_t err;

  /* PKCE belongs to the authorization code; the other grants have no
   * authorization request to protect. */
  if (a->grant == MCP_AUTH_CODE && !a->as.s256) {
    fail(a, MCP_EAUTH, "the authorization server %.120s does not support "
         "PKCE with S256 (code_challenge_methods_supported): refusing to "
         "authorize there", a->as.issuer);
    return;
  }
  if (a->tokens.access_token != NULL &&
      (a->tokens.issuer == NULL ||
       strcmp(a->tokens.issuer, a->as.issuer) != 0))
    forget_tokens(a);
  if (a->dpop && a->as.dpop_es256 &&
      dpop_key_for(a, a->as.issuer, 1, &err) != 0) {
    finish(a, &err);
    return;
  }
  if (a->status != 403 && a->tokens.refresh_token != NULL &&
      load_client(a, a->as.issuer) == 0) {
    start_refresh(a, a->as.token_endpoint);
    return;
  }
  need_authorization(a);
}

/* ---- 4. authorization ---------------------------------------------------- */

/* The scope to ask for: configured; else, for a step-up, what was asked
 * before with what the challenge asks; else the challenge's; else all the
 * resource supports; else none. offline_access when the authorization
 * server offers it. */
static int
choose_scope(mcp_auth_t *a)
{
  const char *base = a->scope;
  char *s;
  int oom = 0;

  if (base == NULL && a->status == 403)
    s = mcp_auth_scope_union(a->granted_scope, a->challenge.scope, &oom);
  else
    s = mcp_auth_scope_union(base != NULL ? base
                             : a->challenge.scope != NULL
                               ? a->challenge.scope : a->prm.scopes,
                             NULL, &oom);
  if (oom)
    return MCP_ENOMEM;
  if (a->scope == NULL && a->grant == MCP_AUTH_CODE &&
      a->as.scopes != NULL &&
      mcp_auth_scope_has(a->as.scopes, "offline_access") &&
      !mcp_auth_scope_has(s, "offline_access")) {
    char *t = mcp_auth_scope_union(s, "offline_access", &oom);

    free(s);
    if (oom)
      return MCP_ENOMEM;
    s = t;
  }
  a->want_scope = s;
  return 0;
}

static const char *on_redirect(void *ud, const char *query, int *done);
static void registered(mcp_auth_t *a, int status, const cJSON *doc,
                       const mcp_error_t *err);

/* Host, port and path of the configured redirect URI, for the server. */
static int
redirect_parts(const char *uri, int *port, char *path, size_t cap)
{
  CURLU *h = curl_url();
  char *p = NULL, *pt = NULL;
  int rc = -1;

  if (h == NULL)
    return -1;
  if (curl_url_set(h, CURLUPART_URL, uri, 0) == CURLUE_OK &&
      curl_url_get(h, CURLUPART_PATH, &p, 0) == CURLUE_OK &&
      curl_url_get(h, CURLUPART_PORT, &pt, CURLU_DEFAULT_PORT) ==
        CURLUE_OK) {
    snprintf(path, cap, "%s", p);
    *port = atoi(pt);
    rc = 0;
  }
  curl_free(p);
  curl_free(pt);
  curl_url_cleanup(h);
  return rc;
}

static void
need_authorization(mcp_auth_t *a)
{
  char path[256] = "/callback", uri[320];
  int port = a->callback_port, has_client, can_register;
  mcp_error_t err;

  if (a->grant != MCP_AUTH_CODE) {
    mcp__auth_machine_grant(a);
    return;
  }
  has_client = load_client(a, a->as.issuer) == 0;
  can_register = a->as.registration_endpoint != NULL ||
                 (a->cimd_url != NULL && a->as.cimd);
  if (!has_client && !can_register) {
    fail(a, MCP_ENEEDSREG, "the authorization server of %s allows no "
         "registration and no client credentials are configured: configure "
         "oauth.client_id (and client_secret) for it", a->server_url);
    return;
  }
  if (!a->interactive) {
    fail(a, MCP_ENEEDSAUTH, "%s needs authorization: run `luamcp auth "
         "<url>` (or mcp.oauth.login) once", a->server_url);
    return;
  }
  if (choose_scope(a) != 0) {
    fail(a, MCP_ENOMEM, "%s", "out of memory");
    return;
  }
  if (a->redirect_cfg != NULL &&
      redirect_parts(a->redirect_cfg, &port, path, sizeof path) != 0) {
    fail(a, MCP_EINVAL, "oauth.redirect_uri %.120s is not a URL",
         a->redirect_cfg);
    return;
  }
  if (mcp_auth_callback_start(a->loop, "127.0.0.1", port, path, on_redirect,
                              a, &a->callback, &err) != 0) {
    finish(a, &err);
    return;
  }
  if (a->redirect_cfg != NULL) {
    a->redirect_uri = dup_string(a->redirect_cfg);
  } else {
    snprintf(uri, sizeof uri, "http://127.0.0.1:%d%s",
             mcp_auth_callback_port(a->callback), path);
    a->redirect_uri = dup_string(uri);
  }
  if (a->redirect_uri == NULL) {
    fail(a, MCP_ENOMEM, "%s", "out of memory");
    return;
  }
  if (has_client) {
    authorize(a);
    return;
  }
  if (a->cimd_url != NULL && a->as.cimd) {
    /* A client ID metadata document: its URL is the client's id. */
    a->client.issuer = dup_string(a->as.issuer);
    a->client.client_id = dup_string(a->cimd_url);
    a->client.auth_method = dup_string("none");
    a->client.registration = dup_string("metadata_document");
    if (a->client.client_id == NULL || a->client.auth_method == NULL) {
      fail(a, MCP_ENOMEM, "%s", "out of memory");
      return;
    }
    authorize(a);
    return;
  }
  /* Dynamic client registration (RFC 7591). */
  {
    cJSON *body = cJSON_CreateObject(), *uris, *grants, *types;
    const char *method = a->as.auth_none ? "none"
                         : a->as.auth_basic ? "client_secret_basic"
                         : "client_secret_post";
    char *text;

    uris = cJSON_AddArrayToObject(body, "redirect_uris");
    cJSON_AddItemToArray(uris, cJSON_CreateString(a->redirect_uri));
    cJSON_AddStringToObject(body, "client_name",
                            a->client_name ? a->client_name : "luamcp");
    /* A command-line program with a loopback redirect: RFC 8252. */
    cJSON_AddStringToObject(body, "application_type", "native");
    grants = cJSON_AddArrayToObject(body, "grant_types");
    cJSON_AddItemToArray(grants, cJSON_CreateString("authorization_code"));
    cJSON_AddItemToArray(grants, cJSON_CreateString("refresh_token"));
    types = cJSON_AddArrayToObject(body, "response_types");
    cJSON_AddItemToArray(types, cJSON_CreateString("code"));
    /* No "scope": RFC 7591 would bind the client to it, and a later
     * step-up asks for more. */
    cJSON_AddStringToObject(body, "token_endpoint_auth_method", method);
    text = cJSON_PrintUnformatted(body);
    cJSON_Delete(body);
    if (text == NULL) {
      fail(a, MCP_ENOMEM, "%s", "out of memory");
      return;
    }
    a->step = S_REGISTER;
    start_fetch(a, "POST", a->as.registration_endpoint, text,
                "application/json", NULL, 0);
    cJSON_free(text);
  }
}

static void
registered(mcp_auth_t *a, int status, const cJSON *doc,
           const mcp_error_t *err)
{
  const char *id, *secret, *method, *error;
  mcp_error_t e;

  if (err != NULL) {
    finish(a, err);
    return;
  }
  id = cJSON_IsObject(doc) ? mcp_json_string(doc, "client_id") : NULL;
  if (status < 200 || status > 299 || id == NULL || id[0] == '\0') {
    error = cJSON_IsObject(doc) ? mcp_json_string(doc, "error") : NULL;
    mcp_error_set(&e, MCP_EAUTH, "the authorization server refused to "
                  "register luamcp (HTTP %d%s%.80s%s%.120s)", status,
                  error ? ": " : "", error ? error : "",
                  mcp_json_string(doc, "error_description") ? ": " : "",
                  mcp_json_string(doc, "error_description")
                    ? mcp_json_string(doc, "error_description") : "");
    finish(a, &e);
    return;
  }
  secret = mcp_json_string(doc, "client_secret");
  method = mcp_json_string(doc, "token_endpoint_auth_method");
  if (method == NULL)
    method = secret != NULL ? "client_secret_basic" : "none";
  mcp_auth_client_free(&a->client);
  a->client.issuer = dup_string(a->as.issuer);
  a->client.client_id = dup_string(id);
  a->client.client_secret = dup_string(secret);
  a->client.auth_method = dup_string(method);
  a->client.redirect_uri = dup_string(a->redirect_uri);
  a->client.registration = dup_string("dynamic");
  if (a->client.client_id == NULL || a->client.auth_method == NULL) {
    fail(a, MCP_ENOMEM, "%s", "out of memory");
    return;
  }
  if (keep_on_disk(a))
    mcp_auth_store_save_client(a->store_dir, &a->client, &e);
  authorize(a);
}

static void person_timeout(uv_timer_t *t);

static void
authorize(mcp_auth_t *a)
{
  const char *kv[20];
  size_t n = 0;
  mcp_error_t err;
  char *url = NULL;

  if (mcp_auth_pkce_new(&a->pkce, &err) != 0 ||
      mcp_auth_random(a->state, sizeof a->state, 24, &err) != 0) {
    finish(a, &err);
    return;
  }
  kv[n++] = "response_type";
  kv[n++] = "code";
  kv[n++] = "client_id";
  kv[n++] = a->client.client_id;
  kv[n++] = "redirect_uri";
  kv[n++] = a->redirect_uri;
  kv[n++] = "code_challenge";
  kv[n++] = a->pkce.challenge;
  kv[n++] = "code_challenge_method";
  kv[n++] = "S256";
  kv[n++] = "state";
  kv[n++] = a->state;
  kv[n++] = "scope";
  kv[n++] = a->want_scope;
  kv[n++] = "resource";
  kv[n++] = resource_param(a);
  if (mcp_auth_url_with_query(a->as.authorization_endpoint, kv, n / 2, &url,
                              &err) != 0) {
    finish(a, &err);
    return;
  }
  a->step = S_AUTHORIZE;
  uv_timer_start(&a->person_timer, person_timeout,
                 a->timeout_ms ? a->timeout_ms : PERSON_TIMEOUT_MS, 0);
  if (a->on_authorize != NULL) {
    a->on_authorize(a->ud, url);
  } else {
    fprintf(stderr, "luamcp: to authorize access to %s, open this URL in "
            "a browser:\n\n  %s\n\n", a->server_url, url);
    if (mcp_auth_open_browser(a->loop, url, &err) != 0)
      fprintf(stderr, "luamcp: no browser could be started (%s); open the "
              "URL by hand\n", err.msg);
  }
  free(url);
}

static void
person_timeout(uv_timer_t *t)
{
  mcp_auth_t *a = t->data;

  if (a->step == S_AUTHORIZE)
    fail(a, MCP_ETIMEDOUT, "no authorization came back for %s in time",
         a->server_url);
}

/* Exchanges the code at the token endpoint. */
static void
exchange(mcp_auth_t *a, const char *code)
{
  const char *kv[16];
  size_t n = 0;

  kv[n++] = "grant_type";
  kv[n++] = "authorization_code";
  kv[n++] = "code";
  kv[n++] = code;
  kv[n++] = "redirect_uri";
  kv[n++] = a->redirect_uri;
  kv[n++] = "code_verifier";
  kv[n++] = a->pkce.verifier;
  kv[n++] = "resource";
  kv[n++] = resource_param(a);
  token_request(a, S_TOKEN, a->as.token_endpoint, &a->client, kv, n);
}

/* The redirect came back (callback.h): checked, then exchanged. */
static const char *
on_redirect(void *ud, const char *query, int *done)
{
  mcp_auth_t *a = ud;
  char *state = NULL, *iss = NULL, *code = NULL, *error = NULL;
  const char *page;
  mcp_error_t err;
  int has_iss;

  *done = 0;
  if (a->step != S_AUTHORIZE) {
    *done = 1;
    return "luamcp is not waiting for an authorization.";
  }
  if (mcp_auth_form_get(query, "state", &state, &err) != 0 ||
      strcmp(state, a->state) != 0) {
    /* Not the answer to our request: it is ignored, and we wait on. */
    free(state);
    return "This response does not belong to the authorization luamcp "
           "is waiting for; it was ignored.";
  }
  free(state);
  *done = 1;
  /* RFC 9207: compared exactly with the issuer whose metadata was
   * validated, for errors too; a mismatched error is not shown. */
  has_iss = mcp_auth_form_get(query, "iss", &iss, &err) == 0;
  if ((has_iss && strcmp(iss, a->as.issuer) != 0) ||
      (!has_iss && a->as.iss_supported)) {
    free(iss);
    stop_person_step(a);
    fail(a, MCP_EAUTH, "the authorization response %s: refused",
         has_iss ? "names another issuer than the authorization server's"
                 : "lacks the issuer (iss) the authorization server "
                   "promised");
    return "Authorization refused: the response did not come from the "
           "expected authorization server.";
  }
  free(iss);
  if (mcp_auth_form_get(query, "error", &error, &err) == 0) {
    char *desc = NULL;
    char msg[200];

    mcp_auth_form_get(query, "error_description", &desc, &err);
    snprintf(msg, sizeof msg, "%.60s%s%.120s", error, desc ? ": " : "",
             desc ? desc : "");
    free(error);
    free(desc);
    stop_person_step(a);
    fail(a, MCP_EAUTH, "the authorization server refused: %s", msg);
    return "Authorization failed. You can close this window.";
  }
  if (mcp_auth_form_get(query, "code", &code, &err) != 0) {
    stop_person_step(a);
    fail(a, MCP_EAUTH, "%s", "the authorization response has no code");
    return "Authorization failed: no code came back.";
  }
  stop_person_step(a);
  exchange(a, code);
  memset(code, 0, strlen(code));
  free(code);
  page = "Authorization received. You can close this window and return to "
         "luamcp.";
  return page;
}

/* Sends the token request kept in the round, with a fresh DPoP proof
 * (and the authorization server's nonce) when a key is in use. */
/* The kept token request's body again, with a newly signed client
 * assertion (private_key_jwt). */
static int
resign(mcp_auth_t *a, mcp_error_t *err)
{
  const char *kv[4] = { "client_assertion_type", MCP_AUTH_ASSERTION_TYPE,
                        "client_assertion", NULL };
  char *assertion = NULL, *tail = NULL, *body;
  size_t n;
  int rc;

  rc = mcp_auth_client_assertion(a->client_key, a->req_signer,
                                 a->req_audience, &assertion, err);
  if (rc == 0) {
    kv[3] = assertion;
    rc = mcp_auth_form_encode(kv, 2, &tail, err);
  }
  if (assertion != NULL)
    memset(assertion, 0, strlen(assertion));
  free(assertion);
  if (rc != 0)
    return rc;
  n = strlen(a->req_form) + 1 + strlen(tail) + 1;
  body = malloc(n);
  if (body == NULL) {
    memset(tail, 0, strlen(tail));
    free(tail);
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  }
  snprintf(body, n, "%s%s%s", a->req_form, a->req_form[0] ? "&" : "", tail);
  memset(tail, 0, strlen(tail));
  free(tail);
  memset(a->req_body, 0, strlen(a->req_body));
  free(a->req_body);
  a->req_body = body;
  return 0;
}

static void
send_token_request(mcp_auth_t *a)
{
  const char *extra[2];
  size_t nextra = 0;
  char *proof = NULL;
  mcp_error_t err;

  if (a->nonce_retried && a->req_signer != NULL && resign(a, &err) != 0) {
    finish(a, &err);
    return;
  }
  if (a->req_basic != NULL)
    extra[nextra++] = a->req_basic;
  a->proof_sent = 0;
  /* RFC 9449 section 5: every token request of the server whose tokens
   * are bound, a refresh too; never the enterprise IdP's exchange. */
  if (a->dpop_key != NULL && a->step != S_EXCHANGE) {
    if (mcp_dpop_proof(a->dpop_key, "POST", a->req_endpoint, NULL,
                       mcp_dpop_nonce_get(&a->as_nonce), &proof,
                       &err) != 0) {
      finish(a, &err);
      return;
    }
    extra[nextra++] = proof;
    a->proof_sent = 1;
  }
  start_fetch(a, "POST", a->req_endpoint, a->req_body, NULL, extra, nextra);
  free(proof);
}

/* One request to a token endpoint: the form kv with the client's
 * authentication as its method says (grant.h). The answer comes to
 * fetched() in step. It is kept (overwritten when the round ends) for
 * one retry with a DPoP nonce. */
static void
token_request(mcp_auth_t *a, step_t step, const char *endpoint,
              const mcp_auth_client_t *client, const char **kv, size_t n)
{
  const char *audience = a->as.issuer != NULL ? a->as.issuer
                                              : a->tokens.issuer;
  mcp_auth_creds_t creds;
  char *body = NULL, *form = NULL;
  size_t unsigned_n = n;
  mcp_error_t err;

  if (mcp_auth_client_auth(client, a->client_key, audience, kv, &n, &creds,
                           &err) != 0 ||
      mcp_auth_form_encode(kv, n / 2, &body, &err) != 0 ||
      (creds.assertion != NULL &&
       mcp_auth_form_encode(kv, unsigned_n / 2, &form, &err) != 0)) {
    mcp_auth_creds_free(&creds);
    free(body);
    finish(a, &err);
    return;
  }
  forget_request(a);
  if (creds.assertion != NULL) {
    a->req_form = form;
    a->req_signer = dup_string(client->client_id);
    a->req_audience = audience != NULL ? dup_string(audience) : NULL;
    if (a->req_signer == NULL || (audience != NULL && a->req_audience == NULL)) {
      mcp_auth_creds_free(&creds);
      free(body);
      fail(a, MCP_ENOMEM, "%s", "out of memory");
      return;
    }
  }
  a->req_body = body;
  a->req_basic = creds.basic;
  creds.basic = NULL;
  mcp_auth_creds_free(&creds);
  a->req_endpoint = dup_string(endpoint);
  if (a->req_endpoint == NULL) {
    fail(a, MCP_ENOMEM, "%s", "out of memory");
    return;
  }
  a->nonce_retried = 0;
  a->step = step;
  send_token_request(a);
}

/* ---- tokens -------------------------------------------------------------- */

/* A token response (RFC 6749 section 5.1) becomes the tokens held. */
static int
take_tokens(mcp_auth_t *a, const cJSON *doc, const char *token_endpoint,
            const char *issuer, mcp_error_t *err)
{
  const char *access = mcp_json_string(doc, "access_token");
  const char *type = mcp_json_string(doc, "token_type");
  const char *refresh = mcp_json_string(doc, "refresh_token");
  const char *scope = mcp_json_string(doc, "scope");
  const cJSON *expires = cJSON_GetObjectItemCaseSensitive(doc, "expires_in");
  mcp_auth_tokens_t t;
  const unsigned char *p;

  if (access == NULL || access[0] == '\0')
    return mcp_error_set(err, MCP_EAUTH, "the token response has no "
                         "access_token");
  /* RFC 9449 section 5: DPoP only in answer to a proof; a server may
   * still hand out an unbound Bearer token. */
  if (type != NULL && strcasecmp(type, "Bearer") != 0 &&
      !(strcasecmp(type, "DPoP") == 0 && a->proof_sent))
    return mcp_error_set(err, MCP_EAUTH, "the token response's token_type "
                         "is %s", a->proof_sent ? "neither Bearer nor DPoP"
                                                : "not Bearer");
  /* It goes into a header line: printable ASCII only. */
  for (p = (const unsigned char *) access; *p; p++)
    if (*p <= ' ' || *p >= 0x7f)
      return mcp_error_set(err, MCP_EAUTH, "the access token has bytes "
                           "that cannot be sent in a header");
  memset(&t, 0, sizeof t);
  t.resource = dup_string(a->resource);
  t.issuer = dup_string(issuer);
  t.token_endpoint = dup_string(token_endpoint);
  t.access_token = dup_string(access);
  /* A refresh that returns no new refresh token keeps the old one. */
  t.refresh_token = dup_string(refresh != NULL ? refresh
                               : a->tokens.refresh_token);
  t.token_type = dup_string(type != NULL && strcasecmp(type, "DPoP") == 0
                            ? "DPoP" : "Bearer");
  t.scope = dup_string(scope != NULL ? scope : a->want_scope != NULL
                       ? a->want_scope : a->tokens.scope);
  if (cJSON_IsNumber(expires) && expires->valuedouble > 0 &&
      expires->valuedouble < 1e9)
    t.expires_at = (long long) time(NULL) + (long long) expires->valuedouble;
  if (t.resource == NULL || t.issuer == NULL || t.token_endpoint == NULL ||
      t.access_token == NULL || t.token_type == NULL) {
    mcp_auth_tokens_free(&t);
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  }
  mcp_auth_tokens_free(&a->tokens);
  a->tokens = t;
  if (a->want_scope != NULL)
    set_string(&a->granted_scope, a->want_scope);
  /* A rotated refresh token is worthless once used: kept at once. */
  if (keep_on_disk(a))
    mcp_auth_store_save_tokens(a->store_dir, &a->tokens, err);
  if (a->client.client_id != NULL && a->client.registration != NULL &&
      keep_on_disk(a))
    mcp_auth_store_save_client(a->store_dir, &a->client, err);
  mcp_error_clear(err);
  return use_tokens(a);
}

static void
token_fetched(mcp_auth_t *a, int status, const cJSON *doc,
              const mcp_error_t *err)
{
  mcp_error_t e;
  const char *error;

  if (err != NULL) {
    finish(a, err);
    return;
  }
  if (status != 200 || !cJSON_IsObject(doc)) {
    error = cJSON_IsObject(doc) ? mcp_json_string(doc, "error") : NULL;
    /* RFC 6749 section 5.2: these say the assertion itself is no good;
     * it is not sent again (and no other grant is tried). */
    if (error != NULL && (strcmp(error, "invalid_grant") == 0 ||
                          strcmp(error, "invalid_scope") == 0 ||
                          strcmp(error, "unauthorized_client") == 0 ||
                          strcmp(error, "invalid_client") == 0))
      memcpy(a->refused, a->req_assertion, sizeof a->refused);
    mcp_error_set(&e, MCP_EAUTH, "the token endpoint refused the %s grant "
                  "(HTTP %d%s%.80s%s%.120s)", mcp_auth_grant_name(a->grant),
                  status, error ? ": " : "", error ? error : "",
                  mcp_json_string(doc, "error_description") ? ": " : "",
                  mcp_json_string(doc, "error_description")
                    ? mcp_json_string(doc, "error_description") : "");
    finish(a, &e);
    return;
  }
  if (take_tokens(a, doc, a->as.token_endpoint, a->as.issuer, &e) != 0) {
    finish(a, &e);
    return;
  }
  finish(a, NULL);
}

static void
refresh_fetched(mcp_auth_t *a, int status, const cJSON *doc,
                const mcp_error_t *err)
{
  mcp_error_t e;

  if (err == NULL && status == 200 && cJSON_IsObject(doc) &&
      take_tokens(a, doc, a->background ? a->tokens.token_endpoint
                                        : a->as.token_endpoint,
                  a->tokens.issuer, &e) == 0) {
    finish(a, NULL);
    return;
  }
  if (a->background || a->closing) {
    /* The token held stays; a 401 will start a full round. */
    finish(a, NULL);
    return;
  }
  /* The refresh token is no good (expired, revoked, already used): a new
   * authorization, which needs the person. */
  free(a->tokens.refresh_token);
  a->tokens.refresh_token = NULL;
  if (keep_on_disk(a) && a->tokens.access_token != NULL)
    mcp_auth_store_save_tokens(a->store_dir, &a->tokens, &e);
  need_authorization(a);
}

static void
fetched(void *ud, int status, const cJSON *doc, const mcp_error_t *err)
{
  mcp_auth_t *a = ud;

  a->fetch = NULL;
  if (a->step == S_TOKEN || a->step == S_REFRESH) {
    if (a->fetch_nonce[0] != '\0')
      mcp_dpop_nonce_seen(&a->as_nonce, a->fetch_nonce);
    /* RFC 9449 section 8: the authorization server wants its nonce in
     * the proof. The same request goes again once, with a new proof. */
    if (err == NULL && status == 400 && a->proof_sent && !a->nonce_retried &&
        a->fetch_nonce[0] != '\0' && cJSON_IsObject(doc) &&
        mcp_json_string(doc, "error") != NULL &&
        strcmp(mcp_json_string(doc, "error"), "use_dpop_nonce") == 0 &&
        !a->closing) {
      a->nonce_retried = 1;
      send_token_request(a);
      return;
    }
  }
  switch (a->step) {
  case S_PRM:
    prm_fetched(a, status, doc, err);
    break;
  case S_ASMETA:
    asmeta_fetched(a, status, doc, err);
    break;
  case S_LEGACY:
    legacy_fetched(a, status, doc, err);
    break;
  case S_REFRESH:
    refresh_fetched(a, status, doc, err);
    break;
  case S_REGISTER:
    registered(a, status, doc, err);
    break;
  case S_TOKEN:
    token_fetched(a, status, doc, err);
    break;
  case S_EXCHANGE:
    mcp__auth_exchanged(a, status, doc, err);
    break;
  default:
    break;
  }
  if (a->closing && a->fetch == NULL)
    close_now(a);
}

/* The refresh timer: the token expires soon. */
static void
refresh_due(uv_timer_t *t)
{
  mcp_auth_t *a = t->data;

  if (a->step == S_IDLE && a->tokens.refresh_token == NULL &&
      a->grant != MCP_AUTH_CODE) {
    /* The grant again, discovery included, before the token expires;
     * nobody waits on it, and on failure the token held stays. */
    a->background = 1;
    a->status = 401;
    a->step = S_PRM;
    start_round(a);
    return;
  }
  if (a->step != S_IDLE || a->tokens.refresh_token == NULL ||
      a->tokens.token_endpoint == NULL || a->tokens.issuer == NULL ||
      load_client(a, a->tokens.issuer) != 0)
    return;
  a->background = 1;
  start_refresh(a, a->tokens.token_endpoint);
}

/* ---- the object ---------------------------------------------------------- */

/* A copy of the assertion command's NULL-terminated argv. */
static int
copy_argv(mcp_auth_t *a, const char *const *argv)
{
  size_t n = 0, i;

  while (argv[n] != NULL)
    n++;
  a->assertion_argv = calloc(n + 1, sizeof *a->assertion_argv);
  if (a->assertion_argv == NULL)
    return MCP_ENOMEM;
  for (i = 0; i < n; i++) {
    a->assertion_argv[i] = dup_string(argv[i]);
    if (a->assertion_argv[i] == NULL)
      return MCP_ENOMEM;
  }
  return 0;
}

/* The private_key_jwt key, from its PEM file. */
static int
load_client_key(mcp_auth_t *a, const char *path, mcp_error_t *err)
{
  char *pem = NULL;
  int rc = mcp_auth_read_secret(path, MCP_JWT_MAX_PEM, &pem, err);

  if (rc == 0)
    rc = mcp_jwt_key_from_pem(pem, strlen(pem), &a->client_key, err);
  if (pem != NULL) {
    memset(pem, 0, strlen(pem));
    free(pem);
  }
  if (rc != 0 && err != NULL) {
    char why[sizeof err->msg];

    memcpy(why, err->msg, sizeof why);
    mcp_error_set(err, rc, "oauth.private_key %.200s: %s", path, why);
  }
  return rc;
}

int
mcp_auth_new(uv_loop_t *loop, mcp_curl_uv_t *cu, const mcp_auth_opts_t *o,
             mcp_auth_authorize_cb on_authorize, void *ud, mcp_auth_t **out,
             mcp_error_t *err)
{
  mcp_auth_t *a;
  char *host = NULL;
  size_t i;
  int rc;

  rc = mcp_curl_load(err);
  if (rc != 0)
    return rc;
  a = calloc(1, sizeof *a);
  if (a == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  a->loop = loop;
  a->cu = cu;
  a->on_authorize = on_authorize;
  a->ud = ud;
  a->callback_port = o->callback_port;
  a->interactive = o->interactive;
  a->insecure = o->insecure;
  a->trace = o->trace;
  a->trace_ud = o->trace_ud;
  a->timeout_ms = o->timeout_ms;
  rc = mcp_auth_resource_uri(o->server_url, &a->resource, err);
  if (rc == 0)
    rc = mcp_auth_origin(o->server_url, &a->origin, err);
  if (rc != 0) {
    free(a->resource);
    free(a);
    return rc;
  }
  a->server_url = dup_string(o->server_url);
  a->client_id = dup_string(o->client_id);
  a->client_secret = dup_string(o->client_secret);
  a->scope = dup_string(o->scope);
  a->redirect_cfg = dup_string(o->redirect_uri);
  a->cimd_url = dup_string(o->client_metadata_url);
  a->client_name = dup_string(o->client_name);
  a->ca_file = dup_string(o->ca_file);
  a->auth_method = dup_string(o->auth_method);
  a->assertion_path = dup_string(o->assertion);
  if (o->assertion_command != NULL && copy_argv(a, o->assertion_command) != 0)
    rc = mcp_error_set(err, MCP_ENOMEM, NULL);
  a->idp_token_endpoint = dup_string(o->idp_token_endpoint);
  a->idp_client_id = dup_string(o->idp_client_id);
  a->idp_client_secret = dup_string(o->idp_client_secret);
  a->dpop = o->dpop;
  if (rc == 0)
    rc = mcp_auth_grant_from_name(o->grant, &a->grant, err);
  if (rc == 0 && o->private_key != NULL)
    rc = load_client_key(a, o->private_key, err);
  if (rc != 0) {
    free_config(a);
    return rc;
  }
  if (o->store_dir == NULL)
    rc = mcp_auth_store_dir(&a->store_dir, err);
  else if (o->store_dir[0] != '\0')
    a->store_dir = dup_string(o->store_dir);
  if (rc != 0)
    mcp_error_clear(err);         /* no home: kept in memory only */
  if (o->nheaders > 0) {
    a->headers = calloc(o->nheaders, sizeof *a->headers);
    if (a->headers != NULL) {
      for (i = 0; i < o->nheaders; i++)
        a->headers[i] = dup_string(o->headers[i]);
      a->nheaders = o->nheaders;
    }
  }
  /* The server's host: its own address is never refused (fetch.h). */
  {
    CURLU *h = curl_url();

    if (h != NULL && curl_url_set(h, CURLUPART_URL, o->server_url, 0) ==
                       CURLUE_OK &&
        curl_url_get(h, CURLUPART_HOST, &host, 0) == CURLUE_OK)
      snprintf(a->peer.host, sizeof a->peer.host, "%s", host);
    curl_free(host);
    curl_url_cleanup(h);
  }
  uv_timer_init(loop, &a->person_timer);
  uv_timer_init(loop, &a->refresh_timer);
  uv_timer_init(loop, &a->kick);
  a->person_timer.data = a->refresh_timer.data = a->kick.data = a;
  uv_unref((uv_handle_t *) &a->refresh_timer);
  a->handles = 3;
  if (keep_on_disk(a) &&
      mcp_auth_store_load_tokens(a->store_dir, a->resource, &a->tokens,
                                 err) != 0) {
    mcp_auth_tokens_free(&a->tokens);
    mcp_error_clear(err);
  }
  /* A bound token is worth nothing without its key. */
  if (a->tokens.token_type != NULL &&
      strcmp(a->tokens.token_type, "DPoP") == 0 &&
      (a->tokens.issuer == NULL ||
       dpop_key_for(a, a->tokens.issuer, 0, err) != 0)) {
    mcp_auth_tokens_free(&a->tokens);
    mcp_error_clear(err);
  }
  use_tokens(a);
  *out = a;
  return 0;
}

void
mcp_auth_watch(mcp_auth_t *a, mcp_auth_token_cb cb, void *ud)
{
  a->on_token = cb;
  a->token_ud = ud;
}

const char *
mcp_auth_header(const mcp_auth_t *a)
{
  return a->header;
}

static void
kicked(uv_timer_t *t)
{
  mcp_auth_t *a = t->data;

  if (a->step != S_NONCE) {
    start_round(a);
    return;
  }
  /* Not an authorization failure (RFC 9449 section 9): the request goes
   * again with the nonce, once; the same refusal again ends it. */
  if (a->nonce_ok)
    finish(a, NULL);
  else
    fail(a, MCP_EAUTH, "%s", "the MCP server refused the DPoP proof again "
         "with the nonce it asked for (use_dpop_nonce)");
}

int
mcp_auth_proof(mcp_auth_t *a, const char *method, const char *url,
               char **line, mcp_error_t *err)
{
  *line = NULL;
  if (!is_dpop(a) || a->tokens.access_token == NULL)
    return 0;
  return mcp_dpop_proof(a->dpop_key, method, url, a->tokens.access_token,
                        mcp_dpop_nonce_get(&a->rs_nonce), line, err);
}

void
mcp_auth_nonce(mcp_auth_t *a, const char *nonce)
{
  mcp_dpop_nonce_seen(&a->rs_nonce, nonce);
}

int
mcp_auth_challenge(mcp_auth_t *a, int status, const char *challenge,
                   mcp_auth_done_cb cb, void *data, mcp_error_t *err)
{
  waiter_t *w = calloc(1, sizeof *w), **tail;

  if (w == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  w->cb = cb;
  w->data = data;
  for (tail = &a->waiters; *tail != NULL; tail = &(*tail)->next)
    ;
  *tail = w;
  if (a->step != S_IDLE)
    return 0;                   /* joins the round (or refresh) under way */
  a->status = status;
  a->step = S_PRM;              /* taken: later challenges join it */
  if (is_dpop(a) && mcp_dpop_challenge_wants_nonce(challenge)) {
    a->step = S_NONCE;
    a->nonce_ok = mcp_dpop_nonce_retry(&a->rs_nonce);
    uv_timer_start(&a->kick, kicked, 0, 0);
    return 0;
  }
  if (challenge != NULL &&
      mcp_auth_bearer_parse(challenge, strlen(challenge), &a->challenge,
                            err) != 0) {
    mcp_auth_bearer_free(&a->challenge);
    memset(&a->challenge, 0, sizeof a->challenge);
    mcp_error_clear(err);
  }
  /* From the loop: the caller hears of the end after this returns. */
  uv_timer_start(&a->kick, kicked, 0, 0);
  return 0;
}

static void
handle_closed(uv_handle_t *h)
{
  mcp_auth_t *a = h->data;

  if (--a->handles > 0)
    return;
  free_config(a);
}

/* Frees the configuration copies and a itself. */
static void
free_config(mcp_auth_t *a)
{
  size_t i;

  free(a->auth_method);
  free(a->assertion_path);
  for (i = 0; a->assertion_argv != NULL && a->assertion_argv[i] != NULL; i++)
    free(a->assertion_argv[i]);
  free(a->assertion_argv);
  free(a->idp_token_endpoint);
  free(a->idp_client_id);
  if (a->idp_client_secret != NULL)
    memset(a->idp_client_secret, 0, strlen(a->idp_client_secret));
  free(a->idp_client_secret);
  mcp_jwt_key_free(a->client_key);
  mcp_jwt_key_free(a->dpop_key);
  free(a->dpop_issuer);
  free(a->server_url);
  free(a->resource);
  free(a->origin);
  free(a->client_id);
  if (a->client_secret != NULL)
    memset(a->client_secret, 0, strlen(a->client_secret));
  free(a->client_secret);
  free(a->scope);
  free(a->redirect_cfg);
  free(a->cimd_url);
  free(a->client_name);
  free(a->store_dir);
  free(a->ca_file);
  for (i = 0; i < a->nheaders; i++)
    free(a->headers[i]);
  free(a->headers);
  free(a->granted_scope);
  free(a);
}

/* Frees what is held and closes the timers; a is freed once they are. */
static void
close_now(mcp_auth_t *a)
{
  reset_round(a);
  mcp_auth_tokens_free(&a->tokens);
  if (a->header != NULL)
    memset(a->header, 0, strlen(a->header));
  free(a->header);
  a->header = NULL;
  uv_close((uv_handle_t *) &a->person_timer, handle_closed);
  uv_close((uv_handle_t *) &a->refresh_timer, handle_closed);
  uv_close((uv_handle_t *) &a->kick, handle_closed);
}

void
mcp_auth_close(mcp_auth_t *a)
{
  waiter_t *w, *next;

  if (a == NULL || a->closing)
    return;
  a->closing = 1;
  a->on_token = NULL;           /* the client is going away */
  for (w = a->waiters; w != NULL; w = next) {
    next = w->next;
    free(w);
  }
  a->waiters = NULL;
  /* A refresh under way may rotate the refresh token: the old one is
   * then spent, so its answer is waited for and kept before closing. */
  if (a->step == S_REFRESH && a->fetch != NULL)
    return;
  close_now(a);
}

/* ---- for the files that do parts of a round (flow_int.h) ----------------- */

void
mcp__auth_finish(mcp_auth_t *a, const mcp_error_t *err)
{
  finish(a, err);
}

void
mcp__auth_fail(mcp_auth_t *a, int code, const char *fmt, const char *detail)
{
  fail(a, code, fmt, detail);
}

void
mcp__auth_token_request(mcp_auth_t *a, int step, const char *endpoint,
                        const mcp_auth_client_t *client, const char **kv,
                        size_t n)
{
  token_request(a, (step_t) step, endpoint, client, kv, n);
}

const char *
mcp__auth_resource(const mcp_auth_t *a)
{
  return resource_param(a);
}

int
mcp__auth_load_client(mcp_auth_t *a, const char *issuer)
{
  return load_client(a, issuer);
}

int
mcp__auth_choose_scope(mcp_auth_t *a)
{
  return choose_scope(a);
}
