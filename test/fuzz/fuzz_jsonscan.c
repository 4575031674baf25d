/*
 * fuzz_jsonscan.c - libFuzzer harness for the scanner of top-level
 * members (src/core/jsonscan.c), which routes every result a server
 * sends on the fast path without parsing it.
 *
 * Input: byte 0 picks the nesting limit and byte 1 how many members are
 * recorded; the rest is the message. Whatever it returns must point
 * inside the text. When the text is one valid JSON object by
 * mcp_json_parse (cJSON behind the strict check), the scanner must accept
 * it and find the same members in the same order: each key, read as a
 * JSON string, is cJSON's key, and each value's text parses to cJSON's
 * value. FUZZ_SKIP=inf-number passes over values holding a number too
 * large for a double (see README.md).
 */
#include <stdint.h>
#include <string.h>

#include "common.h"
#include "fuzz.h"
#include "fuzz_cjson.h"
#include "json.h"
#include "jsonscan.h"

#define MAX_MEMBERS 64

/* The key's text as cJSON reads a JSON string. */
static cJSON *
parse_key(const mcp_json_member_t *m)
{
  char *s = malloc(m->key_len + 2);
  cJSON *k;

  FUZZ_CHECK(s != NULL);
  s[0] = '"';
  memcpy(s + 1, m->key, m->key_len);
  s[m->key_len + 1] = '"';
  k = cJSON_ParseWithLength(s, m->key_len + 2);
  free(s);
  return k;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static mcp_json_member_t m[MAX_MEMBERS];
  fuzz_in_t in = { data, size };
  const char *text, *end;
  const cJSON *item;
  cJSON *v, *k, *val;
  size_t n = 99999, max, i;
  int depth, rc;

  depth = fuzz_byte(&in);
  depth = depth >= 0x80 ? MCP_DEFAULT_MAX_DEPTH : depth & 0x1F;
  max = fuzz_byte(&in) % (MAX_MEMBERS + 1);
  text = (const char *) in.p;
  end = text + in.n;

  rc = mcp_json_members(text, in.n, depth, m, max, &n);
  FUZZ_CHECK(rc == 0 || rc == MCP_EJSON || rc == MCP_ETOOBIG);
  if (rc == 0) {
    FUZZ_CHECK(n <= max);
    for (i = 0; i < n; i++) {
      FUZZ_CHECK(m[i].key >= text && m[i].key + m[i].key_len < end);
      FUZZ_CHECK(m[i].key[-1] == '"' && m[i].key[m[i].key_len] == '"');
      FUZZ_CHECK(m[i].value > m[i].key + m[i].key_len);
      FUZZ_CHECK(m[i].value_len > 0 && m[i].value + m[i].value_len <= end);
    }
  }

  if (depth < 1)
    return 0;
  v = mcp_json_parse(text, in.n, depth, NULL);
  if (v == NULL)
    return 0;
  if (!cJSON_IsObject(v) ||
      (fuzz_skip("inf-number") && fuzz_cjson_has_inf(v))) {
    cJSON_Delete(v);
    return 0;
  }
  FUZZ_CHECK(rc == 0);
  i = 0;
  cJSON_ArrayForEach(item, v)
  {
    if (i >= n)
      break;
    k = parse_key(&m[i]);
    FUZZ_CHECK(k != NULL && cJSON_IsString(k));
    FUZZ_CHECK(strcmp(k->valuestring, item->string) == 0);
    cJSON_Delete(k);
    val = mcp_json_parse(m[i].value, m[i].value_len, depth, NULL);
    FUZZ_CHECK(val != NULL);
    FUZZ_CHECK(fuzz_cjson_same(val, item));
    cJSON_Delete(val);
    i++;
  }
  /* n is the number of members, capped at max. */
  FUZZ_CHECK(i == n && (n == max || item == NULL));
  cJSON_Delete(v);
  return 0;
}
