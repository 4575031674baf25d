/*
 * fuzz_json.c - libFuzzer harness for the cJSON wrappers with limits
 * (src/core/json.c): mcp_json_parse reads every message a server sends
 * on the slow path.
 *
 * Input: byte 0 picks the nesting limit; the rest is the text. A text
 * that parses must parse again at any larger limit; printed without
 * whitespace and parsed again it must give an equal value at the same
 * limit, and the printed text must be a fixed point of parse-and-print.
 * A refusal must say why with MCP_EJSON or MCP_ETOOBIG, never anything
 * else. The typed getters run on every member of an object.
 * FUZZ_SKIP=inf-number passes over values holding a number too large
 * for a double, and print-precision lets a printed number keep only 15
 * significant digits (see README.md).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "common.h"
#include "fuzz.h"
#include "fuzz_cjson.h"
#include "json.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  fuzz_in_t in = { data, size };
  const char *text;
  const cJSON *item;
  char *printed, *again;
  cJSON *v, *w;
  mcp_error_t err;
  int depth;

  depth = fuzz_byte(&in);
  depth = depth >= 0x80 ? MCP_DEFAULT_MAX_DEPTH : 1 + (depth & 0x3F);
  text = (const char *) in.p;

  memset(&err, 0, sizeof err);
  v = mcp_json_parse(text, in.n, depth, &err);
  if (v == NULL) {
    FUZZ_CHECK(err.code == MCP_EJSON || err.code == MCP_ETOOBIG);
    FUZZ_CHECK(memchr(err.msg, '\0', sizeof err.msg) != NULL);
    return 0;
  }
  if (fuzz_skip("inf-number") && fuzz_cjson_has_inf(v)) {
    cJSON_Delete(v);
    return 0;
  }
  w = mcp_json_parse(text, in.n, depth + 1, NULL);
  FUZZ_CHECK(w != NULL && fuzz_cjson_same(v, w));
  cJSON_Delete(w);

  printed = mcp_json_print(v);
  FUZZ_CHECK(printed != NULL);
  w = mcp_json_parse(printed, strlen(printed), depth, &err);
  if (w == NULL) {
    fprintf(stderr, "json: printed text refused (%s): %.200s\n", err.msg,
            printed);
    abort();
  }
  FUZZ_CHECK(fuzz_cjson_same_printed(v, w));
  again = mcp_json_print(w);
  FUZZ_CHECK(again != NULL && strcmp(printed, again) == 0);
  cJSON_free(again);
  cJSON_free(printed);
  cJSON_Delete(w);

  if (cJSON_IsObject(v)) {
    cJSON_ArrayForEach(item, v)
    {
      const char *s = mcp_json_string(v, item->string);
      const cJSON *o = mcp_json_object(v, item->string);

      FUZZ_CHECK(item->string != NULL);
      FUZZ_CHECK(s == NULL || cJSON_IsString(
                   cJSON_GetObjectItemCaseSensitive(v, item->string)));
      FUZZ_CHECK(o == NULL || cJSON_IsObject(o));
    }
  }
  cJSON_Delete(v);
  return 0;
}
