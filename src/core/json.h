/*
 * json.h - cJSON helpers: parsing with a length and a nesting limit, and
 * typed getters that tolerate missing or mistyped fields.
 *
 * A strict check (jsonscan.h) runs before cJSON sees the text, so a
 * hostile message of a million '[' costs one pass and no recursion, and
 * what cJSON would misread (control bytes, keys with NUL) is refused.
 */
#ifndef MCP_JSON_H
#define MCP_JSON_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "error.h"

/* Returns the parsed value (the caller frees it with cJSON_Delete), or NULL
 * with err set: MCP_ETOOBIG when nesting exceeds max_depth, MCP_EJSON when
 * the text is not one JSON value (RFC 8259, strictly) or an object key
 * escapes a NUL. */
cJSON *mcp_json_parse(const char *text, size_t len, int max_depth,
                      mcp_error_t *err);

/* Getters return NULL (or the fallback) when the field is absent or of
 * another type. */
const char *mcp_json_string(const cJSON *obj, const char *key);
const cJSON *mcp_json_object(const cJSON *obj, const char *key);

/* Serialises v without whitespace; the caller frees with cJSON_free. */
char *mcp_json_print(const cJSON *v);

#endif
