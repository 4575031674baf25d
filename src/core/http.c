/*
 * http.c - an HTTP request on the curl_uv engine (see http.h).
 *
 * libcurl's write and header callbacks only store what arrived (header
 * lines, body bytes) and mark the transfer; curl_uv calls flush() after
 * curl_multi_socket_action has returned, and flush() hands the bytes to the
 * owner. Nothing here calls the owner from inside libcurl. The request owns
 * its easy handle, header list, body copy and buffers, and frees them all
 * after on_done.
 */
#include "http.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "common.h"

#define MAX_HEADER_BYTES (256u * 1024u) /* all header lines of a response */
#define PENDING_KEEP (256u * 1024u)     /* pending capacity kept for reuse */

struct mcp_http_s {
  mcp_curl_xfer_t x;             /* engine link; x.easy is ours */
  mcp_curl_uv_t *cu;
  struct curl_slist *headers;    /* request headers */
  char *method;                  /* upper-case token */
  char *body;                    /* copy, NUL-terminated; NULL: none */
  size_t body_len;
  char *origin_url;              /* the URL we started with */
  char *redirect_url;            /* same-origin redirect to follow next */
  char *unfollowed_url;          /* Location of a 3xx we return */
  mcp_http_cb_t cb;
  void *ud;
  size_t max_size;
  size_t received;               /* body bytes of the final response */
  int redirects_left;
  int status;                    /* of the response being received */
  long connects;                 /* summed over followed redirects */
  int curl_code;
  mcp_buf_t hdrs;                /* "name\0value\0" pairs of the response */
  size_t nhdrs;
  mcp_buf_t pending;             /* body bytes not yet given to on_data */
  char version[8];
  char errbuf[CURL_ERROR_SIZE];
  unsigned headers_done : 1;     /* final headers complete (queued) */
  unsigned headers_sent : 1;     /* on_headers was called */
  unsigned skipping : 1;         /* this response is a redirect we follow */
  unsigned too_big : 1;
  unsigned headers_too_big : 1;
  unsigned oom : 1;
  unsigned cancelled : 1;
  unsigned finished : 1;         /* on_done has started */
  unsigned send_once : 1;        /* see mcp_http_opts_t */
  unsigned sent : 1;             /* libcurl began sending this issue of it */
  unsigned resend_refused : 1;
  unsigned peer_refused : 1;     /* check_peer said no */
  int (*check_peer)(void *peer_ud, const char *ip);
  void *peer_ud;
  char peer[64];                 /* the refused address */
  mcp_trace_cb trace;
  void *trace_ud;
};

static void on_flush(mcp_curl_xfer_t *x);
static void on_xfer_done(mcp_curl_xfer_t *x, CURLcode rc);

static mcp_http_t *
req_of(mcp_curl_xfer_t *x)
{
  return (mcp_http_t *) (void *) ((char *) x - offsetof(mcp_http_t, x));
}

static void
req_free(mcp_http_t *req)
{
  if (req->x.easy != NULL)
    mcp_curl_uv_release_easy(req->cu, req->x.easy);
  curl_slist_free_all(req->headers);
  free(req->method);
  free(req->body);
  free(req->origin_url);
  free(req->redirect_url);
  free(req->unfollowed_url);
  mcp_buf_free(&req->hdrs);
  mcp_buf_free(&req->pending);
  free(req);
}

static char *
dup_string(const char *s)
{
  size_t n = strlen(s) + 1;
  char *d = malloc(n);

  if (d != NULL)
    memcpy(d, s, n);
  return d;
}

/* ---- URL helpers (libcurl's URL API) ------------------------------------- */

static int
url_parse(CURLU *h, const char *url)
{
  return curl_url_set(h, CURLUPART_URL, url, 0) == CURLUE_OK ? 0 : -1;
}

/* Scheme, host and port (with the default port filled in) of url, into
 * newly allocated strings freed with curl_free. */
