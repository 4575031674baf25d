/*
 * test_jsonrpc.c - tests for JSON-RPC classification and encoding
 * (jsonrpc.c): every message kind, every reason a message is invalid, ids
 * keeping their JSON type (the string "7" is not the number 7), the range
 * of ids mcp_jsonrpc_id_u64 accepts, and encoders whose output parses back
 * to the expected fields.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "common.h"
#include "json.h"
#include "jsonrpc.h"
#include "test.h"

static cJSON *
parse(const char *s)
{
  cJSON *v = mcp_json_parse(s, strlen(s), MCP_DEFAULT_MAX_DEPTH, NULL);

  if (v == NULL)
    fprintf(stderr, "cannot parse: %s\n", s);
  ASSERT_NOT_NULL(v);
  return v;
}

/* Classifies s and checks the kind; *doc must be freed by the caller. */
static mcp_msg_kind_t
classify(const char *s, cJSON **doc, mcp_msg_t *m)
{
  mcp_msg_kind_t kind;

  *doc = parse(s);
  memset(m, 0x5a, sizeof *m); /* classify must fill every field */
  kind = mcp_jsonrpc_classify(*doc, m);
  ASSERT_EQ(kind, m->kind);
  return kind;
}

/* Asserts s is invalid and that `why` mentions the given phrase. */
static void
check_invalid(const char *s, const char *phrase)
{
  cJSON *doc;
  mcp_msg_t m;

  if (classify(s, &doc, &m) != MCP_MSG_INVALID)
    fprintf(stderr, "input: %s\n", s);
  ASSERT_EQ(m.kind, MCP_MSG_INVALID);
  ASSERT_NOT_NULL(m.why);
  if (strstr(m.why, phrase) == NULL)
    fprintf(stderr, "input: %s why: %s\n", s, m.why);
  ASSERT_NOT_NULL(strstr(m.why, phrase));
  cJSON_Delete(doc);
}

static void
test_classify_request(void)
{
  cJSON *doc;
  mcp_msg_t m;
  uint64_t id = 0;

  ASSERT_EQ(classify("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}", &doc,
                     &m),
            MCP_MSG_REQUEST);
  ASSERT_STR_EQ(m.method, "ping");
  ASSERT_NULL(m.params);
  ASSERT_NULL(m.result);
  ASSERT_NULL(m.why);
  ASSERT(cJSON_IsNumber(m.id));
  ASSERT_EQ(mcp_jsonrpc_id_u64(m.id, &id), 0);
  ASSERT_EQ(id, 7);
  cJSON_Delete(doc);

  ASSERT_EQ(classify("{\"method\":\"tools/call\",\"params\":{\"name\":\"x\"},"
                     "\"id\":\"r-1\",\"jsonrpc\":\"2.0\"}",
                     &doc, &m),
            MCP_MSG_REQUEST);
  ASSERT_STR_EQ(m.method, "tools/call");
  ASSERT(cJSON_IsObject(m.params));
  ASSERT_STR_EQ(mcp_json_string(m.params, "name"), "x");
  ASSERT(cJSON_IsString(m.id));
  ASSERT_STR_EQ(m.id->valuestring, "r-1");
  ASSERT_EQ(mcp_jsonrpc_id_u64(m.id, &id), MCP_EINVAL);
  cJSON_Delete(doc);

  /* params may be an array (by-position parameters). */
  ASSERT_EQ(classify("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"m\","
                     "\"params\":[1,2]}",
                     &doc, &m),
            MCP_MSG_REQUEST);
  ASSERT(cJSON_IsArray(m.params));
  cJSON_Delete(doc);
}

static void
test_classify_notification(void)
{
  cJSON *doc;
  mcp_msg_t m;

  ASSERT_EQ(classify("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/"
                     "progress\",\"params\":{\"progress\":1}}",
                     &doc, &m),
            MCP_MSG_NOTIFICATION);
  ASSERT_STR_EQ(m.method, "notifications/progress");
  ASSERT(cJSON_IsObject(m.params));
  ASSERT_NULL(m.id);
  ASSERT_NULL(m.why);
  cJSON_Delete(doc);

  ASSERT_EQ(classify("{\"jsonrpc\":\"2.0\",\"method\":\"n\"}", &doc, &m),
            MCP_MSG_NOTIFICATION);
  ASSERT_NULL(m.params);
  cJSON_Delete(doc);
}

