/*
 * grant.h - what the token requests without a person are made of: the
 * grant names of the configuration, the client's authentication at a
 * token endpoint (none, client_secret_basic, client_secret_post, or an
 * RFC 7523 private_key_jwt assertion), and the secrets and assertions
 * read from files. No network I/O: flow.c sends the requests.
 *
 * Grants (the MCP authorization extensions):
 *   client_credentials  RFC 6749 section 4.4, with a secret or a key;
 *   jwt_bearer          RFC 7523 section 2.1 with a workload's JWT
 *                       (workload identity federation);
 *   token_exchange      RFC 8693 at the enterprise IdP for an ID-JAG,
 *                       then jwt_bearer with it at the MCP server's
 *                       authorization server (enterprise-managed
 *                       authorization).
 */
#ifndef MCP_AUTH_GRANT_H
#define MCP_AUTH_GRANT_H

#include <stddef.h>

#include "auth/jwt.h"
#include "auth/store.h"
#include "error.h"

#define MCP_AUTH_GRANT_JWT_BEARER \
  "urn:ietf:params:oauth:grant-type:jwt-bearer"
#define MCP_AUTH_GRANT_TOKEN_EXCHANGE \
  "urn:ietf:params:oauth:grant-type:token-exchange"
#define MCP_AUTH_TOKEN_TYPE_ID_JAG "urn:ietf:params:oauth:token-type:id-jag"
#define MCP_AUTH_TOKEN_TYPE_ID_TOKEN \
  "urn:ietf:params:oauth:token-type:id_token"
#define MCP_AUTH_ASSERTION_TYPE \
  "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
#define MCP_AUTH_MAX_ASSERTION (16u * 1024u)

typedef enum {
  MCP_AUTH_CODE = 0,             /* a person, a browser: the default */
  MCP_AUTH_CLIENT_CREDENTIALS,
  MCP_AUTH_JWT_BEARER,
  MCP_AUTH_TOKEN_EXCHANGE
} mcp_auth_grant_t;

/* "authorization_code", "client_credentials", "jwt_bearer",
 * "token_exchange" (NULL: the first). MCP_EINVAL otherwise. */
int mcp_auth_grant_from_name(const char *name, mcp_auth_grant_t *out,
                             mcp_error_t *err);
/* The name of the grant, for messages. */
const char *mcp_auth_grant_name(mcp_auth_grant_t g);

/* The contents of a file holding a secret, a token or a key: at most max
 * bytes, white space around it removed, not empty. The caller overwrites
 * and frees *out. Nothing of the contents is ever put in err. */
int mcp_auth_read_secret(const char *path, size_t max, char **out,
                         mcp_error_t *err);

/* The RFC 7523 section 3 client assertion: iss = sub = client_id, aud =
 * audience (the authorization server's issuer), iat, exp 5 minutes
 * later, a fresh jti. The caller frees *out. */
int mcp_auth_client_assertion(const mcp_jwt_key_t *key, const char *client_id,
                              const char *audience, char **out,
                              mcp_error_t *err);

/* How the client authenticates one token request. */
typedef struct mcp_auth_creds_s {
  char *basic;        /* "Authorization: Basic ..." (RFC 6749 2.3.1), or NULL */
  char *assertion;    /* a private_key_jwt assertion, or NULL */
} mcp_auth_creds_t;

/* Adds the client's authentication to a token request as its method
 * says: kv (room for 6 more strings at kv[*n]) gets client_id, the
 * secret (client_secret_post) or the assertion (private_key_jwt, signed
 * with key for audience); out->basic gets the Basic header. A client
 * without an id adds nothing. Free out with mcp_auth_creds_free once the
 * request is sent. */
int mcp_auth_client_auth(const mcp_auth_client_t *c, const mcp_jwt_key_t *key,
                         const char *audience, const char **kv, size_t *n,
                         mcp_auth_creds_t *out, mcp_error_t *err);
void mcp_auth_creds_free(mcp_auth_creds_t *c);

#endif
