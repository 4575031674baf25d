/*
 * test_jsonscan.c - the top-level member scanner: slices of keys and
 * values, strings with brackets and escaped quotes, the nesting limit,
 * and structural errors.
 */
#include <string.h>

#include "common.h"
#include "jsonscan.h"
#include "test.h"

static size_t n;
static mcp_json_member_t m[8];

static int
scan(const char *text, int depth)
{
  return mcp_json_members(text, strlen(text), depth, m, 8, &n);
}

static void
expect_member(const char *key, const char *value)
{
  const mcp_json_member_t *x = mcp_json_member(m, n, key);

  ASSERT_NOT_NULL(x);
  ASSERT_EQ(x->value_len, strlen(value));
  ASSERT(memcmp(x->value, value, x->value_len) == 0);
}

static void
test_response(void)
{
  ASSERT_EQ(scan("{\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]},"
                 "\"jsonrpc\":\"2.0\",\"id\":7}", 8), 0);
  ASSERT_EQ(n, 3);
  expect_member("result", "{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}");
  expect_member("jsonrpc", "\"2.0\"");
  expect_member("id", "7");
  ASSERT_NULL(mcp_json_member(m, n, "error"));
}

static void
test_space_and_scalars(void)
{
  ASSERT_EQ(scan(" \n{ \"a\" : 1 , \"b\":true,\"c\" :null, \"d\": -2.5e3 }\r\n", 8), 0);
  ASSERT_EQ(n, 4);
  expect_member("a", "1");
  expect_member("b", "true");
  expect_member("c", "null");
  expect_member("d", "-2.5e3");
  ASSERT_EQ(scan("{}", 8), 0);
  ASSERT_EQ(n, 0);
}

static void
test_strings_hide_structure(void)
{
  ASSERT_EQ(scan("{\"s\":\"}]{[,:\\\"\",\"t\":[\"]\",\"\\\\\"],\"u\":2}", 8), 0);
  ASSERT_EQ(n, 3);
  expect_member("s", "\"}]{[,:\\\"\"");
  expect_member("t", "[\"]\",\"\\\\\"]");
  expect_member("u", "2");
}

static void
test_depth_limit(void)
{
  /* The object is level 1, so [[1]] inside it reaches 3. */
  ASSERT_EQ(scan("{\"a\":[[1]]}", 3), 0);
  ASSERT_EQ(scan("{\"a\":[[1]]}", 2), MCP_ETOOBIG);
  ASSERT_EQ(scan("{\"a\":\"[[[[[[\"}", 2), 0);
}

static void
test_malformed(void)
{
  static const char *const bad[] = {
    "", "[1]", "{", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{\"a\":1 \"b\":2}",
    "{\"a\":1}x", "{\"a\":[1}", "{a:1}", "{\"a\":\"open}", "{\"a\":1}}",
    NULL,
  };
  int i;

  for (i = 0; bad[i] != NULL; i++)
    ASSERT_EQ(scan(bad[i], 8), MCP_EJSON);
}

static void
test_more_members_than_room(void)
{
  ASSERT_EQ(scan("{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6,\"g\":7,"
                 "\"h\":8,\"i\":9,\"j\":10}", 8), 0);
  ASSERT_EQ(n, 8);
  expect_member("h", "8");
  ASSERT_NULL(mcp_json_member(m, n, "j"));
  /* ...and the rest is still checked. */
  ASSERT_EQ(scan("{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6,\"g\":7,"
                 "\"h\":8,\"i\":9,\"j\":}", 8), MCP_EJSON);
}

int
main(void)
{
  RUN_TEST(test_response);
  RUN_TEST(test_space_and_scalars);
  RUN_TEST(test_strings_hide_structure);
  RUN_TEST(test_depth_limit);
  RUN_TEST(test_malformed);
  RUN_TEST(test_more_members_than_room);
  TEST_DONE();
}