static int
url_origin(const char *url, char **scheme, char **host, char **port)
{
  CURLU *h = curl_url();
  int rc = MCP_EINVAL;

  *scheme = *host = *port = NULL;
  if (h == NULL)
    return MCP_ENOMEM;
  if (url_parse(h, url) == 0 &&
      curl_url_get(h, CURLUPART_SCHEME, scheme, 0) == CURLUE_OK &&
      curl_url_get(h, CURLUPART_HOST, host, 0) == CURLUE_OK &&
      curl_url_get(h, CURLUPART_PORT, port, CURLU_DEFAULT_PORT) == CURLUE_OK)
    rc = 0;
  curl_url_cleanup(h);
  return rc;
}

int
mcp_http_same_origin(const char *a, const char *b)
{
  char *s1, *h1, *p1, *s2, *h2, *p2;
  int rc;

  if (mcp_curl_load(NULL) != 0)
    return MCP_EINVAL;
  rc = url_origin(a, &s1, &h1, &p1);
  if (rc == 0) {
    rc = url_origin(b, &s2, &h2, &p2);
    if (rc == 0)
      rc = strcasecmp(s1, s2) == 0 && strcasecmp(h1, h2) == 0 &&
           strcmp(p1, p2) == 0;
    curl_free(s2);
    curl_free(h2);
    curl_free(p2);
  }
  curl_free(s1);
  curl_free(h1);
  curl_free(p1);
  return rc;
}

