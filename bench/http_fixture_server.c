/*
 * http_fixture_server.c - a fast Streamable HTTP MCP server, for the
 * benchmark.
 *
 * It exists so that the benchmark measures the client, not the server: a
 * single-threaded libuv loop, a minimal HTTP/1.1 server with keep-alive
 * and pipelining (request line, headers, Content-Length body; chunked
 * request bodies are refused with 411). Every answer to the requests of
 * one read is appended to the connection's output buffer and sent with
 * one write (uv_try_write first; uv_write for what the socket did not
 * take). Each connection owns its buffers, which grow only when a message
 * is bigger than any seen before; the only per-request allocations are
 * cJSON's own (the parsed request and the small echo result tree).
 *
 * Endpoint /mcp (any other path: 404):
 *   POST   JSON-RPC. initialize -> result with an Mcp-Session-Id header
 *          ("bench-<n>"); other requests need that header (else 400);
 *          notifications and responses -> 202; ping; tools/list (one page
 *          of --tools N tools: echo, tool-1 .. tool-(N-1), printed once at
 *          startup); tools/call (every tool echoes arguments.message as one
 *          text item); other methods -> -32601. Answers are
 *          application/json with Content-Length, or with --sse
 *          text/event-stream: one "event: message" event, sent with chunked
 *          transfer encoding so that the connection stays alive.
 *   GET    405 (no listener stream; the client must not insist).
 *   DELETE 200 (the session ends; nothing is kept per session anyway).
 *
 * Binds 127.0.0.1 on --port (0, the default: the kernel picks one) and
 * prints "READY <port>" on stdout. Runs until killed.
 *
 * Usage: http_fixture_server [--port P] [--tools N] [--sse]
 */
#define _GNU_SOURCE             /* memmem */
#include <cjson/cJSON.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <uv.h>

#include "fixture_mcp.h"

#define HFX_CHUNK (64 * 1024)
#define HFX_MAX_HEAD (64 * 1024)        /* bigger request heads: 431 */

typedef struct hfx_conn_s
{
  uv_tcp_t tcp;                 /* first: the handle is the connection */
  uv_write_t wreq;
  fx_buf_t in;                 /* bytes read, not yet handled */
  fx_buf_t out;                /* answers not yet handed to the socket */
  fx_buf_t wbuf;               /* the bytes of the write in flight */
  int writing;                  /* a uv_write is in flight (from wbuf) */
  int close_after;              /* close once out and wbuf are sent */
  int closing;                  /* uv_close called */
} hfx_conn_t;

/* One parsed request head; pointers into the connection's input. */
typedef struct hfx_req_s
{
  const char *method;
  size_t method_len;
  const char *path;
  size_t path_len;
  const char *session;          /* Mcp-Session-Id, or NULL */
  size_t session_len;
  size_t content_length;
  int chunked;
  int close;                    /* Connection: close, or HTTP/1.0 */
} hfx_req_t;

static int hfx_sse;             /* --sse: answer as text/event-stream */
static unsigned long hfx_next_session = 1;
static fx_buf_t hfx_body;      /* scratch: the JSON body being built */

/* ---- buffers ------------------------------------------------------------ */

/* Decimal or hex size_t, appended. */
static void
hfx_buf_add_size(fx_buf_t *b, size_t v, int hex)
{
  char tmp[32];
  int n = snprintf(tmp, sizeof tmp, hex ? "%zx" : "%zu", v);

  fx_buf_add(b, tmp, (size_t) n);
}

/* ---- HTTP answers -------------------------------------------------------- */

/* An answer with no body (202, 405, 200 to DELETE...). */
static void
hfx_empty(hfx_conn_t *c, const char *status_line, const char *extra)
{
  fx_buf_add(&c->out, status_line, strlen(status_line));
  if (extra != NULL)
    fx_buf_add(&c->out, extra, strlen(extra));
  if (c->close_after)
    FX_ADD_LIT(&c->out, "Connection: close\r\n");
  FX_ADD_LIT(&c->out, "Content-Length: 0\r\n\r\n");
}

/* hfx_body as one JSON-RPC message: application/json, or (--sse, status
 * 200) one SSE event in one chunk. session: an Mcp-Session-Id to send. */
