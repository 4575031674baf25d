/*
 * fetch.c - one HTTP exchange of the OAuth flow (see fetch.h), on the
 * request engine of http.h.
 */
#include "auth/fetch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "auth/urls.h"
#include "buf.h"
#include "curl_dl.h"
#include "http.h"
#include "json.h"

#define MAX_LINES 16
#define MAX_REDIRECTS 3
#define MAX_DEPTH 64

struct mcp_auth_fetch_s {
  mcp_http_t *req;
  mcp_auth_fetch_cb cb;
  void *ud;
  mcp_auth_peer_t *peer;
  char host[256];        /* of the URL fetched (redirects keep it) */
  mcp_buf_t body;
  int status;
  char *nonce;           /* the owner's, for a DPoP-Nonce header */
  size_t nonce_cap;
  unsigned cancelled : 1;
  unsigned oom : 1;
};

/* The host of url into out ("" when it has none). */
static void
host_of(const char *url, char *out, size_t cap)
{
  CURLU *h = curl_url();
  char *host = NULL;

  out[0] = '\0';
  if (h == NULL)
    return;
  if (curl_url_set(h, CURLUPART_URL, url, 0) == CURLUE_OK &&
      curl_url_get(h, CURLUPART_HOST, &host, 0) == CURLUE_OK)
    snprintf(out, cap, "%s", host);
  curl_free(host);
  curl_url_cleanup(h);
}

/* CURLOPT_PREREQFUNCTION, through http.h: the MCP server's own host may
 * be anywhere (the user chose it); any other host must be public, or the
 * very address the server's host had. */
static int
check_peer(void *ud, const char *ip)
{
  mcp_auth_fetch_t *f = ud;
  mcp_auth_peer_t *p = f->peer;

  if (strcasecmp(f->host, p->host) == 0) {
    if (p->ip[0] == '\0')
      snprintf(p->ip, sizeof p->ip, "%s", ip);
    return 1;
  }
  return mcp_auth_address_allowed(ip, p->ip[0] != '\0' ? p->ip : NULL);
}

static void
on_headers(mcp_http_t *req, int status, const mcp_http_header_t *headers,
           size_t n, void *ud)
{
  mcp_auth_fetch_t *f = ud;

  size_t i, len;

  MCP_UNUSED(req);
  f->status = status;
  for (i = 0; i < n && f->nonce != NULL; i++) {
    len = strlen(headers[i].value);
    if (strcasecmp(headers[i].name, "dpop-nonce") == 0 && len > 0 &&
        len < f->nonce_cap)
      memcpy(f->nonce, headers[i].value, len + 1);
  }
}

static void
on_data(mcp_http_t *req, const char *data, size_t len, void *ud)
{
  mcp_auth_fetch_t *f = ud;

  if (mcp_buf_append(&f->body, data, len) != 0) {
    f->oom = 1;
    mcp_http_cancel(req);
  }
}

static void
on_done(mcp_http_t *req, const mcp_error_t *err, void *ud)
{
  mcp_auth_fetch_t *f = ud;
  mcp_error_t e;
  cJSON *doc = NULL;

  MCP_UNUSED(req);
  mcp_error_clear(&e);
  if (f->cancelled) {
    mcp_buf_free(&f->body);
    free(f);
    return;
  }
  if (f->oom) {
    mcp_error_set(&e, MCP_ENOMEM, NULL);
    err = &e;
  }
  if (err == NULL && f->body.len > 0)
    doc = mcp_json_parse(f->body.data, f->body.len, MAX_DEPTH, &e);
  f->cb(f->ud, err != NULL ? 0 : f->status, doc, err);
  cJSON_Delete(doc);
  mcp_buf_free(&f->body);
  free(f);
}

int
mcp_auth_fetch_start(mcp_curl_uv_t *cu, const mcp_auth_fetch_opts_t *o,
                     mcp_auth_fetch_cb cb, void *ud, mcp_auth_fetch_t **out,
                     mcp_error_t *err)
{
  static const mcp_http_cb_t callbacks = { on_headers, on_data, on_done };
  const char *lines[MAX_LINES];
  char type[128];
  mcp_http_opts_t h;
  mcp_auth_fetch_t *f;
  size_t n = 0, i;
  int rc;

  rc = mcp_curl_load(err);
  if (rc != 0)
    return rc;
  f = calloc(1, sizeof *f);
  if (f == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  mcp_buf_init(&f->body, MCP_AUTH_MAX_DOCUMENT);
  f->cb = cb;
  f->ud = ud;
  f->peer = o->peer;
  f->nonce = o->nonce;
  f->nonce_cap = o->nonce_cap;
  if (f->nonce != NULL && f->nonce_cap > 0)
    f->nonce[0] = '\0';
  host_of(o->url, f->host, sizeof f->host);
  lines[n++] = "Accept: application/json";
  if (o->body != NULL) {
    snprintf(type, sizeof type, "Content-Type: %s",
             o->content_type ? o->content_type
                             : "application/x-www-form-urlencoded");
    lines[n++] = type;
  }
  for (i = 0; i < o->nheaders && n < MAX_LINES; i++)
    lines[n++] = o->headers[i];
  memset(&h, 0, sizeof h);
  h.method = o->method;
  h.url = o->url;
  h.headers = lines;
  h.nheaders = n;
  h.body = o->body;
  h.body_len = o->body != NULL ? strlen(o->body) : 0;
  h.timeout_ms = o->timeout_ms;
  h.max_size = MCP_AUTH_MAX_DOCUMENT;
  h.max_redirects = MAX_REDIRECTS;
  h.ca_file = o->ca_file;
  h.trace = o->trace;
  h.trace_ud = o->trace_ud;
  h.insecure = o->insecure;
  /* A token or registration request must not go out twice. */
  h.send_once = o->body != NULL;
  if (o->peer != NULL) {
    h.check_peer = check_peer;
    h.peer_ud = f;
  }
  rc = mcp_http_start(cu, &h, &callbacks, f, &f->req, err);
  if (rc != 0) {
    mcp_buf_free(&f->body);
    free(f);
    return rc;
  }
  if (out != NULL)
    *out = f;
  return 0;
}

void
mcp_auth_fetch_cancel(mcp_auth_fetch_t *f)
{
  if (f == NULL || f->cancelled)
    return;
  f->cancelled = 1;
  mcp_http_cancel(f->req);
}
