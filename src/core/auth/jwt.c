/*
 * jwt.c - signing keys and compact JWS (see jwt.h).
 */
#include "auth/jwt.h"

#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>

#include "auth/crypto.h"
#include "auth/pkce.h"
#include "curl_dl.h"

#define MAX_DER 8192
#define MAX_SIG 1024    /* RSA 8192 bits */

struct mcp_jwt_key_s {
  EVP_PKEY *pkey;
  const char *alg;       /* "ES256" | "ES384" | "RS256" */
  int coord;             /* EC: bytes per coordinate (32, 48) */
};

/* Wraps pkey, which it takes, when it can sign a JWT. */
static int
wrap(EVP_PKEY *pkey, mcp_jwt_key_t **out, mcp_error_t *err)
{
  mcp_jwt_key_t *k;
  char group[64];
  size_t glen = 0;
  int id = mcp__crypto.EVP_PKEY_get_base_id(pkey);

  k = calloc(1, sizeof *k);
  if (k == NULL) {
    mcp__crypto.EVP_PKEY_free(pkey);
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  }
  k->pkey = pkey;
  if (id == EVP_PKEY_EC &&
      mcp__crypto.EVP_PKEY_get_group_name(pkey, group, sizeof group,
                                          &glen) == 1) {
    if (strcmp(group, "prime256v1") == 0 || strcmp(group, "P-256") == 0) {
      k->alg = "ES256";
      k->coord = 32;
    } else if (strcmp(group, "secp384r1") == 0 ||
               strcmp(group, "P-384") == 0) {
      k->alg = "ES384";
      k->coord = 48;
    }
  } else if (id == EVP_PKEY_RSA &&
             mcp__crypto.EVP_PKEY_get_bits(pkey) >= 2048) {
    k->alg = "RS256";
  }
  if (k->alg == NULL) {
    mcp_jwt_key_free(k);
    return mcp_error_set(err, MCP_EINVAL, "the key is neither EC P-256, "
                         "EC P-384 nor RSA of 2048 bits or more: it cannot "
                         "sign a JWT here");
  }
  *out = k;
  return 0;
}