int
mcp_http_resolve(const char *base, const char *ref, char **out,
                 mcp_error_t *err)
{
  CURLU *h;
  char *url = NULL;
  int rc = 0;

  *out = NULL;
  if (mcp_curl_load(err) != 0)
    return MCP_EIO;
  h = curl_url();
  if (h == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  if (url_parse(h, base) != 0) {
    rc = mcp_error_set(err, MCP_EINVAL, "invalid base URL");
    goto error;
  }
  /* A URL set on a handle that has one is resolved against it. */
  if (url_parse(h, ref) != 0 ||
      curl_url_get(h, CURLUPART_URL, &url, 0) != CURLUE_OK) {
    rc = mcp_error_set(err, MCP_EINVAL, "invalid URL reference");
    goto error;
  }
  *out = dup_string(url);
  if (*out == NULL)
    rc = mcp_error_set(err, MCP_ENOMEM, NULL);
error:
  curl_free(url);
  curl_url_cleanup(h);
  return rc;
}

/* ---- libcurl callbacks: store and mark, never call the owner ------------- */

static const char *
find_header(const mcp_http_t *req, const char *name)
{
  const char *p = req->hdrs.data, *end = p + req->hdrs.len, *value;

  while (p != NULL && p < end) {
    value = p + strlen(p) + 1;
    if (strcasecmp(p, name) == 0)
      return value;
    p = value + strlen(value) + 1;
  }
  return NULL;
}

static void
reset_response(mcp_http_t *req)
{
  mcp_buf_reset(&req->hdrs);
  req->nhdrs = 0;
  req->status = 0;
}

/* At the end of a 3xx: follow it (same origin, budget left) or not. */
static void
check_redirect(mcp_http_t *req)
{
  const char *location = find_header(req, "location");
  char *current = NULL, *target = NULL;

  if (location == NULL || req->status == 304 || req->status == 300)
    return;
  curl_easy_getinfo(req->x.easy, CURLINFO_EFFECTIVE_URL, &current);
  if (current == NULL || mcp_http_resolve(current, location, &target,
                                          NULL) != 0)
    return;
  if (req->redirects_left > 0 &&
      mcp_http_same_origin(req->origin_url, target) == 1) {
    free(req->redirect_url);
    req->redirect_url = target;
    req->skipping = 1;
  } else {
    free(req->unfollowed_url);
    req->unfollowed_url = target;
  }
}

static int
header_line(mcp_http_t *req, const char *line, size_t len)
{
  const char *colon, *v, *vend;

  if (len > 0 && (line[0] == ' ' || line[0] == '\t')) {
    /* obs-fold: continues the last value (the buffer's last string). */
    if (req->nhdrs == 0)
      return 0;
    while (len > 0 && (*line == ' ' || *line == '\t')) {
      line++;
      len--;
    }
    req->hdrs.len--;                  /* drop the value's NUL */
    return mcp_buf_putc(&req->hdrs, ' ') != 0 ||
           mcp_buf_append(&req->hdrs, line, len) != 0 ||
           mcp_buf_putc(&req->hdrs, '\0') != 0 ? -1 : 0;
  }
  colon = memchr(line, ':', len);
  if (colon == NULL || colon == line)
    return 0;                         /* not a header: ignore it */
  v = colon + 1;
  vend = line + len;
  while (v < vend && (*v == ' ' || *v == '\t'))
    v++;
  while (vend > v && (vend[-1] == ' ' || vend[-1] == '\t'))
    vend--;
  if (mcp_buf_append(&req->hdrs, line, (size_t) (colon - line)) != 0 ||
      mcp_buf_putc(&req->hdrs, '\0') != 0 ||
      mcp_buf_append(&req->hdrs, v, (size_t) (vend - v)) != 0 ||
      mcp_buf_putc(&req->hdrs, '\0') != 0)
    return -1;
  req->nhdrs++;
  return 0;
}

static size_t
on_header(char *ptr, size_t size, size_t nitems, void *ud)
{
  mcp_http_t *req = ud;
  size_t total = size * nitems, len = total;

  if (req->headers_done)
    return total;                     /* trailers: ignored */
  while (len > 0 && (ptr[len - 1] == '\n' || ptr[len - 1] == '\r'))
    len--;
  if (len >= 5 && memcmp(ptr, "HTTP/", 5) == 0) {
    const char *sp = memchr(ptr, ' ', len);

    reset_response(req);
    req->skipping = 0;
    if (sp != NULL)
      req->status = (int) strtol(sp + 1, NULL, 10);
    return total;
  }
  if (len == 0) {                     /* the end of a header block */
    if (req->status >= 100 && req->status < 200) {
      reset_response(req);            /* interim response */
      return total;
    }
    if (req->status >= 300 && req->status < 400)
      check_redirect(req);
    if (!req->skipping) {
      req->headers_done = 1;
      mcp_curl_uv_mark(&req->x);
    }
    return total;
  }
  if (header_line(req, ptr, len) != 0) {
    req->headers_too_big = 1;         /* over MAX_HEADER_BYTES */
    return 0;
  }
  return total;
}

static size_t
on_write(char *ptr, size_t size, size_t nmemb, void *ud)
{
  mcp_http_t *req = ud;
  size_t len = size * nmemb;

  if (req->skipping)
    return len;                       /* the body of a followed redirect */
  if (req->max_size > 0 && len > req->max_size - req->received) {
    req->too_big = 1;
    return 0;                         /* aborts: CURLE_WRITE_ERROR */
  }
  if (mcp_buf_append(&req->pending, ptr, len) != 0) {
    req->oom = 1;
    return 0;
  }
  req->received += len;
  mcp_curl_uv_mark(&req->x);
  return len;
}

/* ---- delivery to the owner (outside libcurl) ----------------------------- */

static void
fill_version(mcp_http_t *req)
{
  long ver = 0;

  curl_easy_getinfo(req->x.easy, CURLINFO_HTTP_VERSION, &ver);
  switch (ver) {
  case CURL_HTTP_VERSION_1_0:
    strcpy(req->version, "1.0");
    break;
  case CURL_HTTP_VERSION_1_1:
    strcpy(req->version, "1.1");
    break;
  case CURL_HTTP_VERSION_2_0:
    strcpy(req->version, "2");
    break;
  case 30: /* CURL_HTTP_VERSION_3, an enum value in newer headers */
    strcpy(req->version, "3");
    break;
  default:
    break;
  }
}

static void
deliver(mcp_http_t *req)
{
  mcp_http_header_t *list;
  const char *p;
  size_t i;

  if (req->headers_done && !req->headers_sent && !req->cancelled) {
    req->headers_sent = 1;
    fill_version(req);
    list = calloc(req->nhdrs + 1, sizeof *list);
    if (list == NULL) {
      req->oom = 1;
      mcp_http_cancel(req);
      return;
    }
    p = req->hdrs.data;
    for (i = 0; i < req->nhdrs; i++) {
      list[i].name = p;
      p += strlen(p) + 1;
      list[i].value = p;
      p += strlen(p) + 1;
    }
    if (req->cb.on_headers != NULL)
      req->cb.on_headers(req, req->status, list, req->nhdrs, req->ud);
    free(list);
  }
  if (req->headers_sent && req->pending.len > 0 && !req->cancelled) {
    if (req->cb.on_data != NULL)
      req->cb.on_data(req, req->pending.data, req->pending.len, req->ud);
    if (req->pending.cap > PENDING_KEEP)
      mcp_buf_free(&req->pending);
    else
      mcp_buf_reset(&req->pending);
  }
}

static void
on_flush(mcp_curl_xfer_t *x)
{
  deliver(req_of(x));
}

static void
set_method(mcp_http_t *req, int with_body)
{
  CURL *e = req->x.easy;

  curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, (char *) NULL);
  if (strcmp(req->method, "HEAD") == 0) {
    curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
  } else if (with_body) {
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
                     (curl_off_t) req->body_len);
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, req->body);
    if (strcmp(req->method, "POST") != 0)
      curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, req->method);
  } else {
    curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
    if (strcmp(req->method, "GET") != 0)
      curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, req->method);
  }
}