static void
hfx_message(hfx_conn_t *c, const char *status_line, const char *session)
{
  fx_buf_t *o = &c->out;

  fx_buf_reserve(o, hfx_body.len + 256);
  fx_buf_add(o, status_line, strlen(status_line));
  if (session != NULL)
  {
    FX_ADD_LIT(o, "Mcp-Session-Id: ");
    fx_buf_add(o, session, strlen(session));
    FX_ADD_LIT(o, "\r\n");
  }
  if (c->close_after)
    FX_ADD_LIT(o, "Connection: close\r\n");
  if (hfx_sse && status_line[9] == '2')
  {
    static const char pre[] = "event: message\ndata: ";

    FX_ADD_LIT(o, "Content-Type: text/event-stream\r\n"
      "Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n");
    hfx_buf_add_size(o, sizeof pre - 1 + hfx_body.len + 2, 1);
    FX_ADD_LIT(o, "\r\n");
    FX_ADD_LIT(o, pre);
    fx_buf_add(o, hfx_body.data, hfx_body.len);
    FX_ADD_LIT(o, "\n\n\r\n0\r\n\r\n");
  }
  else
  {
    FX_ADD_LIT(o, "Content-Type: application/json\r\nContent-Length: ");
    hfx_buf_add_size(o, hfx_body.len, 0);
    FX_ADD_LIT(o, "\r\n\r\n");
    fx_buf_add(o, hfx_body.data, hfx_body.len);
  }
}

#define HFX_200 "HTTP/1.1 200 OK\r\n"
#define HFX_202 "HTTP/1.1 202 Accepted\r\n"
#define HFX_400 "HTTP/1.1 400 Bad Request\r\n"
#define HFX_404 "HTTP/1.1 404 Not Found\r\n"
#define HFX_405 "HTTP/1.1 405 Method Not Allowed\r\n"
#define HFX_411 "HTTP/1.1 411 Length Required\r\n"
#define HFX_431 "HTTP/1.1 431 Request Header Fields Too Large\r\n"

static void
hfx_post(hfx_conn_t *c, const hfx_req_t *r, const char *body, size_t len)
{
  cJSON *msg = cJSON_ParseWithLength(body, len);
  cJSON *id;
  cJSON *method;
  const char *m;
  char session[32];

  hfx_body.len = 0;
  if (msg == NULL || !cJSON_IsObject(msg))
  {
    fx_answer_error(&hfx_body, NULL, -32700,
      "Parse error (one JSON object expected)");
    hfx_message(c, HFX_400, NULL);
    cJSON_Delete(msg);
    return;
  }
  id = cJSON_GetObjectItemCaseSensitive(msg, "id");
  method = cJSON_GetObjectItemCaseSensitive(msg, "method");
  m = cJSON_IsString(method) ? method->valuestring : NULL;
  session[0] = '\0';
  if (m != NULL && id != NULL && strcmp(m, "initialize") == 0)
    snprintf(session, sizeof session, "bench-%lu", hfx_next_session++);
  if (session[0] == '\0' && r->session == NULL)
  {
    fx_answer_error(&hfx_body, id, -32000,
      "Bad Request: no Mcp-Session-Id header");
    hfx_message(c, HFX_400, NULL);
  }
  else if (id == NULL || m == NULL)
  {
    hfx_empty(c, HFX_202, NULL);      /* a notification or a response */
  }
  else
  {
    fx_answer(&hfx_body, id, m, cJSON_GetObjectItemCaseSensitive(msg, "params"),
      "luamcp-bench-http-fixture");
    hfx_message(c, HFX_200, session[0] ? session : NULL);
  }
  cJSON_Delete(msg);
}

/* ---- HTTP requests ------------------------------------------------------- */

static int
hfx_eq(const char *s, size_t n, const char *lit)
{
  return strlen(lit) == n && strncasecmp(s, lit, n) == 0;
}

/* Parses the head in [p, end) (end at the blank line). 0, or -1 when it
 * is malformed. */
