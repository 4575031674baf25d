/*
 * machine.c - the grants without a person (see grant.h and flow.h): the
 * step of a round that replaces the authorization request when
 * oauth.grant says so. client_credentials, the jwt-bearer grant with a
 * workload's token, and the enterprise IdP's token exchange before it.
 * Assertions are had afresh for every grant (a file read, a command run)
 * and one refused for good is never sent again.
 */
#include <stdlib.h>
#include <string.h>

#include "auth/command.h"
#include "auth/flow_int.h"
#include "auth/grant.h"
#include "auth/jwt.h"
#include "auth/urls.h"
#include "curl_dl.h"
#include "json.h"

#define COMMAND_TIMEOUT_MS 30000  /* a token command's run */

/* RFC 8693 at the enterprise IdP: the identity assertion (subject) for
 * an ID-JAG whose audience is the authorization server (its issuer) and
 * whose resource is the MCP server. */
static void
exchange_identity(mcp_auth_t *a, const char *subject)
{
  mcp_auth_client_t idp;
  const char *kv[32];
  size_t n = 0;
  unsigned char digest[32];

  /* EMA section 7.3: every endpoint is https (or loopback http). */
  if (a->idp_token_endpoint == NULL ||
      !mcp_auth_url_allowed(a->idp_token_endpoint)) {
    mcp__auth_fail(a, MCP_EINVAL, "%s", "oauth.grant = token_exchange "
                   "needs oauth.idp_token_endpoint, an https URL (or http "
                   "to a loopback address)");
    return;
  }
  memcpy(digest, a->req_assertion, sizeof digest);
  memset(&idp, 0, sizeof idp);
  idp.client_id = a->idp_client_id;
  idp.client_secret = a->idp_client_secret;
  idp.auth_method = (char *) (a->idp_client_secret != NULL
                              ? "client_secret_basic" : "none");
  kv[n++] = "grant_type";
  kv[n++] = MCP_AUTH_GRANT_TOKEN_EXCHANGE;
  kv[n++] = "requested_token_type";
  kv[n++] = MCP_AUTH_TOKEN_TYPE_ID_JAG;
  kv[n++] = "subject_token";
  kv[n++] = subject;
  kv[n++] = "subject_token_type";
  kv[n++] = MCP_AUTH_TOKEN_TYPE_ID_TOKEN;
  kv[n++] = "audience";
  kv[n++] = a->as.issuer;
  kv[n++] = "resource";
  kv[n++] = mcp__auth_resource(a);
  kv[n++] = "scope";
  kv[n++] = a->want_scope;
  mcp__auth_token_request(a, S_EXCHANGE, a->idp_token_endpoint, &idp, kv,
                          n);
  memcpy(a->req_assertion, digest, sizeof digest);
}

/* The RFC 7523 JWT-bearer grant at the authorization server with
 * assertion (a workload's JWT, or an ID-JAG). */
static void
jwt_bearer(mcp_auth_t *a, const char *assertion)
{
  const char *kv[32];
  size_t n = 0;
  unsigned char digest[32];

  memcpy(digest, a->req_assertion, sizeof digest);
  kv[n++] = "grant_type";
  kv[n++] = MCP_AUTH_GRANT_JWT_BEARER;
  kv[n++] = "assertion";
  kv[n++] = assertion;
  kv[n++] = "resource";
  kv[n++] = mcp__auth_resource(a);
  kv[n++] = "scope";
  kv[n++] = a->want_scope;
  mcp__auth_token_request(a, S_TOKEN, a->as.token_endpoint, &a->client, kv,
                          n);
  memcpy(a->req_assertion, digest, sizeof digest);
}

/* The assertion of this round (a workload's JWT, or the identity
 * assertion to exchange), unless that very one was refused for good
 * before: a workload platform hands out a new one, and sending the old
 * one again only earns the same refusal. */
static void
use_assertion(mcp_auth_t *a, const char *assertion)
{
  unsigned char digest[32];

  SHA256((const unsigned char *) assertion, strlen(assertion), digest);
  if (memcmp(digest, a->refused, sizeof digest) == 0) {
    mcp__auth_fail(a, MCP_EAUTH, "the %s was refused already: not sent "
                   "again until it is replaced",
                   a->grant == MCP_AUTH_TOKEN_EXCHANGE ? "identity assertion"
                                                       : "workload token");
    return;
  }
  memcpy(a->req_assertion, digest, sizeof digest);
  if (a->grant == MCP_AUTH_TOKEN_EXCHANGE)
    exchange_identity(a, assertion);
  else
    jwt_bearer(a, assertion);
}

/* The configured command printed the assertion (command.h). */
static void
assertion_printed(void *ud, const char *token, const mcp_error_t *err)
{
  mcp_auth_t *a = ud;

  a->command = NULL;
  if (err != NULL)
    mcp__auth_finish(a, err);
  else
    use_assertion(a, token);
}

/* A fresh assertion for every token request: the configured command
 * run again, or the configured file read again (a platform rotates it). */
static void
get_assertion(mcp_auth_t *a)
{
  char *text = NULL;
  mcp_error_t err;

  if (a->assertion_argv != NULL) {
    a->step = S_ASSERTION;
    if (mcp_auth_command_start(a->loop,
                               (const char *const *) a->assertion_argv,
                               MCP_AUTH_MAX_ASSERTION, COMMAND_TIMEOUT_MS,
                               assertion_printed, a, &a->command,
                               &err) != 0)
      mcp__auth_finish(a, &err);
    return;
  }
  if (a->assertion_path == NULL) {
    mcp__auth_fail(a, MCP_EINVAL, "oauth.grant = %s needs oauth.assertion "
                   "(a file, or a command, that gives the token)",
                   mcp_auth_grant_name(a->grant));
    return;
  }
  if (mcp_auth_read_secret(a->assertion_path, MCP_AUTH_MAX_ASSERTION, &text,
                           &err) != 0) {
    mcp__auth_finish(a, &err);
    return;
  }
  use_assertion(a, text);
  memset(text, 0, strlen(text));
  free(text);
}

