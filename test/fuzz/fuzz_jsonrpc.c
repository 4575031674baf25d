/*
 * fuzz_jsonrpc.c - libFuzzer harness for JSON-RPC classification
 * (src/core/jsonrpc.c) and for the endpoint that acts on it (src/core/
 * rpc.c): what a server's messages can make the client do.
 *
 * Input: byte 0 says how many requests are pending (0 to 7), byte 1
 * which of them take raw results (the jsonscan fast path), byte 2 which
 * ask for progress; the rest is messages, one per line. A line that
 * starts with byte 0x01 stands for a message over the size limit, the
 * rest of the line (at most 63 bytes) being the id the transport's
 * scanner found in it.
 *
 * Each message is classified on its own, and the view must fit its kind
 * (a request has an id and a method, a result an id...); answers built
 * from it with the encoders must parse and classify back with the same
 * id. Then every message goes to an endpoint with a transport that only
 * records: every request must complete exactly once (by a response, or
 * at close), and everything the endpoint sends must be one valid JSON-RPC
 * message.
 */
#include <stdint.h>
#include <string.h>

#include <uv.h>

#include "common.h"
#include "fuzz.h"
#include "fuzz_cjson.h"
#include "json.h"
#include "jsonrpc.h"
#include "jsonscan.h"
#include "rpc.h"

#define MAX_REQ 8

typedef struct rec_s {
  mcp_transport_t base;
  mcp_rpc_t *rpc;
  int closed;                  /* on_closed was delivered */
} rec_t;

static int done_count[MAX_REQ];  /* completions per request slot */

static void
check_message(const char *text, size_t len, int sent)
{
  mcp_msg_t m;
  mcp_msg_kind_t kind;
  cJSON *msg;

  msg = mcp_json_parse(text, len, MCP_DEFAULT_MAX_DEPTH, NULL);
  if (sent && msg == NULL) {
    fprintf(stderr, "jsonrpc: the endpoint sent invalid JSON: %.*s\n",
            (int) (len > 300 ? 300 : len), text);
    abort();
  }
  if (msg == NULL)
    return;
  kind = mcp_jsonrpc_classify(msg, &m);
  FUZZ_CHECK(kind == m.kind);
  switch (kind) {
  case MCP_MSG_REQUEST:
    FUZZ_CHECK(m.id != NULL && m.method != NULL);
    FUZZ_CHECK(cJSON_IsString(m.id) || cJSON_IsNumber(m.id));
    FUZZ_CHECK(m.params == NULL || cJSON_IsObject(m.params) ||
               cJSON_IsArray(m.params));
    break;
  case MCP_MSG_NOTIFICATION:
    FUZZ_CHECK(m.id == NULL && m.method != NULL);
    break;
  case MCP_MSG_RESULT:
    FUZZ_CHECK(m.id != NULL && m.result != NULL);
    break;
  case MCP_MSG_ERROR:
    FUZZ_CHECK(m.error_message != NULL);
    break;
  default:
    FUZZ_CHECK(kind == MCP_MSG_INVALID && m.why != NULL);
    break;
  }
  if (sent) {
    if (kind == MCP_MSG_INVALID) {
      fprintf(stderr, "jsonrpc: the endpoint sent an invalid message (%s): "
              "%.*s\n", m.why, (int) (len > 300 ? 300 : len), text);
      abort();
    }
    cJSON_Delete(msg);
    return;
  }

  if (m.id != NULL) {
    uint64_t n = 0;

    if (mcp_jsonrpc_id_u64(m.id, &n) == 0)
      FUZZ_CHECK(n < (1ull << 53) && (double) n == m.id->valuedouble);
  }
  /* Answers to what came in: they must read back with the same id (an
   * id too large for a double prints as null: FUZZ_SKIP=inf-number; a
   * long number is printed to 15 digits: print-precision). */
  if (kind == MCP_MSG_REQUEST &&
      !(fuzz_skip("inf-number") && fuzz_cjson_has_inf(m.id))) {
    char *texts[2];
    int i;

    texts[0] = mcp_jsonrpc_result(m.id, m.params);
    texts[1] = mcp_jsonrpc_error(m.id, MCP_RPC_METHOD_NOT_FOUND, m.method,
                                 m.params);
    for (i = 0; i < 2; i++) {
      mcp_msg_t back;
      cJSON *b;

      FUZZ_CHECK(texts[i] != NULL);
      b = mcp_json_parse(texts[i], strlen(texts[i]), MCP_DEFAULT_MAX_DEPTH,
                         NULL);
      if (b == NULL) {
        fprintf(stderr, "jsonrpc: an encoded answer does not parse: %.300s\n",
                texts[i]);
        abort();
      }
      FUZZ_CHECK(mcp_jsonrpc_classify(b, &back) ==
                 (i == 0 ? MCP_MSG_RESULT : MCP_MSG_ERROR));
      FUZZ_CHECK(back.id != NULL && fuzz_cjson_same_printed(back.id, m.id));
      cJSON_Delete(b);
      cJSON_free(texts[i]);
    }
  }
  cJSON_Delete(msg);
}

