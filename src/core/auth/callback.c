/*
 * callback.c - the loopback redirect server (see callback.h).
 */
#include "auth/callback.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define HEAD_MAX 8192
#define MAX_CONNS 8
#define DEADLINE_MS 10000

typedef struct conn_s {
  mcp_auth_callback_t *owner;
  uv_tcp_t tcp;
  uv_timer_t timer;
  uv_write_t write;
  char head[HEAD_MAX];
  size_t len;
  char *response;
  struct conn_s *next;
  int handles;                 /* of tcp and timer, open */
  unsigned answering : 1;      /* a response is being written */
  unsigned closing : 1;
} conn_t;

struct mcp_auth_callback_s {
  uv_loop_t *loop;
  uv_tcp_t server;
  mcp_auth_callback_fn fn;
  void *ud;
  char *path;
  conn_t *conns;
  int nconns;
  int port;
  uint64_t deadline_ms;
  unsigned listening : 1;      /* server handle open */
  unsigned done : 1;           /* the owner has its answer */
  unsigned closing : 1;        /* the owner let go */
};

static void
maybe_free(mcp_auth_callback_t *cb)
{
  if (cb->closing && !cb->listening && cb->conns == NULL) {
    free(cb->path);
    free(cb);
  }
}

static void
conn_closed(uv_handle_t *h)
{
  conn_t *c = h->data, **p;
  mcp_auth_callback_t *cb = c->owner;

  if (--c->handles > 0)
    return;
  for (p = &cb->conns; *p != NULL; p = &(*p)->next) {
    if (*p == c) {
      *p = c->next;
      break;
    }
  }
  cb->nconns--;
  free(c->response);
  free(c);
  maybe_free(cb);
}

static void
conn_close(conn_t *c)
{
  if (c->closing)
    return;
  c->closing = 1;
  uv_close((uv_handle_t *) &c->tcp, conn_closed);
  uv_close((uv_handle_t *) &c->timer, conn_closed);
}

static void
server_closed(uv_handle_t *h)
{
  mcp_auth_callback_t *cb = h->data;

  cb->listening = 0;
  maybe_free(cb);
}

static void
stop_listening(mcp_auth_callback_t *cb)
{
  if (cb->listening && !uv_is_closing((uv_handle_t *) &cb->server))
    uv_close((uv_handle_t *) &cb->server, server_closed);
}

char *
mcp_auth_html_escape(const char *text)
{
  size_t n = 1;
  const unsigned char *s;
  char *out, *o;

  for (s = (const unsigned char *) text; *s; s++)
    n += (*s == '&' || *s == '<' || *s == '>' || *s == '"' || *s == '\'' ||
          *s < 0x20 || *s == 0x7f) ? 6 : 1;
  out = malloc(n);
  if (out == NULL)
    return NULL;
  o = out;
  for (s = (const unsigned char *) text; *s; s++) {
    if (*s == '&' || *s == '<' || *s == '>' || *s == '"' || *s == '\'' ||
        *s < 0x20 || *s == 0x7f)
      o += sprintf(o, "&#%u;", (unsigned) *s);
    else
      *o++ = (char) *s;
  }
  *o = '\0';
  return out;
}

static void
written(uv_write_t *w, int status)
{
  conn_t *c = w->data;

  MCP_UNUSED(status);
  c->answering = 0;
  conn_close(c);
}

static void
respond(conn_t *c, const char *status, const char *text)
{
  static const char fmt[] =
    "HTTP/1.1 %s\r\n"
    "Content-Type: text/html; charset=utf-8\r\n"
    "Cache-Control: no-store\r\n"
    "Connection: close\r\n"
    "Content-Length: %zu\r\n\r\n%s";
  static const char page[] =
    "<!doctype html><html><head><meta charset=\"utf-8\">"
    "<title>luamcp</title></head><body><p>%s</p></body></html>\n";
  char *escaped = mcp_auth_html_escape(text), *body;
  size_t n;
  uv_buf_t buf;

  uv_read_stop((uv_stream_t *) &c->tcp);
  uv_timer_stop(&c->timer);
  if (escaped == NULL) {
    conn_close(c);
    return;
  }
  n = sizeof page + strlen(escaped);
  body = malloc(n);
  c->response = body != NULL ? malloc(n + sizeof fmt + 64) : NULL;
  if (c->response == NULL) {
    free(escaped);
    free(body);
    conn_close(c);
    return;
  }
  snprintf(body, n, page, escaped);
  sprintf(c->response, fmt, status, strlen(body), body);
  free(escaped);
  free(body);
  buf = uv_buf_init(c->response, (unsigned) strlen(c->response));
  c->write.data = c;
  c->answering = 1;
  if (uv_write(&c->write, (uv_stream_t *) &c->tcp, &buf, 1, written) != 0) {
    c->answering = 0;
    conn_close(c);
  }
}

