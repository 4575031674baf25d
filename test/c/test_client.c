/*
 * test_client.c - the core client (client.h) used from C with no Lua, as a
 * C program would, against the official server-everything: over stdio
 * (handshake, tools/list, tools/call, close), and over Streamable HTTP,
 * where the server is restarted on the same port while the client is
 * connected, so that its session expires: the client begins one new
 * session, and the calls made meanwhile succeed. And the tool-result rule
 * on its own.
 *
 * argv[1] is the source directory: server-everything under .deps (make
 * deps installs it) and its HTTP launcher under spec/fixtures. A missing
 * server fails the test; it does not skip it.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <uv.h>

#include "client.h"
#include "common.h"
#include "curl_uv.h"
#include "json.h"
#include "process.h"
#include "session.h"
#include "transport_http.h"
#include "transport_stdio.h"
#include "test.h"

#define EVERYTHING "/.deps/npm/node_modules/@modelcontextprotocol/" \
                   "server-everything/dist/index.js"

static uv_loop_t loop;
static const char *src;

/* What the client told us. */
typedef struct {
  int closed;
  int sessions_begun;        /* on_session calls */
  unsigned last_session;
} events_t;

/* One request's outcome. */
typedef struct {
  int done;
  int code;                  /* 0 or the error code */
  cJSON *result;             /* a copy */
} answer_t;

static void
on_closed(void *ud)
{
  ((events_t *) ud)->closed = 1;
}

static void
on_session(void *ud, unsigned number, const cJSON *result)
{
  events_t *ev = ud;

  ASSERT_NOT_NULL(mcp_json_string(result, "protocolVersion"));
  ev->sessions_begun++;
  ev->last_session = number;
}

static const mcp_client_cb_t callbacks = {
  NULL, NULL, NULL, NULL, NULL, on_closed, on_session, NULL
};

static void
on_answer(void *data, const mcp_error_t *err, const cJSON *value)
{
  answer_t *a = data;

  a->done = 1;
  a->code = err != NULL ? err->code : 0;
  if (err != NULL)
    fprintf(stderr, "answer: %s\n", err->msg);
  a->result = value != NULL ? cJSON_Duplicate(value, 1) : NULL;
}

/* Runs the loop until *flag is set; fails after 30 s. */
static void
run_until(const int *flag)
{
  uint64_t deadline = uv_now(&loop) + 30000;

  while (!*flag) {
    ASSERT(uv_now(&loop) < deadline);
    uv_run(&loop, UV_RUN_ONCE);
  }
}

static void
initialize(mcp_client_t *c)
{
  cJSON *caps = cJSON_CreateObject();
  answer_t a = { 0 };
  mcp_error_t err;

  ASSERT_EQ(mcp_client_initialize(c, caps, NULL, 20000, on_answer, &a, &err),
            0);
  cJSON_Delete(caps);
  run_until(&a.done);
  ASSERT_EQ(a.code, 0);
  ASSERT_STR_EQ(mcp_json_string(a.result, "protocolVersion"),
                MCP_LATEST_VERSION);
  ASSERT_EQ(mcp_client_session(c), 1);
  cJSON_Delete(a.result);
}

/* Starts tools/call get-sum a + b into *a. */
static void
start_sum(mcp_client_t *c, int x, int y, answer_t *a)
{
  cJSON *params = cJSON_CreateObject(), *args;
  mcp_error_t err;

  cJSON_AddStringToObject(params, "name", "get-sum");
  args = cJSON_AddObjectToObject(params, "arguments");
  cJSON_AddNumberToObject(args, "a", x);
  cJSON_AddNumberToObject(args, "b", y);
  ASSERT_EQ(mcp_client_request(c, "tools/call", params, NULL, on_answer, a,
                               NULL, &err), 0);
  cJSON_Delete(params);
}

/* The text of a tools/call result's first content item. */
static const char *
first_text(const cJSON *result)
{
  const cJSON *content = cJSON_GetObjectItemCaseSensitive(result, "content");

  return mcp_json_string(cJSON_GetArrayItem(content, 0), "text");
}

static void
check_sum(answer_t *a, const char *want)
{
  ASSERT_EQ(a->code, 0);
  ASSERT_NOT_NULL(first_text(a->result));
  ASSERT(strstr(first_text(a->result), want) != NULL);
  cJSON_Delete(a->result);
  a->result = NULL;
}

