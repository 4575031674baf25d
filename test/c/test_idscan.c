/*
 * test_idscan.c - tests for the constant-memory scanner that finds the
 * top-level "id" of a message (idscan.c). Every input is scanned whole, one
 * byte at a time, and split in two at every point; all must agree.
 */
#include <string.h>

#include "idscan.h"
#include "test.h"

/* Scans text fed as the given chunks and copies the id into out ("" when
 * there is none, so callers can compare with ASSERT_STR_EQ). */
static void
scan_chunks(const char *text, size_t len, const size_t *cuts, int ncuts,
            char *out, size_t out_size)
{
  mcp_idscan_t s;
  const char *id;
  size_t id_len = 12345, at = 0;
  int i;

  mcp_idscan_init(&s);
  for (i = 0; i < ncuts; i++) {
    mcp_idscan_feed(&s, text + at, cuts[i] - at);
    at = cuts[i];
  }
  mcp_idscan_feed(&s, text + at, len - at);
  id = mcp_idscan_id(&s, &id_len);
  if (id == NULL) {
    ASSERT_EQ(id_len, 12345); /* len is left alone when there is no id */
    out[0] = '\0';
    return;
  }
  ASSERT(id_len > 0 && id_len < out_size);
  ASSERT_EQ(strlen(id), id_len);
  ASSERT(mcp_idscan_id(&s, NULL) == id); /* len is optional */
  memcpy(out, id, id_len);
  out[id_len] = '\0';
}

/* Asserts that text yields the id `want` ("" for none) whole, byte by
 * byte, and split at every point. */
static void
check_id(const char *text, const char *want)
{
  char got[128];
  size_t len = strlen(text), i, *cuts;

  scan_chunks(text, len, NULL, 0, got, sizeof got);
  ASSERT_STR_EQ(got, want);

  cuts = malloc((len + 1) * sizeof *cuts);
  ASSERT_NOT_NULL(cuts);
  for (i = 0; i < len; i++)
    cuts[i] = i + 1;
  scan_chunks(text, len, cuts, len > 0 ? (int) len - 1 : 0, got, sizeof got);
  ASSERT_STR_EQ(got, want);
  free(cuts);

  for (i = 0; i <= len; i++) {
    scan_chunks(text, len, &i, 1, got, sizeof got);
    ASSERT_STR_EQ(got, want);
  }
}

static void
test_id_first(void)
{
  check_id("{\"id\":1,\"jsonrpc\":\"2.0\",\"result\":{}}", "1");
  check_id("{\"id\":42}", "42");
}

static void
test_id_last(void)
{
  check_id("{\"jsonrpc\":\"2.0\",\"result\":{\"a\":[1,2]},\"id\":7}", "7");
  check_id("{\"result\":{\"x\":1},\"jsonrpc\":\"2.0\",\"id\":\"abc\"}",
           "\"abc\"");
}

static void
test_id_middle(void)
{
  check_id("{\"jsonrpc\":\"2.0\",\"id\":123,\"method\":\"x\"}", "123");
  check_id("{\"a\":true,\"id\":\"q\",\"b\":null}", "\"q\"");
}

static void
test_whitespace(void)
{
  check_id(" {\n  \"id\" :\t 7 ,\r\n  \"x\": 1\n}\n", "7");
  check_id("{ \"x\" : [ 1 , 2 ] , \"id\" : 8 }", "8");
  /* Whitespace inside a string id is part of it. */
  check_id("{\"id\": \" a b \" }", "\" a b \"");
}

static void
test_number_forms(void)
{
  check_id("{\"id\":0}", "0");
  check_id("{\"id\":-1.5e3,\"x\":0}", "-1.5e3");
  check_id("{\"id\":9007199254740993}", "9007199254740993");
  /* The scanner reports raw text; judging it is the caller's business. */
  check_id("{\"id\":null}", "null");
}

static void
test_string_ids_keep_quotes(void)
{
  check_id("{\"id\":\"7\"}", "\"7\"");
  check_id("{\"id\":\"\"}", "\"\"");
  check_id("{\"id\":\"a,b}]\"}", "\"a,b}]\"");
  check_id("{\"id\":\"a\\\"b\"}", "\"a\\\"b\"");
  check_id("{\"id\":\"a\\\\\",\"x\":1}", "\"a\\\\\"");
  check_id("{\"id\":\"\\u00e9\"}", "\"\\u00e9\"");
}

static void
test_nested_id_ignored(void)
{
  check_id("{\"params\":{\"id\":5}}", "");
  check_id("{\"params\":{\"id\":5},\"id\":9}", "9");
  check_id("{\"params\":[{\"id\":5},{\"id\":6}],\"id\":9}", "9");
  check_id("{\"result\":{\"a\":{\"b\":{\"id\":1}}},\"id\":\"top\"}",
           "\"top\"");
  check_id("{\"a\":[[\"id\",1]],\"id\":2}", "2");
}

