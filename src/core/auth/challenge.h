/*
 * challenge.h - WWW-Authenticate (RFC 9110 section 11.6.1, RFC 6750
 * section 3): a parser without I/O for the challenges a 401 or 403
 * carries, several per header, with token68 or auth-params whose values
 * are tokens or quoted strings.
 *
 * The text is untrusted: it is bounded (MCP_AUTH_MAX_CHALLENGE_TEXT, 32
 * challenges, 64 parameters each), NUL and control bytes are refused,
 * and anything that is not the grammar is MCP_EPROTO with the offset and
 * what was expected.
 */
#ifndef MCP_AUTH_CHALLENGE_H
#define MCP_AUTH_CHALLENGE_H

#include <stddef.h>

#include "error.h"

#define MCP_AUTH_MAX_CHALLENGE_TEXT 16384
#define MCP_AUTH_MAX_CHALLENGES 32
#define MCP_AUTH_MAX_PARAMS 64

typedef struct mcp_auth_param_s {
  char *name;            /* as sent */
  char *value;           /* unquoted, backslash escapes resolved */
} mcp_auth_param_t;

typedef struct mcp_auth_challenge_s {
  char *scheme;          /* as sent, e.g. "Bearer" */
  char *token68;         /* or NULL */
  mcp_auth_param_t *params;
  size_t nparams;
} mcp_auth_challenge_t;

typedef struct mcp_auth_challenges_s {
  mcp_auth_challenge_t *v;
  size_t n;
} mcp_auth_challenges_t;

/* Parses a header value (or several joined with ", "). 0, MCP_EPROTO,
 * MCP_ETOOBIG or MCP_ENOMEM; on failure *out is empty. */
int mcp_auth_challenges_parse(const char *text, size_t len,
                              mcp_auth_challenges_t *out, mcp_error_t *err);
void mcp_auth_challenges_free(mcp_auth_challenges_t *c);
/* The first challenge of that scheme (case-insensitive), or NULL. */
const mcp_auth_challenge_t *
mcp_auth_challenges_find(const mcp_auth_challenges_t *c, const char *scheme);
/* The first parameter of that name (case-insensitive), or NULL. */
const char *mcp_auth_challenge_param(const mcp_auth_challenge_t *ch,
                                     const char *name);

/* What an MCP client needs from the Bearer challenge (or, without one,
 * the DPoP challenge of RFC 9449); NULL when absent. */
typedef struct mcp_auth_bearer_s {
  char *resource_metadata, *scope, *error, *error_description;
} mcp_auth_bearer_t;

/* Parses text and fills out from its Bearer (else DPoP) challenge;
 * MCP_ENOENT when it parses but has neither. */
int mcp_auth_bearer_parse(const char *text, size_t len, mcp_auth_bearer_t *out,
                          mcp_error_t *err);
void mcp_auth_bearer_free(mcp_auth_bearer_t *b);

#endif