/* The head is complete: "GET /path?query HTTP/1.1". */
static void
dispatch(conn_t *c)
{
  mcp_auth_callback_t *cb = c->owner;
  char *sp1, *sp2, *q, *target;
  const char *text;
  int done = 0;

  sp1 = memchr(c->head, ' ', c->len);
  sp2 = sp1 != NULL ? memchr(sp1 + 1, ' ', (size_t) (c->head + c->len -
                                                    sp1 - 1)) : NULL;
  if (sp1 == NULL || sp2 == NULL) {
    respond(c, "400 Bad Request", "Bad request.");
    return;
  }
  if (sp1 - c->head != 3 || memcmp(c->head, "GET", 3) != 0) {
    respond(c, "405 Method Not Allowed", "Method not allowed.");
    return;
  }
  *sp2 = '\0';
  target = sp1 + 1;
  q = strchr(target, '?');
  if (q != NULL)
    *q++ = '\0';
  if (strcmp(target, cb->path) != 0 || cb->done || cb->closing) {
    respond(c, "404 Not Found", "Not found.");
    return;
  }
  c->answering = 1;             /* a close from inside fn spares c */
  text = cb->fn(cb->ud, q != NULL ? q : "", &done);
  /* fn may have closed cb: only c (answering) is used from here. */
  if (done && !cb->closing) {
    cb->done = 1;
    stop_listening(cb);
  }
  respond(c, "200 OK", text != NULL ? text : "");
}

static void
alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
  conn_t *c = h->data;

  MCP_UNUSED(suggested);
  *buf = uv_buf_init(c->head + c->len, (unsigned) (HEAD_MAX - 1 - c->len));
}

static void
on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
  conn_t *c = s->data;

  MCP_UNUSED(buf);
  if (n < 0) {
    conn_close(c);
    return;
  }
  c->len += (size_t) n;
  c->head[c->len] = '\0';
  if (strstr(c->head, "\r\n\r\n") != NULL || strstr(c->head, "\n\n"))
    dispatch(c);
  else if (c->len >= HEAD_MAX - 1)
    respond(c, "431 Request Header Fields Too Large", "Request too large.");
}

static void
too_slow(uv_timer_t *t)
{
  conn_close(t->data);
}

static void
on_connection(uv_stream_t *server, int status)
{
  mcp_auth_callback_t *cb = server->data;
  conn_t *c;

  if (status != 0)
    return;
  c = calloc(1, sizeof *c);
  if (c == NULL)
    return;
  c->owner = cb;
  uv_tcp_init(cb->loop, &c->tcp);
  uv_timer_init(cb->loop, &c->timer);
  c->tcp.data = c->timer.data = c;
  c->handles = 2;
  c->next = cb->conns;
  cb->conns = c;
  cb->nconns++;
  if (uv_accept(server, (uv_stream_t *) &c->tcp) != 0 || cb->done ||
      cb->closing || cb->nconns > MAX_CONNS) {
    conn_close(c);
    return;
  }
  uv_timer_start(&c->timer, too_slow, cb->deadline_ms, 0);
  uv_read_start((uv_stream_t *) &c->tcp, alloc_cb, on_read);
}

int
mcp_auth_callback_start(uv_loop_t *loop, const char *host, int port,
                        const char *path, mcp_auth_callback_fn fn, void *ud,
                        mcp_auth_callback_t **out, mcp_error_t *err)
{
  struct sockaddr_storage addr;
  int len = sizeof addr, rc;
  mcp_auth_callback_t *cb = calloc(1, sizeof *cb);

  if (cb == NULL || (cb->path = strdup(path)) == NULL) {
    free(cb);
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  }
  cb->loop = loop;
  cb->fn = fn;
  cb->ud = ud;
  cb->deadline_ms = DEADLINE_MS;
  if (uv_ip4_addr(host, port, (struct sockaddr_in *) &addr) != 0 &&
      uv_ip6_addr(host, port, (struct sockaddr_in6 *) &addr) != 0) {
    free(cb->path);
    free(cb);
    return mcp_error_set(err, MCP_EINVAL, "%.60s is not an address", host);
  }
  uv_tcp_init(loop, &cb->server);
  cb->server.data = cb;
  cb->listening = 1;
  rc = uv_tcp_bind(&cb->server, (struct sockaddr *) &addr, 0);
  if (rc == 0)
    rc = uv_listen((uv_stream_t *) &cb->server, MAX_CONNS, on_connection);
  if (rc == 0)
    rc = uv_tcp_getsockname(&cb->server, (struct sockaddr *) &addr, &len);
  if (rc != 0) {
    cb->closing = 1;
    stop_listening(cb);
    return mcp_error_set(err, MCP_EIO, "cannot listen on %.60s port %d for "
                         "the authorization redirect: %s", host, port,
                         uv_strerror(rc));
  }
  cb->port = ntohs(addr.ss_family == AF_INET
                   ? ((struct sockaddr_in *) &addr)->sin_port
                   : ((struct sockaddr_in6 *) &addr)->sin6_port);
  *out = cb;
  return 0;
}

int
mcp_auth_callback_port(const mcp_auth_callback_t *cb)
{
  return cb->port;
}

void
mcp_auth_callback_set_deadline(mcp_auth_callback_t *cb, uint64_t ms)
{
  cb->deadline_ms = ms;
}

void
mcp_auth_callback_close(mcp_auth_callback_t *cb)
{
  conn_t *c, *next;

  if (cb == NULL || cb->closing)
    return;
  cb->closing = 1;
  stop_listening(cb);
  for (c = cb->conns; c != NULL; c = next) {
    next = c->next;
    if (!c->answering)
      conn_close(c);
  }
  maybe_free(cb);
}
