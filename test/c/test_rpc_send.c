/*
 * test_rpc_send.c - what the endpoint (rpc.c) sends for a request,
 * through a transport that only records: the envelope, params from cJSON
 * or from a writer, _meta.progressToken added by the one writer of it to
 * what is sent (the caller's params untouched, any shape of _meta), and a
 * request that fails to encode is neither sent nor left pending.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <uv.h>

#include "buf.h"
#include "common.h"
#include "json.h"
#include "jsonrpc.h"
#include "jsonscan.h"
#include "rpc.h"
#include "test.h"

typedef struct {
  mcp_transport_t base;
  mcp_rpc_t *rpc;
  char sent[1024];              /* the last message sent */
  int nsent;
} rec_transport_t;

static int
rec_send(mcp_transport_t *t, const char *text, size_t len, uint64_t id,
         mcp_error_t *err)
{
  rec_transport_t *r = (rec_transport_t *) t;

  MCP_UNUSED(id);
  MCP_UNUSED(err);
  ASSERT(len < sizeof r->sent);
  memcpy(r->sent, text, len);
  r->sent[len] = '\0';
  r->nsent++;
  return 0;
}

static void
rec_close(mcp_transport_t *t)
{
  rec_transport_t *r = (rec_transport_t *) t;

  mcp_rpc_transport_cb()->on_closed(r->rpc);
}

static size_t
rec_diagnostics(const mcp_transport_t *t, char *out, size_t cap)
{
  MCP_UNUSED(t);
  if (cap > 0)
    out[0] = '\0';
  return 0;
}

static const mcp_transport_vt_t rec_vt = { rec_send, rec_close,
                                           rec_diagnostics, NULL, NULL, NULL };

static void
on_done(void *data, const mcp_error_t *err, const cJSON *value)
{
  MCP_UNUSED(data);
  MCP_UNUSED(err);
  MCP_UNUSED(value);
}

static void
on_progress(void *data, const cJSON *params)
{
  MCP_UNUSED(data);
  MCP_UNUSED(params);
}

static int
failing_writer(void *ud, uint64_t id, mcp_buf_t *b, mcp_error_t *err)
{
  MCP_UNUSED(ud);
  MCP_UNUSED(id);
  mcp_buf_append(b, "{\"half", 6);
  return mcp_error_set(err, MCP_EINVAL, "cannot encode a function");
}

/* Writes the text ud as the params. */
static int
text_writer(void *ud, uint64_t id, mcp_buf_t *b, mcp_error_t *err)
{
  MCP_UNUSED(id);
  MCP_UNUSED(err);
  return mcp_buf_append(b, ud, strlen(ud));
}

static cJSON *
sent_params(rec_transport_t *r)
{
  cJSON *msg = cJSON_Parse(r->sent);

  ASSERT(msg != NULL);
  return msg;
}

