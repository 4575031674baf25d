/*
 * pkce.c - base64url, random values, PKCE S256 and SHA-256 (see pkce.h).
 */
#include "auth/pkce.h"

#include <stdio.h>
#include <string.h>

#include "curl_dl.h"

int
mcp_auth_base64url(const unsigned char *in, size_t n, char *out,
                   size_t outsz)
{
  unsigned char block[4 * 64 + 1];
  size_t done = 0, len = 0, chunk, i;
  int k;

  /* EVP_EncodeBlock in chunks of 48 bytes (64 characters). */
  while (done < n) {
    chunk = n - done < 48 ? n - done : 48;
    k = EVP_EncodeBlock(block, in + done, (int) chunk);
    for (i = 0; i < (size_t) k && block[i] != '='; i++) {
      if (len + 1 >= outsz)
        return -1;
      out[len++] = block[i] == '+' ? '-' : block[i] == '/' ? '_'
                                                            : (char) block[i];
    }
    done += chunk;
  }
  if (len >= outsz)
    return -1;
  out[len] = '\0';
  return (int) len;
}

int
mcp_auth_random(char *out, size_t outsz, size_t nbytes, mcp_error_t *err)
{
  unsigned char bytes[128];
  int rc;

  if (nbytes > sizeof bytes || outsz < (nbytes * 4 + 2) / 3 + 1)
    return mcp_error_set(err, MCP_EINVAL, "no room for %zu random bytes",
                         nbytes);
  rc = mcp_curl_load(err);
  if (rc != 0)
    return rc;
  if (RAND_bytes(bytes, (int) nbytes) != 1)
    return mcp_error_set(err, MCP_EIO, "no randomness (RAND_bytes)");
  mcp_auth_base64url(bytes, nbytes, out, outsz);
  memset(bytes, 0, sizeof bytes);
  return 0;
}

int
mcp_auth_pkce_s256(const char *verifier, char out[64], mcp_error_t *err)
{
  unsigned char digest[32];
  int rc = mcp_curl_load(err);

  if (rc != 0)
    return rc;
  SHA256((const unsigned char *) verifier, strlen(verifier), digest);
  mcp_auth_base64url(digest, sizeof digest, out, 64);
  return 0;
}

int
mcp_auth_pkce_new(mcp_auth_pkce_t *out, mcp_error_t *err)
{
  int rc = mcp_auth_random(out->verifier, sizeof out->verifier, 32, err);

  if (rc == 0)
    rc = mcp_auth_pkce_s256(out->verifier, out->challenge, err);
  return rc;
}

int
mcp_auth_sha256_hex(const char *data, size_t len, char out[65],
                    mcp_error_t *err)
{
  unsigned char digest[32];
  int rc = mcp_curl_load(err), i;

  if (rc != 0)
    return rc;
  SHA256((const unsigned char *) data, len, digest);
  for (i = 0; i < 32; i++)
    snprintf(out + 2 * i, 3, "%02x", digest[i]);
  return 0;
}
