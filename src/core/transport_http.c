/*
 * transport_http.c - Streamable HTTP and legacy HTTP+SSE over curl_uv.
 *
 * Every HTTP exchange is an xfer: a POST carrying one message, the GET
 * stream that listens for the server, a GET resuming a broken POST stream
 * (Last-Event-ID), the legacy transport's GET stream, or the DELETE that
 * ends a session. An xfer is freed when its request is done. Timers (the
 * listener's reconnect/idle timer, one per resumption) are uv handles and
 * are freed in their close callbacks; the transport frees itself when no
 * xfer and no handle is left after close.
 *
 * It never parses JSON-RPC: messages go to the owner (rpc.c) whole; the
 * owner tells it which request a POST carries and answers is_pending.
 */
#include "transport_http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>



#include "auth/challenge.h"
#include "buf.h"
#include "common.h"
#include "http.h"
#include "jsonscan.h"
#include "routing.h"
#include "sse.h"

#define BACKOFF_MIN_MS 250u
#define BACKOFF_MAX_MS 30000u
#define DEFAULT_IDLE_MS 300000
#define DEFAULT_FAILURES 5
#define MAX_LINES 256
#define ERROR_BODY_MAX 512

typedef enum {
  X_POST,      /* one client message */
  X_LISTEN,    /* the GET stream for server-initiated messages */
  X_RESUME,    /* a GET resuming a POST's broken stream */
  X_LEGACY,    /* the 2024-11-05 transport's GET stream */
  X_DELETE     /* ends the session */
} xkind_t;

typedef struct http_transport_s http_transport_t;

typedef struct xfer_s {
  http_transport_t *t;
  mcp_http_t *req;              /* NULL once done */
  xkind_t kind;
  uint64_t request_id;          /* the request this POST/RESUME carries */
  int status;
  unsigned is_sse : 1;
  unsigned is_json : 1;
  unsigned had_session : 1;     /* sent with MCP-Session-Id */
  unsigned session_gen;         /* the transport's, when sent */
  unsigned may_fall_back : 1;   /* auto mode's first POST */
  unsigned too_big : 1;
  unsigned got_data : 1;
  char *text;                   /* POST body, kept for the fallback */
  size_t text_len;
  mcp_buf_t body;               /* a JSON answer, or an error's start */
  mcp_sse_t sse;
  char *last_id;                /* the stream's last event id */
  char *location;               /* a 3xx's Location, for its error */
  char *challenge;              /* a 401's or 403's WWW-Authenticate */
  char content_type[64];        /* of a 2xx, for its error */
  int attempts;                 /* resumptions of this request so far */
  struct xfer_s *prev, *next;
} xfer_t;

typedef struct resume_s {
  uv_timer_t timer;
  http_transport_t *t;
  uint64_t request_id;
  char *last_id;
  int attempts;
  struct resume_s *prev, *next;
} resume_t;

typedef struct queued_s {      /* legacy: waits for the endpoint event */
  char *text;
  size_t len;
  uint64_t request_id;
  struct queued_s *next;
} queued_t;

struct http_transport_s {
  mcp_transport_t base;
  uv_loop_t *loop;
  mcp_curl_uv_t *cu;
  mcp_transport_cb_t cb;
  void *ud;
  char *url;
  char *post_url;               /* url, or the legacy endpoint */
  mcp_http_mode_t mode;
  int legacy;                   /* speaking the 2024-11-05 transport */
  int decided;                  /* a POST succeeded: no more fallback */
  char *session_id;
  unsigned session_gen;         /* bumped whenever session_id changes */
  char version[16];
  char **headers;               /* extra "Name: value" lines */
  size_t nheaders;
  char *authorization;          /* "Authorization: ..." line, or NULL */
  mcp_http_proof_cb proof;      /* a DPoP proof per request, or NULL */
  void (*on_nonce)(void *ud, const char *nonce);
  void *proof_ud;
  xfer_t *xfers;
  xfer_t *listener;
  uv_timer_t listen_timer;      /* reconnect delay, then idle watchdog */
  char *listen_last_id;
  uint64_t retry_ms;            /* the server's retry, 0 when none */
  int failures;                 /* consecutive failed listener attempts */
  int listening;                /* a GET stream is wanted */
  resume_t *resumes;
  queued_t *queue, **queue_tail;
  int handles;                  /* uv handles whose close is due */
  size_t max_message;
  long connect_timeout_ms;
  long idle_ms;
  int max_failures;
  char *ca_file, *ca_path, *cert, *key;
  int insecure;
  mcp_trace_cb trace;
  void *trace_ud;
  unsigned stateless : 1;       /* the stateless era (set_era) */
  mcp_routing_t *routing;       /* tools' Mcp-Param-* declarations */
  unsigned closing : 1;
  unsigned lost : 1;
  char last_error[256];         /* for diagnostics */
  char fallback_why[300];       /* what the POST got, when auto mode fell
                                 * back to the legacy transport */
};

static void start_listener(http_transport_t *t);
static void maybe_free(http_transport_t *t);

static char *
dup_or_null(const char *s)
{
  return s ? strdup(s) : NULL;
}

static void
set_string(char **slot, const char *value, size_t len)
{
  free(*slot);
  *slot = malloc(len + 1);
  if (*slot != NULL) {
    memcpy(*slot, value, len);
    (*slot)[len] = '\0';
  }
}

/* Several WWW-Authenticate lines are one list (RFC 9110 section 5.3),
 * joined with ", "; the whole is bounded like an error record's. */