int
mcp_jwt_key_from_pem(const char *pem, size_t len, mcp_jwt_key_t **out,
                     mcp_error_t *err)
{
  EVP_PKEY *pkey;
  BIO *bio;
  int rc;

  rc = mcp_crypto_load(err);
  if (rc != 0)
    return rc;
  if (len > MCP_JWT_MAX_PEM)
    return mcp_error_set(err, MCP_ETOOBIG, "the private key is over %u "
                         "bytes", MCP_JWT_MAX_PEM);
  bio = mcp__crypto.BIO_new_mem_buf(pem, (int) len);
  if (bio == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  /* No passphrase callback: an encrypted key is refused, not prompted. */
  pkey = mcp__crypto.PEM_read_bio_PrivateKey(bio, NULL, NULL, (void *) "");
  mcp__crypto.BIO_free(bio);
  if (pkey == NULL) {
    mcp_crypto_error(err, "no unencrypted PEM private key");
    err->code = MCP_EINVAL;
    return MCP_EINVAL;
  }
  return wrap(pkey, out, err);
}

int
mcp_jwt_key_generate(mcp_jwt_key_t **out, mcp_error_t *err)
{
  EVP_PKEY *pkey;
  int rc;

  rc = mcp_crypto_load(err);
  if (rc != 0)
    return rc;
  pkey = mcp__crypto.EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
  if (pkey == NULL)
    return mcp_crypto_error(err, "cannot generate an EC P-256 key");
  return wrap(pkey, out, err);
}

int
mcp_jwt_key_export(const mcp_jwt_key_t *k, char **out, mcp_error_t *err)
{
  unsigned char der[MAX_DER], *p = der;
  char *b64;
  int n = mcp__crypto.i2d_PrivateKey(k->pkey, NULL);

  if (n <= 0 || n > MAX_DER)
    return mcp_crypto_error(err, "cannot serialize the key");
  n = mcp__crypto.i2d_PrivateKey(k->pkey, &p);
  if (n <= 0)
    return mcp_crypto_error(err, "cannot serialize the key");
  b64 = malloc((size_t) (n + 2) / 3 * 4 + 1);
  if (b64 == NULL) {
    memset(der, 0, sizeof der);
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  }
  EVP_EncodeBlock((unsigned char *) b64, der, n);
  memset(der, 0, sizeof der);
  *out = b64;
  return 0;
}

int
mcp_jwt_key_import(const char *b64, mcp_jwt_key_t **out, mcp_error_t *err)
{
  unsigned char der[MAX_DER];
  const unsigned char *p = der;
  size_t len = strlen(b64);
  EVP_PKEY *pkey;
  int n, rc;

  rc = mcp_crypto_load(err);
  if (rc != 0)
    return rc;
  if (len == 0 || len % 4 != 0 || len / 4 * 3 > sizeof der)
    return mcp_error_set(err, MCP_EPROTO, "a stored key that is not ours");
  n = EVP_DecodeBlock(der, (const unsigned char *) b64, (int) len);
  if (n <= 0)
    return mcp_error_set(err, MCP_EPROTO, "a stored key that is not ours");
  pkey = mcp__crypto.d2i_AutoPrivateKey(NULL, &p, n);
  memset(der, 0, sizeof der);
  if (pkey == NULL)
    return mcp_crypto_error(err, "a stored key that does not parse");
  return wrap(pkey, out, err);
}

void
mcp_jwt_key_free(mcp_jwt_key_t *k)
{
  if (k == NULL)
    return;
  mcp__crypto.EVP_PKEY_free(k->pkey);
  free(k);
}

const char *
mcp_jwt_key_alg(const mcp_jwt_key_t *k)
{
  return k->alg;
}

/* The base64url of a key parameter (big-endian, padded to width bytes
 * when width > 0) added to obj as name. */
static int
add_param(cJSON *obj, const mcp_jwt_key_t *k, const char *param,
          const char *name, int width, mcp_error_t *err)
{
  unsigned char bytes[1024];
  char text[1400];
  BIGNUM *bn = NULL;
  int n;

  if (mcp__crypto.EVP_PKEY_get_bn_param(k->pkey, param, &bn) != 1)
    return mcp_crypto_error(err, "cannot read the public key");
  if (width <= 0)
    width = (mcp__crypto.BN_num_bits(bn) + 7) / 8;
  n = width <= (int) sizeof bytes
      ? mcp__crypto.BN_bn2binpad(bn, bytes, width) : -1;
  mcp__crypto.BN_free(bn);
  if (n < 0 || mcp_auth_base64url(bytes, (size_t) n, text, sizeof text) < 0)
    return mcp_error_set(err, MCP_EINVAL, "a public key too large");
  if (cJSON_AddStringToObject(obj, name, text) == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  return 0;
}

/* The JWK's required members in RFC 7638's order (lexicographic), which
 * is also what the thumbprint hashes. */
int
mcp_jwt_key_jwk(const mcp_jwt_key_t *k, cJSON **out, mcp_error_t *err)
{
  cJSON *jwk = cJSON_CreateObject();
  int rc;

  if (jwk == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  if (k->coord > 0) {
    rc = cJSON_AddStringToObject(jwk, "crv", k->coord == 32 ? "P-256"
                                                            : "P-384")
         && cJSON_AddStringToObject(jwk, "kty", "EC")
         ? 0 : mcp_error_set(err, MCP_ENOMEM, NULL);
    if (rc == 0)
      rc = add_param(jwk, k, OSSL_PKEY_PARAM_EC_PUB_X, "x", k->coord, err);
    if (rc == 0)
      rc = add_param(jwk, k, OSSL_PKEY_PARAM_EC_PUB_Y, "y", k->coord, err);
  } else {
    rc = add_param(jwk, k, OSSL_PKEY_PARAM_RSA_E, "e", 0, err);
    if (rc == 0 && cJSON_AddStringToObject(jwk, "kty", "RSA") == NULL)
      rc = mcp_error_set(err, MCP_ENOMEM, NULL);
    if (rc == 0)
      rc = add_param(jwk, k, OSSL_PKEY_PARAM_RSA_N, "n", 0, err);
  }
  if (rc != 0) {
    cJSON_Delete(jwk);
    return rc;
  }
  *out = jwk;
  return 0;
}

int
mcp_jwt_key_thumbprint(const mcp_jwt_key_t *k, char out[64],
                       mcp_error_t *err)
{
  unsigned char digest[32];
  cJSON *jwk = NULL;
  char *text;
  int rc = mcp_jwt_key_jwk(k, &jwk, err);

  if (rc != 0)
    return rc;
  text = cJSON_PrintUnformatted(jwk);
  cJSON_Delete(jwk);
  if (text == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  SHA256((const unsigned char *) text, strlen(text), digest);
  cJSON_free(text);
  mcp_auth_base64url(digest, sizeof digest, out, 64);
  return 0;
}

/* The base64url of a JSON object, appended to buf at *len. */
static int
append_part(const cJSON *obj, char *buf, size_t cap, size_t *len,
            mcp_error_t *err)
{
  char *text = cJSON_PrintUnformatted(obj);
  int n;

  if (text == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  n = mcp_auth_base64url((const unsigned char *) text, strlen(text),
                         buf + *len, cap - *len);
  cJSON_free(text);
  if (n < 0)
    return mcp_error_set(err, MCP_ETOOBIG, "a JWT too large");
  *len += (size_t) n;
  return 0;
}

/* EVP_DigestSign's DER ECDSA signature as JWS's fixed-width R||S. */
static int
ecdsa_raw(const unsigned char *der, size_t len, int coord,
          unsigned char *out, mcp_error_t *err)
{
  const unsigned char *p = der;
  const BIGNUM *r, *s;
  ECDSA_SIG *sig = mcp__crypto.d2i_ECDSA_SIG(NULL, &p, (long) len);
  int ok;

  if (sig == NULL)
    return mcp_crypto_error(err, "an ECDSA signature that does not parse");
  mcp__crypto.ECDSA_SIG_get0(sig, &r, &s);
  ok = mcp__crypto.BN_bn2binpad(r, out, coord) == coord &&
       mcp__crypto.BN_bn2binpad(s, out + coord, coord) == coord;
  mcp__crypto.ECDSA_SIG_free(sig);
  return ok ? 0 : mcp_error_set(err, MCP_EIO, "an ECDSA signature too long");
}

int
mcp_jwt_sign(const mcp_jwt_key_t *k, cJSON *header, const cJSON *claims,
             char **out, mcp_error_t *err)
{
  unsigned char sig[MAX_SIG], raw[2 * 66];
  const unsigned char *final = sig;
  cJSON *own = NULL;
  EVP_MD_CTX *md = NULL;
  size_t len = 0, cap, siglen = sizeof sig;
  char *buf = NULL;
  int rc;

  if (header == NULL && (header = own = cJSON_CreateObject()) == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  cJSON_DeleteItemFromObjectCaseSensitive(header, "alg");
  if (cJSON_AddStringToObject(header, "alg", k->alg) == NULL) {
    rc = mcp_error_set(err, MCP_ENOMEM, NULL);
    goto error;
  }
  cap = 64 * 1024;
  buf = malloc(cap);
  if (buf == NULL) {
    rc = mcp_error_set(err, MCP_ENOMEM, NULL);
    goto error;
  }
  rc = append_part(header, buf, cap, &len, err);
  if (rc == 0 && len + 1 < cap)
    buf[len++] = '.';
  if (rc == 0)
    rc = append_part(claims, buf, cap, &len, err);
  if (rc != 0)
    goto error;
  md = mcp__crypto.EVP_MD_CTX_new();
  if (md == NULL ||
      mcp__crypto.EVP_DigestSignInit(md, NULL, k->coord == 48
                                       ? mcp__crypto.EVP_sha384()
                                       : mcp__crypto.EVP_sha256(),
                                     NULL, k->pkey) != 1 ||
      mcp__crypto.EVP_DigestSign(md, sig, &siglen, (unsigned char *) buf,
                                 len) != 1) {
    rc = mcp_crypto_error(err, "cannot sign the JWT");
    goto error;
  }
  if (k->coord > 0) {
    rc = ecdsa_raw(sig, siglen, k->coord, raw, err);
    if (rc != 0)
      goto error;
    final = raw;
    siglen = 2 * (size_t) k->coord;
  }
  if (len + 2 >= cap) {
    rc = mcp_error_set(err, MCP_ETOOBIG, "a JWT too large");
    goto error;
  }
  buf[len++] = '.';
  if (mcp_auth_base64url(final, siglen, buf + len, cap - len) < 0) {
    rc = mcp_error_set(err, MCP_ETOOBIG, "a JWT too large");
    goto error;
  }
  mcp__crypto.EVP_MD_CTX_free(md);
  cJSON_Delete(own);
  *out = buf;
  return 0;
error:
  mcp__crypto.EVP_MD_CTX_free(md);
  cJSON_Delete(own);
  free(buf);
  return rc;
}

int
mcp_jwt_jti(char out[32], mcp_error_t *err)
{
  return mcp_auth_random(out, 32, 16, err);
}
