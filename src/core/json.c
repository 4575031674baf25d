/*
 * json.c - cJSON wrappers with limits.
 */
#include "json.h"

#include <string.h>

#include "jsonscan.h"

cJSON *
mcp_json_parse(const char *text, size_t len, int max_depth, mcp_error_t *err)
{
  cJSON *v;

  /* cJSON alone is lax (control bytes as whitespace, keys cut at NUL)
   * and recursive: the strict check goes first, and cJSON gets exactly
   * one valid value. */
  if (mcp_json_check(text, len, max_depth, err) != 0)
    return NULL;
  v = cJSON_ParseWithLength(text, len);
  if (v == NULL)
    mcp_error_set(err, MCP_EJSON, "malformed JSON: refused by cJSON (a "
                  "lone UTF-16 surrogate, or out of memory)");
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
