/*
 * test_json.c - tests for the cJSON wrappers (json.c): the nesting limit
 * (exactly at the limit passes, one deeper is MCP_ETOOBIG, brackets inside
 * strings don't count), malformed input and trailing data (MCP_EJSON),
 * trailing whitespace, and the typed getters.
 */
#include "common.h"
#include "error.h"
#include "json.h"
#include "jsonscan.h"
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

/* The strict check's verdict on s: 0, MCP_EJSON or MCP_ETOOBIG. */
static int
check_str(const char *s, int max_depth)
{
  return mcp_json_check(s, strlen(s), max_depth, NULL);
}

static void
test_check_depth(void)
{
  ASSERT_EQ(check_str("1", 1), 0);
  ASSERT_EQ(check_str("\"x\"", 1), 0);
  ASSERT_EQ(check_str("[]", 1), 0);
  ASSERT_EQ(check_str("[[]]", 1), MCP_ETOOBIG);
  ASSERT_EQ(check_str("{\"a\":[1,{\"b\":[]}]}", 4), 0);
  ASSERT_EQ(check_str("{\"a\":[1,{\"b\":[]}]}", 3), MCP_ETOOBIG);
  ASSERT_EQ(check_str("[[],[[[]]]]", 4), 0);
  ASSERT_EQ(check_str("[[],[[[]]]]", 3), MCP_ETOOBIG);
  /* Stray closers are errors, not a way below zero. */
  ASSERT_EQ(check_str("]]]}[", 10), MCP_EJSON);
  /* The length is respected: two brackets of four are unterminated. */
  ASSERT_EQ(mcp_json_check("[[]]", 2, 10, NULL), MCP_EJSON);
  /* 0 means the checker's own bound (cJSON's: 1000). */
  ASSERT_EQ(check_str("[[[[[[[[]]]]]]]]", 0), 0);
}

/* Issue 11, defect 6: cJSON took control bytes for whitespace, compared
 * keys as C strings ({"id\u0000":1} was an id), and the fast path let
 * malformed members through. The check refuses all of it. */
static void
test_check_strict(void)
{
  static const char *const bad[] = {
    "{\"id\\u0000\":1}", "[{\"a\":{\"k\\u0000x\":1}}]",
    "\x01{}", "{\x01\"a\":1}", "[1,\x7f" "2]", "{\"a\":1}\x0b",
    "\"tab\there\"", "[01]", "[1.]", "[.5]", "[1e]", "[-]", "[+1]",
    "[1,,2]", "[,]", "{,}", "{\"a\" 1}", "{\"a\":1,}", "[tru]", "[nulls]",
    "[\"\\x\"]", "[\"\\u12g4\"]", "{\"a\":}", "[1]]", "{}}", "[}", "{]",
    "{1:2}", "[\"a\"\"b\"]", "NaN", "[Infinity]",
    "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "[64e464464]",
    "[-1e309]", "\"abc\\",
  };
  static const char *const good[] = {
    "{\"v\":\"a\\u0000b\"}", "{\"\\u0041\":[1.5e-3,-0,0.25,1E+2]}",
    " \t\r\n[true,false,null] \n", "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"", "{}",
    "[[],{},\"\"]",
  };
  mcp_error_t err;
  size_t k;

  for (k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    int rc = check_str(bad[k], 16);

    if (rc != MCP_EJSON)
      fprintf(stderr, "accepted: %s\n", bad[k]);
    ASSERT_EQ(rc, MCP_EJSON);
    ASSERT_EQ(parse_str(bad[k], 16), MCP_EJSON);
  }
  for (k = 0; k < sizeof good / sizeof good[0]; k++) {
    if (check_str(good[k], 16) != 0)
      fprintf(stderr, "refused: %s\n", good[k]);
    ASSERT_EQ(check_str(good[k], 16), 0);
  }
  mcp_error_clear(&err);
  ASSERT_EQ(mcp_json_check("{\"id\\u0000\":1}", 13, 16, &err), MCP_EJSON);
  ASSERT(strstr(err.msg, "NUL in an object key") != NULL);
  ASSERT(strstr(err.msg, "at byte 4") != NULL);
}

static void
test_depth_ignores_strings(void)
{
  const char *s = "[\"[[[[{{{{\",{\"]]]]\":\"{{{{\"}]";

  ASSERT_EQ(parse_str(s, 2), 0);
  ASSERT_EQ(parse_str(s, 1), MCP_ETOOBIG);
  /* Escaped quotes don't end the string; an escaped backslash does not
   * escape the closing quote. */
  s = "[\"\\\"[[[[\",\"\\\\\",[\"\\\\\\\"{{\"]]";
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
  /* With no bound of the caller's, the checker's own holds. */
  ASSERT_EQ(mcp_json_check(s, n, 0, NULL), MCP_ETOOBIG);
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
  ASSERT_STR_EQ(err.msg, "malformed JSON at byte 4: trailing data after "
                "the value");
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
  RUN_TEST(test_check_depth);
  RUN_TEST(test_check_strict);
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