static int
hfx_parse_head(const char *p, const char *end, hfx_req_t *r)
{
  const char *eol = memchr(p, '\n', (size_t) (end - p));
  const char *sp;

  memset(r, 0, sizeof *r);
  if (eol == NULL)
    eol = end;
  /* METHOD SP PATH SP VERSION */
  sp = memchr(p, ' ', (size_t) (eol - p));
  if (sp == NULL)
    return -1;
  r->method = p;
  r->method_len = (size_t) (sp - p);
  r->path = sp + 1;
  sp = memchr(r->path, ' ', (size_t) (eol - r->path));
  if (sp == NULL)
    return -1;
  r->path_len = (size_t) (sp - r->path);
  if ((size_t) (eol - sp) >= 9 && memcmp(sp + 1, "HTTP/1.0", 8) == 0)
    r->close = 1;
  p = eol + 1;
  while (p < end)
  {
    const char *colon;
    const char *v;
    const char *ve;

    eol = memchr(p, '\n', (size_t) (end - p));
    if (eol == NULL)
      eol = end;
    colon = memchr(p, ':', (size_t) (eol - p));
    if (colon != NULL)
    {
      v = colon + 1;
      ve = eol;
      while (v < ve && (*v == ' ' || *v == '\t'))
        v++;
      while (ve > v && (ve[-1] == '\r' || ve[-1] == ' ' || ve[-1] == '\t'))
        ve--;
      if (hfx_eq(p, (size_t) (colon - p), "content-length"))
        r->content_length = (size_t) strtoull(v, NULL, 10);
      else if (hfx_eq(p, (size_t) (colon - p), "mcp-session-id"))
      {
        r->session = v;
        r->session_len = (size_t) (ve - v);
      }
      else if (hfx_eq(p, (size_t) (colon - p), "connection"))
      {
        if (hfx_eq(v, (size_t) (ve - v), "close"))
          r->close = 1;
        else if (hfx_eq(v, (size_t) (ve - v), "keep-alive"))
          r->close = 0;
      }
      else if (hfx_eq(p, (size_t) (colon - p), "transfer-encoding"))
        r->chunked = !hfx_eq(v, (size_t) (ve - v), "identity");
    }
    p = eol + 1;
  }
  return 0;
}

/* Handles every complete request in c->in; returns the bytes consumed. */
static size_t
hfx_handle_input(hfx_conn_t *c)
{
  size_t off = 0;

  while (!c->close_after && off < c->in.len)
  {
    const char *start = c->in.data + off;
    size_t avail = c->in.len - off;
    const char *head_end = memmem(start, avail, "\r\n\r\n", 4);
    size_t head_len;
    hfx_req_t r;

    if (head_end == NULL)
    {
      if (avail > HFX_MAX_HEAD)
      {
        c->close_after = 1;
        hfx_empty(c, HFX_431, NULL);
      }
      break;
    }
    head_len = (size_t) (head_end - start) + 4;
    if (hfx_parse_head(start, head_end, &r) != 0)
    {
      c->close_after = 1;
      hfx_empty(c, HFX_400, NULL);
      break;
    }
    if (r.chunked)
    {
      c->close_after = 1;
      hfx_empty(c, HFX_411, NULL);
      break;
    }
    if (avail - head_len < r.content_length)
    {
      /* Wait for the body; make room for it at once. */
      if (off == 0)
        fx_buf_reserve(&c->in, head_len + r.content_length - avail);
      break;
    }
    c->close_after = r.close;
    if (r.path_len < 4 || memcmp(r.path, "/mcp", 4) != 0
        || (r.path_len > 4 && r.path[4] != '?'))
      hfx_empty(c, HFX_404, NULL);
    else if (hfx_eq(r.method, r.method_len, "POST"))
      hfx_post(c, &r, start + head_len, r.content_length);
    else if (hfx_eq(r.method, r.method_len, "GET"))
      hfx_empty(c, HFX_405, "Allow: POST, DELETE\r\n");
    else if (hfx_eq(r.method, r.method_len, "DELETE"))
      hfx_empty(c, HFX_200, NULL);
    else
      hfx_empty(c, HFX_405, "Allow: POST, GET, DELETE\r\n");
    off += head_len + r.content_length;
  }
  return off;
}

/* ---- connections --------------------------------------------------------- */

static void
hfx_on_closed(uv_handle_t *h)
{
  hfx_conn_t *c = (hfx_conn_t *) h;

  free(c->in.data);
  free(c->out.data);
  free(c->wbuf.data);
  free(c);
}

static void
hfx_close(hfx_conn_t *c)
{
  if (c->closing)
    return;
  c->closing = 1;
  uv_read_stop((uv_stream_t *) &c->tcp);
  uv_close((uv_handle_t *) &c->tcp, hfx_on_closed);
}

static void hfx_flush(hfx_conn_t *c);

static void
hfx_on_written(uv_write_t *w, int status)
{
  hfx_conn_t *c = (hfx_conn_t *) w->data;

  c->writing = 0;
  c->wbuf.len = 0;
  if (status < 0)
  {
    hfx_close(c);
    return;
  }
  hfx_flush(c);
}

