/*
 * curl_dl.c - loads libcurl and libcrypto on first use; see curl_dl.h.
 */
#include "curl_dl.h"

#include <dlfcn.h>
#include <string.h>

#include "common.h"

mcp_curl_api_t mcp__curl;

static int loaded;

/* dlsym returns void *; this is how POSIX says to turn it into a function
 * pointer without a warning. */
#define LOAD(field, name)                                                     \
  do {                                                                        \
    void *sym = dlsym(lib, name);                                             \
    if (sym == NULL) {                                                        \
      missing = name;                                                         \
      goto error;                                                             \
    }                                                                         \
    memcpy(&api.field, &sym, sizeof sym);                                     \
  } while (0)

int
mcp_curl_load(mcp_error_t *err)
{
  static const char *const names[] = { "libcurl.so.4", "libcurl.so",
                                       "libcurl-gnutls.so.4", NULL };
  static const char *const crypto_names[] = { "libcrypto.so.3",
                                              "libcrypto.so", NULL };
  mcp_curl_api_t api;
  const char *missing = NULL;
  void *lib = NULL, *curl_lib = NULL;  /* lib: the one being read */
  size_t i;

  if (loaded)
    return 0;
  for (i = 0; names[i] != NULL && lib == NULL; i++)
    lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL)
    return mcp_error_set(err, MCP_EIO, "cannot load libcurl: %s", dlerror());
  LOAD(global_init, "curl_global_init");
  LOAD(easy_init, "curl_easy_init");
  LOAD(easy_cleanup, "curl_easy_cleanup");
  LOAD(easy_reset, "curl_easy_reset");
  LOAD(easy_setopt, "curl_easy_setopt");
  LOAD(easy_getinfo, "curl_easy_getinfo");
  LOAD(easy_strerror, "curl_easy_strerror");
  LOAD(multi_init, "curl_multi_init");
  LOAD(multi_cleanup, "curl_multi_cleanup");
  LOAD(multi_setopt, "curl_multi_setopt");
  LOAD(multi_add_handle, "curl_multi_add_handle");
  LOAD(multi_remove_handle, "curl_multi_remove_handle");
  LOAD(multi_assign, "curl_multi_assign");
  LOAD(multi_socket_action, "curl_multi_socket_action");
  LOAD(multi_info_read, "curl_multi_info_read");
  LOAD(multi_strerror, "curl_multi_strerror");
  LOAD(slist_append, "curl_slist_append");
  LOAD(slist_free_all, "curl_slist_free_all");
  LOAD(free, "curl_free");
  LOAD(url, "curl_url");
  LOAD(url_cleanup, "curl_url_cleanup");
  LOAD(url_set, "curl_url_set");
  LOAD(url_get, "curl_url_get");
  LOAD(easy_escape, "curl_easy_escape");
  LOAD(easy_unescape, "curl_easy_unescape");
  curl_lib = lib;
  lib = NULL;
  for (i = 0; crypto_names[i] != NULL && lib == NULL; i++)
    lib = dlopen(crypto_names[i], RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL) {
    dlclose(curl_lib);
    return mcp_error_set(err, MCP_EIO, "cannot load libcrypto: %s",
                         dlerror());
  }
  LOAD(rand_bytes, "RAND_bytes");
  LOAD(sha256, "SHA256");
  LOAD(encode_block, "EVP_EncodeBlock");
  LOAD(decode_block, "EVP_DecodeBlock");
  mcp__curl = api;
  loaded = 1;
  return 0;
error:
  dlclose(lib);
  if (curl_lib != NULL)
    dlclose(curl_lib);
  return mcp_error_set(err, MCP_EIO, "%s lacks %s",
                       curl_lib == NULL ? "libcurl" : "libcrypto", missing);
}
