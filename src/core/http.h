/*
 * http.h - one HTTP request on the curl_uv engine, with streaming
 * callbacks, plus URL helpers built on libcurl's URL API (curl_url).
 *
 * A request reports, in this order and always from the loop (never from
 * inside libcurl, never from inside mcp_http_start or mcp_http_cancel):
 *   on_headers(status, headers)  once, when the final response's headers
 *                                are complete (1xx and followed redirects
 *                                are not reported);
 *   on_data(bytes)               zero or more times, as body bytes arrive;
 *                                nothing is buffered between calls, so a
 *                                long stream (SSE) costs no memory;
 *   on_done(err)                 exactly once: err == NULL on success, else
 *                                MCP_ECANCELED, MCP_ETIMEDOUT, MCP_ETOOBIG,
 *                                MCP_ENOMEM, MCP_ECLOSED (a send_once
 *                                request that libcurl would have sent
 *                                again), MCP_ECONNECT (no connection:
 *                                nothing was sent) or MCP_EIO (a transport
 *                                failure;
 *                                mcp_http_curl_code/_curl_error give the
 *                                raw CURLcode and CURLOPT_ERRORBUFFER text).
 * An HTTP error status is not an error here: the status is reported.
 *
 * Defaults: user agent "luamcp/" MCP_VERSION; proxies from the environment
 * (libcurl's default, left alone); HTTP/2 over TLS when offered; http and
 * https only; connections pooled by the engine's multi handle. Redirects
 * are not followed unless max_redirects > 0, and then only to the same
 * origin (scheme, host, port): a redirect elsewhere is returned to the
 * caller as the 3xx response it is. We follow by re-issuing the request
 * ourselves (CURLOPT_FOLLOWLOCATION stays off), so libcurl never sends a
 * request, or the caller's headers, to another origin.
 *
 * Ownership: the request copies the URL, the headers and the body. It
 * belongs to the engine while running and frees itself after on_done
 * returns; the owner must not touch it after that. mcp_http_cancel may be
 * called at any time before on_done, including from on_headers/on_data.
 */
#ifndef MCP_HTTP_H
#define MCP_HTTP_H

#include <stddef.h>

#include "curl_uv.h"
#include "error.h"

typedef struct mcp_http_s mcp_http_t;

typedef struct mcp_http_header_s {
  const char *name;            /* as received (any case) */
  const char *value;           /* without surrounding whitespace */
} mcp_http_header_t;

typedef struct mcp_http_cb_s {
  /* headers[0..n) are valid only during the call. May be NULL. */
  void (*on_headers)(mcp_http_t *req, int status,
                     const mcp_http_header_t *headers, size_t n, void *ud);
  /* data is valid only during the call. May be NULL (bytes dropped). */
  void (*on_data)(mcp_http_t *req, const char *data, size_t len, void *ud);
  /* err is NULL on success. The request is freed when this returns. */
  void (*on_done)(mcp_http_t *req, const mcp_error_t *err, void *ud);
} mcp_http_cb_t;

typedef struct mcp_http_opts_s {
  const char *method;          /* NULL: "POST" with a body, else "GET" */
  const char *url;             /* absolute http:// or https:// URL */
  const char *const *headers;  /* nheaders "Name: value" lines */
  size_t nheaders;
  const char *body;            /* NULL: no body */
  size_t body_len;
  long timeout_ms;             /* whole transfer; 0: none */
  long connect_timeout_ms;     /* 0: libcurl's default */
  size_t max_size;             /* most body bytes; 0: no limit */
  int max_redirects;           /* same-origin redirects to follow; 0 none */
  const char *ca_file;         /* CURLOPT_CAINFO, or NULL */
  const char *ca_path;         /* CURLOPT_CAPATH, or NULL */
  const char *cert;            /* client certificate (PEM), or NULL */
  const char *key;             /* its private key (PEM), or NULL */
  int insecure;                /* 1: do not verify the server (tests only) */
  int url_checked;             /* 1: url passed mcp_http_check_url: a
                                * transport checks its URL once, not per
                                * request */
  int send_once;               /* 1: the request is not safe to repeat.
                                * libcurl sends a request again on a new
                                * connection when the reused one dies
                                * before any answer byte, though the
                                * server may have received it; such a
                                * request fails with MCP_ECLOSED instead */
  /* Optional: asked before each connection is used, with the address
   * libcurl connected to; returning 0 refuses it, and the request fails
   * with MCP_EREFUSED before anything is sent (server-side request
   * forgery: a metadata URL that resolves to a private address). */
  int (*check_peer)(void *peer_ud, const char *ip);
  void *peer_ud;
  /* Optional: libcurl's account of the transfer (its notes, the request
   * and response headers, not the bodies), a line at a time, with the
   * values of credential headers masked. */
  mcp_trace_cb trace;
  void *trace_ud;
} mcp_http_opts_t;

/* 0 when url is an absolute http:// or https:// URL; MCP_EINVAL (or
 * MCP_ENOMEM) with err saying why otherwise. */
int mcp_http_check_url(const char *url, mcp_error_t *err);

/* Starts a request. On failure returns MCP_EINVAL (bad URL, method or
 * header), MCP_ENOMEM or MCP_EIO, and no callback will ever be called. */
int mcp_http_start(mcp_curl_uv_t *cu, const mcp_http_opts_t *opts,
                   const mcp_http_cb_t *cb, void *ud, mcp_http_t **out,
                   mcp_error_t *err);

/* Aborts the transfer; on_done(MCP_ECANCELED) follows from the loop.
 * No-op once on_done has started. */
void mcp_http_cancel(mcp_http_t *req);

/* Details, valid from callbacks (on_done included). */
int mcp_http_curl_code(const mcp_http_t *req);        /* CURLcode */
const char *mcp_http_curl_error(const mcp_http_t *req); /* "" if none */
const char *mcp_http_curl_strerror(const mcp_http_t *req); /* its name */
long mcp_http_connects(const mcp_http_t *req);   /* new connections made */
const char *mcp_http_version(const mcp_http_t *req);  /* "1.1", "2", ... */
const char *mcp_http_url(const mcp_http_t *req); /* after redirects */
/* The resolved Location of a 3xx response that was not followed, or NULL;
 * valid during on_headers/on_data/on_done. */
const char *mcp_http_redirect_url(const mcp_http_t *req);

/* 1 when a and b have the same scheme, host and port (default ports
 * filled in), 0 when they differ, MCP_EINVAL when either does not parse. */
int mcp_http_same_origin(const char *a, const char *b);

/* Resolves ref (absolute, or relative to base) into *out, a malloc'd
 * string the caller frees with free(). */
int mcp_http_resolve(const char *base, const char *ref, char **out,
                     mcp_error_t *err);

#endif
