/*
 * test_json.c - tests for the cJSON wrappers (json.c): the nesting limit
 * (exactly at the limit passes, one deeper is MCP_ETOOBIG, brackets inside
 * strings don't count), malformed input and trailing data (MCP_EJSON),
 * trailing whitespace, and the typed getters.
 */
#include "common.h"
#include "error.h"
#include "json.h"
#include "test.h"

/* Returns a malloc'd text nesting `depth` arrays: [[[...]]] with a 1 in the
 * middle. */
static char *
nested_arrays(int depth)
{
  char *s = malloc((size_t) depth * 2 + 2);
  int i;

  ASSERT_NOT_NULL(s);
  for (i = 0; i < depth; i++) {
    s[i] = '[';
    s[depth + 1 + i] = ']';
  }
  s[depth] = '1';
  s[2 * depth + 1] = '\0';
  return s;
}

/* Returns a malloc'd text nesting `depth` objects: {"a":{"a":...{}}}. */
static char *
nested_objects(int depth)
{
  size_t cap = (size_t) depth * 6 + 1;
  char *s = malloc(cap);
  size_t at = 0;
  int i;

  ASSERT_NOT_NULL(s);
  for (i = 0; i < depth; i++) {
    if (i == depth - 1) {
      memcpy(s + at, "{", 1);
      at += 1;
    } else {
      memcpy(s + at, "{\"a\":", 5);
      at += 5;
    }
  }
  for (i = 0; i < depth; i++)
    s[at++] = '}';
  s[at] = '\0';
  ASSERT(at < cap);
  return s;
}

/* Parses s and returns the error code (0 on success). */
static int
parse_code(const char *s, size_t len, int max_depth)
{
  mcp_error_t err;
  cJSON *v;

  mcp_error_clear(&err);
  v = mcp_json_parse(s, len, max_depth, &err);
  if (v == NULL) {
    ASSERT(err.code < 0);
    ASSERT(err.msg[0] != '\0');
    return err.code;
  }
  ASSERT_EQ(err.code, 0);
  cJSON_Delete(v);
  return 0;
}

static int
parse_str(const char *s, int max_depth)
{
  return parse_code(s, strlen(s), max_depth);
}

static void
test_depth_counts(void)
{
  ASSERT_EQ(mcp_json_depth("1", 1, 10), 0);
  ASSERT_EQ(mcp_json_depth("\"x\"", 3, 10), 0);
  ASSERT_EQ(mcp_json_depth("[]", 2, 10), 1);
  ASSERT_EQ(mcp_json_depth("[][]{}", 6, 10), 1);
  ASSERT_EQ(mcp_json_depth("{\"a\":[1,{\"b\":[]}]}", 18, 10), 4);
  ASSERT_EQ(mcp_json_depth("[[]][[[]]]", 10, 10), 3);
  /* Stray closers never drive the depth below zero. */
  ASSERT_EQ(mcp_json_depth("]]]}[", 5, 10), 1);
  /* The length is respected. */
  ASSERT_EQ(mcp_json_depth("[[[[", 2, 10), 2);
  /* It stops counting once past the limit. */
  ASSERT_EQ(mcp_json_depth("[[[[[[[[", 8, 3), 4);
}

static void
test_depth_ignores_strings(void)
{
  const char *s = "[\"[[[[{{{{\",{\"]]]]\":\"{{{{\"}]";

  ASSERT_EQ(mcp_json_depth(s, strlen(s), 10), 2);
  ASSERT_EQ(parse_str(s, 2), 0);
  ASSERT_EQ(parse_str(s, 1), MCP_ETOOBIG);
  /* Escaped quotes don't end the string; an escaped backslash does not
   * escape the closing quote. */
  s = "[\"\\\"[[[[\",\"\\\\\",[\"\\\\\\\"{{\"]]";
  ASSERT_EQ(mcp_json_depth(s, strlen(s), 10), 2);
  ASSERT_EQ(parse_str(s, 2), 0);
  ASSERT_EQ(parse_str(s, 1), MCP_ETOOBIG);
  s = "\"[[[[[[[[[[[[[[[[[[[[\"";
  ASSERT_EQ(parse_str(s, 1), 0);
}

static void
test_depth_limit_arrays(void)
{
  int limits[] = {1, 2, 16, MCP_DEFAULT_MAX_DEPTH};
  size_t k;

  for (k = 0; k < sizeof limits / sizeof limits[0]; k++) {
    int limit = limits[k];
    char *at = nested_arrays(limit);
    char *over = nested_arrays(limit + 1);

    ASSERT_EQ(mcp_json_depth(at, strlen(at), limit), limit);
    ASSERT_EQ(parse_str(at, limit), 0);
    ASSERT_EQ(parse_str(over, limit), MCP_ETOOBIG);
    ASSERT_EQ(parse_str(over, limit + 1), 0);
    free(at);
    free(over);
  }
}

static void
test_depth_limit_objects(void)
{
  int limits[] = {1, 3, MCP_DEFAULT_MAX_DEPTH};
  size_t k;

  for (k = 0; k < sizeof limits / sizeof limits[0]; k++) {
    int limit = limits[k];
    char *at = nested_objects(limit);
    char *over = nested_objects(limit + 1);

    ASSERT_EQ(parse_str(at, limit), 0);
    ASSERT_EQ(parse_str(over, limit), MCP_ETOOBIG);
    free(at);
    free(over);
  }
}

static void
test_depth_error_message(void)
{
  mcp_error_t err;
  cJSON *v;

  mcp_error_clear(&err);
  v = mcp_json_parse("[[[1]]]", 7, 2, &err);
  ASSERT_NULL(v);
  ASSERT_EQ(err.code, MCP_ETOOBIG);
  ASSERT_STR_EQ(err.msg, "JSON nesting deeper than 2");
  /* err may be NULL. */
  ASSERT_NULL(mcp_json_parse("[[[1]]]", 7, 2, NULL));
}