/* 1 for the CURLcodes of a transfer that found no connection. */
static int
never_connected(CURLcode rc)
{
  return rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST ||
         rc == CURLE_COULDNT_RESOLVE_PROXY;
}

/* 1 when the server cannot have run the request: no connection was found
 * (and none of an earlier attempt's was sent), or the write was reset. A
 * reset on our own write means the peer's socket was closed when the
 * request reached it (a pooled connection the server had dropped): no
 * server read it. A server that read it and then went away shows as an
 * empty answer instead, which does not count. */
static int
nothing_sent(const mcp_http_t *req, CURLcode rc)
{
  if (never_connected(rc))
    return !req->sent;
  return rc == CURLE_SEND_ERROR;
}

/* CURLOPT_PREREQFUNCTION: libcurl is about to send the request on a
 * connection. A second time for the same issue of the request is its
 * silent retry after a reused connection died: refused for a request
 * that must not run twice. */
static int
on_prereq(void *ud, char *primary_ip, char *local_ip, int primary_port,
          int local_port)
{
  mcp_http_t *req = ud;

  MCP_UNUSED(local_ip);
  MCP_UNUSED(primary_port);
  MCP_UNUSED(local_port);
  if (req->check_peer != NULL && !req->check_peer(req->peer_ud, primary_ip)) {
    snprintf(req->peer, sizeof req->peer, "%s", primary_ip);
    req->peer_refused = 1;
    return CURL_PREREQFUNC_ABORT;
  }
  if (req->sent && req->send_once) {
    req->resend_refused = 1;
    return CURL_PREREQFUNC_ABORT;
  }
  req->sent = 1;
  return CURL_PREREQFUNC_OK;
}

