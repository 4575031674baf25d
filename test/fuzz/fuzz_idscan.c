/*
 * fuzz_idscan.c - libFuzzer harness for the constant-memory scanner of
 * the top-level "id" (src/core/idscan.c), which reads the bytes of every
 * message too big to keep.
 *
 * Input: byte 0 seeds the chunk sizes, byte 1 bounds them; the rest is
 * the message. It is scanned in one feed and in chunks, which must find
 * the same id. When the message is valid JSON (mcp_json_parse) and an
 * object whose first "id" member is a scalar of at most 63 bytes, the
 * scanner must return exactly that member's text, as the member scanner
 * (jsonscan.c) sees it; any id it returns must be the text of a
 * top-level "id" member.
 */
#include <stdint.h>
#include <string.h>

#include "common.h"
#include "fuzz.h"
#include "idscan.h"
#include "json.h"
#include "jsonscan.h"

#define MAX_MEMBERS 256

static const char *
scan(const uint8_t *data, size_t size, fuzz_chunks_t *chunks, char *copy,
     size_t *len)
{
  mcp_idscan_t s;
  const char *id;
  size_t at = 0, n;

  mcp_idscan_init(&s);
  if (chunks == NULL) {
    mcp_idscan_feed(&s, (const char *) data, size);
  } else {
    while (at < size) {
      n = fuzz_chunks_next(chunks);
      if (n > size - at)
        n = size - at;
      mcp_idscan_feed(&s, (const char *) data + at, n);
      at += n;
    }
  }
  id = mcp_idscan_id(&s, len);
  if (id == NULL)
    return NULL;
  FUZZ_CHECK(*len > 0 && *len < 64 && id[*len] == '\0');
  memcpy(copy, id, *len + 1);
  return copy;
}

/* Checks the scanner against the members of a valid object. */
static void
against_members(const char *text, size_t len, const char *id, size_t id_len)
{
  static mcp_json_member_t m[MAX_MEMBERS];
  const mcp_json_member_t *first;
  cJSON *v;
  size_t n = 0, i;
  int rc, found = 0;

  v = mcp_json_parse(text, len, MCP_DEFAULT_MAX_DEPTH, NULL);
  if (v == NULL)
    return;
  if (!cJSON_IsObject(v)) {
    cJSON_Delete(v);
    return;
  }
  cJSON_Delete(v);
  rc = mcp_json_members(text, len, MCP_DEFAULT_MAX_DEPTH, m, MAX_MEMBERS,
                        &n);
  FUZZ_CHECK(rc == 0);
  if (n == MAX_MEMBERS)
    return;   /* members past the array are not recorded */
  first = mcp_json_member(m, n, "id");
  if (first != NULL && first->value_len < 64 && first->value[0] != '{' &&
      first->value[0] != '[') {
    FUZZ_CHECK(id != NULL);
    FUZZ_CHECK(id_len == first->value_len);
    FUZZ_CHECK(memcmp(id, first->value, id_len) == 0);
  }
  if (id == NULL)
    return;
  for (i = 0; i < n && !found; i++) {
    found = m[i].key_len == 2 && memcmp(m[i].key, "id", 2) == 0 &&
            m[i].value_len == id_len && memcmp(m[i].value, id, id_len) == 0;
  }
  FUZZ_CHECK(found);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  fuzz_in_t in = { data, size };
  fuzz_chunks_t chunks;
  char a[64], b[64];
  const char *whole, *split;
  size_t alen = 0, blen = 0;
  uint8_t seed, most;

  seed = fuzz_byte(&in);
  most = fuzz_byte(&in);
  fuzz_chunks_init(&chunks, seed, (size_t) (most & 0x3F) + 1);
  whole = scan(in.p, in.n, NULL, a, &alen);
  split = scan(in.p, in.n, &chunks, b, &blen);
  FUZZ_CHECK((whole == NULL) == (split == NULL));
  if (whole != NULL)
    FUZZ_CHECK(alen == blen && memcmp(whole, split, alen) == 0);
  against_members((const char *) in.p, in.n, whole, alen);
  return 0;
}
