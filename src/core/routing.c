/*
 * routing.c - the 2026-07-28 era's routing headers (routing.h).
 */
#include "routing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "curl_dl.h"   /* EVP_EncodeBlock: libcrypto is loaded with libcurl */
#include "jsonscan.h"

/* Our own request's text, already bounded in depth when it was written. */
#define TEXT_DEPTH 1000
/* Integers beyond this lose precision in JSON numbers (the revision
 * allows x-mcp-header integers within +-(2^53 - 1)). */
#define MAX_SAFE_INTEGER 9007199254740991.0

typedef struct {
  char *tool;
  cJSON *decl;                  /* [[header, key, ...], ...] */
} declared_t;

struct mcp_routing_s {
  declared_t *tools;
  size_t n, cap;
};

mcp_routing_t *
mcp_routing_new(void)
{
  return calloc(1, sizeof(mcp_routing_t));
}

static void
forget_all(mcp_routing_t *r)
{
  size_t i;

  for (i = 0; i < r->n; i++) {
    free(r->tools[i].tool);
    cJSON_Delete(r->tools[i].decl);
  }
  r->n = 0;
}

void
mcp_routing_free(mcp_routing_t *r)
{
  if (r == NULL)
    return;
  forget_all(r);
  free(r->tools);
  free(r);
}

static declared_t *
find(const mcp_routing_t *r, const char *tool)
{
  size_t i;

  for (i = 0; r != NULL && i < r->n; i++) {
    if (strcmp(r->tools[i].tool, tool) == 0)
      return &r->tools[i];
  }
  return NULL;
}

/* [[header, key, ...], ...]: each entry a header name and at least one key. */
static int
valid_decl(const cJSON *decl)
{
  const cJSON *entry, *s;

  if (!cJSON_IsArray(decl) ||
      cJSON_GetArraySize(decl) > MCP_ROUTING_MAX_PARAMS)
    return 0;
  cJSON_ArrayForEach(entry, decl) {
    if (!cJSON_IsArray(entry) || cJSON_GetArraySize(entry) < 2)
      return 0;
    cJSON_ArrayForEach(s, entry) {
      if (!cJSON_IsString(s))
        return 0;
    }
  }
  return 1;
}

int
mcp_routing_declare(mcp_routing_t *r, const char *tool, const char *decl,
                    mcp_error_t *err)
{
  declared_t *d;
  cJSON *tree = NULL;

  if (tool == NULL) {
    forget_all(r);
    return 0;
  }
  if (decl != NULL) {
    tree = cJSON_Parse(decl);
    if (!valid_decl(tree)) {
      cJSON_Delete(tree);
      return mcp_error_set(err, MCP_EINVAL,
                           "x-mcp-header declaration of %s: expected "
                           "[[header, key, ...], ...]", tool);
    }
  }
  d = find(r, tool);
  if (d != NULL) {
    cJSON_Delete(d->decl);
    if (tree != NULL) {
      d->decl = tree;
      return 0;
    }
    free(d->tool);
    *d = r->tools[--r->n];
    return 0;
  }
  if (tree == NULL)
    return 0;
  if (r->n == r->cap) {
    size_t cap = r->cap ? r->cap * 2 : 8;
    declared_t *grown = realloc(r->tools, cap * sizeof *grown);

    if (grown == NULL) {
      cJSON_Delete(tree);
      return mcp_error_set(err, MCP_ENOMEM, NULL);
    }
    r->tools = grown;
    r->cap = cap;
  }
  r->tools[r->n].tool = strdup(tool);
  if (r->tools[r->n].tool == NULL) {
    cJSON_Delete(tree);
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  }
  r->tools[r->n++].decl = tree;
  return 0;
}

/* Whether s (n bytes) can be a header value as it is: printable ASCII, no
 * whitespace at either end, and not the base64 sentinel's own form. */
static int
plain_value(const unsigned char *s, size_t n)
{
  size_t i;

  for (i = 0; i < n; i++) {
    if (s[i] < 0x20 || s[i] > 0x7e)
      return 0;
  }
  if (n > 0 && (s[0] == ' ' || s[n - 1] == ' '))
    return 0;
  if (n >= 11 && memcmp(s, "=?base64?", 9) == 0 &&
      memcmp(s + n - 2, "?=", 2) == 0)
    return 0;
  return 1;
}

/* Appends "prefix+name: value\0", the value encoded as the revision says. */
static int
put_line(mcp_buf_t *out, const char *prefix, const char *name,
         const char *value, size_t n)
{
  const unsigned char *s = (const unsigned char *) value;
  int rc = mcp_buf_append(out, prefix, strlen(prefix));

  if (rc == 0)
    rc = mcp_buf_append(out, name, strlen(name));
  if (rc == 0)
    rc = mcp_buf_append(out, ": ", 2);
  if (rc == 0 && plain_value(s, n)) {
    rc = mcp_buf_append(out, value, n);
  } else if (rc == 0) {
    size_t need = (n + 2) / 3 * 4 + 1;
    unsigned char *b64 = malloc(need);

    if (b64 == NULL)
      return MCP_ENOMEM;
    EVP_EncodeBlock(b64, s, (int) n);
    rc = mcp_buf_append(out, "=?base64?", 9);
    if (rc == 0)
      rc = mcp_buf_append(out, b64, strlen((char *) b64));
    if (rc == 0)
      rc = mcp_buf_append(out, "?=", 2);
    free(b64);
  }
  if (rc == 0)
    rc = mcp_buf_putc(out, '\0');
  return rc;
}

/* The string value of a member of our own request, parsed; NULL when the
 * member is absent or no string. */