static void
add_challenge(xfer_t *x, const char *value)
{
  size_t old = x->challenge != NULL ? strlen(x->challenge) : 0;
  size_t len = strlen(value);
  char *s;

  if (old + len + 3 > sizeof ((mcp_error_t *) 0)->challenge)
    return;
  s = realloc(x->challenge, old + len + 3);
  if (s == NULL)
    return;
  if (old > 0) {
    memcpy(s + old, ", ", 2);
    old += 2;
  }
  memcpy(s + old, value, len + 1);
  x->challenge = s;
}

/* Copies up to len bytes of what a server sent into out (cap > 0), for a
 * message: control bytes and bytes past ASCII become '?', and the text is
 * cut to fit. */
static void
printable_copy(char *out, size_t cap, const char *in, size_t len)
{
  size_t i;

  if (len > cap - 1)
    len = cap - 1;
  for (i = 0; i < len; i++)
    out[i] = in[i] >= 0x20 && in[i] < 0x7f ? in[i] : (in[i] == '\n' ||
             in[i] == '\r' || in[i] == '\t' ? ' ' : '?');
  out[len] = '\0';
}

static uint64_t
backoff_ms(int failures)
{
  uint64_t ms = BACKOFF_MIN_MS;
  uint32_t r;
  int i;

  for (i = 1; i < failures && ms < BACKOFF_MAX_MS; i++)
    ms *= 2;
  if (ms > BACKOFF_MAX_MS)
    ms = BACKOFF_MAX_MS;
  /* Up to a quarter of jitter, so that clients do not reconnect in step. */
  if (RAND_bytes((unsigned char *) &r, sizeof r) != 1)
    r = (uint32_t) uv_hrtime();
  return ms - (r % (ms / 4 + 1));
}

/* ---- losing the connection ------------------------------------------------ */

static void
lose(http_transport_t *t, const char *fmt, const char *detail)
{
  mcp_error_t err;

  if (t->lost || t->closing)
    return;
  t->lost = 1;
  mcp_error_set(&err, MCP_ECLOSED, fmt, detail);
  t->cb.on_lost(t->ud, &err);
}

/* lose() with two details. */
static void
lose2(http_transport_t *t, const char *fmt, const char *a, const char *b)
{
  char msg[700];

  snprintf(msg, sizeof msg, fmt, a, b);
  lose(t, "%s", msg);
}

/* Tells the owner that request id can get no answer. */
static void
report_failure(http_transport_t *t, uint64_t id, const mcp_error_t *err)
{
  if (id == 0 || t->cb.on_request_failed == NULL)
    return;
  snprintf(t->last_error, sizeof t->last_error, "%s", err->msg);
  t->cb.on_request_failed(t->ud, id, err);
}

static void
fail_request(http_transport_t *t, uint64_t id, int code, int status,
             const char *fmt, const char *detail)
{
  mcp_error_t err;

  mcp_error_set(&err, code, fmt, detail);
  err.status = status;
  report_failure(t, id, &err);
}

/* An HTTP error for the request x carried, with its challenge (for the
 * owner's authorization) when there was one. */
static void
fail_request_with(http_transport_t *t, const xfer_t *x, int code,
                  const char *msg)
{
  mcp_error_t err;

  mcp_error_set(&err, code, "%s", msg);
  err.status = x->status;
  if (x->challenge != NULL)
    snprintf(err.challenge, sizeof err.challenge, "%s", x->challenge);
  report_failure(t, x->request_id, &err);
}

/* ---- SSE events ------------------------------------------------------------ */

static void
deliver(http_transport_t *t, const char *text, size_t len)
{
  if (!t->lost && !t->closing)
    t->cb.on_message(t->ud, text, len);
}

static void flush_queue(http_transport_t *t);

static void
on_endpoint(xfer_t *x, const char *data)
{
  http_transport_t *t = x->t;
  mcp_error_t err;
  char *resolved = NULL;

  if (mcp_http_resolve(t->url, data, &resolved, &err) != 0 ||
      mcp_http_same_origin(t->url, resolved) != 1) {
    free(resolved);
    lose(t, "the legacy server's endpoint %.100s is not on its origin", data);
    return;
  }
  if (t->post_url != t->url)
    free(t->post_url);
  t->post_url = resolved;
  flush_queue(t);
}

static void
on_sse_event(void *ud, const mcp_sse_event_t *ev)
{
  xfer_t *x = ud;
  http_transport_t *t = x->t;

  if (ev->has_id) {
    set_string(&x->last_id, ev->id, strlen(ev->id));
    if (x->kind == X_LISTEN)
      set_string(&t->listen_last_id, ev->id, strlen(ev->id));
  }
  if (x->kind == X_LEGACY && ev->type_len == 8 &&
      memcmp(ev->type, "endpoint", 8) == 0) {
    on_endpoint(x, ev->data);
    return;
  }
  if (ev->type_len != 7 || memcmp(ev->type, "message", 7) != 0)
    return; /* other event types are not MCP messages */
  if (ev->data_len == 0)
    return; /* a priming event: only its id matters */
  deliver(t, ev->data, ev->data_len);
}

static void
on_sse_retry(void *ud, uint64_t ms)
{
  xfer_t *x = ud;

  x->t->retry_ms = ms;
}

static void
on_sse_oversize(void *ud, size_t size, const char *id, size_t id_len)
{
  xfer_t *x = ud;

  if (!x->t->lost && !x->t->closing)
    x->t->cb.on_oversize(x->t->ud, size, id, id_len);
}

/* ---- starting exchanges --------------------------------------------------- */

static void on_headers(mcp_http_t *req, int status,
                       const mcp_http_header_t *headers, size_t n, void *ud);
static void on_data(mcp_http_t *req, const char *data, size_t len, void *ud);
static void on_done(mcp_http_t *req, const mcp_error_t *err, void *ud);

