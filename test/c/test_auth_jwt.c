/*
 * test_auth_jwt.c - tests for the signing side of OAuth without a person
 * (jwt.c, dpop.c, grant.c): every JWT is taken apart and its signature
 * verified here with OpenSSL itself against the key (ES256 from R||S,
 * RS256), a tampered one must fail; the public JWK and its RFC 7638
 * thumbprint; DPoP proof fields (htm, htu without query, iat, unique
 * jti, ath, nonce); the nonce retry that happens once and only once per
 * nonce; the RFC 7523 client assertion; client authentication per
 * method; secrets read from files.
 *
 * This file links libcrypto itself, for the verifying side, and so does
 * not include curl_dl.h, whose macros rename OpenSSL functions.
 */
#include <fcntl.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>

#include "auth/dpop.h"
#include "auth/grant.h"
#include "auth/jwt.h"
#include "common.h"
#include "test.h"

/* ---- helpers: base64url, splitting, verifying --------------------------- */

/* Decodes unpadded base64url into out; returns the length, or -1. */
static int
b64url_decode(const char *in, size_t n, unsigned char *out, size_t cap)
{
  char buf[8192];
  size_t i, len = n;
  int got;

  if (n + 4 >= sizeof buf)
    return -1;
  for (i = 0; i < n; i++) {
    if (in[i] == '-')
      buf[i] = '+';
    else if (in[i] == '_')
      buf[i] = '/';
    else if (in[i] == '=' || in[i] == '+' || in[i] == '/')
      return -1;             /* not base64url, or padded */
    else
      buf[i] = in[i];
  }
  while (len % 4 != 0)
    buf[len++] = '=';
  buf[len] = '\0';
  if (len / 4 * 3 > cap)
    return -1;
  got = EVP_DecodeBlock(out, (const unsigned char *) buf, (int) len);
  if (got < 0)
    return -1;
  return got - (int) (len - n);  /* the padding decoded to zero bytes */
}

typedef struct jwt_parts_s {
  cJSON *header, *claims;
  const char *signing_input;    /* header.claims */
  size_t signing_len;
  unsigned char sig[1024];
  int siglen;
} jwt_parts_t;

static cJSON *
decode_json_part(const char *p, size_t n)
{
  unsigned char buf[4096];
  int len = b64url_decode(p, n, buf, sizeof buf - 1);

  ASSERT(len > 0);
  buf[len] = '\0';
  return cJSON_Parse((const char *) buf);
}

static void
split_jwt(const char *jwt, jwt_parts_t *out)
{
  const char *dot1 = strchr(jwt, '.'), *dot2;

  ASSERT_NOT_NULL(dot1);
  dot2 = strchr(dot1 + 1, '.');
  ASSERT_NOT_NULL(dot2);
  ASSERT_NULL(strchr(dot2 + 1, '.'));
  out->header = decode_json_part(jwt, (size_t) (dot1 - jwt));
  out->claims = decode_json_part(dot1 + 1, (size_t) (dot2 - dot1 - 1));
  ASSERT(cJSON_IsObject(out->header));
  ASSERT(cJSON_IsObject(out->claims));
  out->signing_input = jwt;
  out->signing_len = (size_t) (dot2 - jwt);
  out->siglen = b64url_decode(dot2 + 1, strlen(dot2 + 1), out->sig,
                              sizeof out->sig);
  ASSERT(out->siglen > 0);
}

static void
free_parts(jwt_parts_t *p)
{
  cJSON_Delete(p->header);
  cJSON_Delete(p->claims);
}

static const char *
str(const cJSON *obj, const char *name)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);

  return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The test's own EVP_PKEY of a key: its stored (exported) form, read
 * back by OpenSSL directly. */
