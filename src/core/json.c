/*
 * json.c - cJSON wrappers with limits.
 */
#include "json.h"

#include <string.h>

/* Bytes that matter outside strings: 1 opens a string, 2 nests, 3 closes. */
static const unsigned char structural[256] = {
  ['"'] = 1, ['['] = 2, ['{'] = 2, [']'] = 3, ['}'] = 3,
};

/* Returns the index of the quote that ends the string whose contents
 * start at i, or len when the text ends first. Strings are skipped with
 * memchr: they are most of the bytes of a typical message. */
static size_t
string_end(const char *text, size_t len, size_t i)
{
  size_t start = i, bs;
  const char *q;

  for (;;) {
    q = memchr(text + i, '"', len - i);
    if (q == NULL)
      return len;
    i = (size_t) (q - text);
    for (bs = 0; i - bs > start && text[i - bs - 1] == '\\'; bs++)
      ;
    if (bs % 2 == 0)
      return i;
    i++;
  }
}

int
mcp_json_depth(const char *text, size_t len, int limit)
{
  size_t i;
  int depth = 0, deepest = 0;

  for (i = 0; i < len; i++) {
    switch (structural[(unsigned char) text[i]]) {
    case 0:
      break;
    case 1:
      i = string_end(text, len, i + 1);
      break;
    case 2:
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > limit)
          return deepest;
      }
      break;
    default:
      if (depth > 0)
        depth--;
      break;
    }
  }
  return deepest;
}

cJSON *
mcp_json_parse(const char *text, size_t len, int max_depth, mcp_error_t *err)
{
  cJSON *v;
  const char *end = NULL;

  if (max_depth > 0 && mcp_json_depth(text, len, max_depth) > max_depth) {
    mcp_error_set(err, MCP_ETOOBIG, "JSON nesting deeper than %d", max_depth);
    return NULL;
  }
  v = cJSON_ParseWithLengthOpts(text, len, &end, 0);
  if (v == NULL) {
    size_t at = 0;

    end = cJSON_GetErrorPtr();
    if (end >= text && end <= text + len)
      at = (size_t) (end - text);
    mcp_error_set(err, MCP_EJSON, "malformed JSON at byte %zu", at);
    return NULL;
  }
  /* Anything but whitespace after the value means it was not one value. */
  while (end < text + len && strchr(" \t\r\n", *end) != NULL && *end != '\0')
    end++;
  if (end != text + len) {
    cJSON_Delete(v);
    mcp_error_set(err, MCP_EJSON, "trailing data after JSON value at byte %zu",
                  (size_t) (end - text));
    return NULL;
  }
  return v;
}

const char *
mcp_json_string(const cJSON *obj, const char *key)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

  return cJSON_IsString(v) ? v->valuestring : NULL;
}

const cJSON *
mcp_json_object(const cJSON *obj, const char *key)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

  return cJSON_IsObject(v) ? v : NULL;
}

char *
mcp_json_print(const cJSON *v)
{
  return cJSON_PrintUnformatted(v);
}
