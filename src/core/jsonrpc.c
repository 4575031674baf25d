/*
 * jsonrpc.c - classify and encode JSON-RPC 2.0 messages.
 */
#include "jsonrpc.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "common.h"
#include "json.h"

static mcp_msg_kind_t
invalid(mcp_msg_t *out, const char *why)
{
  out->kind = MCP_MSG_INVALID;
  out->why = why;
  return out->kind;
}

static int
valid_id(const cJSON *id)
{
  return cJSON_IsString(id) || cJSON_IsNumber(id);
}

mcp_msg_kind_t
mcp_jsonrpc_classify(cJSON *msg, mcp_msg_t *out)
{
  cJSON *version, *method, *id, *params, *result, *error, *code, *message;

  memset(out, 0, sizeof *out);
  if (cJSON_IsArray(msg))
    return invalid(out, "batches are not supported");
  if (!cJSON_IsObject(msg))
    return invalid(out, "message is not a JSON object");
  version = cJSON_GetObjectItemCaseSensitive(msg, "jsonrpc");
  if (!cJSON_IsString(version) || strcmp(version->valuestring, "2.0") != 0)
    return invalid(out, "jsonrpc is not \"2.0\"");

  id = cJSON_GetObjectItemCaseSensitive(msg, "id");
  method = cJSON_GetObjectItemCaseSensitive(msg, "method");
  result = cJSON_GetObjectItemCaseSensitive(msg, "result");
  error = cJSON_GetObjectItemCaseSensitive(msg, "error");
  if (id != NULL && !cJSON_IsNull(id) && !valid_id(id))
    return invalid(out, "id is neither a string nor a number");
  out->id = (id != NULL && !cJSON_IsNull(id)) ? id : NULL;

  if (method != NULL) {
    if (!cJSON_IsString(method))
      return invalid(out, "method is not a string");
    if (result != NULL || error != NULL)
      return invalid(out, "a request carries result or error");
    params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    if (params != NULL && !cJSON_IsObject(params) && !cJSON_IsArray(params))
      return invalid(out, "params is neither an object nor an array");
    out->method = method->valuestring;
    out->params = params;
    if (id == NULL) {
      out->kind = MCP_MSG_NOTIFICATION;
      return out->kind;
    }
    if (out->id == NULL)
      return invalid(out, "request id is null");
    out->kind = MCP_MSG_REQUEST;
    return out->kind;
  }

  if (result != NULL && error != NULL)
    return invalid(out, "response carries both result and error");
  if (result != NULL) {
    if (out->id == NULL)
      return invalid(out, "result without an id");
    out->result = result;
    out->kind = MCP_MSG_RESULT;
    return out->kind;
  }
  if (error != NULL) {
    if (!cJSON_IsObject(error))
      return invalid(out, "error is not an object");
    code = cJSON_GetObjectItemCaseSensitive(error, "code");
    message = cJSON_GetObjectItemCaseSensitive(error, "message");
    if (!cJSON_IsNumber(code))
      return invalid(out, "error.code is not a number");
    out->error_code = code->valueint; /* cJSON clamps it to int range */
    out->error_message =
        cJSON_IsString(message) ? message->valuestring : "(no message)";
    out->error_data = cJSON_GetObjectItemCaseSensitive(error, "data");
    out->kind = MCP_MSG_ERROR;
    return out->kind;
  }
  return invalid(out, "neither a request, a notification nor a response");
}

int
mcp_jsonrpc_id_u64(const cJSON *id, uint64_t *out)
{
  double d;

  if (!cJSON_IsNumber(id))
    return MCP_EINVAL;
  d = id->valuedouble;
  if (!(d >= 0.0 && d < 9007199254740992.0) || floor(d) != d)
    return MCP_EINVAL;
  *out = (uint64_t) d;
  return 0;
}

/* Builds {"jsonrpc":"2.0", ...} around borrowed parts and prints it. The
 * borrowed items are linked in as references, so nothing is copied. */
static char *
print_envelope(const cJSON *id, uint64_t num_id, int has_num_id,
               const char *method, const char *key, const cJSON *value)
{
  cJSON *msg = cJSON_CreateObject();
  char *text = NULL;

  if (msg == NULL)
    return NULL;
  if (cJSON_AddStringToObject(msg, "jsonrpc", "2.0") == NULL)
    goto error;
  if (has_num_id) {
    /* cJSON prints doubles with 15 digits; ids up to 2^53 need all 16. */
    char num[24];

    snprintf(num, sizeof num, "%" PRIu64, num_id);
    if (cJSON_AddRawToObject(msg, "id", num) == NULL)
      goto error;
  } else if (id != NULL) {
    cJSON *copy = cJSON_Duplicate(id, 0);

    if (copy == NULL)
      goto error;
    cJSON_AddItemToObject(msg, "id", copy);
  } else if (key != NULL && strcmp(key, "error") == 0) {
    if (cJSON_AddNullToObject(msg, "id") == NULL)
      goto error;
  }
  if (method != NULL && cJSON_AddStringToObject(msg, "method", method) == NULL)
    goto error;
  if (value != NULL &&
      !cJSON_AddItemReferenceToObject(msg, key, (cJSON *) value))
    goto error;
  text = cJSON_PrintUnformatted(msg);
error:
  cJSON_Delete(msg);
  return text;
}