/* Re-issues the request to req->redirect_url (same origin, checked). */
static int
follow_redirect(mcp_http_t *req, mcp_error_t *err)
{
  int to_get = req->status == 303 ||
               ((req->status == 301 || req->status == 302) &&
                strcmp(req->method, "POST") == 0);

  if (to_get && strcmp(req->method, "HEAD") != 0) {
    free(req->method);
    req->method = dup_string("GET");
    if (req->method == NULL)
      return mcp_error_set(err, MCP_ENOMEM, NULL);
    free(req->body);
    req->body = NULL;
    req->body_len = 0;
  }
  set_method(req, req->body != NULL);
  curl_easy_setopt(req->x.easy, CURLOPT_URL, req->redirect_url);
  free(req->redirect_url);
  req->redirect_url = NULL;
  req->redirects_left--;
  reset_response(req);
  req->skipping = 0;
  req->sent = 0;      /* the server asked for this one */
  req->errbuf[0] = '\0';
  return mcp_curl_uv_add(req->cu, &req->x, err);
}

static void
on_xfer_done(mcp_curl_xfer_t *x, CURLcode rc)
{
  mcp_http_t *req = req_of(x);
  mcp_error_t err;
  const char *detail;
  long n = 0;
  int failed = 1;

  mcp_error_clear(&err);
  req->curl_code = (int) rc;
  curl_easy_getinfo(x->easy, CURLINFO_NUM_CONNECTS, &n);
  req->connects += n;
  if (!req->cancelled && rc == CURLE_OK && req->redirect_url != NULL) {
    if (follow_redirect(req, &err) == 0)
      return;                         /* attached again */
  } else {
    if (!req->cancelled)
      deliver(req);                   /* what the last flush left */
    detail = req->errbuf[0] ? req->errbuf : curl_easy_strerror(rc);
    if (req->peer_refused) {
      mcp_error_set(&err, MCP_EREFUSED, "refused to connect to %s: a "
                    "private, loopback or link-local address",
                    req->peer);
    } else if (req->resend_refused ||
        (req->send_once && req->sent && never_connected(rc))) {
      /* libcurl's retry on a new connection was refused, or it could not
       * connect for it: either way the request had gone out. */
      mcp_error_set(&err, MCP_ECLOSED, "the connection closed after the "
                    "request was sent and before any answer: the server "
                    "may have received it, so it was not sent again");
    } else if (!req->cancelled && nothing_sent(req, rc)) {
      mcp_error_set(&err, MCP_ECONNECT, "cannot connect to the server: %s "
                    "(curl %d)", detail, (int) rc);
    } else if (req->cancelled && !req->oom) {
      mcp_error_set(&err, MCP_ECANCELED, "HTTP request cancelled");
    } else if (req->headers_too_big) {
      mcp_error_set(&err, MCP_ETOOBIG, "HTTP response headers exceed %u "
                    "bytes", MAX_HEADER_BYTES);
    } else if (req->too_big || rc == CURLE_FILESIZE_EXCEEDED) {
      mcp_error_set(&err, MCP_ETOOBIG, "HTTP response exceeds the limit "
                    "of %zu bytes", req->max_size);
    } else if (req->oom || rc == CURLE_OUT_OF_MEMORY) {
      mcp_error_set(&err, MCP_ENOMEM, NULL);
    } else if (rc == CURLE_OPERATION_TIMEDOUT) {
      mcp_error_set(&err, MCP_ETIMEDOUT, "HTTP request timed out: %s",
                    detail);
    } else if (rc != CURLE_OK) {
      mcp_error_set(&err, MCP_EIO, "HTTP request failed: %s (curl %d: %s)",
                    detail, (int) rc, curl_easy_strerror(rc));
    } else {
      failed = 0;
    }
    if (failed && req->headers_sent)
      err.status = req->status;
  }
  fill_version(req);
  req->finished = 1;
  req->cb.on_done(req, failed ? &err : NULL, req->ud);
  req_free(req);
}

/* ---- starting and cancelling --------------------------------------------- */

static int
valid_token(const char *s)
{
  if (*s == '\0')
    return 0;
  for (; *s != '\0'; s++) {
    if (!isalnum((unsigned char) *s) && strchr("!#$%&'*+-.^_`|~", *s) == NULL)
      return 0;
  }
  return 1;
}