static EVP_PKEY *
openssl_key(const mcp_jwt_key_t *k)
{
  unsigned char der[8192];
  const unsigned char *p = der;
  char *b64 = NULL;
  EVP_PKEY *pkey;
  int n;

  ASSERT_EQ(mcp_jwt_key_export(k, &b64, NULL), 0);
  n = EVP_DecodeBlock(der, (const unsigned char *) b64, (int) strlen(b64));
  ASSERT(n > 0);
  pkey = d2i_AutoPrivateKey(NULL, &p, n);
  ASSERT_NOT_NULL(pkey);
  free(b64);
  return pkey;
}

/* Verifies the JWS signature of parts with pkey, as a server would:
 * ES256's R||S turned back into DER for OpenSSL. 1 when it verifies. */
static int
verifies(const jwt_parts_t *p, EVP_PKEY *pkey)
{
  unsigned char der[256], *q = der;
  const unsigned char *sig = p->sig;
  size_t siglen = (size_t) p->siglen;
  EVP_MD_CTX *md = EVP_MD_CTX_new();
  int ok;

  if (EVP_PKEY_get_base_id(pkey) == EVP_PKEY_EC) {
    ECDSA_SIG *s = ECDSA_SIG_new();
    BIGNUM *r, *ss;

    if (p->siglen != 64) {
      ECDSA_SIG_free(s);
      EVP_MD_CTX_free(md);
      return 0;
    }
    r = BN_bin2bn(p->sig, 32, NULL);
    ss = BN_bin2bn(p->sig + 32, 32, NULL);
    ECDSA_SIG_set0(s, r, ss);
    siglen = (size_t) i2d_ECDSA_SIG(s, &q);
    ECDSA_SIG_free(s);
    sig = der;
  }
  ok = EVP_DigestVerifyInit(md, NULL, EVP_sha256(), NULL, pkey) == 1 &&
       EVP_DigestVerify(md, sig, siglen,
                        (const unsigned char *) p->signing_input,
                        p->signing_len) == 1;
  EVP_MD_CTX_free(md);
  return ok;
}

static void
b64url_of(const unsigned char *in, size_t n, char *out, size_t cap)
{
  unsigned char buf[512];
  int len = EVP_EncodeBlock(buf, in, (int) n), i, j = 0;

  ASSERT((size_t) len < cap);
  for (i = 0; i < len && buf[i] != '='; i++)
    out[j++] = buf[i] == '+' ? '-' : buf[i] == '/' ? '_' : (char) buf[i];
  out[j] = '\0';
}

/* ---- keys and signatures ----------------------------------------------- */

static void
test_es256_signature_verifies(void)
{
  mcp_jwt_key_t *k = NULL;
  cJSON *claims = cJSON_CreateObject();
  jwt_parts_t p;
  EVP_PKEY *pkey;
  char *jwt = NULL;

  ASSERT_EQ(mcp_jwt_key_generate(&k, NULL), 0);
  ASSERT_STR_EQ(mcp_jwt_key_alg(k), "ES256");
  cJSON_AddStringToObject(claims, "sub", "someone");
  ASSERT_EQ(mcp_jwt_sign(k, NULL, claims, &jwt, NULL), 0);
  split_jwt(jwt, &p);
  ASSERT_STR_EQ(str(p.header, "alg"), "ES256");
  ASSERT_STR_EQ(str(p.claims, "sub"), "someone");
  /* RFC 7518 section 3.4: R||S, 32 bytes each, not DER. */
  ASSERT_EQ(p.siglen, 64);
  pkey = openssl_key(k);
  ASSERT(verifies(&p, pkey));
  /* A changed signature, or a changed payload, does not verify. */
  p.sig[10] ^= 1;
  ASSERT(!verifies(&p, pkey));
  p.sig[10] ^= 1;
  p.signing_len--;
  ASSERT(!verifies(&p, pkey));
  EVP_PKEY_free(pkey);
  free_parts(&p);
  free(jwt);
  cJSON_Delete(claims);
  mcp_jwt_key_free(k);
}