static void
test_progress_token_on_a_copy(void)
{
  uv_loop_t loop;
  mcp_rpc_handler_t handler;
  rec_transport_t t;
  mcp_rpc_req_opts_t opts;
  mcp_error_t err;
  cJSON *params, *msg, *meta;
  uint64_t id = 0, n = 0;

  memset(&handler, 0, sizeof handler);
  memset(&t, 0, sizeof t);
  memset(&opts, 0, sizeof opts);
  ASSERT_EQ(uv_loop_init(&loop), 0);
  t.base.vt = &rec_vt;
  t.rpc = mcp_rpc_new(&loop, NULL, &handler, NULL);
  ASSERT(t.rpc != NULL);
  mcp_rpc_attach(t.rpc, &t.base);
  opts.on_progress = on_progress;

  /* The caller's _meta keeps its other members; its old token is replaced
   * by the request's id in what is sent, and only there. */
  params = cJSON_Parse("{\"name\":\"x\",\"_meta\":{\"trace\":\"t\","
                       "\"progressToken\":\"old\"}}");
  ASSERT_EQ(mcp_rpc_request(t.rpc, "tools/call", params, &opts, on_done,
                            NULL, &id, &err), 0);
  msg = sent_params(&t);
  meta = cJSON_GetObjectItemCaseSensitive(
    cJSON_GetObjectItemCaseSensitive(msg, "params"), "_meta");
  ASSERT_STR_EQ(mcp_json_string(meta, "trace"), "t");
  ASSERT_EQ(mcp_jsonrpc_id_u64(
    cJSON_GetObjectItemCaseSensitive(meta, "progressToken"), &n), 0);
  ASSERT_EQ(n, id);
  cJSON_Delete(msg);
  ASSERT_STR_EQ(mcp_json_string(
    cJSON_GetObjectItemCaseSensitive(params, "_meta"), "progressToken"), "old");
  cJSON_Delete(params);

  /* No params at all: a _meta holding the token alone. */
  ASSERT_EQ(mcp_rpc_request(t.rpc, "ping", NULL, &opts, on_done, NULL, &id,
                            &err), 0);
  msg = sent_params(&t);
  meta = cJSON_GetObjectItemCaseSensitive(
    cJSON_GetObjectItemCaseSensitive(msg, "params"), "_meta");
  ASSERT_EQ(cJSON_GetArraySize(meta), 1);
  ASSERT_EQ(mcp_jsonrpc_id_u64(
    cJSON_GetObjectItemCaseSensitive(meta, "progressToken"), &n), 0);
  ASSERT_EQ(n, id);
  cJSON_Delete(msg);

  /* Params from a writer (the Lua encoder's way) get the same, from the
   * one writer of the token, whatever the shape of their _meta. */
  {
    static const char *const shapes[][2] = {
      { "{}", "{\"_meta\":{\"progressToken\":%llu}}" },
      { "{\"a\":1}", "{\"a\":1,\"_meta\":{\"progressToken\":%llu}}" },
      { "{\"_meta\":5,\"a\":[1]}",
        "{\"_meta\":{\"progressToken\":%llu},\"a\":[1]}" },
      { "{\"_meta\":{},\"a\":{}}",
        "{\"_meta\":{\"progressToken\":%llu},\"a\":{}}" },
      { "{\"_meta\":{\"progressToken\":\"mine\",\"x\":{\"y\":[2]}}}",
        "{\"_meta\":{\"progressToken\":%llu,\"x\":{\"y\":[2]}}}" },
    };
    size_t k;

    for (k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
      char want[256], *got;

      ASSERT_EQ(mcp_rpc_request_with(t.rpc, "m", text_writer,
                                     (void *) shapes[k][0], &opts, on_done,
                                     NULL, &id, &err), 0);
      snprintf(want, sizeof want, shapes[k][1], (unsigned long long) id);
      ASSERT_EQ(mcp_json_check(t.sent, strlen(t.sent), 0, NULL), 0);
      got = strstr(t.sent, "\"params\":");
      ASSERT_NOT_NULL(got);
      got += 9;
      got[strlen(got) - 1] = '\0';   /* the envelope's closing brace */
      ASSERT_STR_EQ(got, want);
    }
  }

  /* Params that are not an object cannot carry a token: nothing is sent,
   * nothing waits. */
  params = cJSON_Parse("[1,2]");
  ASSERT_EQ(mcp_rpc_request(t.rpc, "m", params, &opts, on_done, NULL, &id,
                            &err), MCP_EINVAL);
  cJSON_Delete(params);
  ASSERT_EQ(t.nsent, 7);
  ASSERT_EQ(mcp_rpc_pending_count(t.rpc), 7);

  /* A writer that fails: the same. */
  ASSERT_EQ(mcp_rpc_request_with(t.rpc, "m", failing_writer, NULL, NULL,
                                 on_done, NULL, &id, &err), MCP_EINVAL);
  ASSERT_STR_EQ(err.msg, "cannot encode a function");
  ASSERT_EQ(t.nsent, 7);
  ASSERT_EQ(mcp_rpc_pending_count(t.rpc), 7);

  /* Closing fails what waits and frees the endpoint from the loop. */
  mcp_rpc_close(t.rpc);
  ASSERT_EQ(uv_run(&loop, UV_RUN_DEFAULT), 0);
  ASSERT_EQ(uv_loop_close(&loop), 0);
}