/* Sends c->out: one try_write, then one uv_write for the rest. */
static void
hfx_flush(hfx_conn_t *c)
{
  fx_buf_t tmp;
  uv_buf_t b;
  int n;

  if (c->closing || c->writing)
    return;
  if (c->out.len == 0)
  {
    if (c->close_after)
      hfx_close(c);
    return;
  }
  b = uv_buf_init(c->out.data, (unsigned int) c->out.len);
  n = uv_try_write((uv_stream_t *) &c->tcp, &b, 1);
  if (n == (int) c->out.len)
  {
    c->out.len = 0;
    if (c->close_after)
      hfx_close(c);
    return;
  }
  if (n < 0 && n != UV_EAGAIN)
  {
    hfx_close(c);
    return;
  }
  if (n < 0)
    n = 0;
  /* The rest goes from wbuf; out starts empty for the next answers. */
  tmp = c->wbuf;
  c->wbuf = c->out;
  c->out = tmp;
  c->out.len = 0;
  c->writing = 1;
  c->wreq.data = c;
  b = uv_buf_init(c->wbuf.data + n, (unsigned int) (c->wbuf.len - (size_t) n));
  if (uv_write(&c->wreq, (uv_stream_t *) &c->tcp, &b, 1, hfx_on_written) != 0)
    hfx_close(c);
}

static void
hfx_on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
  hfx_conn_t *c = (hfx_conn_t *) h;

  (void) suggested;
  fx_buf_reserve(&c->in, HFX_CHUNK / 2);
  *buf = uv_buf_init(c->in.data + c->in.len,
    (unsigned int) (c->in.cap - c->in.len));
}

static void
hfx_on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
  hfx_conn_t *c = (hfx_conn_t *) s;
  size_t used;

  (void) buf;
  if (n < 0)
  {
    hfx_close(c);
    return;
  }
  if (n == 0 || c->closing)
    return;
  c->in.len += (size_t) n;
  used = hfx_handle_input(c);
  if (used > 0)
  {
    memmove(c->in.data, c->in.data + used, c->in.len - used);
    c->in.len -= used;
  }
  if (c->close_after)
    uv_read_stop(s);
  hfx_flush(c);
}

static void
hfx_on_connection(uv_stream_t *server, int status)
{
  hfx_conn_t *c;

  if (status < 0)
    return;
  c = calloc(1, sizeof *c);
  if (c == NULL)
    fx_die("out of memory");
  uv_tcp_init(server->loop, &c->tcp);
  if (uv_accept(server, (uv_stream_t *) &c->tcp) != 0)
  {
    uv_close((uv_handle_t *) &c->tcp, hfx_on_closed);
    return;
  }
  uv_tcp_nodelay(&c->tcp, 1);
  fx_buf_reserve(&c->in, HFX_CHUNK);
  fx_buf_reserve(&c->out, HFX_CHUNK);
  uv_read_start((uv_stream_t *) &c->tcp, hfx_on_alloc, hfx_on_read);
}

int
main(int argc, char **argv)
{
  uv_loop_t *loop = uv_default_loop();
  uv_tcp_t server;
  struct sockaddr_in addr;
  struct sockaddr_storage bound;
  int namelen = sizeof bound;
  int port = 0;
  int ntools = 1;
  int i;
  int rc;

  for (i = 1; i < argc; i++)
  {
    if (strcmp(argv[i], "--port") == 0 && i + 1 < argc)
      port = atoi(argv[++i]);
    else if (strcmp(argv[i], "--tools") == 0 && i + 1 < argc)
      ntools = atoi(argv[++i]);
    else if (strcmp(argv[i], "--sse") == 0)
      hfx_sse = 1;
    else
    {
      fprintf(stderr, "usage: http_fixture_server [--port P] [--tools N] "
        "[--sse]\n");
      return 2;
    }
  }
  if (ntools < 1)
    ntools = 1;
  signal(SIGPIPE, SIG_IGN);
  fx_program = "http_fixture_server";
  fx_build_tools(ntools);
  fx_buf_reserve(&hfx_body, HFX_CHUNK);

  uv_tcp_init(loop, &server);
  uv_ip4_addr("127.0.0.1", port, &addr);
  rc = uv_tcp_bind(&server, (const struct sockaddr *) &addr, 0);
  if (rc == 0)
    rc = uv_listen((uv_stream_t *) &server, 1024, hfx_on_connection);
  if (rc != 0)
  {
    fprintf(stderr, "http_fixture_server: cannot listen on 127.0.0.1:%d: %s\n",
      port, uv_strerror(rc));
    return 2;
  }
  uv_tcp_getsockname(&server, (struct sockaddr *) &bound, &namelen);
  printf("READY %d\n", ntohs(((struct sockaddr_in *) &bound)->sin_port));
  fflush(stdout);
  return uv_run(loop, UV_RUN_DEFAULT);
}