/* PEM text of pkey (PKCS#8), into a malloc'd string. */
static char *
pem_of(EVP_PKEY *pkey)
{
  BIO *bio = BIO_new(BIO_s_mem());
  char *data, *copy;
  long n;

  ASSERT_EQ(PEM_write_bio_PrivateKey(bio, pkey, NULL, NULL, 0, NULL, NULL),
            1);
  n = BIO_get_mem_data(bio, &data);
  copy = malloc((size_t) n + 1);
  memcpy(copy, data, (size_t) n);
  copy[n] = '\0';
  BIO_free(bio);
  return copy;
}

static void
test_rs256_from_pem_verifies(void)
{
  EVP_PKEY *rsa = EVP_RSA_gen(2048);
  cJSON *claims = cJSON_CreateObject(), *header = cJSON_CreateObject();
  mcp_jwt_key_t *k = NULL;
  jwt_parts_t p;
  char *pem, *jwt = NULL;

  ASSERT_NOT_NULL(rsa);
  pem = pem_of(rsa);
  ASSERT_EQ(mcp_jwt_key_from_pem(pem, strlen(pem), &k, NULL), 0);
  ASSERT_STR_EQ(mcp_jwt_key_alg(k), "RS256");
  cJSON_AddStringToObject(header, "typ", "JWT");
  cJSON_AddStringToObject(claims, "iss", "me");
  ASSERT_EQ(mcp_jwt_sign(k, header, claims, &jwt, NULL), 0);
  split_jwt(jwt, &p);
  ASSERT_STR_EQ(str(p.header, "alg"), "RS256");
  ASSERT_STR_EQ(str(p.header, "typ"), "JWT");
  ASSERT_EQ(p.siglen, 256);
  /* Verified with the test's key, not the one the library holds. */
  ASSERT(verifies(&p, rsa));
  p.sig[0] ^= 0x80;
  ASSERT(!verifies(&p, rsa));
  free_parts(&p);
  free(jwt);
  free(pem);
  cJSON_Delete(claims);
  cJSON_Delete(header);
  mcp_jwt_key_free(k);
  EVP_PKEY_free(rsa);
}

static void
test_pem_refusals(void)
{
  static const char junk[] = "-----BEGIN PRIVATE KEY-----\nnot base64\n"
                             "-----END PRIVATE KEY-----\n";
  EVP_PKEY *small = EVP_RSA_gen(1024), *p521 = EVP_EC_gen("P-521");
  mcp_jwt_key_t *k = NULL;
  mcp_error_t err;
  char *pem;

  ASSERT_EQ(mcp_jwt_key_from_pem(junk, strlen(junk), &k, &err), MCP_EINVAL);
  ASSERT_NULL(k);
  ASSERT_EQ(mcp_jwt_key_from_pem("", 0, &k, &err), MCP_EINVAL);
  /* Keys that sign, but not with an algorithm luamcp offers. */
  pem = pem_of(small);
  ASSERT_EQ(mcp_jwt_key_from_pem(pem, strlen(pem), &k, &err), MCP_EINVAL);
  ASSERT_NOT_NULL(strstr(err.msg, "RSA of 2048 bits"));
  free(pem);
  pem = pem_of(p521);
  ASSERT_EQ(mcp_jwt_key_from_pem(pem, strlen(pem), &k, &err), MCP_EINVAL);
  free(pem);
  ASSERT_NULL(k);
  EVP_PKEY_free(small);
  EVP_PKEY_free(p521);
}

