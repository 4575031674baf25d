/*
 * metadata.h - the documents OAuth discovery fetches, read and checked:
 * RFC 9728 protected-resource metadata (PRM) and RFC 8414 / OpenID
 * Connect authorization-server metadata. No I/O: the flow fetches, these
 * functions judge what came back.
 *
 * Everything in a document is untrusted: every URL in it must be https
 * (or http to a loopback host), the PRM's resource must be the server the
 * client asked about, and the issuer must be the one the document was
 * fetched for (RFC 8414 section 3.3), or the document is refused with a
 * message saying which rule it broke.
 */
#ifndef MCP_AUTH_METADATA_H
#define MCP_AUTH_METADATA_H

#include <cjson/cJSON.h>

#include "error.h"

typedef struct mcp_auth_prm_s {
  char *resource;              /* canonical; the RFC 8707 resource sent */
  char *authorization_server;  /* the first of authorization_servers */
  char *scopes;                /* scopes_supported, space-separated; NULL */
} mcp_auth_prm_t;

typedef struct mcp_auth_asmeta_s {
  char *issuer;
  char *authorization_endpoint;
  char *token_endpoint;
  char *registration_endpoint;  /* NULL: no dynamic registration */
  char *scopes;                 /* scopes_supported, space-separated; NULL */
  unsigned s256 : 1;            /* code_challenge_methods_supported has it */
  unsigned methods_listed : 1;  /* code_challenge_methods_supported given */
  unsigned cimd : 1;            /* client_id_metadata_document_supported */
  unsigned iss_supported : 1;   /* authorization_response_iss_parameter_.. */
  unsigned auth_none : 1;       /* token_endpoint_auth_methods_supported */
  unsigned auth_basic : 1;
  unsigned auth_post : 1;
  unsigned auth_private_key_jwt : 1;
  unsigned signing_listed : 1;  /* token_endpoint_auth_signing_alg_values_
                                   supported given, with: */
  unsigned signing_es256 : 1;
  unsigned signing_es384 : 1;
  unsigned signing_rs256 : 1;
  unsigned dpop_es256 : 1;      /* dpop_signing_alg_values_supported has it */
  unsigned jwt_bearer : 1;      /* grant_types_supported: jwt-bearer */
  unsigned grants_listed : 1;   /* grant_types_supported given */
} mcp_auth_asmeta_t;

/* Reads a PRM document fetched for the MCP server whose canonical
 * resource URI is resource: its resource must be that, or cover it
 * (mcp_auth_resource_covers). MCP_EAUTH when a rule is broken. */
int mcp_auth_prm_read(const cJSON *doc, const char *resource,
                      mcp_auth_prm_t *out, mcp_error_t *err);
void mcp_auth_prm_free(mcp_auth_prm_t *prm);

/* Reads authorization-server metadata fetched for issuer (compared
 * exactly, without normalising). MCP_EAUTH when a rule is broken. issuer
 * NULL: the 2025-03-26 metadata at the MCP server's own origin, whose
 * issuer may be any (it is then what the redirect's iss is checked
 * against). */
int mcp_auth_asmeta_read(const cJSON *doc, const char *issuer,
                         mcp_auth_asmeta_t *out, mcp_error_t *err);
/* The 2025-03-26 fallback for a server without metadata: the endpoints
 * /authorize, /token and /register of base (an origin). */
int mcp_auth_asmeta_default(const char *base, mcp_auth_asmeta_t *out,
                            mcp_error_t *err);
void mcp_auth_asmeta_free(mcp_auth_asmeta_t *m);

/* 1 when the space-separated list has word. */
int mcp_auth_scope_has(const char *list, const char *word);
/* The union of two space-separated lists, a's words first, without
 * repeats; NULL when both are NULL or empty (or on ENOMEM: check *oom). */
char *mcp_auth_scope_union(const char *a, const char *b, int *oom);

#endif