/* The stateless era's envelope goes into every request's _meta, ours
 * first, with the progress token when there is one; a caller's member of
 * the same name is dropped, its others kept. */
static void
test_envelope(void)
{
  static const char envelope[] =
    "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
    "\"io.modelcontextprotocol/clientCapabilities\":{}";
  static const char *const shapes[][3] = {
    /* params, with a token?, what is sent as params */
    { NULL, "", "{\"_meta\":{%s}}" },
    { "{\"a\":1}", "", "{\"a\":1,\"_meta\":{%s}}" },
    { "{\"_meta\":{\"x\":2,"
      "\"io.modelcontextprotocol/protocolVersion\":\"1999-01-01\"}}", "",
      "{\"_meta\":{%s,\"x\":2}}" },
    { "{\"a\":1}", "token", "{\"a\":1,\"_meta\":{\"progressToken\":%llu,%s}}" },
  };
  uv_loop_t loop;
  mcp_rpc_handler_t handler;
  rec_transport_t t;
  mcp_rpc_req_opts_t opts;
  mcp_error_t err;
  uint64_t id = 0;
  size_t k;

  memset(&handler, 0, sizeof handler);
  memset(&t, 0, sizeof t);
  ASSERT_EQ(uv_loop_init(&loop), 0);
  t.base.vt = &rec_vt;
  t.rpc = mcp_rpc_new(&loop, NULL, &handler, NULL);
  ASSERT(t.rpc != NULL);
  mcp_rpc_attach(t.rpc, &t.base);
  ASSERT_EQ(mcp_rpc_set_envelope(t.rpc, envelope), 0);
  for (k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
    char want[512], *got;

    memset(&opts, 0, sizeof opts);
    if (shapes[k][1][0] != '\0')
      opts.on_progress = on_progress;
    ASSERT_EQ(mcp_rpc_request_with(t.rpc, "m",
                                   shapes[k][0] ? text_writer : NULL,
                                   (void *) shapes[k][0], &opts, on_done,
                                   NULL, &id, &err), 0);
    if (opts.on_progress != NULL)
      snprintf(want, sizeof want, shapes[k][2], (unsigned long long) id,
               envelope);
    else
      snprintf(want, sizeof want, shapes[k][2], envelope);
    ASSERT_EQ(mcp_json_check(t.sent, strlen(t.sent), 0, NULL), 0);
    got = strstr(t.sent, "\"params\":");
    ASSERT_NOT_NULL(got);
    got += 9;
    got[strlen(got) - 1] = '\0';   /* the message's closing brace */
    ASSERT_STR_EQ(got, want);
  }
  /* No envelope: params as they were. */
  ASSERT_EQ(mcp_rpc_set_envelope(t.rpc, NULL), 0);
  ASSERT_EQ(mcp_rpc_request_with(t.rpc, "m", text_writer, (void *) "{\"a\":1}",
                                 NULL, on_done, NULL, &id, &err), 0);
  ASSERT_NOT_NULL(strstr(t.sent, "\"params\":{\"a\":1}}"));
  mcp_rpc_close(t.rpc);
  ASSERT_EQ(uv_run(&loop, UV_RUN_DEFAULT), 0);
  ASSERT_EQ(uv_loop_close(&loop), 0);
}

int
main(void)
{
  RUN_TEST(test_progress_token_on_a_copy);
  RUN_TEST(test_envelope);
  TEST_DONE();
}