static void
xfer_free(xfer_t *x)
{
  mcp_buf_free(&x->body);
  mcp_sse_free(&x->sse);
  free(x->text);
  free(x->last_id);
  free(x->location);
  free(x->challenge);
  free(x);
}

static xfer_t *
start(http_transport_t *t, xkind_t kind, const char *url, const char *text,
      size_t len, uint64_t request_id, const char *last_id, mcp_error_t *err)
{
  static const mcp_http_cb_t http_cb = { on_headers, on_data, on_done };
  static const mcp_sse_cb_t sse_cb = { on_sse_event, on_sse_retry, NULL,
                                       on_sse_oversize };
  const char *lines[MAX_LINES];
  const char *method = kind == X_POST ? "POST"
                       : kind == X_DELETE ? "DELETE" : "GET";
  char session[300], version[64], last[300];
  char *proof = NULL;
  mcp_buf_t routing;
  mcp_http_opts_t o;
  size_t n = 0, i, nrouting = 0;
  const char *line;
  xfer_t *x;
  int rc;

  x = calloc(1, sizeof *x);
  if (x == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL), NULL;
  x->t = t;
  x->kind = kind;
  x->request_id = request_id;
  mcp_buf_init(&x->body, t->max_message);
  mcp_sse_init(&x->sse, t->max_message, &sse_cb, x);

  if (kind == X_POST) {
    lines[n++] = "Content-Type: application/json";
    lines[n++] = "Accept: application/json, text/event-stream";
  } else if (kind != X_DELETE) {
    lines[n++] = "Accept: text/event-stream";
  }
  if (t->session_id != NULL && !t->legacy) {
    snprintf(session, sizeof session, "MCP-Session-Id: %s", t->session_id);
    lines[n++] = session;
    x->had_session = 1;
    x->session_gen = t->session_gen;
  }
  /* The header exists since 2025-06-18; older peers assume 2025-03-26. */
  if (t->version[0] != '\0' && strcmp(t->version, "2025-06-18") >= 0) {
    snprintf(version, sizeof version, "MCP-Protocol-Version: %s", t->version);
    lines[n++] = version;
  }
  /* The stateless era's routing headers, each line NUL-ended in routing
   * (MAX_LINES leaves room for their MCP_ROUTING_MAX_PARAMS + 2). */
  mcp_buf_init(&routing, MCP_ROUTING_MAX + 1024);
  if (t->stateless && kind == X_POST &&
      mcp_routing_headers(t->routing, text, len, &routing, &nrouting,
                          err) != 0) {
    mcp_buf_free(&routing);
    xfer_free(x);
    return NULL;
  }
  for (i = 0, line = routing.data; i < nrouting; i++) {
    lines[n++] = line;
    line += strlen(line) + 1;
  }
  if (last_id != NULL) {
    snprintf(last, sizeof last, "Last-Event-ID: %s", last_id);
    lines[n++] = last;
  }
  if (t->authorization != NULL)
    lines[n++] = t->authorization;
  /* A fresh proof for every request, a resend too (RFC 9449 4.2). */
  if (t->authorization != NULL && t->proof != NULL) {
    if (t->proof(t->proof_ud, method, url, &proof, err) != 0) {
      mcp_buf_free(&routing);
      xfer_free(x);
      return NULL;
    }
    if (proof != NULL)
      lines[n++] = proof;
  }
  for (i = 0; i < t->nheaders && n < MAX_LINES; i++)
    lines[n++] = t->headers[i];

  memset(&o, 0, sizeof o);
  o.method = method;
  o.url = url;
  o.headers = lines;
  o.nheaders = n;
  o.body = kind == X_POST ? text : NULL;
  o.body_len = kind == X_POST ? len : 0;
  o.connect_timeout_ms = t->connect_timeout_ms;
  o.timeout_ms = kind == X_DELETE ? 5000 : 0;
  o.ca_file = t->ca_file;
  o.ca_path = t->ca_path;
  o.cert = t->cert;
  o.key = t->key;
  o.insecure = t->insecure;
  o.trace = t->trace;
  o.trace_ud = t->trace_ud;
  o.url_checked = 1;  /* at creation; an endpoint URL is on its origin */
  /* A request must not run twice unnoticed (a tool call); notifications
   * and our answers to the server may be sent again. */
  o.send_once = kind == X_POST && request_id != 0;
  rc = mcp_http_start(t->cu, &o, &http_cb, x, &x->req, err);
  mcp_buf_free(&routing);       /* libcurl copied the lines */
  free(proof);
  if (rc != 0) {
    xfer_free(x);
    return NULL;
  }
  x->next = t->xfers;
  if (t->xfers != NULL)
    t->xfers->prev = x;
  t->xfers = x;
  return x;
}

/* ---- the listener and resumptions ----------------------------------------- */

static void
on_listen_timer(uv_timer_t *timer)
{
  http_transport_t *t = timer->data;

  if (t->listener != NULL) {
    /* The idle watchdog: nothing came for too long; start afresh. */
    mcp_http_cancel(t->listener->req);
    return;
  }
  start_listener(t);
}

/* (Re)starts the GET stream's idle watchdog. uv_timer_again would do
 * nothing here: the timer has no repeat value. */
static void
watch_idle(http_transport_t *t)
{
  uv_timer_start(&t->listen_timer, on_listen_timer, (uint64_t) t->idle_ms, 0);
}

static void
start_listener(http_transport_t *t)
{
  mcp_error_t err;

  if (!t->listening || t->listener != NULL || t->closing || t->lost)
    return;
  t->listener = start(t, X_LISTEN, t->url, NULL, 0, 0, t->listen_last_id,
                      &err);
  if (t->listener == NULL) {
    lose(t, "cannot open the server's event stream: %s", err.msg);
    return;
  }
  watch_idle(t);
}

