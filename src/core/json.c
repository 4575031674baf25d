/*
 * json.c - cJSON wrappers with limits.
 */
#include "json.h"

#include <string.h>

int
mcp_json_depth(const char *text, size_t len, int limit)
{
  size_t i;
  int depth = 0, deepest = 0, in_str = 0, esc = 0;

  for (i = 0; i < len; i++) {
    char c = text[i];

    if (in_str) {
      if (esc)
        esc = 0;
      else if (c == '\\')
        esc = 1;
      else if (c == '"')
        in_str = 0;
    } else if (c == '"') {
      in_str = 1;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest) {
        deepest = depth;
        if (deepest > limit)
          return deepest;
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      depth--;
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