static void
test_jwk_and_thumbprint(void)
{
  mcp_jwt_key_t *k = NULL, *again = NULL;
  unsigned char x[32], y[32], digest[32];
  char bx[64], by[64], want[64], got[64], json[256], *b64 = NULL;
  cJSON *jwk = NULL;
  BIGNUM *bn = NULL;
  EVP_PKEY *pkey;

  ASSERT_EQ(mcp_jwt_key_generate(&k, NULL), 0);
  ASSERT_EQ(mcp_jwt_key_jwk(k, &jwk, NULL), 0);
  ASSERT_STR_EQ(str(jwk, "kty"), "EC");
  ASSERT_STR_EQ(str(jwk, "crv"), "P-256");
  ASSERT_NULL(cJSON_GetObjectItemCaseSensitive(jwk, "d"));
  ASSERT_EQ(cJSON_GetArraySize(jwk), 4);
  /* x and y are the key's public point, each padded to 32 bytes. */
  pkey = openssl_key(k);
  ASSERT_EQ(EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_EC_PUB_X, &bn), 1);
  BN_bn2binpad(bn, x, 32);
  BN_free(bn);
  bn = NULL;
  ASSERT_EQ(EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_EC_PUB_Y, &bn), 1);
  BN_bn2binpad(bn, y, 32);
  BN_free(bn);
  b64url_of(x, 32, bx, sizeof bx);
  b64url_of(y, 32, by, sizeof by);
  ASSERT_STR_EQ(str(jwk, "x"), bx);
  ASSERT_STR_EQ(str(jwk, "y"), by);
  /* RFC 7638 section 3.2: the required members, sorted, no spaces. */
  snprintf(json, sizeof json, "{\"crv\":\"P-256\",\"kty\":\"EC\",\"x\":\"%s\","
           "\"y\":\"%s\"}", bx, by);
  SHA256((const unsigned char *) json, strlen(json), digest);
  b64url_of(digest, 32, want, sizeof want);
  ASSERT_EQ(mcp_jwt_key_thumbprint(k, got, NULL), 0);
  ASSERT_STR_EQ(got, want);
  ASSERT_EQ(strlen(got), 43);
  /* The stored form is the same key. */
  ASSERT_EQ(mcp_jwt_key_export(k, &b64, NULL), 0);
  ASSERT_EQ(mcp_jwt_key_import(b64, &again, NULL), 0);
  ASSERT_EQ(mcp_jwt_key_thumbprint(again, got, NULL), 0);
  ASSERT_STR_EQ(got, want);
  ASSERT_EQ(mcp_jwt_key_import("AAAA", &k, NULL) != 0, 1);
  free(b64);
  cJSON_Delete(jwk);
  EVP_PKEY_free(pkey);
  mcp_jwt_key_free(again);
  mcp_jwt_key_free(k);
}

/* ---- DPoP --------------------------------------------------------------- */

/* Takes a "DPoP: <jwt>" line apart; verifies it with the key in its own
 * header's jwk being the signer's (checked against pkey). */
static void
proof_parts(const char *line, EVP_PKEY *pkey, jwt_parts_t *p)
{
  ASSERT(strncmp(line, "DPoP: ", 6) == 0);
  split_jwt(line + 6, p);
  ASSERT_STR_EQ(str(p->header, "typ"), "dpop+jwt");
  ASSERT_STR_EQ(str(p->header, "alg"), "ES256");
  ASSERT(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(p->header, "jwk")));
  ASSERT_NULL(cJSON_GetObjectItemCaseSensitive(
    cJSON_GetObjectItemCaseSensitive(p->header, "jwk"), "d"));
  ASSERT(verifies(p, pkey));
}