static void
on_resume_closed(uv_handle_t *h)
{
  resume_t *r = h->data;
  http_transport_t *t = r->t;

  free(r->last_id);
  free(r);
  t->handles--;
  maybe_free(t);
}

static void
resume_drop(resume_t *r)
{
  http_transport_t *t = r->t;

  if (r->prev != NULL)
    r->prev->next = r->next;
  else
    t->resumes = r->next;
  if (r->next != NULL)
    r->next->prev = r->prev;
  uv_timer_stop(&r->timer);
  uv_close((uv_handle_t *) &r->timer, on_resume_closed);
}

static void
on_resume_timer(uv_timer_t *timer)
{
  resume_t *r = timer->data;
  http_transport_t *t = r->t;
  mcp_error_t err;
  xfer_t *x;

  if (!t->closing && !t->lost && t->cb.is_pending(t->ud, r->request_id)) {
    x = start(t, X_RESUME, t->url, NULL, 0, r->request_id, r->last_id, &err);
    if (x != NULL) {
      x->attempts = r->attempts;
      set_string(&x->last_id, r->last_id, strlen(r->last_id));
    } else {
      fail_request(t, r->request_id, MCP_ECLOSED, 0,
                   "cannot resume the answer's stream: %s", err.msg);
    }
  }
  resume_drop(r);
}

/* The stream of a request broke (or the server closed it to be polled):
 * ask for the rest with GET and Last-Event-ID after the server's retry
 * delay, or a backoff. */
static void
schedule_resume(http_transport_t *t, xfer_t *x)
{
  resume_t *r;

  if (x->attempts >= t->max_failures) {
    fail_request(t, x->request_id, MCP_ECLOSED, x->status,
                 "the answer's stream broke %s times; giving up", "several");
    return;
  }
  r = calloc(1, sizeof *r);
  if (r == NULL || (r->last_id = strdup(x->last_id)) == NULL) {
    free(r);
    fail_request(t, x->request_id, MCP_ENOMEM, 0, "%s", "out of memory");
    return;
  }
  r->t = t;
  r->request_id = x->request_id;
  r->attempts = x->attempts + 1;
  uv_timer_init(t->loop, &r->timer);
  r->timer.data = r;
  t->handles++;
  r->next = t->resumes;
  if (t->resumes != NULL)
    t->resumes->prev = r;
  t->resumes = r;
  uv_timer_start(&r->timer, on_resume_timer,
                 t->retry_ms ? t->retry_ms : backoff_ms(r->attempts), 0);
}

/* ---- responses -------------------------------------------------------------- */

static int
header_is(const mcp_http_header_t *h, const char *name)
{
  return strcasecmp(h->name, name) == 0;
}

static int
visible_ascii(const char *s)
{
  if (*s == '\0')
    return 0;
  for (; *s; s++) {
    if (*s < 0x21 || *s > 0x7e)
      return 0;
  }
  return 1;
}

static void
on_headers(mcp_http_t *req, int status, const mcp_http_header_t *headers,
           size_t n, void *ud)
{
  xfer_t *x = ud;
  http_transport_t *t = x->t;
  size_t i;

  x->status = status;
  for (i = 0; i < n && t->on_nonce != NULL; i++)
    if (header_is(&headers[i], "dpop-nonce"))
      t->on_nonce(t->proof_ud, headers[i].value);
  if (status < 200 || status > 299) {
    mcp_buf_init(&x->body, ERROR_BODY_MAX); /* keep the start, for errors */
    if (mcp_http_redirect_url(req) != NULL)
      set_string(&x->location, mcp_http_redirect_url(req),
                 strlen(mcp_http_redirect_url(req)));
    for (i = 0; i < n; i++) {
      if (header_is(&headers[i], "content-type") &&
          strncasecmp(headers[i].value, "application/json", 16) == 0)
        x->is_json = 1;
      else if (header_is(&headers[i], "www-authenticate") &&
               (status == 401 || status == 403))
        add_challenge(x, headers[i].value);
    }
    return;
  }
  if (x->kind == X_POST)
    t->decided = 1; /* the server speaks Streamable HTTP (or legacy) */
  for (i = 0; i < n; i++) {
    if (header_is(&headers[i], "content-type")) {
      printable_copy(x->content_type, sizeof x->content_type,
                     headers[i].value, strlen(headers[i].value));
      if (strncasecmp(headers[i].value, "text/event-stream", 17) == 0)
        x->is_sse = 1;
      else if (strncasecmp(headers[i].value, "application/json", 16) == 0)
        x->is_json = 1;
    } else if (header_is(&headers[i], "mcp-session-id") && !t->legacy &&
               !t->stateless && visible_ascii(headers[i].value)) {
      /* (The stateless era has no session: a server's id is ignored.) */
      if (t->session_id == NULL ||
          strcmp(t->session_id, headers[i].value) != 0) {
        set_string(&t->session_id, headers[i].value,
                   strlen(headers[i].value));
        t->session_gen++;
      }
    }
  }
}

static void
on_data(mcp_http_t *req, const char *data, size_t len, void *ud)
{
  xfer_t *x = ud;

  x->got_data = 1;
  if (x->kind == X_LISTEN)
    watch_idle(x->t);
  if (x->is_sse) {
    mcp_sse_feed(&x->sse, data, len);
    return;
  }
  if (x->too_big)
    return;
  if (mcp_buf_append(&x->body, data, len) == MCP_ETOOBIG) {
    if (x->status >= 200 && x->status <= 299) {
      x->too_big = 1;
      mcp_http_cancel(req);
    } else {
      mcp_buf_append(&x->body, data, x->body.max - x->body.len);
    }
  }
}

