/*
 * curl_dl.h - libcurl, loaded when the first HTTP connection needs it.
 *
 * Include this instead of <curl/curl.h>. libcurl drags in some thirty
 * shared libraries; loading them costs a stdio-only program most of its
 * start-up time and a third of its memory, so luamcp does not link
 * libcurl: mcp_curl_load() dlopens it, and the curl_* names used by the
 * core are mapped onto the loaded functions by the macros below.
 *
 * The same goes for OpenSSL's libcrypto, which the HTTP side needs for
 * RAND_bytes, SHA256 and base64 (EVP_EncodeBlock/EVP_DecodeBlock) only:
 * relocating it took 2 ms of every start. libcurl links it, so once
 * libcurl is loaded it costs nothing more.
 */
#ifndef MCP_CURL_DL_H
#define MCP_CURL_DL_H

/* curl's GCC type-checking wraps curl_easy_setopt in a macro of its own. */
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include "error.h"

typedef struct mcp_curl_api_s {
  CURLcode (*global_init)(long);
  CURL *(*easy_init)(void);
  void (*easy_cleanup)(CURL *);
  void (*easy_reset)(CURL *);
  CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
  CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
  const char *(*easy_strerror)(CURLcode);
  CURLM *(*multi_init)(void);
  CURLMcode (*multi_cleanup)(CURLM *);
  CURLMcode (*multi_setopt)(CURLM *, CURLMoption, ...);
  CURLMcode (*multi_add_handle)(CURLM *, CURL *);
  CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
  CURLMcode (*multi_assign)(CURLM *, curl_socket_t, void *);
  CURLMcode (*multi_socket_action)(CURLM *, curl_socket_t, int, int *);
  CURLMsg *(*multi_info_read)(CURLM *, int *);
  const char *(*multi_strerror)(CURLMcode);
  struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
  void (*slist_free_all)(struct curl_slist *);
  void (*free)(void *);
  CURLU *(*url)(void);
  void (*url_cleanup)(CURLU *);
  CURLUcode (*url_set)(CURLU *, CURLUPart, const char *, unsigned int);
  CURLUcode (*url_get)(const CURLU *, CURLUPart, char **, unsigned int);
  char *(*easy_escape)(CURL *, const char *, int);
  char *(*easy_unescape)(CURL *, const char *, int, int *);
  int (*rand_bytes)(unsigned char *, int);   /* libcrypto's RAND_bytes */
  unsigned char *(*sha256)(const unsigned char *, size_t, unsigned char *);
  int (*encode_block)(unsigned char *, const unsigned char *, int);
  int (*decode_block)(unsigned char *, const unsigned char *, int);
} mcp_curl_api_t;

extern mcp_curl_api_t mcp__curl;

/* Loads libcurl and libcrypto once. Returns 0, or MCP_EIO with err saying
 * why (one is not installed, or lacks a function). Call it before any
 * curl_*, RAND_bytes, SHA256, EVP_EncodeBlock or EVP_DecodeBlock. */
int mcp_curl_load(mcp_error_t *err);

/* curl.h may define these three as macros of its own. */
#undef curl_easy_setopt
#undef curl_easy_getinfo
#undef curl_multi_setopt

#define curl_global_init mcp__curl.global_init
#define curl_easy_init mcp__curl.easy_init
#define curl_easy_cleanup mcp__curl.easy_cleanup
#define curl_easy_reset mcp__curl.easy_reset
#define curl_easy_setopt mcp__curl.easy_setopt
#define curl_easy_getinfo mcp__curl.easy_getinfo
#define curl_easy_strerror mcp__curl.easy_strerror
#define curl_multi_init mcp__curl.multi_init
#define curl_multi_cleanup mcp__curl.multi_cleanup
#define curl_multi_setopt mcp__curl.multi_setopt
#define curl_multi_add_handle mcp__curl.multi_add_handle
#define curl_multi_remove_handle mcp__curl.multi_remove_handle
#define curl_multi_assign mcp__curl.multi_assign
#define curl_multi_socket_action mcp__curl.multi_socket_action
#define curl_multi_info_read mcp__curl.multi_info_read
#define curl_multi_strerror mcp__curl.multi_strerror
#define curl_slist_append mcp__curl.slist_append
#define curl_slist_free_all mcp__curl.slist_free_all
#define curl_free mcp__curl.free
#define curl_url mcp__curl.url
#define curl_url_cleanup mcp__curl.url_cleanup
#define curl_url_set mcp__curl.url_set
#define curl_url_get mcp__curl.url_get
#define curl_easy_escape mcp__curl.easy_escape
#define curl_easy_unescape mcp__curl.easy_unescape
#undef SHA256
#undef EVP_EncodeBlock
#undef EVP_DecodeBlock
#define RAND_bytes mcp__curl.rand_bytes
#define SHA256 mcp__curl.sha256
#define EVP_EncodeBlock mcp__curl.encode_block
#define EVP_DecodeBlock mcp__curl.decode_block

#endif
