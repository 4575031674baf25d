/*
 * dpop.c - DPoP proofs and nonces (see dpop.h).
 */
#include "auth/dpop.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth/challenge.h"
#include "auth/pkce.h"
#include "curl_dl.h"

#define MAX_HTU 2048

void
mcp_dpop_nonce_seen(mcp_dpop_nonce_t *n, const char *value)
{
  size_t len = strlen(value), i;

  if (len == 0 || len >= sizeof n->value)
    return;
  /* NQCHAR: %x21 / %x23-5B / %x5D-7E */
  for (i = 0; i < len; i++) {
    unsigned char c = (unsigned char) value[i];

    if (c < 0x21 || c > 0x7e || c == '"' || c == '\\')
      return;
  }
  memcpy(n->value, value, len + 1);
}

int
mcp_dpop_nonce_retry(mcp_dpop_nonce_t *n)
{
  if (n->value[0] == '\0' || strcmp(n->value, n->tried) == 0)
    return 0;
  memcpy(n->tried, n->value, sizeof n->tried);
  return 1;
}

const char *
mcp_dpop_nonce_get(const mcp_dpop_nonce_t *n)
{
  return n->value[0] != '\0' ? n->value : NULL;
}

/* url without its query and fragment (RFC 9449 section 4.2, htu). */
static int
htu_of(const char *url, char *out, size_t cap, mcp_error_t *err)
{
  CURLU *h = curl_url();
  char *s = NULL;
  int ok;

  if (h == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  ok = curl_url_set(h, CURLUPART_URL, url, 0) == CURLUE_OK &&
       curl_url_set(h, CURLUPART_QUERY, NULL, 0) == CURLUE_OK &&
       curl_url_set(h, CURLUPART_FRAGMENT, NULL, 0) == CURLUE_OK &&
       /* (a password in the URL must not travel in every proof) */
       curl_url_set(h, CURLUPART_USER, NULL, 0) == CURLUE_OK &&
       curl_url_set(h, CURLUPART_PASSWORD, NULL, 0) == CURLUE_OK &&
       curl_url_get(h, CURLUPART_URL, &s, 0) == CURLUE_OK &&
       strlen(s) < cap;
  if (ok)
    snprintf(out, cap, "%s", s);
  curl_free(s);
  curl_url_cleanup(h);
  return ok ? 0 : mcp_error_set(err, MCP_EINVAL, "%.120s is not a URL a "
                                "DPoP proof can name", url);
}

int
mcp_dpop_proof(const mcp_jwt_key_t *key, const char *method,
               const char *url, const char *access_token, const char *nonce,
               char **line, mcp_error_t *err)
{
  static const char prefix[] = "DPoP: ";
  char htu[MAX_HTU], jti[32], ath[64], *jwt = NULL, *l;
  unsigned char digest[32];
  cJSON *header = NULL, *claims = NULL, *jwk = NULL;
  int rc;

  rc = htu_of(url, htu, sizeof htu, err);
  if (rc == 0)
    rc = mcp_jwt_jti(jti, err);
  if (rc == 0)
    rc = mcp_jwt_key_jwk(key, &jwk, err);
  if (rc != 0)
    return rc;
  header = cJSON_CreateObject();
  claims = cJSON_CreateObject();
  if (header == NULL || claims == NULL ||
      cJSON_AddStringToObject(header, "typ", "dpop+jwt") == NULL ||
      !cJSON_AddItemToObject(header, "jwk", jwk)) {
    cJSON_Delete(jwk);
    rc = mcp_error_set(err, MCP_ENOMEM, NULL);
    goto done;
  }
  if (cJSON_AddStringToObject(claims, "jti", jti) == NULL ||
      cJSON_AddStringToObject(claims, "htm", method) == NULL ||
      cJSON_AddStringToObject(claims, "htu", htu) == NULL ||
      cJSON_AddNumberToObject(claims, "iat", (double) time(NULL)) == NULL) {
    rc = mcp_error_set(err, MCP_ENOMEM, NULL);
    goto done;
  }
  if (access_token != NULL) {
    SHA256((const unsigned char *) access_token, strlen(access_token),
           digest);
    mcp_auth_base64url(digest, sizeof digest, ath, sizeof ath);
    if (cJSON_AddStringToObject(claims, "ath", ath) == NULL) {
      rc = mcp_error_set(err, MCP_ENOMEM, NULL);
      goto done;
    }
  }
  if (nonce != NULL && cJSON_AddStringToObject(claims, "nonce", nonce) ==
                         NULL) {
    rc = mcp_error_set(err, MCP_ENOMEM, NULL);
    goto done;
  }
  rc = mcp_jwt_sign(key, header, claims, &jwt, err);
  if (rc != 0)
    goto done;
  l = malloc(sizeof prefix + strlen(jwt));
  if (l == NULL) {
    rc = mcp_error_set(err, MCP_ENOMEM, NULL);
    goto done;
  }
  memcpy(l, prefix, sizeof prefix - 1);
  strcpy(l + sizeof prefix - 1, jwt);
  *line = l;
done:
  free(jwt);
  cJSON_Delete(header);
  cJSON_Delete(claims);
  return rc;
}

int
mcp_dpop_challenge_wants_nonce(const char *challenge)
{
  mcp_auth_challenges_t all;
  const mcp_auth_challenge_t *ch;
  const char *error;
  mcp_error_t err;
  int yes;

  if (challenge == NULL ||
      mcp_auth_challenges_parse(challenge, strlen(challenge), &all,
                                &err) != 0)
    return 0;
  ch = mcp_auth_challenges_find(&all, "DPoP");
  error = ch != NULL ? mcp_auth_challenge_param(ch, "error") : NULL;
  yes = error != NULL && strcmp(error, "use_dpop_nonce") == 0;
  mcp_auth_challenges_free(&all);
  return yes;
}