static void
test_id_inside_strings_ignored(void)
{
  check_id("{\"x\":\"\\\"id\\\":5\",\"id\":9}", "9");
  check_id("{\"x\":\"\\\"id\\\":5\"}", "");
  check_id("{\"x\":\"{\\\"id\\\":5}\",\"y\":\"}\",\"id\":9}", "9");
  /* A string ending in an escaped backslash closes the string. */
  check_id("{\"x\":\"\\\\\",\"id\":3}", "3");
  check_id("{\"x\":\"\\\\\\\"\",\"id\":4}", "4");
  /* A value that is the string "id" is not the key id. */
  check_id("{\"method\":\"id\",\"a\":1}", "");
  check_id("{\"id\\\"\":1}", "");
  /* Escaped quotes inside top-level keys don't end the key. */
  check_id("{\"\\\"\":1,\"id\":2}", "2");
  check_id("{\"a\\\"\":{\"id\":1},\"id\":2}", "2");
  check_id("{\"\\\\\":1,\"id\":3}", "3");
}

static void
test_no_id(void)
{
  check_id("", "");
  check_id("{}", "");
  check_id("{\"jsonrpc\":\"2.0\",\"method\":\"n\"}", "");
  check_id("{\"idx\":1,\"xid\":2,\"i\":3,\"ID\":4,\"d\":5}", "");
  /* A batch: the ids are not at the top level of an object. */
  check_id("[{\"id\":1},{\"id\":2}]", "");
  check_id("\"id\"", "");
  check_id("42", "");
}

static void
test_id_not_scalar(void)
{
  check_id("{\"id\":{\"a\":1}}", "");
  check_id("{\"id\":[1],\"x\":2}", "");
  check_id("{\"id\":{\"id\":1},\"x\":2}", "");
}

static void
test_incomplete(void)
{
  /* An id is reported only once its value is known to be complete. */
  check_id("{\"id\":12", "");
  check_id("{\"id\":\"ab", "");
  check_id("{\"id\":\"ab\"", "");
  check_id("{\"id\":", "");
  check_id("{\"id\"", "");
  check_id("{\"id\":12,", "12");
}

static void
test_first_id_wins(void)
{
  check_id("{\"id\":1,\"id\":2}", "1");
  check_id("{\"id\":1}{\"id\":2}", "1");
}

static void
test_id_length_limit(void)
{
  char text[128], want[80];
  size_t n;

  /* The scanner keeps up to 63 bytes of id text; a longer id is dropped
   * (we never send such an id, so it cannot answer one of our requests). */
  for (n = 60; n <= 66; n++) {
    memset(want, '9', n);
    want[n] = '\0';
    snprintf(text, sizeof text, "{\"id\":%s,\"x\":1}", want);
    check_id(text, n <= 63 ? want : "");
    snprintf(text, sizeof text, "{\"x\":1,\"id\":%s}", want);
    check_id(text, n <= 63 ? want : "");
  }
  /* A string id counts its quotes. */
  memset(want, 'a', 63);
  want[0] = want[62] = '"';
  want[63] = '\0';
  snprintf(text, sizeof text, "{\"id\":%s}", want);
  check_id(text, want);
  memset(want, 'a', 64);
  want[0] = want[63] = '"';
  want[64] = '\0';
  snprintf(text, sizeof text, "{\"id\":%s}", want);
  check_id(text, "");
}

static void
test_long_keys(void)
{
  check_id("{\"a_rather_long_key\":\"v\",\"id\":5}", "5");
  check_id("{\"idid\":1,\"id\":6}", "6");
  check_id("{\"ida\":1}", "");
}

static void
test_feed_after_done(void)
{
  mcp_idscan_t s;
  size_t len = 0;
  const char *id;

  mcp_idscan_init(&s);
  mcp_idscan_feed(&s, "{\"id\":5,", 8);
  mcp_idscan_feed(&s, "\"id\":6}", 7);
  id = mcp_idscan_id(&s, &len);
  ASSERT_MEM_EQ(id, len, "5");

  /* init starts over. */
  mcp_idscan_init(&s);
  ASSERT_NULL(mcp_idscan_id(&s, &len));
  mcp_idscan_feed(&s, "{\"id\":6}", 8);
  id = mcp_idscan_id(&s, &len);
  ASSERT_MEM_EQ(id, len, "6");
}

int
main(void)
{
  RUN_TEST(test_id_first);
  RUN_TEST(test_id_last);
  RUN_TEST(test_id_middle);
  RUN_TEST(test_whitespace);
  RUN_TEST(test_number_forms);
  RUN_TEST(test_string_ids_keep_quotes);
  RUN_TEST(test_nested_id_ignored);
  RUN_TEST(test_id_inside_strings_ignored);
  RUN_TEST(test_no_id);
  RUN_TEST(test_id_not_scalar);
  RUN_TEST(test_incomplete);
  RUN_TEST(test_first_id_wins);
  RUN_TEST(test_id_length_limit);
  RUN_TEST(test_long_keys);
  RUN_TEST(test_feed_after_done);
  TEST_DONE();
}