static void
test_classify_result(void)
{
  cJSON *doc;
  mcp_msg_t m;
  uint64_t id = 0;

  ASSERT_EQ(classify("{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"ok\":true}}",
                     &doc, &m),
            MCP_MSG_RESULT);
  ASSERT(cJSON_IsObject(m.result));
  ASSERT(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m.result, "ok")));
  ASSERT_NULL(m.method);
  ASSERT_NULL(m.why);
  ASSERT_EQ(mcp_jsonrpc_id_u64(m.id, &id), 0);
  ASSERT_EQ(id, 3);
  cJSON_Delete(doc);

  /* Any JSON value is a result, null included. */
  ASSERT_EQ(classify("{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":null}", &doc,
                     &m),
            MCP_MSG_RESULT);
  ASSERT(cJSON_IsNull(m.result));
  cJSON_Delete(doc);
  ASSERT_EQ(classify("{\"result\":[],\"id\":\"s\",\"jsonrpc\":\"2.0\"}", &doc,
                     &m),
            MCP_MSG_RESULT);
  ASSERT(cJSON_IsArray(m.result));
  ASSERT_STR_EQ(m.id->valuestring, "s");
  cJSON_Delete(doc);
}

static void
test_classify_error(void)
{
  cJSON *doc;
  mcp_msg_t m;

  ASSERT_EQ(classify("{\"jsonrpc\":\"2.0\",\"id\":5,\"error\":{\"code\":-32601,"
                     "\"message\":\"Method not found\",\"data\":{\"m\":1}}}",
                     &doc, &m),
            MCP_MSG_ERROR);
  ASSERT_EQ(m.error_code, MCP_RPC_METHOD_NOT_FOUND);
  ASSERT_STR_EQ(m.error_message, "Method not found");
  ASSERT(cJSON_IsObject(m.error_data));
  ASSERT(cJSON_IsNumber(m.id));
  ASSERT_NULL(m.result);
  ASSERT_NULL(m.why);
  cJSON_Delete(doc);

  /* A null id is allowed on an error (the peer could not read ours). */
  ASSERT_EQ(classify("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":"
                     "-32700,\"message\":\"Parse error\"}}",
                     &doc, &m),
            MCP_MSG_ERROR);
  ASSERT_NULL(m.id);
  ASSERT_EQ(m.error_code, MCP_RPC_PARSE_ERROR);
  ASSERT_NULL(m.error_data);
  cJSON_Delete(doc);

  /* The message is never NULL on an error. */
  ASSERT_EQ(classify("{\"jsonrpc\":\"2.0\",\"id\":\"e\","
                     "\"error\":{\"code\":1}}",
                     &doc, &m),
            MCP_MSG_ERROR);
  ASSERT_NOT_NULL(m.error_message);
  ASSERT_EQ(m.error_code, 1);
  ASSERT_STR_EQ(m.id->valuestring, "e");
  cJSON_Delete(doc);
  ASSERT_EQ(classify("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":2,"
                     "\"message\":7}}",
                     &doc, &m),
            MCP_MSG_ERROR);
  ASSERT_NOT_NULL(m.error_message);
  cJSON_Delete(doc);
}

static void
test_classify_error_code_out_of_range(void)
{
  cJSON *doc;
  mcp_msg_t m;

  /* Known bug: error.code is cast from double to int, which is undefined
   * for values outside int (UBSan: float-cast-overflow). It should
   * saturate, as cJSON's valueint does. */
  ASSERT_EQ(classify("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":1e300,"
                     "\"message\":\"m\"}}",
                     &doc, &m),
            MCP_MSG_ERROR);
  ASSERT_EQ(m.error_code, 2147483647);
  cJSON_Delete(doc);
  ASSERT_EQ(classify("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-1e300,"
                     "\"message\":\"m\"}}",
                     &doc, &m),
            MCP_MSG_ERROR);
  ASSERT_EQ(m.error_code, -2147483647 - 1);
  cJSON_Delete(doc);
}