static void
test_hostile_nesting(void)
{
  size_t n = 1000000;
  char *s = malloc(n);

  /* A million '[' is refused by the scan, before cJSON recurses. */
  ASSERT_NOT_NULL(s);
  memset(s, '[', n);
  ASSERT_EQ(parse_code(s, n, MCP_DEFAULT_MAX_DEPTH), MCP_ETOOBIG);
  ASSERT_EQ(mcp_json_depth(s, n, MCP_DEFAULT_MAX_DEPTH),
            MCP_DEFAULT_MAX_DEPTH + 1);
  free(s);
}

static void
test_malformed(void)
{
  const char *bad[] = {
      "",      " ",        "{",          "}",           "[1,]",
      "[1 2]", "{\"a\":}", "{\"a\" 1}",  "{a:1}",       "'a'",
      "nul",   "tru",      "x1",         "\"unclosed",  "{\"a\":1,}",
      "[\"\\x\"]", "-",    "{\"a\":1]",  "[",           "\"\\u12\"",
  };
  size_t k;

  for (k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    mcp_error_t err;

    mcp_error_clear(&err);
    ASSERT_NULL(mcp_json_parse(bad[k], strlen(bad[k]), 16, &err));
    if (err.code != MCP_EJSON)
      fprintf(stderr, "input: %s\n", bad[k]);
    ASSERT_EQ(err.code, MCP_EJSON);
    ASSERT(strncmp(err.msg, "malformed JSON at byte ", 23) == 0);
  }
  ASSERT_NULL(mcp_json_parse("{", 1, 16, NULL));
}

static void
test_trailing_data(void)
{
  const char *bad[] = {
      "{} x", "1 2", "{}{}", "[]]", "{}}", "\"a\"\"b\"", "null,", "{}\n{}",
      "true false", "[1] //",
  };
  size_t k;
  mcp_error_t err;

  for (k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    mcp_error_clear(&err);
    ASSERT_NULL(mcp_json_parse(bad[k], strlen(bad[k]), 16, &err));
    ASSERT_EQ(err.code, MCP_EJSON);
  }
  mcp_error_clear(&err);
  ASSERT_NULL(mcp_json_parse("{}  x", 5, 16, &err));
  ASSERT_STR_EQ(err.msg, "trailing data after JSON value at byte 4");
  /* A NUL byte inside the given length is trailing data too. */
  ASSERT_EQ(parse_code("{}\0", 3, 16), MCP_EJSON);
  ASSERT_EQ(parse_code("{} \0 ", 5, 16), MCP_EJSON);
}

static void
test_trailing_whitespace(void)
{
  const char *good[] = {
      "{}", "{} ", "{}\n", "{}\r\n", " \t{}\t \r\n ", "1\n", "\"x\" ",
      "[1,2]\n\n",
  };
  size_t k;

  for (k = 0; k < sizeof good / sizeof good[0]; k++)
    ASSERT_EQ(parse_str(good[k], 16), 0);
}

static void
test_length_is_respected(void)
{
  mcp_error_t err;
  cJSON *v;

  /* Bytes past len are not looked at, even without a NUL. */
  mcp_error_clear(&err);
  v = mcp_json_parse("{\"a\":1}garbage", 7, 16, &err);
  ASSERT_NOT_NULL(v);
  ASSERT(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(v, "a")));
  cJSON_Delete(v);
  ASSERT_EQ(parse_code("[1,2]", 3, 16), MCP_EJSON);
  ASSERT_EQ(parse_code("[[[[1]]]]", 2, 1), MCP_ETOOBIG);
}

static void
test_values_and_getters(void)
{
  const char *s =
      "{\"s\":\"str\",\"n\":7,\"o\":{\"k\":[]},\"a\":[],\"z\":null}";
  cJSON *v = mcp_json_parse(s, strlen(s), 16, NULL);
  char *text;

  ASSERT_NOT_NULL(v);
  ASSERT_STR_EQ(mcp_json_string(v, "s"), "str");
  ASSERT_NULL(mcp_json_string(v, "n"));
  ASSERT_NULL(mcp_json_string(v, "missing"));
  ASSERT_NULL(mcp_json_string(v, "S")); /* keys are case sensitive */
  ASSERT_NOT_NULL(mcp_json_object(v, "o"));
  ASSERT_NOT_NULL(cJSON_GetObjectItemCaseSensitive(mcp_json_object(v, "o"),
                                                   "k"));
  ASSERT_NULL(mcp_json_object(v, "a"));
  ASSERT_NULL(mcp_json_object(v, "z"));
  ASSERT_NULL(mcp_json_object(v, "s"));
  ASSERT_NULL(mcp_json_object(NULL, "s"));
  ASSERT_NULL(mcp_json_string(NULL, "s"));
  text = mcp_json_print(v);
  ASSERT_STR_EQ(text, s);
  cJSON_free(text);
  cJSON_Delete(v);
}

int
main(void)
{
  RUN_TEST(test_depth_counts);
  RUN_TEST(test_depth_ignores_strings);
  RUN_TEST(test_depth_limit_arrays);
  RUN_TEST(test_depth_limit_objects);
  RUN_TEST(test_depth_error_message);
  RUN_TEST(test_hostile_nesting);
  RUN_TEST(test_malformed);
  RUN_TEST(test_trailing_data);
  RUN_TEST(test_trailing_whitespace);
  RUN_TEST(test_length_is_respected);
  RUN_TEST(test_values_and_getters);
  TEST_DONE();
}
