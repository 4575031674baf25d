/*
 * pkce.h - the random and hashed values of the OAuth flow, on OpenSSL's
 * libcrypto (loaded by curl_dl.h): base64url, state values, the PKCE pair
 * of RFC 7636 (S256), and SHA-256 in hex for the token store's file
 * names. No I/O.
 */
#ifndef MCP_AUTH_PKCE_H
#define MCP_AUTH_PKCE_H

#include <stddef.h>

#include "error.h"

/* Unpadded base64url (RFC 4648 section 5) of in[0..n) into out; returns
 * its length, or -1 when outsz is too small. */
int mcp_auth_base64url(const unsigned char *in, size_t n, char *out,
                       size_t outsz);
/* nbytes random bytes as base64url. 0, MCP_EINVAL (outsz too small),
 * MCP_EIO (no randomness). */
int mcp_auth_random(char *out, size_t outsz, size_t nbytes,
                    mcp_error_t *err);

typedef struct mcp_auth_pkce_s {
  char verifier[64];    /* 43 characters: 32 random bytes */
  char challenge[64];   /* BASE64URL(SHA256(verifier)) */
} mcp_auth_pkce_t;

int mcp_auth_pkce_new(mcp_auth_pkce_t *out, mcp_error_t *err);
/* The S256 challenge of a verifier (RFC 7636 section 4.2). */
int mcp_auth_pkce_s256(const char *verifier, char out[64], mcp_error_t *err);
/* Lower-case hex SHA-256 of data. */
int mcp_auth_sha256_hex(const char *data, size_t len, char out[65],
                        mcp_error_t *err);

#endif
