/*
 * http_engine_floor.c - luamcp's HTTP engine alone: what libcurl costs as
 * luamcp drives it, with no Lua, no MCP session and no JSON-RPC layer.
 *
 * Against a running bench/http_fixture_server (JSON or SSE mode), it
 * initializes a session, then keeps W tools/call echo POSTs in flight
 * through the core's own engine (src/core/curl_uv.c and http.c: one CURLM
 * driven by libuv, kept-alive connections, pooled easy handles), each
 * request printed and each answer parsed with cJSON as the floors do. The
 * figure bounds what any client on libcurl's multi interface reaches on
 * this machine: luamcp's calls/s with W in flight can only come close to
 * it, since everything luamcp adds runs on top.
 *
 * Usage: http_engine_floor URL [--inflight-calls N] [--window W]
 * Prints {"inflight": {...}} on stdout (the floors' format).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <uv.h>

#include "curl_uv.h"
#include "floor_common.h"
#include "http.h"

#define MAX_WINDOW 1024

typedef struct engine_floor_s engine_floor_t;

typedef struct {
  engine_floor_t *f;
  double t0;
  char *body;                   /* the answer, as it arrives */
  size_t len, cap;
  int sse;                      /* text/event-stream */
} call_t;

struct engine_floor_s {
  mcp_curl_uv_t *cu;
  const char *url;
  char session[128];            /* "Mcp-Session-Id: ..." */
  const char *headers[4];
  size_t nheaders;
  int issued, done, total, next_id;
  double *lat;
  call_t calls[MAX_WINDOW];
};

static void start_call(engine_floor_t *f, call_t *c, const char *body);

static void
on_headers(mcp_http_t *req, int status, const mcp_http_header_t *h, size_t n,
           void *ud)
{
  call_t *c = ud;
  size_t i;

  (void) req;
  if (status != 200 && status != 202) {
    fprintf(stderr, "http_engine_floor: HTTP %d\n", status);
    exit(2);
  }
  for (i = 0; i < n; i++) {
    if (strcasecmp(h[i].name, "mcp-session-id") == 0)
      snprintf(c->f->session, sizeof c->f->session, "Mcp-Session-Id: %s",
               h[i].value);
    else if (strcasecmp(h[i].name, "content-type") == 0)
      c->sse = strncmp(h[i].value, "text/event-stream", 17) == 0;
  }
}

static void
on_data(mcp_http_t *req, const char *data, size_t len, void *ud)
{
  call_t *c = ud;

  (void) req;
  if (c->len + len + 1 > c->cap) {
    c->cap = (c->len + len + 1) * 2;
    c->body = realloc(c->body, c->cap);
    if (c->body == NULL)
      floor_die("realloc");
  }
  memcpy(c->body + c->len, data, len);
  c->len += len;
}

/* The JSON of the answer: the body, or the data of its one SSE event. */
static const char *
answer(call_t *c, size_t *len)
{
  const char *d, *end;

  c->body[c->len] = '\0';
  if (!c->sse) {
    *len = c->len;
    return c->body;
  }
  d = strstr(c->body, "data: ");
  if (d == NULL)
    floor_die("an SSE answer without data");
  d += 6;
  end = strchr(d, '\n');
  *len = end != NULL ? (size_t) (end - d) : strlen(d);
  return d;
}

static void
on_done(mcp_http_t *req, const mcp_error_t *err, void *ud)
{
  call_t *c = ud;
  engine_floor_t *f = c->f;
  const char *json;
  size_t len;
  char *body;

  (void) req;
  if (err != NULL) {
    fprintf(stderr, "http_engine_floor: %s\n", err->msg);
    exit(2);
  }
  if (f->total == 0)
    return;                     /* initialize or initialized: no figures */
  json = answer(c, &len);
  floor_check_echo(json, len);
  f->lat[f->done++] = floor_now_us() - c->t0;
  if (f->issued < f->total) {
    body = floor_echo_request(f->next_id++);
    start_call(f, c, body);
    cJSON_free(body);
  }
}

static void
start_call(engine_floor_t *f, call_t *c, const char *body)
{
  static const mcp_http_cb_t cb = { on_headers, on_data, on_done };
  mcp_http_opts_t o;
  mcp_http_t *req;
  mcp_error_t err;

  memset(&o, 0, sizeof o);
  o.url = f->url;
  o.url_checked = 1;
  o.headers = f->headers;
  o.nheaders = f->nheaders;
  o.body = body;
  o.body_len = strlen(body);
  c->f = f;
  c->len = 0;
  c->sse = 0;
  c->t0 = floor_now_us();
  if (f->total > 0)
    f->issued++;
  if (mcp_http_start(f->cu, &o, &cb, c, &req, &err) != 0) {
    fprintf(stderr, "http_engine_floor: %s\n", err.msg);
    exit(2);
  }
}

static void
run_one(uv_loop_t *loop, engine_floor_t *f, const char *body)
{
  start_call(f, &f->calls[0], body);
  uv_run(loop, UV_RUN_DEFAULT);
}

int
main(int argc, char **argv)
{
  static engine_floor_t f;
  uv_loop_t *loop = uv_default_loop();
  floor_opts_t opts;
  int n, window, i;
  mcp_error_t err;
  double t0;

  floor_program = "http_engine_floor";
  if (argc < 2) {
    fprintf(stderr, "usage: http_engine_floor URL [--inflight-calls N] "
            "[--window W]\n");
    return 2;
  }
  f.url = argv[1];
  floor_parse_opts(argc, argv, &opts);   /* --calls does not apply here */
  n = opts.inflight_calls;
  window = opts.window;
  if (window > MAX_WINDOW)
    floor_die("--window is too large");
  /* The engine loads libcurl (src/core/curl_dl.c): it comes first. */
  if (mcp_curl_uv_new(loop, &f.cu, &err) != 0 ||
      mcp_http_check_url(f.url, &err) != 0) {
    fprintf(stderr, "http_engine_floor: %s\n", err.msg);
    return 2;
  }
  f.headers[0] = "Content-Type: application/json";
  f.headers[1] = "Accept: application/json, text/event-stream";
  f.nheaders = 2;
  run_one(loop, &f, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\","
          "\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
          "\"clientInfo\":{\"name\":\"http_engine_floor\",\"version\":\"1\"}}}");
  if (f.session[0] == '\0')
    floor_die("no Mcp-Session-Id from initialize");
  f.headers[2] = f.session;
  f.headers[3] = "MCP-Protocol-Version: 2025-11-25";
  f.nheaders = 4;
  run_one(loop, &f, "{\"jsonrpc\":\"2.0\","
          "\"method\":\"notifications/initialized\"}");

  f.total = n;
  f.next_id = 1;
  f.lat = malloc(sizeof *f.lat * (size_t) n);
  if (f.lat == NULL)
    floor_die("malloc");
  t0 = floor_now_us();
  for (i = 0; i < window && f.issued < n; i++) {
    char *body = floor_echo_request(f.next_id++);

    start_call(&f, &f.calls[i], body);
    cJSON_free(body);
  }
  uv_run(loop, UV_RUN_DEFAULT);
  if (f.done != n)
    floor_die("not every call was answered");
  printf("{\n");
  floor_report("inflight", f.lat, n, (floor_now_us() - t0) / 1e6, window, 1);
  printf("}\n");
  mcp_curl_uv_close(f.cu);
  uv_run(loop, UV_RUN_DEFAULT);
  for (i = 0; i < MAX_WINDOW; i++)
    free(f.calls[i].body);
  free(f.lat);
  return 0;
}