/* A private_key_jwt assertion is signed with an algorithm the
 * authorization server lists, when it lists any. */
static int
signing_alg_offered(const mcp_auth_t *a)
{
  const char *alg;

  if (a->client_key == NULL || a->client.auth_method == NULL ||
      strcmp(a->client.auth_method, "private_key_jwt") != 0 ||
      !a->as.signing_listed)
    return 1;
  alg = mcp_jwt_key_alg(a->client_key);
  return (strcmp(alg, "ES256") == 0 && a->as.signing_es256) ||
         (strcmp(alg, "ES384") == 0 && a->as.signing_es384) ||
         (strcmp(alg, "RS256") == 0 && a->as.signing_rs256);
}

void
mcp__auth_machine_grant(mcp_auth_t *a)
{
  const char *kv[32];
  size_t n = 0;

  if (mcp__auth_choose_scope(a) != 0) {
    mcp__auth_fail(a, MCP_ENOMEM, "%s", "out of memory");
    return;
  }
  if (a->grant == MCP_AUTH_CLIENT_CREDENTIALS) {
    if (a->client_id == NULL ||
        (a->client_secret == NULL && a->client_key == NULL)) {
      mcp__auth_fail(a, MCP_ENEEDSREG, "%s", "oauth.grant = "
                     "client_credentials needs oauth.client_id and "
                     "oauth.client_secret or oauth.private_key");
      return;
    }
    if (mcp__auth_load_client(a, a->as.issuer) != 0) {
      mcp__auth_fail(a, MCP_ENOMEM, "%s", "out of memory");
      return;
    }
    if (!signing_alg_offered(a)) {
      mcp__auth_fail(a, MCP_EAUTH, "the authorization server does not take "
                     "%s client assertions (token_endpoint_auth_signing_alg_"
                     "values_supported): configure a key of an algorithm it "
                     "lists", mcp_jwt_key_alg(a->client_key));
      return;
    }
    kv[n++] = "grant_type";
    kv[n++] = "client_credentials";
    kv[n++] = "resource";
    kv[n++] = mcp__auth_resource(a);
    kv[n++] = "scope";
    kv[n++] = a->want_scope;
    mcp__auth_token_request(a, S_TOKEN, a->as.token_endpoint, &a->client,
                            kv, n);
    return;
  }
  /* The authorization server must offer the grant it is asked for. */
  if (a->as.grants_listed && !a->as.jwt_bearer) {
    mcp__auth_fail(a, MCP_EAUTH, "the authorization server %.120s does not "
                   "offer the jwt-bearer grant (grant_types_supported)",
                   a->as.issuer);
    return;
  }
  /* A client registered with the authorization server authenticates;
   * a workload has no client at all. */
  if (a->client_id != NULL && mcp__auth_load_client(a, a->as.issuer) != 0) {
    mcp__auth_fail(a, MCP_ENOMEM, "%s", "out of memory");
    return;
  }
  get_assertion(a);
}

/* The IdP answered the exchange: its ID-JAG goes, unchanged, to the
 * authorization server. */
void
mcp__auth_exchanged(mcp_auth_t *a, int status, const cJSON *doc,
                    const mcp_error_t *err)
{
  const char *jag, *type, *error;
  mcp_error_t e;

  if (err != NULL) {
    mcp__auth_finish(a, err);
    return;
  }
  jag = cJSON_IsObject(doc) ? mcp_json_string(doc, "access_token") : NULL;
  type = cJSON_IsObject(doc) ? mcp_json_string(doc, "issued_token_type")
                             : NULL;
  if (status != 200 || jag == NULL || jag[0] == '\0') {
    error = cJSON_IsObject(doc) ? mcp_json_string(doc, "error") : NULL;
    /* The identity assertion itself was refused (expired, say): not
     * sent again until it is replaced. */
    if (error != NULL && strcmp(error, "invalid_grant") == 0)
      memcpy(a->refused, a->req_assertion, sizeof a->refused);
    mcp_error_set(&e, MCP_EAUTH, "the identity provider refused the token "
                  "exchange (HTTP %d%s%.80s)", status, error ? ": " : "",
                  error ? error : "");
    mcp__auth_finish(a, &e);
    return;
  }
  if (type != NULL && strcmp(type, MCP_AUTH_TOKEN_TYPE_ID_JAG) != 0) {
    mcp__auth_fail(a, MCP_EAUTH, "the identity provider issued %.80s, not "
                   "an ID-JAG", type);
    return;
  }
  if (strlen(jag) > MCP_AUTH_MAX_ASSERTION) {
    mcp__auth_fail(a, MCP_ETOOBIG, "%s", "the identity provider's ID-JAG "
                   "is too large");
    return;
  }
  {
    char *copy = strdup(jag);

    if (copy == NULL) {
      mcp__auth_fail(a, MCP_ENOMEM, "%s", "out of memory");
      return;
    }
    memset(a->req_assertion, 0, sizeof a->req_assertion);
    jwt_bearer(a, copy);
    memset(copy, 0, strlen(copy));
    free(copy);
  }
}
