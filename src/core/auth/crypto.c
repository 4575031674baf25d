/*
 * crypto.c - libcrypto's key and signature functions, loaded on first
 * use (see crypto.h).
 */
#include "auth/crypto.h"

#include <dlfcn.h>
#include <string.h>

#include "curl_dl.h"

mcp_crypto_api_t mcp__crypto;

static int loaded;

/* POSIX's way of turning dlsym's void * into a function pointer. */
#define LOAD(name)                                                            \
  do {                                                                        \
    void *sym = dlsym(lib, #name);                                            \
    if (sym == NULL) {                                                        \
      missing = #name;                                                        \
      goto error;                                                             \
    }                                                                         \
    memcpy(&api.name, &sym, sizeof sym);                                      \
  } while (0)

int
mcp_crypto_load(mcp_error_t *err)
{
  static const char *const names[] = { "libcrypto.so.3", "libcrypto.so",
                                       NULL };
  mcp_crypto_api_t api;
  const char *missing = NULL;
  void *lib = NULL;
  size_t i;
  int rc;

  if (loaded)
    return 0;
  /* curl_dl.c has opened libcrypto already: this only finds it again. */
  rc = mcp_curl_load(err);
  if (rc != 0)
    return rc;
  for (i = 0; names[i] != NULL && lib == NULL; i++)
    lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL)
    return mcp_error_set(err, MCP_EIO, "cannot load libcrypto: %s",
                         dlerror());
  memset(&api, 0, sizeof api);
  LOAD(BIO_new_mem_buf);
  LOAD(BIO_free);
  LOAD(PEM_read_bio_PrivateKey);
  LOAD(EVP_PKEY_Q_keygen);
  LOAD(EVP_PKEY_free);
  LOAD(EVP_PKEY_get_base_id);
  LOAD(EVP_PKEY_get_bits);
  LOAD(EVP_PKEY_get_group_name);
  LOAD(EVP_PKEY_get_bn_param);
  LOAD(i2d_PrivateKey);
  LOAD(d2i_AutoPrivateKey);
  LOAD(EVP_MD_CTX_new);
  LOAD(EVP_MD_CTX_free);
  LOAD(EVP_DigestSignInit);
  LOAD(EVP_DigestSign);
  LOAD(EVP_sha256);
  LOAD(EVP_sha384);
  LOAD(d2i_ECDSA_SIG);
  LOAD(ECDSA_SIG_get0);
  LOAD(ECDSA_SIG_free);
  LOAD(BN_bn2binpad);
  LOAD(BN_num_bits);
  LOAD(BN_free);
  LOAD(ERR_get_error);
  LOAD(ERR_error_string_n);
  LOAD(ERR_clear_error);
  mcp__crypto = api;
  loaded = 1;
  return 0;
error:
  dlclose(lib);
  return mcp_error_set(err, MCP_EIO, "libcrypto lacks %s", missing);
}

int
mcp_crypto_error(mcp_error_t *err, const char *what)
{
  char reason[160] = "no reason given";
  unsigned long e = mcp__crypto.ERR_get_error();

  if (e != 0)
    mcp__crypto.ERR_error_string_n(e, reason, sizeof reason);
  mcp__crypto.ERR_clear_error();
  return mcp_error_set(err, MCP_EIO, "%s: %s", what, reason);
}
