/*
 * dpop.h - DPoP proofs (RFC 9449) and the nonces servers ask them to
 * carry. No I/O: the flow (flow.c) keeps the key per authorization
 * server (store.h) and sends the proofs this file makes.
 *
 * A proof is a JWT of type dpop+jwt signed with the client's key, whose
 * public JWK is in its header: htm, htu (the URL without query and
 * fragment), iat, a fresh jti every time, ath (SHA-256 of the access
 * token) toward a resource server, and the server's last nonce if it
 * gave one.
 *
 * Nonces (RFC 9449 sections 8 and 9) are kept per server: a server that
 * refuses a proof with use_dpop_nonce gets the request again once with
 * the nonce it sent, and only once per nonce value, so a server that
 * keeps refusing cannot make the client loop.
 */
#ifndef MCP_AUTH_DPOP_H
#define MCP_AUTH_DPOP_H

#include "auth/jwt.h"
#include "error.h"

#define MCP_DPOP_MAX_NONCE 256

/* The nonce one server gave, and the one a retry was already made with. */
typedef struct mcp_dpop_nonce_s {
  char value[MCP_DPOP_MAX_NONCE];   /* "" until the server gives one */
  char tried[MCP_DPOP_MAX_NONCE];   /* a retry was made for this value */
} mcp_dpop_nonce_t;

/* A DPoP-Nonce header value seen: kept when it is a valid nonce (RFC
 * 9449 section 8.1: 1*NQCHAR, bounded); anything else is ignored. */
void mcp_dpop_nonce_seen(mcp_dpop_nonce_t *n, const char *value);
/* The server refused with use_dpop_nonce: 1 when the request should go
 * again (a nonce is held that no retry used yet; it is marked used), 0
 * when not (no nonce, or that nonce was already tried and refused). */
int mcp_dpop_nonce_retry(mcp_dpop_nonce_t *n);
/* The nonce to send, or NULL. */
const char *mcp_dpop_nonce_get(const mcp_dpop_nonce_t *n);

/* Makes "DPoP: <proof>" for a request: method (e.g. "POST"), url (its
 * query and fragment are dropped for htu), access_token (ath is added
 * when not NULL), nonce (or NULL). The caller frees *line. */
int mcp_dpop_proof(const mcp_jwt_key_t *key, const char *method,
                   const char *url, const char *access_token,
                   const char *nonce, char **line, mcp_error_t *err);

/* Whether a challenge (WWW-Authenticate text) or a token error says
 * use_dpop_nonce. */
int mcp_dpop_challenge_wants_nonce(const char *challenge);

#endif