int
mcp_http_check_url(const char *url, mcp_error_t *err)
{
  CURLU *h;
  char *scheme = NULL;
  int rc = 0;

  h = curl_url();
  if (h == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  if (curl_url_set(h, CURLUPART_URL, url, 0) != CURLUE_OK ||
      curl_url_get(h, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK)
    rc = mcp_error_set(err, MCP_EINVAL, "invalid URL: %.200s", url);
  else if (strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0)
    rc = mcp_error_set(err, MCP_EINVAL, "unsupported URL scheme: %.64s",
                       scheme);
  curl_free(scheme);
  curl_url_cleanup(h);
  return rc;
}

static int
has_header(const mcp_http_opts_t *o, const char *name)
{
  size_t i, n = strlen(name);

  for (i = 0; i < o->nheaders; i++) {
    if (strncasecmp(o->headers[i], name, n) == 0 && o->headers[i][n] == ':')
      return 1;
  }
  return 0;
}

static int
add_header(mcp_http_t *req, const char *line)
{
  struct curl_slist *l = curl_slist_append(req->headers, line);

  if (l == NULL)
    return -1;
  req->headers = l;
  return 0;
}

/* A caller's "Name: value" line. One with an empty value is sent as
 * such: libcurl would take "Name:" for "remove Name", so it gets "Name;",
 * libcurl's form of an empty header. */
static int
add_caller_header(mcp_http_t *req, const char *line)
{
  const char *colon = strchr(line, ':');
  size_t n = colon - line;
  char *empty;
  int rc;

  if (colon[strspn(colon + 1, " \t") + 1] != '\0')
    return add_header(req, line);
  empty = malloc(n + 2);
  if (empty == NULL)
    return -1;
  memcpy(empty, line, n);
  memcpy(empty + n, ";", 2);
  rc = add_header(req, empty);
  free(empty);
  return rc;
}

/* Header names whose values are credentials, or lead to them. */
static int
is_secret_header(const char *name, size_t n)
{
  static const char *const exact[] = { "authorization",
    "proxy-authorization", "cookie", "set-cookie", "dpop",
    "mcp-session-id" };
  static const char *const parts[] = { "token", "secret", "key", "auth",
                                       "password" };
  char lower[64];
  size_t i;

  if (n >= sizeof lower)
    return 1;                    /* nobody's credential is that plain */
  for (i = 0; i < n; i++)
    lower[i] = (char) tolower((unsigned char) name[i]);
  lower[n] = '\0';
  if (strcmp(lower, "www-authenticate") == 0)
    return 0;                    /* a challenge: what debugging needs */
  for (i = 0; i < sizeof exact / sizeof exact[0]; i++) {
    if (strcmp(lower, exact[i]) == 0)
      return 1;
  }
  for (i = 0; i < sizeof parts / sizeof parts[0]; i++) {
    if (strstr(lower, parts[i]) != NULL)
      return 1;
  }
  return 0;
}

/* Traces one line of text (no CR or LF), prefixed; a header line with a
 * credential's value shows "***" in its place. */
static void
trace_line(mcp_http_t *req, const char *prefix, const char *line, size_t len,
           int header)
{
  char out[1024];
  const char *colon = header ? memchr(line, ':', len) : NULL;
  int n;

  if (colon != NULL && is_secret_header(line, (size_t) (colon - line)))
    n = snprintf(out, sizeof out, "%s%.*s: ***", prefix,
                 (int) (colon - line), line);
  else
    n = snprintf(out, sizeof out, "%s%.*s", prefix,
                 (int) (len < sizeof out ? len : sizeof out), line);
  if (n > 0)
    req->trace(req->trace_ud, out,
               (size_t) n < sizeof out ? (size_t) n : sizeof out - 1);
}

/* CURLOPT_DEBUGFUNCTION: libcurl's notes ("* "), the request's headers
 * ("> ") and the response's ("< "), a line at a time; bodies are not
 * traced (a token request's body holds secrets). */
static int
on_debug(CURL *e, curl_infotype type, char *data, size_t size, void *ud)
{
  mcp_http_t *req = ud;
  const char *prefix;
  size_t start = 0, i;

  MCP_UNUSED(e);
  if (type == CURLINFO_TEXT)
    prefix = "* ";
  else if (type == CURLINFO_HEADER_OUT)
    prefix = "> ";
  else if (type == CURLINFO_HEADER_IN)
    prefix = "< ";
  else
    return 0;
  for (i = 0; i <= size; i++) {
    if (i == size || data[i] == '\n' || data[i] == '\r') {
      if (i > start)
        trace_line(req, prefix, data + start, i - start,
                   type != CURLINFO_TEXT);
      start = i + 1;
    }
  }
  return 0;
}

static int
set_options(mcp_http_t *req, const mcp_http_opts_t *o)
{
  CURL *e = req->x.easy;
  size_t i;

  curl_easy_setopt(e, CURLOPT_URL, o->url);
#if LIBCURL_VERSION_NUM >= 0x075500
  curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
  curl_easy_setopt(e, CURLOPT_PROTOCOLS, CURLPROTO_HTTP | CURLPROTO_HTTPS);
  curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS,
                   CURLPROTO_HTTP | CURLPROTO_HTTPS);
#endif
  curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);   /* see http.h */
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, req->errbuf);
  curl_easy_setopt(e, CURLOPT_USERAGENT, "luamcp/" MCP_VERSION);
  curl_easy_setopt(e, CURLOPT_HTTP_VERSION, (long) CURL_HTTP_VERSION_2TLS);
  curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(e, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1L);
  /* A debugging aid: libcurl's own account of every transfer, on stderr. */
  if (getenv("MCP_CURL_VERBOSE") != NULL)
    curl_easy_setopt(e, CURLOPT_VERBOSE, 1L);
  if (o->trace != NULL) {
    req->trace = o->trace;
    req->trace_ud = o->trace_ud;
    curl_easy_setopt(e, CURLOPT_DEBUGFUNCTION, on_debug);
    curl_easy_setopt(e, CURLOPT_DEBUGDATA, req);
    curl_easy_setopt(e, CURLOPT_VERBOSE, 1L);
  }
  curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(e, CURLOPT_HEADERDATA, req);
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, req);
  if (o->timeout_ms > 0)
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, o->timeout_ms);
  if (o->connect_timeout_ms > 0)
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, o->connect_timeout_ms);
  if (o->max_size > 0)
    curl_easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t) o->max_size);
  if (o->ca_file != NULL)
    curl_easy_setopt(e, CURLOPT_CAINFO, o->ca_file);
  if (o->ca_path != NULL)
    curl_easy_setopt(e, CURLOPT_CAPATH, o->ca_path);
  if (o->cert != NULL)
    curl_easy_setopt(e, CURLOPT_SSLCERT, o->cert);
  if (o->key != NULL)
    curl_easy_setopt(e, CURLOPT_SSLKEY, o->key);
  if (o->insecure) {
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  for (i = 0; i < o->nheaders; i++) {
    if (add_caller_header(req, o->headers[i]) != 0)
      return -1;
  }
  /* libcurl would add "Content-Type: application/x-www-form-urlencoded"
   * to a body, and "Expect: 100-continue" to a large one: neither unless
   * the caller asks. */
  if (req->body != NULL && !has_header(o, "Content-Type") &&
      add_header(req, "Content-Type:") != 0)
    return -1;
  if (req->body != NULL && !has_header(o, "Expect") &&
      add_header(req, "Expect:") != 0)
    return -1;
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, req->headers);
  curl_easy_setopt(e, CURLOPT_PREREQFUNCTION, on_prereq);
  curl_easy_setopt(e, CURLOPT_PREREQDATA, req);
  set_method(req, req->body != NULL);
  return 0;
}