static void
test_dpop_proof_fields(void)
{
  static const char token[] = "an-access-token.with.dots";
  unsigned char digest[32];
  char ath[64], *line = NULL, *line2 = NULL, jti[64];
  mcp_jwt_key_t *k = NULL;
  jwt_parts_t p, q;
  EVP_PKEY *pkey;
  double iat, now = (double) time(NULL);

  ASSERT_EQ(mcp_jwt_key_generate(&k, NULL), 0);
  pkey = openssl_key(k);
  ASSERT_EQ(mcp_dpop_proof(k, "POST", "https://mcp.example.com:8443/a/mcp"
                           "?session=1#frag", token, "n-1", &line, NULL), 0);
  proof_parts(line, pkey, &p);
  ASSERT_STR_EQ(str(p.claims, "htm"), "POST");
  /* RFC 9449 section 4.2: htu without query and fragment. */
  ASSERT_STR_EQ(str(p.claims, "htu"), "https://mcp.example.com:8443/a/mcp");
  iat = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(p.claims,
                                                              "iat"));
  ASSERT(iat >= now - 5 && iat <= now + 5);
  /* ath: base64url(SHA-256(ASCII(token))). */
  SHA256((const unsigned char *) token, strlen(token), digest);
  b64url_of(digest, 32, ath, sizeof ath);
  ASSERT_STR_EQ(str(p.claims, "ath"), ath);
  ASSERT_STR_EQ(str(p.claims, "nonce"), "n-1");
  ASSERT_NOT_NULL(str(p.claims, "jti"));
  ASSERT(strlen(str(p.claims, "jti")) >= 16);
  snprintf(jti, sizeof jti, "%s", str(p.claims, "jti"));
  /* At a token endpoint: no token, no ath; no nonce until one is given;
   * and a new jti every time. */
  ASSERT_EQ(mcp_dpop_proof(k, "POST", "http://127.0.0.1:9/token", NULL,
                           NULL, &line2, NULL), 0);
  proof_parts(line2, pkey, &q);
  ASSERT_NULL(cJSON_GetObjectItemCaseSensitive(q.claims, "ath"));
  ASSERT_NULL(cJSON_GetObjectItemCaseSensitive(q.claims, "nonce"));
  ASSERT_STR_EQ(str(q.claims, "htu"), "http://127.0.0.1:9/token");
  ASSERT(strcmp(str(q.claims, "jti"), jti) != 0);
  /* The same key signs them all: the same jwk. */
  ASSERT(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(p.header, "jwk"),
                       cJSON_GetObjectItemCaseSensitive(q.header, "jwk"),
                       1));
  free_parts(&p);
  free_parts(&q);
  free(line);
  free(line2);
  ASSERT(mcp_dpop_proof(k, "POST", "not a url", NULL, NULL, &line,
                        NULL) != 0);
  EVP_PKEY_free(pkey);
  mcp_jwt_key_free(k);
}