static int
rec_send(mcp_transport_t *t, const char *text, size_t len, uint64_t id,
         mcp_error_t *err)
{
  MCP_UNUSED(t);
  MCP_UNUSED(id);
  MCP_UNUSED(err);
  check_message(text, len, 1);
  return 0;
}

static void
rec_close(mcp_transport_t *t)
{
  rec_t *r = (rec_t *) t;

  if (!r->closed) {
    r->closed = 1;
    mcp_rpc_transport_cb()->on_closed(r->rpc);
  }
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
  int slot = (int) (intptr_t) data;

  MCP_UNUSED(value);
  FUZZ_CHECK(slot >= 0 && slot < MAX_REQ);
  FUZZ_CHECK(err == NULL || err->code < 0);
  done_count[slot]++;
}

static void
on_raw(void *data, const char *text, size_t len)
{
  int slot = (int) (intptr_t) data;

  FUZZ_CHECK(slot >= 0 && slot < MAX_REQ);
  FUZZ_CHECK(text != NULL && len > 0);
  done_count[slot]++;
}

static void
on_progress(void *data, const cJSON *params)
{
  int slot = (int) (intptr_t) data;

  FUZZ_CHECK(slot >= 0 && slot < MAX_REQ);
  /* The owner gets the params raw: their exact text, one JSON object. */
  FUZZ_CHECK(cJSON_IsObject(params) ||
             (cJSON_IsRaw(params) && params->valuestring[0] == '{' &&
              mcp_json_check(params->valuestring,
                             strlen(params->valuestring), 0, NULL) == 0));
}

static void
on_bad_message(void *ud, const mcp_error_t *err, const char *text,
               size_t len)
{
  MCP_UNUSED(ud);
  MCP_UNUSED(len);
  MCP_UNUSED(text);
  FUZZ_CHECK(err != NULL && err->code < 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static uv_loop_t loop;
  static int loop_ready;
  fuzz_in_t in = { data, size };
  mcp_rpc_handler_t handler;
  const mcp_transport_cb_t *cb = mcp_rpc_transport_cb();
  mcp_rpc_req_opts_t opts;
  mcp_error_t err;
  const char *p, *end, *nl;
  uint8_t nreq, raw, progress;
  rec_t t;
  int i;

  if (!loop_ready) {
    FUZZ_CHECK(uv_loop_init(&loop) == 0);
    loop_ready = 1;
  }
  nreq = fuzz_byte(&in) % MAX_REQ;
  raw = fuzz_byte(&in);
  progress = fuzz_byte(&in);
  p = (const char *) in.p;
  end = p + in.n;

  /* Each message alone. */
  while (p < end) {
    nl = memchr(p, '\n', (size_t) (end - p));
    if (nl == NULL)
      nl = end;
    check_message(p, (size_t) (nl - p), 0);
    p = nl + (nl < end);
  }

  /* All of them through an endpoint with requests waiting. */
  memset(&handler, 0, sizeof handler);
  memset(&t, 0, sizeof t);
  memset(done_count, 0, sizeof done_count);
  handler.on_bad_message = on_bad_message;
  t.base.vt = &rec_vt;
  t.rpc = mcp_rpc_new(&loop, NULL, &handler, NULL);
  FUZZ_CHECK(t.rpc != NULL);
  mcp_rpc_attach(t.rpc, &t.base);
  for (i = 0; i < nreq; i++) {
    memset(&opts, 0, sizeof opts);
    if (raw & (1u << i))
      opts.on_raw_result = on_raw;
    if (progress & (1u << i))
      opts.on_progress = on_progress;
    FUZZ_CHECK(mcp_rpc_request(t.rpc, "tools/call", NULL, &opts, on_done,
                               (void *) (intptr_t) i, NULL, &err) == 0);
  }
  p = (const char *) in.p;
  while (p < end && mcp_rpc_is_open(t.rpc)) {
    nl = memchr(p, '\n', (size_t) (end - p));
    if (nl == NULL)
      nl = end;
    if (nl > p && *p == '\x01')
      cb->on_oversize(t.rpc, MCP_DEFAULT_MAX_MESSAGE + 1,
                      nl - p > 1 ? p + 1 : NULL,
                      (size_t) (nl - p - 1 > 63 ? 63 : nl - p - 1));
    else
      cb->on_message(t.rpc, p, (size_t) (nl - p));
    p = nl + (nl < end);
  }
  mcp_rpc_close(t.rpc);
  FUZZ_CHECK(uv_run(&loop, UV_RUN_DEFAULT) == 0);
  FUZZ_CHECK(t.closed);
  for (i = 0; i < nreq; i++) {
    if (done_count[i] != 1) {
      fprintf(stderr, "jsonrpc: request %d completed %d times\n", i,
              done_count[i]);
      abort();
    }
  }
  return 0;
}