/* What to say about a failed HTTP status: a redirect's target, or the
 * start of the body. The server's bytes are shown printable only. */
static void
status_message(xfer_t *x, char *out, size_t cap)
{
  char shown[200];
  int n;

  if (x->location != NULL) {
    printable_copy(shown, sizeof shown, x->location, strlen(x->location));
    snprintf(out, cap, "HTTP %d redirect to %s, not followed", x->status,
             shown);
    return;
  }
  printable_copy(shown, sizeof shown, x->body.data, x->body.len);
  n = snprintf(out, cap, "HTTP %d", x->status);
  if (x->body.len > 0 && n > 0 && (size_t) n < cap)
    snprintf(out + n, cap - (size_t) n, ": %s", shown);
}

static void
switch_to_legacy(http_transport_t *t, xfer_t *x)
{
  queued_t *q = calloc(1, sizeof *q);
  mcp_error_t err;

  t->legacy = 1;
  if (q == NULL) {
    lose(t, "%s", "out of memory");
    return;
  }
  /* The first message (initialize) goes again, to the endpoint. */
  q->text = x->text;
  q->len = x->text_len;
  q->request_id = x->request_id;
  x->text = NULL;
  *t->queue_tail = q;
  t->queue_tail = &q->next;
  if (start(t, X_LEGACY, t->url, NULL, 0, 0, NULL, &err) == NULL)
    lose(t, "cannot open the legacy SSE stream: %s", err.msg);
}

/* The JSON-RPC error a failed POST's body carries, when it is one: 1 if
 * the body is a JSON-RPC error response whose id is id_text ("null" also
 * matches a body without id, as server-everything sends), else 0. (The
 * HTTP status says the request failed; the body may say why in the
 * protocol's own terms.) */
static int
body_is_rpc_error(const xfer_t *x, const char *id_text)
{
  mcp_json_member_t m[8];
  const mcp_json_member_t *id;
  size_t n;

  if (!x->is_json || x->body.len == 0 || x->body.len >= ERROR_BODY_MAX ||
      mcp_json_check(x->body.data, x->body.len, 16, NULL) != 0 ||
      mcp_json_members(x->body.data, x->body.len, 16, m, 8, &n) != 0 ||
      mcp_json_member(m, n, "error") == NULL ||
      mcp_json_member(m, n, "result") != NULL)
    return 0;
  id = mcp_json_member(m, n, "id");
  if (id == NULL)
    return strcmp(id_text, "null") == 0;
  return id->value_len == strlen(id_text) &&
         memcmp(id->value, id_text, id->value_len) == 0;
}

/* The answer the official TypeScript SDK's servers give for a session id
 * they do not know (after a restart): 400 with a JSON-RPC error, id null,
 * saying no valid session id was provided. */
static int
unknown_session(const xfer_t *x)
{
  size_t i;

  if (x->status != 400 || !x->had_session || !body_is_rpc_error(x, "null"))
    return 0;
  for (i = 0; i + 10 <= x->body.len; i++) {
    if (strncasecmp(x->body.data + i, "session id", 10) == 0)
      return 1;
  }
  return 0;
}

/* The legacy transport's GET stream ended. After auto mode's fallback
 * with no endpoint yet, neither transport worked: say what each got. */
static void
legacy_done(http_transport_t *t, xfer_t *x, const mcp_error_t *err)
{
  char got[300];

  if (t->fallback_why[0] == '\0' || t->post_url != t->url) {
    lose(t, "the legacy SSE stream ended%s", "");
    return;
  }
  if (x->status >= 200 && x->status <= 299)
    snprintf(got, sizeof got, "HTTP %d without an endpoint event",
             x->status);
  else if (x->status != 0)
    status_message(x, got, sizeof got);
  else
    snprintf(got, sizeof got, "%s", err ? err->msg : "no answer");
  lose2(t, "the server speaks neither transport: the Streamable HTTP POST "
        "got %s; the legacy HTTP+SSE GET got %s", t->fallback_why, got);
}

/* The server refused the request for want of authorization: a 401, or a
 * 403 whose challenge says the token lacks scope (RFC 6750 section
 * 3.1). Nothing ran; the owner may authorize and send it again. */
static int
needs_authorization(const xfer_t *x)
{
  mcp_auth_bearer_t bearer;
  mcp_error_t err;
  int yes;

  if (x->status == 401)
    return 1;
  if (x->status != 403 || x->challenge == NULL ||
      mcp_auth_bearer_parse(x->challenge, strlen(x->challenge), &bearer,
                            &err) != 0)
    return 0;
  yes = bearer.error != NULL &&
        strcmp(bearer.error, "insufficient_scope") == 0;
  mcp_auth_bearer_free(&bearer);
  return yes;
}