static void
test_dpop_nonce_retry_once(void)
{
  mcp_dpop_nonce_t n;
  char big[MCP_DPOP_MAX_NONCE + 10];

  memset(&n, 0, sizeof n);
  /* No nonce given: nothing to retry with. */
  ASSERT_EQ(mcp_dpop_nonce_retry(&n), 0);
  ASSERT_NULL(mcp_dpop_nonce_get(&n));
  mcp_dpop_nonce_seen(&n, "n1");
  ASSERT_STR_EQ(mcp_dpop_nonce_get(&n), "n1");
  /* Once, and only once, for that nonce. */
  ASSERT_EQ(mcp_dpop_nonce_retry(&n), 1);
  ASSERT_EQ(mcp_dpop_nonce_retry(&n), 0);
  mcp_dpop_nonce_seen(&n, "n1");
  ASSERT_EQ(mcp_dpop_nonce_retry(&n), 0);
  /* A new nonce earns one more. */
  mcp_dpop_nonce_seen(&n, "n2");
  ASSERT_EQ(mcp_dpop_nonce_retry(&n), 1);
  ASSERT_EQ(mcp_dpop_nonce_retry(&n), 0);
  ASSERT_STR_EQ(mcp_dpop_nonce_get(&n), "n2");
  /* Not NQCHAR, empty or too long: ignored, the last good one kept. */
  mcp_dpop_nonce_seen(&n, "has space");
  mcp_dpop_nonce_seen(&n, "quo\"te");
  mcp_dpop_nonce_seen(&n, "");
  memset(big, 'a', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  mcp_dpop_nonce_seen(&n, big);
  ASSERT_STR_EQ(mcp_dpop_nonce_get(&n), "n2");
  ASSERT_EQ(mcp_dpop_nonce_retry(&n), 0);
}

static void
test_dpop_challenge(void)
{
  ASSERT_EQ(mcp_dpop_challenge_wants_nonce(
    "DPoP error=\"use_dpop_nonce\", error_description=\"x\""), 1);
  ASSERT_EQ(mcp_dpop_challenge_wants_nonce(
    "Bearer realm=\"a\", DPoP algs=\"ES256\", error=\"use_dpop_nonce\""), 1);
  ASSERT_EQ(mcp_dpop_challenge_wants_nonce(
    "Bearer error=\"use_dpop_nonce\""), 0);
  ASSERT_EQ(mcp_dpop_challenge_wants_nonce(
    "DPoP error=\"invalid_token\""), 0);
  ASSERT_EQ(mcp_dpop_challenge_wants_nonce("DPoP ,,, \"broken"), 0);
  ASSERT_EQ(mcp_dpop_challenge_wants_nonce(NULL), 0);
}

/* ---- client authentication ---------------------------------------------- */

static void
test_client_assertion(void)
{
  mcp_jwt_key_t *k = NULL;
  EVP_PKEY *pkey;
  jwt_parts_t p;
  char *jwt = NULL;
  double iat, exp;

  ASSERT_EQ(mcp_jwt_key_generate(&k, NULL), 0);
  pkey = openssl_key(k);
  ASSERT_EQ(mcp_auth_client_assertion(k, "client-1", "https://as.example",
                                      &jwt, NULL), 0);
  split_jwt(jwt, &p);
  ASSERT(verifies(&p, pkey));
  ASSERT_STR_EQ(str(p.claims, "iss"), "client-1");
  ASSERT_STR_EQ(str(p.claims, "sub"), "client-1");
  ASSERT_STR_EQ(str(p.claims, "aud"), "https://as.example");
  ASSERT_NOT_NULL(str(p.claims, "jti"));
  iat = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(p.claims,
                                                              "iat"));
  exp = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(p.claims,
                                                              "exp"));
  ASSERT(exp > (double) time(NULL));
  ASSERT(exp - iat > 0 && exp - iat <= 300);
  free_parts(&p);
  free(jwt);
  EVP_PKEY_free(pkey);
  mcp_jwt_key_free(k);
}

/* The value of name among kv[0..n). */
static const char *
kv_get(const char **kv, size_t n, const char *name)
{
  size_t i;

  for (i = 0; i + 1 < n; i += 2)
    if (strcmp(kv[i], name) == 0)
      return kv[i + 1];
  return NULL;
}

