/*
 * crypto.h - the part of OpenSSL's libcrypto that keys and signatures
 * need (JWT client assertions, DPoP proofs), loaded on first use.
 *
 * Like curl_dl.h, and for the same reason (start-up time of programs
 * that never sign anything), libcrypto is not linked: mcp_crypto_load()
 * finds these functions in the libcrypto that mcp_curl_load() already
 * opened. There are no macros here: callers write mcp__crypto.<name>,
 * so a file that also links libcrypto itself (a test) is not confused.
 */
#ifndef MCP_AUTH_CRYPTO_H
#define MCP_AUTH_CRYPTO_H

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "error.h"

typedef struct mcp_crypto_api_s {
  BIO *(*BIO_new_mem_buf)(const void *, int);
  int (*BIO_free)(BIO *);
  EVP_PKEY *(*PEM_read_bio_PrivateKey)(BIO *, EVP_PKEY **, pem_password_cb *,
                                       void *);
  EVP_PKEY *(*EVP_PKEY_Q_keygen)(OSSL_LIB_CTX *, const char *,
                                 const char *, ...);
  void (*EVP_PKEY_free)(EVP_PKEY *);
  int (*EVP_PKEY_get_base_id)(const EVP_PKEY *);
  int (*EVP_PKEY_get_bits)(const EVP_PKEY *);
  int (*EVP_PKEY_get_group_name)(const EVP_PKEY *, char *, size_t,
                                 size_t *);
  int (*EVP_PKEY_get_bn_param)(const EVP_PKEY *, const char *, BIGNUM **);
  int (*i2d_PrivateKey)(const EVP_PKEY *, unsigned char **);
  EVP_PKEY *(*d2i_AutoPrivateKey)(EVP_PKEY **, const unsigned char **,
                                  long);
  EVP_MD_CTX *(*EVP_MD_CTX_new)(void);
  void (*EVP_MD_CTX_free)(EVP_MD_CTX *);
  int (*EVP_DigestSignInit)(EVP_MD_CTX *, EVP_PKEY_CTX **, const EVP_MD *,
                            ENGINE *, EVP_PKEY *);
  int (*EVP_DigestSign)(EVP_MD_CTX *, unsigned char *, size_t *,
                        const unsigned char *, size_t);
  const EVP_MD *(*EVP_sha256)(void);
  const EVP_MD *(*EVP_sha384)(void);
  ECDSA_SIG *(*d2i_ECDSA_SIG)(ECDSA_SIG **, const unsigned char **, long);
  void (*ECDSA_SIG_get0)(const ECDSA_SIG *, const BIGNUM **,
                         const BIGNUM **);
  void (*ECDSA_SIG_free)(ECDSA_SIG *);
  int (*BN_bn2binpad)(const BIGNUM *, unsigned char *, int);
  int (*BN_num_bits)(const BIGNUM *);
  void (*BN_free)(BIGNUM *);
  unsigned long (*ERR_get_error)(void);
  void (*ERR_error_string_n)(unsigned long, char *, size_t);
  void (*ERR_clear_error)(void);
} mcp_crypto_api_t;

extern mcp_crypto_api_t mcp__crypto;

/* Loads libcurl and libcrypto (mcp_curl_load) and then these functions,
 * once. 0, or MCP_EIO saying which is missing. */
int mcp_crypto_load(mcp_error_t *err);

/* Sets err to MCP_EIO: what failed, with OpenSSL's own reason
 * (ERR_get_error); the error queue is cleared. Returns MCP_EIO. */
int mcp_crypto_error(mcp_error_t *err, const char *what);

#endif