static void
test_classify_invalid(void)
{
  check_invalid("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}]", "batch");
  check_invalid("[]", "batch");
  check_invalid("\"x\"", "not a JSON object");
  check_invalid("42", "not a JSON object");
  check_invalid("null", "not a JSON object");
  check_invalid("{\"id\":1,\"method\":\"a\"}", "jsonrpc");
  check_invalid("{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"a\"}", "jsonrpc");
  check_invalid("{\"jsonrpc\":2.0,\"id\":1,\"method\":\"a\"}", "jsonrpc");
  check_invalid("{\"jsonrpc\":\"2.0 \",\"id\":1,\"method\":\"a\"}",
                "jsonrpc");
  check_invalid("{\"JSONRPC\":\"2.0\",\"id\":1,\"method\":\"a\"}", "jsonrpc");
  check_invalid("{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"a\"}",
                "id is null");
  check_invalid("{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"a\"}",
                "neither a string nor a number");
  check_invalid("{\"jsonrpc\":\"2.0\",\"id\":{},\"result\":{}}",
                "neither a string nor a number");
  check_invalid("{\"jsonrpc\":\"2.0\",\"id\":[1],\"result\":{}}",
                "neither a string nor a number");
  check_invalid("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":"
                "{\"code\":1,\"message\":\"m\"}}",
                "both result and error");
  check_invalid("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\","
                "\"params\":\"x\"}",
                "params");
  check_invalid("{\"jsonrpc\":\"2.0\",\"method\":\"a\",\"params\":3}",
                "params");
  check_invalid("{\"jsonrpc\":\"2.0\",\"method\":\"a\",\"params\":null}",
                "params");
  check_invalid("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"message\":\"m\"}}",
                "code");
  check_invalid("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":\"1\","
                "\"message\":\"m\"}}",
                "code");
  check_invalid("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":\"boom\"}",
                "error is not an object");
  check_invalid("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":5}",
                "method is not a string");
  check_invalid("{\"jsonrpc\":\"2.0\",\"method\":null}",
                "method is not a string");
  check_invalid("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\","
                "\"result\":{}}",
                "result or error");
  check_invalid("{\"jsonrpc\":\"2.0\",\"result\":{}}", "without an id");
  check_invalid("{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":{}}",
                "without an id");
  check_invalid("{\"jsonrpc\":\"2.0\",\"id\":1}", "neither");
  check_invalid("{\"jsonrpc\":\"2.0\"}", "neither");
}

static void
test_classify_non_json_values(void)
{
  mcp_msg_t m;

  ASSERT_EQ(mcp_jsonrpc_classify(NULL, &m), MCP_MSG_INVALID);
  ASSERT_NOT_NULL(m.why);
}

static void
test_id_type_is_kept(void)
{
  cJSON *doc;
  mcp_msg_t m;
  uint64_t id = 99;

  ASSERT_EQ(classify("{\"jsonrpc\":\"2.0\",\"id\":\"7\",\"result\":{}}", &doc,
                     &m),
            MCP_MSG_RESULT);
  ASSERT(cJSON_IsString(m.id));
  ASSERT_EQ(mcp_jsonrpc_id_u64(m.id, &id), MCP_EINVAL);
  ASSERT_EQ(id, 99); /* untouched on failure */
  cJSON_Delete(doc);

  ASSERT_EQ(classify("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}", &doc, &m),
            MCP_MSG_RESULT);
  ASSERT(cJSON_IsNumber(m.id));
  ASSERT_EQ(mcp_jsonrpc_id_u64(m.id, &id), 0);
  ASSERT_EQ(id, 7);
  cJSON_Delete(doc);
}

static int
id_of(const char *text, uint64_t *out)
{
  cJSON *v = parse(text);
  int rc = mcp_jsonrpc_id_u64(v, out);

  cJSON_Delete(v);
  return rc;
}

static void
test_id_u64_range(void)
{
  uint64_t id = 0;

  ASSERT_EQ(id_of("0", &id), 0);
  ASSERT_EQ(id, 0);
  ASSERT_EQ(id_of("1", &id), 0);
  ASSERT_EQ(id, 1);
  ASSERT_EQ(id_of("4294967296", &id), 0);
  ASSERT(id == UINT64_C(4294967296));
  ASSERT_EQ(id_of("9007199254740991", &id), 0); /* 2^53 - 1 */
  ASSERT(id == UINT64_C(9007199254740991));
  ASSERT_EQ(id_of("7.0", &id), 0);
  ASSERT_EQ(id, 7);
  ASSERT_EQ(id_of("1e3", &id), 0);
  ASSERT_EQ(id, 1000);

  id = 42;
  ASSERT_EQ(id_of("9007199254740992", &id), MCP_EINVAL); /* 2^53 */
  ASSERT_EQ(id_of("18446744073709551616", &id), MCP_EINVAL);
  ASSERT_EQ(id_of("1e300", &id), MCP_EINVAL);
  ASSERT_EQ(id_of("1.5", &id), MCP_EINVAL);
  ASSERT_EQ(id_of("0.1", &id), MCP_EINVAL);
  ASSERT_EQ(id_of("-1", &id), MCP_EINVAL);
  ASSERT_EQ(id_of("-0.5", &id), MCP_EINVAL);
  ASSERT_EQ(id_of("\"7\"", &id), MCP_EINVAL);
  ASSERT_EQ(id_of("null", &id), MCP_EINVAL);
  ASSERT_EQ(id_of("true", &id), MCP_EINVAL);
  ASSERT_EQ(id_of("[7]", &id), MCP_EINVAL);
  ASSERT_EQ(mcp_jsonrpc_id_u64(NULL, &id), MCP_EINVAL);
  ASSERT_EQ(id, 42);
}