static void
test_client_auth_methods(void)
{
  mcp_auth_client_t c;
  mcp_auth_creds_t creds;
  mcp_jwt_key_t *k = NULL;
  const char *kv[16];
  size_t n;

  memset(&c, 0, sizeof c);
  c.client_id = "id:1";
  c.client_secret = "s&cret";
  /* Basic: each part form-encoded first (RFC 6749 section 2.3.1); the
   * secret is nowhere in the form. base64("id%3a1:s%26cret"). */
  c.auth_method = "client_secret_basic";
  n = 0;
  ASSERT_EQ(mcp_auth_client_auth(&c, NULL, "https://as", kv, &n, &creds,
                                 NULL), 0);
  ASSERT_STR_EQ(creds.basic, "Authorization: Basic aWQlM2ExOnMlMjZjcmV0");
  ASSERT_EQ(n, 0);
  mcp_auth_creds_free(&creds);
  /* Post: both in the form. */
  c.auth_method = "client_secret_post";
  n = 0;
  ASSERT_EQ(mcp_auth_client_auth(&c, NULL, "https://as", kv, &n, &creds,
                                 NULL), 0);
  ASSERT_NULL(creds.basic);
  ASSERT_STR_EQ(kv_get(kv, n, "client_id"), "id:1");
  ASSERT_STR_EQ(kv_get(kv, n, "client_secret"), "s&cret");
  mcp_auth_creds_free(&creds);
  /* private_key_jwt: an assertion, no secret and no client_id. */
  c.auth_method = "private_key_jwt";
  n = 0;
  ASSERT(mcp_auth_client_auth(&c, NULL, "https://as", kv, &n, &creds,
                              NULL) != 0);
  ASSERT_EQ(mcp_jwt_key_generate(&k, NULL), 0);
  n = 0;
  ASSERT_EQ(mcp_auth_client_auth(&c, k, "https://as", kv, &n, &creds,
                                 NULL), 0);
  ASSERT_STR_EQ(kv_get(kv, n, "client_assertion_type"),
                "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
  ASSERT_STR_EQ(kv_get(kv, n, "client_assertion"), creds.assertion);
  ASSERT_NULL(kv_get(kv, n, "client_secret"));
  ASSERT_NULL(kv_get(kv, n, "client_id"));
  mcp_auth_creds_free(&creds);
  /* A public client: its id only. No client at all: nothing. */
  c.auth_method = "none";
  n = 0;
  ASSERT_EQ(mcp_auth_client_auth(&c, NULL, "https://as", kv, &n, &creds,
                                 NULL), 0);
  ASSERT_EQ(n, 2);
  ASSERT_NULL(kv_get(kv, n, "client_secret"));
  c.client_id = NULL;
  n = 0;
  ASSERT_EQ(mcp_auth_client_auth(&c, NULL, "https://as", kv, &n, &creds,
                                 NULL), 0);
  ASSERT_EQ(n, 0);
  mcp_jwt_key_free(k);
}

static void
test_read_secret(void)
{
  char path[] = "/tmp/luamcp-secret-XXXXXX", *s = NULL;
  mcp_error_t err;
  int fd = mkstemp(path);

  ASSERT(fd >= 0);
  ASSERT_EQ(write(fd, "\n  eyJ.token.sig \r\n", 19), 19);
  close(fd);
  ASSERT_EQ(mcp_auth_read_secret(path, 64, &s, NULL), 0);
  ASSERT_STR_EQ(s, "eyJ.token.sig");
  free(s);
  /* Over the limit, empty, missing: refused, and the message says which
   * file but nothing of what is in it. */
  ASSERT_EQ(mcp_auth_read_secret(path, 8, &s, &err), MCP_EINVAL);
  ASSERT_NULL(strstr(err.msg, "eyJ"));
  fd = open(path, O_WRONLY | O_TRUNC);
  ASSERT_EQ(write(fd, " \n", 2), 2);
  close(fd);
  ASSERT_EQ(mcp_auth_read_secret(path, 64, &s, &err), MCP_EINVAL);
  unlink(path);
  ASSERT_EQ(mcp_auth_read_secret(path, 64, &s, &err), MCP_EIO);
}

static void
test_grant_names(void)
{
  mcp_auth_grant_t g;
  mcp_error_t err;

  ASSERT_EQ(mcp_auth_grant_from_name(NULL, &g, NULL), 0);
  ASSERT_EQ(g, MCP_AUTH_CODE);
  ASSERT_EQ(mcp_auth_grant_from_name("jwt_bearer", &g, NULL), 0);
  ASSERT_EQ(g, MCP_AUTH_JWT_BEARER);
  ASSERT_STR_EQ(mcp_auth_grant_name(g), "jwt_bearer");
  ASSERT_EQ(mcp_auth_grant_from_name("password", &g, &err), MCP_EINVAL);
}

int
main(void)
{
  RUN_TEST(test_es256_signature_verifies);
  RUN_TEST(test_rs256_from_pem_verifies);
  RUN_TEST(test_pem_refusals);
  RUN_TEST(test_jwk_and_thumbprint);
  RUN_TEST(test_dpop_proof_fields);
  RUN_TEST(test_dpop_nonce_retry_once);
  RUN_TEST(test_dpop_challenge);
  RUN_TEST(test_client_assertion);
  RUN_TEST(test_client_auth_methods);
  RUN_TEST(test_read_secret);
  RUN_TEST(test_grant_names);
  TEST_DONE();
}