static void
test_stdio(void)
{
  char path[4096];
  const char *argv[] = { "node", path, "stdio", NULL };
  mcp_stdio_opts_t so;
  mcp_transport_t *t;
  events_t ev = { 0 };
  answer_t list = { 0 }, sum = { 0 };
  const cJSON *tools, *tool;
  mcp_client_t *c;
  mcp_error_t err;
  int found = 0;

  snprintf(path, sizeof path, "%s%s", src, EVERYTHING);
  ASSERT(access(path, R_OK) == 0);
  c = mcp_client_new(&loop, NULL, 0, &callbacks, &ev);
  ASSERT_NOT_NULL(c);
  memset(&so, 0, sizeof so);
  so.process.argv = argv;
  ASSERT_EQ(mcp_transport_stdio_new(&loop, &so, mcp_client_transport_cb(),
                                    mcp_client_transport_ud(c), &t, &err), 0);
  mcp_client_attach(c, t, NULL);
  initialize(c);

  ASSERT_EQ(mcp_client_request(c, "tools/list", NULL, NULL, on_answer, &list,
                               NULL, &err), 0);
  run_until(&list.done);
  ASSERT_EQ(list.code, 0);
  tools = cJSON_GetObjectItemCaseSensitive(list.result, "tools");
  cJSON_ArrayForEach(tool, tools) {
    if (strcmp(mcp_json_string(tool, "name"), "get-sum") == 0)
      found = 1;
  }
  ASSERT(found);
  cJSON_Delete(list.result);

  start_sum(c, 2, 3, &sum);
  run_until(&sum.done);
  check_sum(&sum, "5");

  mcp_client_close(c);
  run_until(&ev.closed);
  ASSERT_EQ(ev.sessions_begun, 0);
}

/* ---- the HTTP server, started and restarted --------------------------- */

typedef struct {
  uv_process_t proc;
  uv_pipe_t out;
  char buf[256];
  size_t len;
  int port;                  /* from its "READY <port>" line */
  int exited;
  int handles;               /* open handles left */
} server_t;

static void
server_closed(uv_handle_t *h)
{
  ((server_t *) h->data)->handles--;
}

static void
server_exit(uv_process_t *p, int64_t status, int sig)
{
  MCP_UNUSED(status);
  MCP_UNUSED(sig);
  ((server_t *) p->data)->exited = 1;
}

static void
server_alloc(uv_handle_t *h, size_t want, uv_buf_t *b)
{
  server_t *s = h->data;

  MCP_UNUSED(want);
  b->base = s->buf + s->len;
  b->len = sizeof s->buf - 1 - s->len;
}

static void
server_read(uv_stream_t *stream, ssize_t n, const uv_buf_t *b)
{
  server_t *s = stream->data;
  const char *ready;

  MCP_UNUSED(b);
  if (n <= 0)
    return;
  s->len += (size_t) n;
  s->buf[s->len] = '\0';
  ready = strstr(s->buf, "READY ");
  if (ready != NULL && strchr(ready, '\n') != NULL)
    s->port = atoi(ready + 6);
}

/* Starts server-everything in streamableHttp mode on port (0: any). */
static void
server_start(server_t *s, int port)
{
  char launcher[4096], port_arg[16], pid_env[64], entry_env[4200];
  char *argv[] = { "node", launcher, "streamableHttp", port_arg, NULL };
  char *env[] = { pid_env, entry_env, "PATH=/usr/local/bin:/usr/bin:/bin",
                  NULL };
  uv_process_options_t o;
  uv_stdio_container_t stdio[3];

  memset(s, 0, sizeof *s);
  snprintf(launcher, sizeof launcher, "%s/spec/fixtures/everything_http.js",
           src);
  snprintf(port_arg, sizeof port_arg, "%d", port);
  snprintf(pid_env, sizeof pid_env, "LUAMCP_TEST_PID=%d", (int) getpid());
  snprintf(entry_env, sizeof entry_env, "EVERYTHING_SERVER=%s%s", src,
           EVERYTHING);
  ASSERT_EQ(uv_pipe_init(&loop, &s->out, 0), 0);
  s->out.data = s;
  memset(&o, 0, sizeof o);
  stdio[0].flags = UV_IGNORE;
  stdio[1].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
  stdio[1].data.stream = (uv_stream_t *) &s->out;
  stdio[2].flags = UV_INHERIT_FD;
  stdio[2].data.fd = 2;
  o.file = "node";
  o.args = argv;
  o.env = env;
  o.stdio = stdio;
  o.stdio_count = 3;
  o.exit_cb = server_exit;
  s->proc.data = s;
  ASSERT_EQ(uv_spawn(&loop, &s->proc, &o), 0);
  s->handles = 2;
  ASSERT_EQ(uv_read_start((uv_stream_t *) &s->out, server_alloc,
                          server_read), 0);
  run_until(&s->port);
}

static void
server_stop(server_t *s)
{
  uv_process_kill(&s->proc, SIGTERM);
  run_until(&s->exited);
  uv_close((uv_handle_t *) &s->proc, server_closed);
  uv_close((uv_handle_t *) &s->out, server_closed);
  while (s->handles > 0)
    uv_run(&loop, UV_RUN_ONCE);
}

