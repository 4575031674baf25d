/*
 * jsonscan.c - top-level members of a JSON object, without parsing.
 */
#include "jsonscan.h"

#include <string.h>

#include "common.h"

static int
is_space(char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Moves past the string whose opening quote is at *p; 0 or MCP_EJSON. */
static int
skip_string(const char **p, const char *end)
{
  const char *s = *p + 1;

  while (s < end) {
    const char *q = memchr(s, '"', (size_t) (end - s));
    const char *b;
    size_t bs = 0;

    if (q == NULL)
      return MCP_EJSON;
    for (b = q; b > *p + 1 && b[-1] == '\\'; b--)
      bs++;
    if (bs % 2 == 0) {
      *p = q + 1;
      return 0;
    }
    s = q + 1;
  }
  return MCP_EJSON;
}

/* Moves past one value starting at *p: a string, a bracketed value
 * (nesting checked against max_depth, strings inside skipped whole), or a
 * scalar (up to the next delimiter). */
static int
skip_value(const char **p, const char *end, int depth, int max_depth)
{
  const char *s = *p;
  int level = 0;

  if (s >= end)
    return MCP_EJSON;
  if (*s == '"')
    return skip_string(p, end);
  if (*s != '{' && *s != '[') {
    while (s < end && !is_space(*s) && *s != ',' && *s != '}' && *s != ']')
      s++;
    if (s == *p)
      return MCP_EJSON;
    *p = s;
    return 0;
  }
  while (s < end) {
    if (*s == '"') {
      if (skip_string(&s, end) != 0)
        return MCP_EJSON;
      continue;
    }
    if (*s == '{' || *s == '[') {
      if (++level + depth > max_depth)
        return MCP_ETOOBIG;
    } else if (*s == '}' || *s == ']') {
      if (--level == 0) {
        *p = s + 1;
        return 0;
      }
    }
    s++;
  }
  return MCP_EJSON;
}

int
mcp_json_members(const char *text, size_t len, int max_depth,
                 mcp_json_member_t *out, size_t max, size_t *n)
{
  const char *p = text, *end = text + len, *key, *val;
  int rc;

  *n = 0;
  while (p < end && is_space(*p))
    p++;
  if (p >= end || *p != '{')
    return MCP_EJSON;
  if (max_depth < 1)
    return MCP_ETOOBIG;
  p++;
  for (;;) {
    while (p < end && is_space(*p))
      p++;
    if (p < end && *p == '}' && *n == 0)
      break;
    if (p >= end || *p != '"')
      return MCP_EJSON;
    key = p + 1;
    if (skip_string(&p, end) != 0)
      return MCP_EJSON;
    if (*n < max) {
      out[*n].key = key;
      out[*n].key_len = (size_t) (p - 1 - key);
    }
    while (p < end && is_space(*p))
      p++;
    if (p >= end || *p != ':')
      return MCP_EJSON;
    p++;
    while (p < end && is_space(*p))
      p++;
    val = p;
    rc = skip_value(&p, end, 1, max_depth);
    if (rc != 0)
      return rc;
    if (*n < max) {
      out[*n].value = val;
      out[*n].value_len = (size_t) (p - val);
    }
    (*n)++;
    while (p < end && is_space(*p))
      p++;
    if (p < end && *p == ',') {
      p++;
      continue;
    }
    if (p < end && *p == '}')
      break;
    return MCP_EJSON;
  }
  p++;
  while (p < end && is_space(*p))
    p++;
  if (*n > max)
    *n = max;
  return p == end ? 0 : MCP_EJSON;
}

const mcp_json_member_t *
mcp_json_member(const mcp_json_member_t *m, size_t n, const char *key)
{
  size_t i, len = strlen(key);

  for (i = 0; i < n; i++) {
    if (m[i].key_len == len && memcmp(m[i].key, key, len) == 0)
      return &m[i];
  }
  return NULL;
}