static void
post_done(http_transport_t *t, xfer_t *x, const mcp_error_t *err)
{
  char msg[300];

  if (x->status >= 200 && x->status <= 299) {
    t->decided = 1;
    if (x->too_big) {
      /* The POST carried one request: it is that request's answer. */
      char size[32];

      snprintf(size, sizeof size, "%zu", t->max_message);
      fail_request(t, x->request_id, MCP_ETOOBIG, x->status,
                   "the answer exceeds the limit of %s bytes", size);
      return;
    }
    if (x->is_json && x->body.len > 0 && err == NULL)
      deliver(t, x->body.data, x->body.len);
    /* Legacy answers come on the GET stream, not on the POST. */
    if (t->legacy || x->request_id == 0 ||
        !t->cb.is_pending(t->ud, x->request_id))
      return;
    /* A request whose answer did not come on this stream. The stateless
     * era resumes nothing (no Last-Event-ID): the owner asks again. */
    if (x->is_sse && x->last_id != NULL && !t->stateless)
      schedule_resume(t, x);
    else if (err != NULL)
      fail_request(t, x->request_id, MCP_ECLOSED, x->status,
                   "the answer's stream broke: %s", err->msg);
    else if (!x->is_sse && !x->is_json)
      fail_request(t, x->request_id, MCP_EPROTO, x->status,
                   "the server's answer is %s, neither application/json "
                   "nor text/event-stream", x->content_type[0]
                   ? x->content_type : "without a Content-Type");
    else
      fail_request(t, x->request_id, MCP_EPROTO, x->status,
                   "the server ended the answer's stream without %s",
                   "an answer");
    return;
  }
  if (x->status == 0 && err != NULL &&
      (err->code == MCP_ECLOSED || err->code == MCP_ECONNECT)) {
    /* Sent, then the connection died: not sent again (send_once). Or
     * never sent, for want of a connection: the owner may try again. */
    fail_request(t, x->request_id, err->code, 0, "%s", err->msg);
    return;
  }
  if (x->status == 0) {
    /* No HTTP answer at all: reset, timed out. */
    fail_request(t, x->request_id, MCP_ECLOSED, 0, "cannot reach the server: %s",
                 err ? err->msg : "no answer");
    return;
  }
  status_message(x, msg, sizeof msg);
  if ((x->status == 404 && x->had_session) || unknown_session(x)) {
    /* The session is gone: forget it; the owner initializes anew. A late
     * answer about an older session must not forget the new one. */
    if (x->session_gen == t->session_gen) {
      free(t->session_id);
      t->session_id = NULL;
      t->session_gen++;
      t->listening = 0;
    }
    fail_request(t, x->request_id, MCP_ESESSION, x->status,
                 "the server's session expired (%s)", msg);
    return;
  }
  if (needs_authorization(x)) {
    t->decided = 1;
    fail_request_with(t, x, MCP_ENEEDSAUTH, msg);
    return;
  }
  if (x->request_id != 0) {
    char id_text[24];

    snprintf(id_text, sizeof id_text, "%llu",
             (unsigned long long) x->request_id);
    if (body_is_rpc_error(x, id_text)) {
      /* The server refused the request in JSON-RPC terms (-32022 for a
       * version it does not speak, say): that is its answer, and no
       * reason to try the legacy transport. */
      t->decided = 1;
      deliver(t, x->body.data, x->body.len);
      return;
    }
  }
  if (x->may_fall_back && !t->decided &&
      (x->status == 400 || x->status == 404 || x->status == 405)) {
    snprintf(t->fallback_why, sizeof t->fallback_why, "%s", msg);
    switch_to_legacy(t, x);
    return;
  }
  fail_request_with(t, x, MCP_EHTTP, msg);
  if (x->request_id == 0 && t->cb.on_log != NULL) {
    char line[360];

    snprintf(line, sizeof line, "a notification or response was refused: %s",
             msg);
    t->cb.on_log(t->ud, line, strlen(line));
  }
}

static void
listener_done(http_transport_t *t, xfer_t *x, const mcp_error_t *err)
{
  char msg[300];
  uint64_t delay;

  t->listener = NULL;
  uv_timer_stop(&t->listen_timer);
  if (t->closing || t->lost)
    return;
  if (x->status == 405) {
    t->listening = 0; /* the server offers no GET stream */
    return;
  }
  if ((x->status == 404 && x->had_session) || unknown_session(x)) {
    t->listening = 0; /* expired; the next POST says so too */
    return;
  }
  if (x->status >= 200 && x->status <= 299 && x->got_data) {
    t->failures = 0;
  } else {
    t->failures++;
    if (t->failures >= t->max_failures) {
      if (x->status != 0)
        status_message(x, msg, sizeof msg);
      else
        snprintf(msg, sizeof msg, "%s", err ? err->msg : "no answer");
      lose(t, "the server is unreachable: %s", msg);
      return;
    }
  }
  delay = t->retry_ms ? t->retry_ms : backoff_ms(t->failures + 1);
  uv_timer_start(&t->listen_timer, on_listen_timer, delay, 0);
}

static void
on_done(mcp_http_t *req, const mcp_error_t *err, void *ud)
{
  xfer_t *x = ud;
  http_transport_t *t = x->t;

  MCP_UNUSED(req);
  x->req = NULL;
  if (x->prev != NULL)
    x->prev->next = x->next;
  else
    t->xfers = x->next;
  if (x->next != NULL)
    x->next->prev = x->prev;
  if (err != NULL)
    snprintf(t->last_error, sizeof t->last_error, "%s", err->msg);

  if (!t->closing || x->kind == X_DELETE) {
    switch (x->kind) {
    case X_POST:
      if (!t->closing && !t->lost)
        post_done(t, x, err);
      break;
    case X_LISTEN:
      listener_done(t, x, err);
      break;
    case X_RESUME:
      if (!t->lost && x->request_id != 0 &&
          t->cb.is_pending(t->ud, x->request_id)) {
        if (x->status == 0 || x->status >= 400) {
          x->attempts++;
          if (x->last_id == NULL)
            fail_request(t, x->request_id, MCP_ECLOSED, x->status,
                         "cannot resume the answer's stream%s", "");
          else
            schedule_resume(t, x);
        } else if (x->last_id != NULL) {
          schedule_resume(t, x);
        }
      }
      break;
    case X_LEGACY:
      legacy_done(t, x, err);
      break;
    case X_DELETE:
      break;
    }
  }
  xfer_free(x);
  maybe_free(t);
}