/* Parses an encoder's output, checks it is one unformatted JSON object
 * with "jsonrpc":"2.0", and frees the text. */
static cJSON *
parse_encoded(char *text)
{
  cJSON *v;

  ASSERT_NOT_NULL(text);
  ASSERT_NULL(strchr(text, '\n')); /* one line: safe for stdio framing */
  v = parse(text);
  cJSON_free(text);
  ASSERT(cJSON_IsObject(v));
  ASSERT_STR_EQ(mcp_json_string(v, "jsonrpc"), "2.0");
  return v;
}

static void
test_encode_request(void)
{
  cJSON *params = parse("{\"name\":\"echo\",\"arguments\":{\"t\":[1,\"x\"]}}");
  cJSON *v, *id;
  mcp_msg_t m;
  uint64_t n = 0;

  v = parse_encoded(mcp_jsonrpc_request(12, "tools/call", params));
  ASSERT_EQ(cJSON_GetArraySize(v), 4);
  id = cJSON_GetObjectItemCaseSensitive(v, "id");
  ASSERT(cJSON_IsNumber(id));
  ASSERT_EQ(mcp_jsonrpc_id_u64(id, &n), 0);
  ASSERT_EQ(n, 12);
  ASSERT_STR_EQ(mcp_json_string(v, "method"), "tools/call");
  ASSERT(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(v, "params"), params,
                       1));
  ASSERT_EQ(mcp_jsonrpc_classify(v, &m), MCP_MSG_REQUEST);
  cJSON_Delete(v);
  /* The borrowed params are left intact. */
  ASSERT_STR_EQ(mcp_json_string(params, "name"), "echo");
  cJSON_Delete(params);

  /* Without params there is no "params" key; 15-digit ids survive. */
  v = parse_encoded(mcp_jsonrpc_request(UINT64_C(999999999999999), "ping",
                                        NULL));
  ASSERT_EQ(cJSON_GetArraySize(v), 3);
  ASSERT_NULL(cJSON_GetObjectItemCaseSensitive(v, "params"));
  ASSERT_EQ(mcp_jsonrpc_id_u64(cJSON_GetObjectItemCaseSensitive(v, "id"), &n),
            0);
  ASSERT(n == UINT64_C(999999999999999));
  cJSON_Delete(v);

  /* cJSON would print 2^53 - 1 with 15 digits (9.00719925474099e+15) and
   * the echoed id would no longer match: ids are printed as integers. */
  {
    char *text = mcp_jsonrpc_request(UINT64_C(9007199254740991), "p", NULL);

    ASSERT_STR_EQ(text, "{\"jsonrpc\":\"2.0\",\"id\":9007199254740991,"
                        "\"method\":\"p\"}");
    cJSON_free(text);
    text = mcp_jsonrpc_request(UINT64_C(1000000000000000), "p", NULL);
    ASSERT_STR_EQ(text, "{\"jsonrpc\":\"2.0\",\"id\":1000000000000000,"
                        "\"method\":\"p\"}");
    cJSON_free(text);
  }

  v = parse_encoded(mcp_jsonrpc_request(0, "ping", NULL));
  ASSERT_EQ(mcp_jsonrpc_id_u64(cJSON_GetObjectItemCaseSensitive(v, "id"), &n),
            0);
  ASSERT_EQ(n, 0);
  cJSON_Delete(v);
}

/* A params writer that writes its own id, or fails halfway. */
static int
write_id_or_fail(void *ud, uint64_t id, mcp_buf_t *b, mcp_error_t *err)
{
  char num[32];

  if (ud != NULL) {
    mcp_buf_append(b, "{\"half", 6);
    return mcp_error_set(err, MCP_EINVAL, "cannot encode a function");
  }
  snprintf(num, sizeof num, "{\"token\":%llu}", (unsigned long long) id);
  return mcp_buf_append(b, num, strlen(num));
}