int
mcp_http_start(mcp_curl_uv_t *cu, const mcp_http_opts_t *o,
               const mcp_http_cb_t *cb, void *ud, mcp_http_t **out,
               mcp_error_t *err)
{
  const char *method = o->method ? o->method : (o->body ? "POST" : "GET");
  mcp_http_t *req = NULL;
  size_t i;
  int rc;

  *out = NULL;
  if (o->url == NULL || cb == NULL || cb->on_done == NULL)
    return mcp_error_set(err, MCP_EINVAL, "HTTP request without URL or "
                         "completion callback");
  if (!valid_token(method))
    return mcp_error_set(err, MCP_EINVAL, "invalid HTTP method");
  for (i = 0; i < o->nheaders; i++) {
    const char *h = o->headers[i], *colon = strchr(h, ':');

    if (strpbrk(h, "\r\n") != NULL || colon == NULL || colon == h)
      return mcp_error_set(err, MCP_EINVAL, "invalid HTTP header line: "
                           "%.80s", h);
  }
  if (!o->url_checked && (rc = mcp_http_check_url(o->url, err)) != 0)
    return rc;
  req = calloc(1, sizeof *req);
  if (req == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  mcp_buf_init(&req->hdrs, MAX_HEADER_BYTES);
  mcp_buf_init(&req->pending, 0);
  req->cu = cu;
  req->cb = *cb;
  req->ud = ud;
  req->max_size = o->max_size;
  req->send_once = o->send_once != 0;
  req->check_peer = o->check_peer;
  req->peer_ud = o->peer_ud;
  req->redirects_left = o->max_redirects;
  req->method = dup_string(method);
  req->origin_url = dup_string(o->url);
  if (o->body != NULL) {
    req->body = malloc(o->body_len + 1);
    if (req->body != NULL) {
      memcpy(req->body, o->body, o->body_len);
      req->body[o->body_len] = '\0';
      req->body_len = o->body_len;
    }
  }
  req->x.easy = mcp_curl_uv_easy(cu);
  if (req->method == NULL || req->origin_url == NULL ||
      (o->body != NULL && req->body == NULL) || req->x.easy == NULL) {
    rc = mcp_error_set(err, MCP_ENOMEM, NULL);
    goto error;
  }
  req->x.on_flush = on_flush;
  req->x.on_done = on_xfer_done;
  if (set_options(req, o) != 0) {
    rc = mcp_error_set(err, MCP_ENOMEM, NULL);
    goto error;
  }
  rc = mcp_curl_uv_add(cu, &req->x, err);
  if (rc != 0)
    goto error;
  *out = req;
  return 0;
error:
  req_free(req);
  return rc;
}

void
mcp_http_cancel(mcp_http_t *req)
{
  if (req->finished || req->cancelled)
    return;
  req->cancelled = 1;
  mcp_curl_uv_cancel(&req->x);
}

int
mcp_http_curl_code(const mcp_http_t *req)
{
  return req->curl_code;
}

const char *
mcp_http_curl_error(const mcp_http_t *req)
{
  return req->errbuf;
}

const char *
mcp_http_curl_strerror(const mcp_http_t *req)
{
  return curl_easy_strerror((CURLcode) req->curl_code);
}

long
mcp_http_connects(const mcp_http_t *req)
{
  return req->connects;
}

const char *
mcp_http_version(const mcp_http_t *req)
{
  return req->version;
}

const char *
mcp_http_url(const mcp_http_t *req)
{
  char *url = NULL;

  curl_easy_getinfo(req->x.easy, CURLINFO_EFFECTIVE_URL, &url);
  return url != NULL ? url : req->origin_url;
}

const char *
mcp_http_redirect_url(const mcp_http_t *req)
{
  return req->unfollowed_url;
}