/* ---- the vtable ------------------------------------------------------------------ */

static void
flush_queue(http_transport_t *t)
{
  mcp_error_t err;
  queued_t *q;
  xfer_t *x;

  while ((q = t->queue) != NULL) {
    t->queue = q->next;
    if (t->queue == NULL)
      t->queue_tail = &t->queue;
    x = start(t, X_POST, t->post_url, q->text, q->len, q->request_id, NULL,
              &err);
    if (x == NULL)
      fail_request(t, q->request_id, err.code, 0, "%s", err.msg);
    free(q->text);
    free(q);
  }
}

/* Whether a message (our own) is notifications/cancelled. */
static int
is_cancellation(const char *text, size_t len)
{
  static const char method[] = "\"notifications/cancelled\"";
  mcp_json_member_t m[8];
  const mcp_json_member_t *v;
  size_t n;

  return mcp_json_members(text, len, 16, m, 8, &n) == 0 &&
         (v = mcp_json_member(m, n, "method")) != NULL &&
         v->value_len == sizeof method - 1 &&
         memcmp(v->value, method, sizeof method - 1) == 0;
}

static int
http_send(mcp_transport_t *base, const char *text, size_t len,
          uint64_t request_id, mcp_error_t *err)
{
  http_transport_t *t = (http_transport_t *) base;
  xfer_t *x;

  if (t->lost || t->closing)
    return mcp_error_set(err, MCP_ECLOSED, "connection closed");
  /* In the stateless era closing a request's stream is its cancellation
   * (cancel_request did it): notifications/cancelled is not sent over
   * HTTP (H11). */
  if (t->stateless && request_id == 0 && is_cancellation(text, len))
    return 0;
  if (t->legacy && t->post_url == t->url) {
    /* Legacy, and the endpoint event has not come yet. */
    queued_t *q = calloc(1, sizeof *q);

    if (q == NULL || (q->text = malloc(len)) == NULL) {
      free(q);
      return mcp_error_set(err, MCP_ENOMEM, NULL);
    }
    memcpy(q->text, text, len);
    q->len = len;
    q->request_id = request_id;
    *t->queue_tail = q;
    t->queue_tail = &q->next;
    return 0;
  }
  x = start(t, X_POST, t->post_url, text, len, request_id, NULL, err);
  if (x == NULL)
    return err->code;
  if (t->mode == MCP_HTTP_AUTO && !t->decided && !t->legacy &&
      t->session_id == NULL && !t->stateless) {
    x->may_fall_back = 1;
    x->text = malloc(len);
    if (x->text != NULL) {
      memcpy(x->text, text, len);
      x->text_len = len;
    }
  }
  return 0;
}

static void
http_initialized(mcp_transport_t *base, const char *version)
{
  http_transport_t *t = (http_transport_t *) base;

  snprintf(t->version, sizeof t->version, "%s", version);
  if (!t->legacy) {
    t->listening = 1;
    t->failures = 0;
    start_listener(t);
  }
}

static void
http_cancel_request(mcp_transport_t *base, uint64_t id)
{
  http_transport_t *t = (http_transport_t *) base;
  resume_t *r, *next;
  xfer_t *x;

  for (x = t->xfers; x != NULL; x = x->next) {
    if (x->request_id == id && (x->kind == X_POST || x->kind == X_RESUME)) {
      x->request_id = 0; /* done with it: no failure report */
      mcp_http_cancel(x->req);
    }
  }
  for (r = t->resumes; r != NULL; r = next) {
    next = r->next;
    if (r->request_id == id)
      resume_drop(r);
  }
}

static void
on_listen_timer_closed(uv_handle_t *h)
{
  http_transport_t *t = h->data;

  t->handles--;
  maybe_free(t);
}

static void
maybe_free(http_transport_t *t)
{
  queued_t *q;
  size_t i;

  if (!t->closing || t->xfers != NULL || t->handles > 0)
    return;
  while ((q = t->queue) != NULL) {
    t->queue = q->next;
    free(q->text);
    free(q);
  }
  for (i = 0; i < t->nheaders; i++)
    free(t->headers[i]);
  free(t->headers);
  if (t->authorization != NULL)
    memset(t->authorization, 0, strlen(t->authorization));
  free(t->authorization);
  mcp_routing_free(t->routing);
  free(t->listen_last_id);
  free(t->session_id);
  if (t->post_url != t->url)
    free(t->post_url);
  free(t->url);
  free(t->ca_file);
  free(t->ca_path);
  free(t->cert);
  free(t->key);
  if (t->cb.on_closed != NULL)
    t->cb.on_closed(t->ud);
  free(t);
}

static void
http_close(mcp_transport_t *base)
{
  http_transport_t *t = (http_transport_t *) base;
  mcp_error_t err;
  xfer_t *x;

  if (t->closing)
    return;
  t->closing = 1;
  for (x = t->xfers; x != NULL; x = x->next)
    mcp_http_cancel(x->req);
  while (t->resumes != NULL)
    resume_drop(t->resumes);
  uv_timer_stop(&t->listen_timer);
  uv_close((uv_handle_t *) &t->listen_timer, on_listen_timer_closed);
  /* A session we end ourselves: say so (405 means "not allowed": fine). */
  if (t->session_id != NULL && !t->legacy && !t->lost)
    start(t, X_DELETE, t->url, NULL, 0, 0, NULL, &err);
  maybe_free(t);
}

static size_t
http_diagnostics(const mcp_transport_t *base, char *out, size_t cap)
{
  const http_transport_t *t = (const http_transport_t *) base;

  if (cap == 0)
    return 0;
  snprintf(out, cap, "%s", t->last_error);
  return strlen(out);
}

