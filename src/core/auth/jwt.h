/*
 * jwt.h - signing keys and compact JWS (RFC 7515) for the OAuth flow:
 * RFC 7523 client assertions and RFC 9449 DPoP proofs. Every key
 * operation, hash and signature is OpenSSL's (crypto.h); no I/O.
 *
 * A key is an EC P-256 key (ES256), EC P-384 (ES384) or RSA of 2048 bits
 * or more (RS256); its algorithm follows from it. ES signatures are the
 * raw R||S of RFC 7518 section 3.4, not DER. A key's private part never
 * leaves this file except as the DER kept by the token store.
 */
#ifndef MCP_AUTH_JWT_H
#define MCP_AUTH_JWT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "error.h"

#define MCP_JWT_MAX_PEM (64u * 1024u)

typedef struct mcp_jwt_key_s mcp_jwt_key_t;

/* A private key from PEM text (PKCS#8 or traditional, unencrypted).
 * MCP_EINVAL when it is none, or of a kind that cannot sign a JWT. */
int mcp_jwt_key_from_pem(const char *pem, size_t len, mcp_jwt_key_t **out,
                         mcp_error_t *err);
/* A new EC P-256 key (DPoP). */
int mcp_jwt_key_generate(mcp_jwt_key_t **out, mcp_error_t *err);
/* The private key as base64 DER, for the store (owner-only file), and
 * back. The caller frees (and overwrites) *out. */
int mcp_jwt_key_export(const mcp_jwt_key_t *k, char **out, mcp_error_t *err);
int mcp_jwt_key_import(const char *b64, mcp_jwt_key_t **out,
                       mcp_error_t *err);
void mcp_jwt_key_free(mcp_jwt_key_t *k);

/* "ES256", "ES384" or "RS256". */
const char *mcp_jwt_key_alg(const mcp_jwt_key_t *k);
/* The public JWK (RFC 7517): kty, crv/x/y or n/e; never d. */
int mcp_jwt_key_jwk(const mcp_jwt_key_t *k, cJSON **out, mcp_error_t *err);
/* The RFC 7638 SHA-256 thumbprint, base64url (43 characters). */
int mcp_jwt_key_thumbprint(const mcp_jwt_key_t *k, char out[64],
                           mcp_error_t *err);

/* header.claims.signature. header may be NULL; "alg" is set in it (it is
 * not taken). The caller frees *out. */
int mcp_jwt_sign(const mcp_jwt_key_t *k, cJSON *header, const cJSON *claims,
                 char **out, mcp_error_t *err);

/* A fresh jti: 16 random bytes as base64url. */
int mcp_jwt_jti(char out[32], mcp_error_t *err);

#endif
