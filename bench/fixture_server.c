/*
 * fixture_server.c - a fast MCP server over stdio, for the benchmark.
 *
 * It exists so that the benchmark measures the client, not the server:
 * newline-delimited JSON-RPC on stdin/stdout, one read(2) per batch of
 * input, every answer to that batch appended to one output buffer and
 * written with one write(2) loop. The input and output buffers are owned
 * by main and grow only when a message is bigger than any seen before;
 * the only per-message allocations are cJSON's own (the parsed request
 * and the small response tree, whose strings point into the request).
 *
 * Methods: initialize (echoes the client's protocolVersion when it is one
 * we know, else answers 2025-11-25), ping, tools/list (one page of N
 * tools: echo, tool-1 .. tool-(N-1)), tools/call (every tool echoes
 * arguments.message as one text item). Notifications are ignored; other
 * requests get -32601. The tools/list result is printed once at startup
 * and reused.
 *
 * Usage: fixture_server [--tools N]      (default 1)
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIX_READ_CHUNK (64 * 1024)
#define FIX_PRINT_SLACK 256     /* cJSON_PrintPreallocated wants spare room */

typedef struct fix_buf_s
{
  char *data;                   /* owned; malloc'd */
  size_t len;                   /* bytes used */
  size_t cap;                   /* bytes allocated */
} fix_buf_t;

static const char *const fix_versions[] = {
  "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", NULL
};

static char *fix_tools_result;  /* printed tools/list result, owned */
static size_t fix_tools_result_len;

static void
fix_die(const char *what)
{
  fprintf(stderr, "fixture_server: %s\n", what);
  exit(2);
}

/* Makes room for at least n more bytes. */
static void
fix_buf_reserve(fix_buf_t *b, size_t n)
{
  size_t want;
  char *p;

  if (b->cap - b->len >= n)
    return;
  want = b->cap ? b->cap : FIX_READ_CHUNK;
  while (want - b->len < n)
    want *= 2;
  p = realloc(b->data, want);
  if (p == NULL)
    fix_die("out of memory");
  b->data = p;
  b->cap = want;
}

static void
fix_buf_add(fix_buf_t *b, const char *s, size_t n)
{
  fix_buf_reserve(b, n);
  memcpy(b->data + b->len, s, n);
  b->len += n;
}

/* Appends item as unformatted JSON, printing straight into the buffer. */
static void
fix_buf_add_json(fix_buf_t *b, cJSON *item, size_t size_hint)
{
  char *text;

  fix_buf_reserve(b, size_hint + FIX_PRINT_SLACK);
  if (cJSON_PrintPreallocated(item, b->data + b->len,
        (int) (b->cap - b->len), 0))
  {
    b->len += strlen(b->data + b->len);
    return;
  }
  /* Bigger than the hint: let cJSON size it. */
  text = cJSON_PrintUnformatted(item);
  if (text == NULL)
    fix_die("out of memory");
  fix_buf_add(b, text, strlen(text));
  cJSON_free(text);
}

static void
fix_write_all(fix_buf_t *out)
{
  size_t off = 0;
  ssize_t n;

  while (off < out->len)
  {
    n = write(STDOUT_FILENO, out->data + off, out->len - off);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      exit(0);                  /* the client went away */
    off += (size_t) n;
  }
  out->len = 0;
}

/* The whole tools/list result, printed once. */
static void
fix_build_tools(int ntools)
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
  fix_tools_result = cJSON_PrintUnformatted(result);
  if (fix_tools_result == NULL)
    fix_die("out of memory");
  fix_tools_result_len = strlen(fix_tools_result);
  cJSON_Delete(result);
}

/* {"jsonrpc":"2.0","id":<id>, then the caller adds the rest. */
static void
fix_begin_response(fix_buf_t *out, cJSON *id)
{
  fix_buf_add(out, "{\"jsonrpc\":\"2.0\",\"id\":", 22);
  fix_buf_add_json(out, id, 64);
}

static void
fix_answer_initialize(fix_buf_t *out, cJSON *id, cJSON *params)
{
  const char *version = fix_versions[0];
  cJSON *asked = cJSON_GetObjectItemCaseSensitive(params, "protocolVersion");
  cJSON *result;
  cJSON *caps;
  cJSON *info;
  int i;

  if (cJSON_IsString(asked))
  {
    for (i = 0; fix_versions[i] != NULL; i++)
    {
      if (strcmp(asked->valuestring, fix_versions[i]) == 0)
        version = fix_versions[i];
    }
  }
  result = cJSON_CreateObject();
  cJSON_AddItemToObject(result, "protocolVersion",
    cJSON_CreateStringReference(version));
  caps = cJSON_AddObjectToObject(result, "capabilities");
  cJSON_AddItemToObject(cJSON_AddObjectToObject(caps, "tools"), "listChanged",
    cJSON_CreateFalse());
  info = cJSON_AddObjectToObject(result, "serverInfo");
  cJSON_AddStringToObject(info, "name", "luamcp-bench-fixture");
  cJSON_AddStringToObject(info, "version", "1.0.0");
  fix_begin_response(out, id);
  fix_buf_add(out, ",\"result\":", 10);
  fix_buf_add_json(out, result, 512);
  fix_buf_add(out, "}\n", 2);
  cJSON_Delete(result);
}