/* The stateless era at version, or back to the handshake era's ways. */
static void
http_set_era(mcp_transport_t *base, const char *version)
{
  http_transport_t *t = (http_transport_t *) base;

  t->stateless = version != NULL;
  snprintf(t->version, sizeof t->version, "%s", version ? version : "");
  if (t->stateless) {
    free(t->session_id);
    t->session_id = NULL;
    t->session_gen++;
  }
}

static const mcp_transport_vt_t http_vt = {
  http_send,
  http_close,
  http_diagnostics,
  http_initialized,
  http_cancel_request,
  http_set_era,
};

int
mcp_transport_http_set_headers(mcp_transport_t *base,
                               const char *const *headers, size_t n)
{
  http_transport_t *t = (http_transport_t *) base;
  char **copy = calloc(n + 1, sizeof *copy);
  size_t i;

  if (copy == NULL)
    return MCP_ENOMEM;
  for (i = 0; i < n; i++) {
    copy[i] = strdup(headers[i]);
    if (copy[i] == NULL) {
      while (i-- > 0)
        free(copy[i]);
      free(copy);
      return MCP_ENOMEM;
    }
  }
  for (i = 0; i < t->nheaders; i++)
    free(t->headers[i]);
  free(t->headers);
  t->headers = copy;
  t->nheaders = n;
  return 0;
}

int
mcp_transport_http_set_authorization(mcp_transport_t *base, const char *line)
{
  http_transport_t *t = (http_transport_t *) base;
  char *copy = NULL;

  if (line != NULL && (copy = strdup(line)) == NULL)
    return MCP_ENOMEM;
  if (t->authorization != NULL)
    memset(t->authorization, 0, strlen(t->authorization));
  free(t->authorization);
  t->authorization = copy;
  return 0;
}

int
mcp_transport_http_declare_params(mcp_transport_t *base, const char *tool,
                                  const char *decl, mcp_error_t *err)
{
  http_transport_t *t = (http_transport_t *) base;

  if (t->routing == NULL && (t->routing = mcp_routing_new()) == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  return mcp_routing_declare(t->routing, tool, decl, err);
}

void
mcp_transport_http_set_proof(mcp_transport_t *base, mcp_http_proof_cb proof,
                             void (*on_nonce)(void *ud, const char *nonce),
                             void *ud)
{
  http_transport_t *t = (http_transport_t *) base;

  t->proof = proof;
  t->on_nonce = on_nonce;
  t->proof_ud = ud;
}

void
mcp_transport_http_reset_session(mcp_transport_t *base)
{
  http_transport_t *t = (http_transport_t *) base;

  free(t->session_id);
  t->session_id = NULL;
  t->session_gen++;
  t->version[0] = '\0';
  t->listening = 0;
  if (t->listener != NULL)
    mcp_http_cancel(t->listener->req);
}

const char *
mcp_transport_http_kind(const mcp_transport_t *base)
{
  const http_transport_t *t = (const http_transport_t *) base;

  if (t->legacy)
    return "sse";
  if (t->decided || t->mode == MCP_HTTP_STREAMABLE)
    return "streamable-http";
  return NULL;
}

int
mcp_transport_http_new(uv_loop_t *loop, mcp_curl_uv_t *cu,
                       const mcp_http_transport_opts_t *opts,
                       const mcp_transport_cb_t *cb, void *ud,
                       mcp_transport_t **out, mcp_error_t *err)
{
  http_transport_t *t;
  mcp_error_t e;

  if (opts->url == NULL)
    return mcp_error_set(err, MCP_EINVAL, "not an http(s) URL: (none)");
  if (mcp_http_check_url(opts->url, err) != 0)
    return err ? err->code : MCP_EINVAL;
  t = calloc(1, sizeof *t);
  if (t == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  t->base.vt = &http_vt;
  t->loop = loop;
  t->cu = cu;
  t->cb = *cb;
  t->ud = ud;
  t->url = strdup(opts->url);
  t->post_url = t->url;
  t->mode = opts->mode;
  t->legacy = opts->mode == MCP_HTTP_SSE;
  t->queue_tail = &t->queue;
  t->max_message = opts->max_message ? opts->max_message
                                     : MCP_DEFAULT_MAX_MESSAGE;
  t->connect_timeout_ms = opts->connect_timeout_ms;
  t->idle_ms = opts->idle_timeout_ms ? opts->idle_timeout_ms : DEFAULT_IDLE_MS;
  t->max_failures = opts->max_failures ? opts->max_failures : DEFAULT_FAILURES;
  t->ca_file = dup_or_null(opts->ca_file);
  t->ca_path = dup_or_null(opts->ca_path);
  t->cert = dup_or_null(opts->cert);
  t->key = dup_or_null(opts->key);
  t->insecure = opts->insecure;
  t->trace = opts->trace;
  t->trace_ud = opts->trace_ud;
  if (t->url == NULL ||
      mcp_transport_http_set_headers(&t->base, opts->headers,
                                     opts->nheaders) != 0) {
    free(t->url);
    free(t);
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  }
  uv_timer_init(loop, &t->listen_timer);
  t->listen_timer.data = t;
  t->handles = 1;
  if (t->legacy && start(t, X_LEGACY, t->url, NULL, 0, 0, NULL, &e) == NULL) {
    t->cb.on_closed = NULL; /* a failed start reports nothing */
    t->closing = 1;
    uv_close((uv_handle_t *) &t->listen_timer, on_listen_timer_closed);
    return mcp_error_set(err, e.code, "%s", e.msg);
  }
  *out = &t->base;
  return 0;
}