static cJSON *
string_member(const mcp_json_member_t *m)
{
  cJSON *v;

  if (m == NULL || m->value[0] != '"')
    return NULL;
  v = cJSON_ParseWithLength(m->value, m->value_len);
  if (!cJSON_IsString(v)) {
    cJSON_Delete(v);
    return NULL;
  }
  return v;
}

/* Mcp-Param-{header} for the value at the entry's path, when present. */
static int
put_param(mcp_buf_t *out, const cJSON *args, const cJSON *entry)
{
  const cJSON *key = entry->child;
  const cJSON *v = args;
  char number[32];

  for (key = key->next; key != NULL && cJSON_IsObject(v); key = key->next)
    v = cJSON_GetObjectItemCaseSensitive(v, key->valuestring);
  if (key != NULL || v == NULL)
    return 0;                   /* absent: no header */
  if (cJSON_IsString(v))
    return put_line(out, "Mcp-Param-", entry->child->valuestring,
                    v->valuestring, strlen(v->valuestring));
  if (cJSON_IsBool(v))
    return put_line(out, "Mcp-Param-", entry->child->valuestring,
                    cJSON_IsTrue(v) ? "true" : "false",
                    cJSON_IsTrue(v) ? 4 : 5);
  if (cJSON_IsNumber(v)) {
    double d = v->valuedouble;

    /* An integer property, checked against its schema before sending;
     * what is no safe integer goes as JSON would write it. */
    if (d == floor(d) && fabs(d) <= MAX_SAFE_INTEGER)
      snprintf(number, sizeof number, "%.0f", d);
    else
      snprintf(number, sizeof number, "%.17g", d);
    return put_line(out, "Mcp-Param-", entry->child->valuestring, number,
                    strlen(number));
  }
  return 0;                     /* null, or no primitive: no header */
}

static int
put_params(const mcp_routing_t *r, mcp_buf_t *out, const char *tool,
           const mcp_json_member_t *arguments, mcp_error_t *err)
{
  const declared_t *d = find(r, tool);
  const cJSON *entry;
  cJSON *args;
  int rc = 0;

  if (d == NULL || arguments == NULL || arguments->value[0] != '{')
    return 0;
  args = cJSON_ParseWithLength(arguments->value, arguments->value_len);
  if (args == NULL)
    return 0;
  cJSON_ArrayForEach(entry, d->decl) {
    rc = put_param(out, args, entry);
    if (rc != 0)
      break;
  }
  cJSON_Delete(args);
  if (rc == MCP_ETOOBIG)
    return mcp_error_set(err, rc, "the x-mcp-header arguments of %s need "
                         "more than %u bytes of headers", tool,
                         MCP_ROUTING_MAX);
  return rc != 0 ? mcp_error_set(err, rc, NULL) : 0;
}

static size_t
count_lines(const mcp_buf_t *out, size_t from)
{
  size_t i, n = 0;

  for (i = from; i < out->len; i++)
    n += out->data[i] == '\0';
  return n;
}

/* Mcp-Name, what the request acts on, and for a tool call the
 * Mcp-Param-* headers of its arguments. */
static int
put_name(const mcp_routing_t *r, mcp_buf_t *out, const char *method,
         const mcp_json_member_t *params, mcp_error_t *err)
{
  mcp_json_member_t pm[16];
  const mcp_json_member_t *name = NULL;
  size_t np = 0;
  cJSON *v;
  int rc;

  if (params == NULL || params->value[0] != '{' ||
      mcp_json_members(params->value, params->value_len, TEXT_DEPTH, pm, 16,
                       &np) != 0)
    return 0;
  if (strcmp(method, "tools/call") == 0 || strcmp(method, "prompts/get") == 0)
    name = mcp_json_member(pm, np, "name");
  else if (strcmp(method, "resources/read") == 0)
    name = mcp_json_member(pm, np, "uri");
  else if (strncmp(method, "tasks/", 6) == 0)
    name = mcp_json_member(pm, np, "taskId");
  if ((v = string_member(name)) == NULL)
    return 0;
  rc = put_line(out, "", "Mcp-Name", v->valuestring, strlen(v->valuestring));
  if (rc == 0 && strcmp(method, "tools/call") == 0)
    rc = put_params(r, out, v->valuestring,
                    mcp_json_member(pm, np, "arguments"), err);
  else if (rc != 0)
    mcp_error_set(err, rc, NULL);
  cJSON_Delete(v);
  return rc;
}

int
mcp_routing_headers(const mcp_routing_t *r, const char *text, size_t len,
                    mcp_buf_t *out, size_t *count, mcp_error_t *err)
{
  mcp_json_member_t m[8];
  size_t nm = 0, start = out->len;
  cJSON *method;
  int rc;

  *count = 0;
  if (mcp_json_members(text, len, TEXT_DEPTH, m, 8, &nm) != 0 ||
      (method = string_member(mcp_json_member(m, nm, "method"))) == NULL)
    return 0;
  rc = put_line(out, "", "Mcp-Method", method->valuestring,
                strlen(method->valuestring));
  if (rc != 0)
    mcp_error_set(err, rc, NULL);
  else
    rc = put_name(r, out, method->valuestring,
                  mcp_json_member(m, nm, "params"), err);
  cJSON_Delete(method);
  if (rc == 0 && out->len - start > MCP_ROUTING_MAX)
    rc = mcp_error_set(err, MCP_ETOOBIG, "the request's routing headers "
                       "need more than %u bytes", MCP_ROUTING_MAX);
  if (rc == 0)
    *count = count_lines(out, start);
  return rc;
}