static void
fix_answer_call(fix_buf_t *out, cJSON *id, cJSON *params)
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
  fix_begin_response(out, id);
  fix_buf_add(out, ",\"result\":", 10);
  fix_buf_add_json(out, result, 64 + 6 * strlen(text));
  fix_buf_add(out, "}\n", 2);
  cJSON_Delete(result);
}

static void
fix_answer_error(fix_buf_t *out, cJSON *id, int code, const char *msg)
{
  char tail[256];
  int n;

  fix_begin_response(out, id);
  n = snprintf(tail, sizeof tail,
    ",\"error\":{\"code\":%d,\"message\":\"%s\"}}\n", code, msg);
  fix_buf_add(out, tail, (size_t) n);
}

/* Handles one line; appends its answer (if any) to out. */
static void
fix_handle_line(fix_buf_t *out, const char *line, size_t len)
{
  cJSON *req = cJSON_ParseWithLength(line, len);
  cJSON *id;
  cJSON *method;
  cJSON *params;
  const char *m;

  if (req == NULL)
  {
    fprintf(stderr, "fixture_server: unparsable line ignored\n");
    return;
  }
  id = cJSON_GetObjectItemCaseSensitive(req, "id");
  method = cJSON_GetObjectItemCaseSensitive(req, "method");
  params = cJSON_GetObjectItemCaseSensitive(req, "params");
  if (id == NULL || !cJSON_IsString(method))
    goto done;                  /* a notification or a response: no answer */
  m = method->valuestring;
  if (strcmp(m, "tools/call") == 0)
    fix_answer_call(out, id, params);
  else if (strcmp(m, "ping") == 0)
  {
    fix_begin_response(out, id);
    fix_buf_add(out, ",\"result\":{}}\n", 14);
  }
  else if (strcmp(m, "tools/list") == 0)
  {
    fix_begin_response(out, id);
    fix_buf_add(out, ",\"result\":", 10);
    fix_buf_add(out, fix_tools_result, fix_tools_result_len);
    fix_buf_add(out, "}\n", 2);
  }
  else if (strcmp(m, "initialize") == 0)
    fix_answer_initialize(out, id, params);
  else
    fix_answer_error(out, id, -32601, "Method not found");
done:
  cJSON_Delete(req);
}

int
main(int argc, char **argv)
{
  fix_buf_t in = { NULL, 0, 0 };
  fix_buf_t out = { NULL, 0, 0 };
  int ntools = 1;
  int i;

  for (i = 1; i < argc; i++)
  {
    if (strcmp(argv[i], "--tools") == 0 && i + 1 < argc)
      ntools = atoi(argv[++i]);
    else
    {
      fprintf(stderr, "usage: fixture_server [--tools N]\n");
      return 2;
    }
  }
  if (ntools < 1)
    ntools = 1;
  fix_build_tools(ntools);
  fix_buf_reserve(&in, FIX_READ_CHUNK);
  fix_buf_reserve(&out, FIX_READ_CHUNK);

  for (;;)
  {
    size_t start = 0;
    char *nl;
    ssize_t n;

    fix_buf_reserve(&in, FIX_READ_CHUNK / 2);
    n = read(STDIN_FILENO, in.data + in.len, in.cap - in.len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;                    /* EOF: the client closed our stdin */
    in.len += (size_t) n;
    /* Every complete line of this read; the answers go out together. */
    for (;;)
    {
      size_t len;

      nl = memchr(in.data + start, '\n', in.len - start);
      if (nl == NULL)
        break;
      len = (size_t) (nl - (in.data + start));

      if (len > 0 && in.data[start + len - 1] == '\r')
        len--;
      if (len > 0)
        fix_handle_line(&out, in.data + start, len);
      start = (size_t) (nl - in.data) + 1;
    }
    if (start > 0)
    {
      memmove(in.data, in.data + start, in.len - start);
      in.len -= start;
    }
    if (out.len > 0)
      fix_write_all(&out);
  }
  free(in.data);
  free(out.data);
  cJSON_free(fix_tools_result);
  return 0;
}