static void
test_write_request_in_place(void)
{
  mcp_error_t err;
  mcp_buf_t b;
  int fail = 1;

  /* Appends: what the buffer held stays, and the writer sees the id. */
  mcp_buf_init(&b, 0);
  mcp_buf_append(&b, "x", 1);
  ASSERT_EQ(mcp_jsonrpc_write_request(&b, 77, "tools/call", write_id_or_fail,
                                      NULL, &err), 0);
  ASSERT_STR_EQ(b.data, "x{\"jsonrpc\":\"2.0\",\"id\":77,\"method\":"
                        "\"tools/call\",\"params\":{\"token\":77}}");
  /* A writer's failure is the request's, with the writer's message. */
  mcp_buf_reset(&b);
  ASSERT_EQ(mcp_jsonrpc_write_request(&b, 1, "m", write_id_or_fail, &fail,
                                      &err), MCP_EINVAL);
  ASSERT_EQ(err.code, MCP_EINVAL);
  ASSERT_STR_EQ(err.msg, "cannot encode a function");
  /* A size limit on the buffer is ETOOBIG, not a truncated message. */
  mcp_buf_free(&b);
  mcp_buf_init(&b, 16);
  ASSERT_EQ(mcp_jsonrpc_write_request(&b, 1, "ping", NULL, NULL, &err),
            MCP_ETOOBIG);
  mcp_buf_free(&b);
}

static void
test_encode_request_exact_text(void)
{
  char *text = mcp_jsonrpc_request(1, "ping", NULL);

  ASSERT_STR_EQ(text, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
  cJSON_free(text);
}

static void
test_encode_notification(void)
{
  cJSON *params = parse("[1,2,3]");
  cJSON *v;
  mcp_msg_t m;

  v = parse_encoded(mcp_jsonrpc_notification("notifications/initialized",
                                             NULL));
  ASSERT_EQ(cJSON_GetArraySize(v), 2);
  ASSERT_NULL(cJSON_GetObjectItemCaseSensitive(v, "id"));
  ASSERT_STR_EQ(mcp_json_string(v, "method"), "notifications/initialized");
  ASSERT_EQ(mcp_jsonrpc_classify(v, &m), MCP_MSG_NOTIFICATION);
  cJSON_Delete(v);

  v = parse_encoded(mcp_jsonrpc_notification("n", params));
  ASSERT(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(v, "params"), params,
                       1));
  ASSERT_NULL(cJSON_GetObjectItemCaseSensitive(v, "id"));
  cJSON_Delete(v);
  cJSON_Delete(params);
}

static void
test_encode_result_echoes_id_type(void)
{
  cJSON *req = parse("{\"jsonrpc\":\"2.0\",\"id\":\"7\",\"method\":\"ping\"}");
  cJSON *result = parse("{\"tools\":[],\"x\":\"\\\"\"}");
  cJSON *v, *id;
  mcp_msg_t m;

  ASSERT_EQ(mcp_jsonrpc_classify(req, &m), MCP_MSG_REQUEST);
  v = parse_encoded(mcp_jsonrpc_result(m.id, result));
  id = cJSON_GetObjectItemCaseSensitive(v, "id");
  ASSERT(cJSON_IsString(id)); /* "7" stays a string */
  ASSERT_STR_EQ(id->valuestring, "7");
  ASSERT(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(v, "result"), result,
                       1));
  ASSERT_EQ(mcp_jsonrpc_classify(v, &m), MCP_MSG_RESULT);
  cJSON_Delete(v);
  cJSON_Delete(req);

  req = parse("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}");
  ASSERT_EQ(mcp_jsonrpc_classify(req, &m), MCP_MSG_REQUEST);
  v = parse_encoded(mcp_jsonrpc_result(m.id, result));
  id = cJSON_GetObjectItemCaseSensitive(v, "id");
  ASSERT(cJSON_IsNumber(id)); /* 7 stays a number */
  ASSERT_EQ(id->valueint, 7);
  cJSON_Delete(v);

  /* A NULL result encodes as an empty object. */
  v = parse_encoded(mcp_jsonrpc_result(m.id, NULL));
  ASSERT(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(v, "result")));
  ASSERT_EQ(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(v, "result")),
            0);
  ASSERT_EQ(cJSON_GetArraySize(v), 3);
  cJSON_Delete(v);
  cJSON_Delete(req);
  cJSON_Delete(result);
}