static void
test_http_session_expiry(void)
{
  char url[64];
  mcp_http_transport_opts_t ho;
  mcp_curl_uv_t *cu;
  mcp_transport_t *t;
  events_t ev = { 0 };
  answer_t level = { 0 }, sum = { 0 }, burst[3];
  cJSON *params;
  server_t server;
  mcp_client_t *c;
  mcp_error_t err;
  int port, i;

  server_start(&server, 0);
  port = server.port;
  ASSERT_EQ(mcp_curl_uv_new(&loop, &cu, &err), 0);
  snprintf(url, sizeof url, "http://127.0.0.1:%d/mcp", port);
  memset(&ho, 0, sizeof ho);
  ho.url = url;
  ho.mode = MCP_HTTP_STREAMABLE;
  c = mcp_client_new(&loop, NULL, 1, &callbacks, &ev);
  ASSERT_NOT_NULL(c);
  ASSERT_EQ(mcp_transport_http_new(&loop, cu, &ho, mcp_client_transport_cb(),
                                   mcp_client_transport_ud(c), &t, &err), 0);
  mcp_client_attach(c, t, mcp_transport_http_reset_session);
  initialize(c);

  /* Set-up that a new session gets again. */
  params = cJSON_CreateObject();
  cJSON_AddStringToObject(params, "level", "debug");
  ASSERT_EQ(mcp_client_request(c, "logging/setLevel", params, NULL,
                               on_answer, &level, NULL, &err), 0);
  cJSON_Delete(params);
  run_until(&level.done);
  ASSERT_EQ(level.code, 0);
  cJSON_Delete(level.result);
  start_sum(c, 1, 1, &sum);
  run_until(&sum.done);
  check_sum(&sum, "2");

  /* The server restarts on the same port and forgets every session. */
  server_stop(&server);
  server_start(&server, port);
  ASSERT_EQ(server.port, port);

  memset(burst, 0, sizeof burst);
  for (i = 0; i < 3; i++)
    start_sum(c, i, 10, &burst[i]);
  for (i = 0; i < 3; i++) {
    char want[8];

    run_until(&burst[i].done);
    snprintf(want, sizeof want, "%d", i + 10);
    check_sum(&burst[i], want);
  }
  ASSERT_EQ(ev.sessions_begun, 1);
  ASSERT_EQ(ev.last_session, 2);
  ASSERT_EQ(mcp_client_session(c), 2);

  mcp_client_close(c);
  run_until(&ev.closed);
  mcp_curl_uv_close(cu);
  server_stop(&server);
}

/* The tool-result rule, on the text received and on a tree. */
static void
test_tool_result_rule(void)
{
  static const char *const texts[][2] = {
    /* text, expected: "0" valid, "S" ESCHEMA with a keyword, "M" missing */
    { "{\"content\":[],\"structuredContent\":{\"n\":1}}", "0" },
    { "{\"content\":[],\"structuredContent\":{\"n\":\"x\"}}", "S" },
    { "{\"content\":[],\"isError\":true,\"structuredContent\":{\"n\":\"x\"}}",
      "0" },
    { "{\"content\":[],\"isError\":true}", "0" },
    { "{\"content\":[]}", "M" },
    { "{\"a1\":1,\"a2\":2,\"a3\":3,\"a4\":4,\"a5\":5,\"a6\":6,\"a7\":7,"
      "\"a8\":8,\"a9\":9,\"a10\":10,\"a11\":11,\"a12\":12,\"a13\":13,"
      "\"a14\":14,\"a15\":15,\"a16\":16,\"structuredContent\":{\"n\":\"x\"}}",
      "S" },
  };
  cJSON *doc = cJSON_Parse("{\"type\":\"object\",\"properties\":"
                           "{\"n\":{\"type\":\"integer\"}}}");
  mcp_schema_failure_t why;
  mcp_schema_t *schema;
  mcp_error_t err;
  size_t k;

  ASSERT_EQ(mcp_schema_compile(doc, NULL, &schema, &err), 0);
  cJSON_Delete(doc);
  for (k = 0; k < sizeof texts / sizeof texts[0]; k++) {
    const char *text = texts[k][0];
    cJSON *tree = cJSON_Parse(text);
    int on_text = mcp_client_check_tool_result(schema, text, strlen(text),
                                               NULL, 64, &why);
    int on_tree = mcp_client_check_tool_result(schema, NULL, 0, tree, 64,
                                               &why);

    ASSERT_EQ(on_text, on_tree);
    ASSERT_EQ(on_text, texts[k][1][0] == '0' ? 0 : MCP_ESCHEMA);
    if (texts[k][1][0] == 'S')
      ASSERT_STR_EQ(why.keyword, "type");
    if (texts[k][1][0] == 'M')
      ASSERT(strstr(why.message, "no structuredContent") != NULL);
    cJSON_Delete(tree);
  }
  mcp_schema_free(schema);
}

int
main(int argc, char **argv)
{
  ASSERT(argc == 2);
  src = argv[1];
  mcp_process_global_init();
  ASSERT_EQ(uv_loop_init(&loop), 0);
  RUN_TEST(test_tool_result_rule);
  RUN_TEST(test_stdio);
  RUN_TEST(test_http_session_expiry);
  uv_run(&loop, UV_RUN_DEFAULT);
  ASSERT_EQ(uv_loop_close(&loop), 0);
  TEST_DONE();
}