/* Appends s as a JSON string literal, escaped by cJSON's own printer
 * into a stack buffer (no allocation for the usual short method name). */
static int
append_json_string(mcp_buf_t *b, const char *s)
{
  cJSON item;
  char small[256];
  char *text;
  int rc;

  memset(&item, 0, sizeof item);
  item.type = cJSON_String | cJSON_IsReference;
  item.valuestring = (char *) s;
  if (cJSON_PrintPreallocated(&item, small, sizeof small, 0))
    return mcp_buf_append(b, small, strlen(small));
  text = cJSON_PrintUnformatted(&item);
  if (text == NULL)
    return MCP_ENOMEM;
  rc = mcp_buf_append(b, text, strlen(text));
  cJSON_free(text);
  return rc;
}

static int
append_u64(mcp_buf_t *b, uint64_t v)
{
  char num[24], *p = num + sizeof num;

  do {
    *--p = (char) ('0' + v % 10);
    v /= 10;
  } while (v != 0);
  return mcp_buf_append(b, p, (size_t) (num + sizeof num - p));
}

int
mcp_jsonrpc_write_request(mcp_buf_t *b, uint64_t id, const char *method,
                          mcp_jsonrpc_params_cb write_params, void *ud,
                          mcp_error_t *err)
{
  static const char head[] = "{\"jsonrpc\":\"2.0\",\"id\":";
  int rc;

  rc = mcp_buf_append(b, head, sizeof head - 1);
  if (rc == 0)
    rc = append_u64(b, id);
  if (rc == 0)
    rc = mcp_buf_append(b, ",\"method\":", 10);
  if (rc == 0)
    rc = append_json_string(b, method);
  if (rc == 0 && write_params != NULL) {
    rc = mcp_buf_append(b, ",\"params\":", 10);
    if (rc == 0) {
      rc = write_params(ud, id, b, err);
      if (rc != 0)
        return rc;
    }
  }
  if (rc == 0)
    rc = mcp_buf_putc(b, '}');
  if (rc != 0)
    return mcp_error_set(err, rc, "encoding a request");
  return 0;
}

int
mcp_jsonrpc_write_cjson(void *ud, uint64_t id, mcp_buf_t *b, mcp_error_t *err)
{
  char *text = cJSON_PrintUnformatted(ud);
  int rc;

  MCP_UNUSED(id);
  if (text == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  rc = mcp_buf_append(b, text, strlen(text));
  cJSON_free(text);
  return rc != 0 ? mcp_error_set(err, rc, NULL) : 0;
}

char *
mcp_jsonrpc_request(uint64_t id, const char *method, const cJSON *params)
{
  char *out = NULL;
  mcp_buf_t b;

  mcp_buf_init(&b, 0);
  if (mcp_jsonrpc_write_request(&b, id, method,
                                params ? mcp_jsonrpc_write_cjson : NULL,
                                (void *) params, NULL) == 0)
    out = cJSON_malloc(b.len + 1);
  if (out != NULL)
    memcpy(out, b.data, b.len + 1);
  mcp_buf_free(&b);
  return out;
}

char *
mcp_jsonrpc_notification(const char *method, const cJSON *params)
{
  return print_envelope(NULL, 0, 0, method, "params", params);
}

char *
mcp_jsonrpc_result(const cJSON *id, const cJSON *result)
{
  cJSON *empty = NULL;
  char *text;

  if (result == NULL) {
    empty = cJSON_CreateObject();
    if (empty == NULL)
      return NULL;
    result = empty;
  }
  text = print_envelope(id, 0, 0, NULL, "result", result);
  cJSON_Delete(empty);
  return text;
}

char *
mcp_jsonrpc_error(const cJSON *id, int code, const char *message,
                  const cJSON *data)
{
  cJSON *error = cJSON_CreateObject();
  char *text = NULL;

  if (error == NULL)
    return NULL;
  if (cJSON_AddNumberToObject(error, "code", code) == NULL ||
      cJSON_AddStringToObject(error, "message", message) == NULL)
    goto done;
  if (data != NULL)
    cJSON_AddItemReferenceToObject(error, "data", (cJSON *) data);
  text = print_envelope(id, 0, 0, NULL, "error", error);
done:
  cJSON_Delete(error);
  return text;
}
