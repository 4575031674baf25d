/*
 * fixture_mcp.c - the MCP answers of the benchmark fixture servers; see
 * fixture_mcp.h.
 */
#include "fixture_mcp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FX_CHUNK (64 * 1024)
#define FX_PRINT_SLACK 256      /* cJSON_PrintPreallocated wants spare room */

const char *fx_program = "fixture";

static const char *const fx_versions[] = {
  "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", NULL
};

static char *fx_tools_result;   /* printed tools/list result, owned */
static size_t fx_tools_result_len;

void
fx_die(const char *what)
{
  fprintf(stderr, "%s: %s\n", fx_program, what);
  exit(2);
}

void
fx_buf_reserve(fx_buf_t *b, size_t n)
{
  size_t want;
  char *p;

  if (b->cap - b->len >= n)
    return;
  want = b->cap ? b->cap : FX_CHUNK;
  while (want - b->len < n)
    want *= 2;
  p = realloc(b->data, want);
  if (p == NULL)
    fx_die("out of memory");
  b->data = p;
  b->cap = want;
}

void
fx_buf_add(fx_buf_t *b, const char *s, size_t n)
{
  fx_buf_reserve(b, n);
  memcpy(b->data + b->len, s, n);
  b->len += n;
}

void
fx_buf_add_json(fx_buf_t *b, cJSON *item, size_t size_hint)
{
  char *text;

  fx_buf_reserve(b, size_hint + FX_PRINT_SLACK);
  if (cJSON_PrintPreallocated(item, b->data + b->len,
        (int) (b->cap - b->len), 0))
  {
    b->len += strlen(b->data + b->len);
    return;
  }
  /* Bigger than the hint: let cJSON size it. */
  text = cJSON_PrintUnformatted(item);
  if (text == NULL)
    fx_die("out of memory");
  fx_buf_add(b, text, strlen(text));
  cJSON_free(text);
}

void
fx_build_tools(int ntools)
{
  cJSON *result = cJSON_CreateObject();
  cJSON *tools = cJSON_AddArrayToObject(result, "tools");
  char name[32];
  int i;

  for (i = 0; i < ntools; i++)
  {
    cJSON *tool = cJSON_CreateObject();
    cJSON *schema = cJSON_CreateObject();
    cJSON *props = cJSON_CreateObject();
    cJSON *prop = cJSON_CreateObject();
    cJSON *req = cJSON_CreateArray();

    if (i == 0)
    {
      cJSON_AddStringToObject(tool, "name", "echo");
      cJSON_AddStringToObject(tool, "description",
        "Returns its 'message' argument as one text content item.");
    }
    else
    {
      snprintf(name, sizeof name, "tool-%d", i);
      cJSON_AddStringToObject(tool, "name", name);
      cJSON_AddStringToObject(tool, "description",
        "A benchmark tool that echoes 'message'; it makes the list long.");
    }
    cJSON_AddStringToObject(prop, "type", "string");
    cJSON_AddStringToObject(prop, "description", "The text to echo back.");
    cJSON_AddItemToObject(props, "message", prop);
    cJSON_AddItemToArray(req, cJSON_CreateString("message"));
    cJSON_AddStringToObject(schema, "type", "object");
    cJSON_AddItemToObject(schema, "properties", props);
    cJSON_AddItemToObject(schema, "required", req);
    cJSON_AddItemToObject(tool, "inputSchema", schema);
    cJSON_AddItemToArray(tools, tool);
  }
  fx_tools_result = cJSON_PrintUnformatted(result);
  if (fx_tools_result == NULL)
    fx_die("out of memory");
  fx_tools_result_len = strlen(fx_tools_result);
  cJSON_Delete(result);
}

/* {"jsonrpc":"2.0","id":<id>,"result": -- the caller adds the rest. */
static void
begin_result(fx_buf_t *out, cJSON *id)
{
  FX_ADD_LIT(out, "{\"jsonrpc\":\"2.0\",\"id\":");
  fx_buf_add_json(out, id, 64);
  FX_ADD_LIT(out, ",\"result\":");
}

static void
answer_initialize(fx_buf_t *out, cJSON *id, cJSON *params,
                  const char *server_name)
{
  const char *version = fx_versions[0];
  cJSON *asked = cJSON_GetObjectItemCaseSensitive(params, "protocolVersion");
  int i;

  if (cJSON_IsString(asked))
  {
    for (i = 0; fx_versions[i] != NULL; i++)
    {
      if (strcmp(asked->valuestring, fx_versions[i]) == 0)
        version = fx_versions[i];
    }
  }
  begin_result(out, id);
  FX_ADD_LIT(out, "{\"protocolVersion\":\"");
  fx_buf_add(out, version, strlen(version));
  FX_ADD_LIT(out, "\",\"capabilities\":{\"tools\":{\"listChanged\":false}},"
    "\"serverInfo\":{\"name\":\"");
  fx_buf_add(out, server_name, strlen(server_name));
  FX_ADD_LIT(out, "\",\"version\":\"1.0.0\"}}}");
}

static void
answer_call(fx_buf_t *out, cJSON *id, cJSON *params)
{
  cJSON *args = cJSON_GetObjectItemCaseSensitive(params, "arguments");
  cJSON *msg = cJSON_GetObjectItemCaseSensitive(args, "message");
  const char *text = cJSON_IsString(msg) ? msg->valuestring : "";
  cJSON *result = cJSON_CreateObject();
  cJSON *item = cJSON_CreateObject();

  /* References: the strings stay owned by the request tree. */
  cJSON_AddItemToObject(item, "type", cJSON_CreateStringReference("text"));
  cJSON_AddItemToObject(item, "text", cJSON_CreateStringReference(text));
  cJSON_AddItemToArray(cJSON_AddArrayToObject(result, "content"), item);
  begin_result(out, id);
  fx_buf_add_json(out, result, 64 + 6 * strlen(text));
  FX_ADD_LIT(out, "}");
  cJSON_Delete(result);
}

void
fx_answer(fx_buf_t *out, cJSON *id, const char *method, cJSON *params,
          const char *server_name)
{
  if (strcmp(method, "tools/call") == 0)
  {
    answer_call(out, id, params);
  }
  else if (strcmp(method, "ping") == 0)
  {
    begin_result(out, id);
    FX_ADD_LIT(out, "{}}");
  }
  else if (strcmp(method, "tools/list") == 0)
  {
    begin_result(out, id);
    fx_buf_add(out, fx_tools_result, fx_tools_result_len);
    FX_ADD_LIT(out, "}");
  }
  else if (strcmp(method, "initialize") == 0)
  {
    answer_initialize(out, id, params, server_name);
  }
  else
  {
    fx_answer_error(out, id, -32601, "Method not found");
  }
}

void
fx_answer_error(fx_buf_t *out, cJSON *id, int code, const char *msg)
{
  char tail[256];
  int n;

  FX_ADD_LIT(out, "{\"jsonrpc\":\"2.0\",\"id\":");
  if (id != NULL)
    fx_buf_add_json(out, id, 64);
  else
    FX_ADD_LIT(out, "null");
  n = snprintf(tail, sizeof tail,
    ",\"error\":{\"code\":%d,\"message\":\"%s\"}}", code, msg);
  fx_buf_add(out, tail, (size_t) n);
}