static void
test_encode_error(void)
{
  cJSON *sid = cJSON_CreateString("abc");
  cJSON *nid = cJSON_CreateNumber(9);
  cJSON *data = parse("{\"detail\":[1]}");
  cJSON *v, *err, *id;
  mcp_msg_t m;

  ASSERT_NOT_NULL(sid);
  ASSERT_NOT_NULL(nid);
  v = parse_encoded(mcp_jsonrpc_error(sid, MCP_RPC_METHOD_NOT_FOUND,
                                      "Method not found", data));
  id = cJSON_GetObjectItemCaseSensitive(v, "id");
  ASSERT(cJSON_IsString(id));
  ASSERT_STR_EQ(id->valuestring, "abc");
  err = cJSON_GetObjectItemCaseSensitive(v, "error");
  ASSERT(cJSON_IsObject(err));
  ASSERT(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(err, "data"), data, 1));
  ASSERT_EQ(mcp_jsonrpc_classify(v, &m), MCP_MSG_ERROR);
  ASSERT_EQ(m.error_code, -32601);
  ASSERT_STR_EQ(m.error_message, "Method not found");
  ASSERT_NULL(cJSON_GetObjectItemCaseSensitive(v, "result"));
  cJSON_Delete(v);

  v = parse_encoded(mcp_jsonrpc_error(nid, MCP_RPC_INTERNAL_ERROR, "boom",
                                      NULL));
  id = cJSON_GetObjectItemCaseSensitive(v, "id");
  ASSERT(cJSON_IsNumber(id));
  ASSERT_EQ(id->valueint, 9);
  err = cJSON_GetObjectItemCaseSensitive(v, "error");
  ASSERT_NULL(cJSON_GetObjectItemCaseSensitive(err, "data"));
  ASSERT_EQ(cJSON_GetArraySize(err), 2);
  ASSERT_EQ(mcp_jsonrpc_classify(v, &m), MCP_MSG_ERROR);
  ASSERT_EQ(m.error_code, MCP_RPC_INTERNAL_ERROR);
  cJSON_Delete(v);

  cJSON_Delete(sid);
  cJSON_Delete(nid);
  cJSON_Delete(data);
}

static void
test_encode_error_null_id(void)
{
  char *text = mcp_jsonrpc_error(NULL, MCP_RPC_PARSE_ERROR, "Parse error",
                                 NULL);
  cJSON *v;
  mcp_msg_t m;

  ASSERT_NOT_NULL(text);
  ASSERT_NOT_NULL(strstr(text, "\"id\":null"));
  v = parse_encoded(text);
  ASSERT(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(v, "id")));
  ASSERT_EQ(mcp_jsonrpc_classify(v, &m), MCP_MSG_ERROR);
  ASSERT_NULL(m.id);
  ASSERT_EQ(m.error_code, MCP_RPC_PARSE_ERROR);
  ASSERT_STR_EQ(m.error_message, "Parse error");
  cJSON_Delete(v);
}

static void
test_encode_escapes_strings(void)
{
  cJSON *v;
  cJSON *id = cJSON_CreateString("a\"b\n");

  ASSERT_NOT_NULL(id);
  v = parse_encoded(mcp_jsonrpc_request(1, "we\"ird\nname", NULL));
  ASSERT_STR_EQ(mcp_json_string(v, "method"), "we\"ird\nname");
  cJSON_Delete(v);
  v = parse_encoded(mcp_jsonrpc_error(id, -1, "line1\nline2", NULL));
  ASSERT_STR_EQ(mcp_json_string(v, "id"), "a\"b\n");
  ASSERT_STR_EQ(mcp_json_string(mcp_json_object(v, "error"), "message"),
                "line1\nline2");
  cJSON_Delete(v);
  cJSON_Delete(id);
}

int
main(void)
{
  RUN_TEST(test_classify_request);
  RUN_TEST(test_classify_notification);
  RUN_TEST(test_classify_result);
  RUN_TEST(test_classify_error);
  RUN_TEST(test_classify_error_code_out_of_range);
  RUN_TEST(test_classify_invalid);
  RUN_TEST(test_classify_non_json_values);
  RUN_TEST(test_id_type_is_kept);
  RUN_TEST(test_id_u64_range);
  RUN_TEST(test_encode_request);
  RUN_TEST(test_encode_request_exact_text);
  RUN_TEST(test_write_request_in_place);
  RUN_TEST(test_encode_notification);
  RUN_TEST(test_encode_result_echoes_id_type);
  RUN_TEST(test_encode_error);
  RUN_TEST(test_encode_error_null_id);
  RUN_TEST(test_encode_escapes_strings);
  TEST_DONE();
}
