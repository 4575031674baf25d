/*
 * test_schema.c - unit tests of the JSON Schema API (schema.h): the
 * failure reported (instance path, keyword, schema path), the depth bound
 * on deep instances and reference loops, the node bound, compile errors
 * for invalid schemas, reuse of one compiled schema, draft-07 against
 * 2020-12 array semantics, the resolver's ownership, code point lengths,
 * format as an annotation, and the pattern subset.
 *
 * The official suite runs in test_schema_suite.c.
 */
#include <cjson/cJSON.h>

#include "common.h"
#include "error.h"
#include "schema.h"
#include "test.h"

/* Compiles the schema text with opts (may be NULL); asserts success. */
static mcp_schema_t *
compile_ok(const char *text, const mcp_schema_opts_t *opts)
{
  cJSON *doc = cJSON_Parse(text);
  mcp_schema_t *s = NULL;
  mcp_error_t err;
  int rc;

  ASSERT_NOT_NULL(doc);
  memset(&err, 0, sizeof err);
  rc = mcp_schema_compile(doc, opts, &s, &err);
  if (rc != 0)
    fprintf(stderr, "compile: %s\n", err.msg);
  ASSERT_EQ(rc, 0);
  ASSERT_NOT_NULL(s);
  cJSON_Delete(doc); /* the compiled schema keeps its own copy */
  return s;
}

/* Returns the compile result code for the schema text; the message must
 * be set on failure. */
static int
compile_rc(const char *text, const mcp_schema_opts_t *opts)
{
  cJSON *doc = cJSON_Parse(text);
  mcp_schema_t *s = NULL;
  mcp_error_t err;
  int rc;

  ASSERT_NOT_NULL(doc);
  memset(&err, 0, sizeof err);
  rc = mcp_schema_compile(doc, opts, &s, &err);
  if (rc != 0) {
    ASSERT_NULL(s);
    ASSERT(err.msg[0] != '\0');
    ASSERT_EQ(err.code, rc);
  }
  mcp_schema_free(s);
  cJSON_Delete(doc);
  return rc;
}

/* Validates the instance text; fills why. */
static int
check(const mcp_schema_t *s, const char *text, mcp_schema_failure_t *why)
{
  cJSON *inst = cJSON_Parse(text);
  int rc;

  ASSERT_NOT_NULL(inst);
  rc = mcp_schema_validate(s, inst, why);
  cJSON_Delete(inst);
  return rc;
}

static void
test_failure_nested_type(void)
{
  mcp_schema_t *s = compile_ok(
      "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"object\","
      "\"properties\":{\"b\":{\"type\":\"integer\"}}}}}", NULL);
  mcp_schema_failure_t why;

  ASSERT_EQ(check(s, "{\"a\":{\"b\":\"x\"}}", &why), MCP_ESCHEMA);
  ASSERT_STR_EQ(why.instance_path, "/a/b");
  ASSERT_STR_EQ(why.keyword, "type");
  ASSERT_STR_EQ(why.schema_path, "/properties/a/properties/b/type");
  ASSERT(strstr(why.message, "integer") != NULL);
  ASSERT_EQ(check(s, "{\"a\":{\"b\":3}}", &why), 0);
  ASSERT_EQ(check(s, "{\"a\":{\"b\":3.0}}", NULL), 0);
  ASSERT_EQ(check(s, "{\"a\":{\"b\":3.5}}", NULL), MCP_ESCHEMA);
  mcp_schema_free(s);
}

static void
test_failure_keywords(void)
{
  mcp_schema_t *s = compile_ok(
      "{\"type\":\"object\",\"required\":[\"name\"],"
      "\"properties\":{\"name\":{\"type\":\"string\",\"minLength\":2},"
      "\"tags\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/tag\"}},"
      "\"a/b~c\":{\"enum\":[1,2]},"
      "\"kind\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"null\"}]}},"
      "\"additionalProperties\":false,"
      "\"$defs\":{\"tag\":{\"type\":\"string\",\"pattern\":\"^[a-z]+$\"}}}",
      NULL);
  mcp_schema_failure_t why;

  ASSERT_EQ(check(s, "{}", &why), MCP_ESCHEMA);
  ASSERT_STR_EQ(why.instance_path, "");
  ASSERT_STR_EQ(why.keyword, "required");
  ASSERT_STR_EQ(why.schema_path, "/required");
  ASSERT(strstr(why.message, "name") != NULL);

  ASSERT_EQ(check(s, "{\"name\":\"ab\",\"extra\":1}", &why), MCP_ESCHEMA);
  ASSERT_STR_EQ(why.instance_path, "/extra");
  ASSERT_STR_EQ(why.keyword, "additionalProperties");
  ASSERT_STR_EQ(why.schema_path, "/additionalProperties");

  ASSERT_EQ(check(s, "{\"name\":\"a\"}", &why), MCP_ESCHEMA);
  ASSERT_STR_EQ(why.instance_path, "/name");
  ASSERT_STR_EQ(why.keyword, "minLength");

  /* Through a $ref: the schema path is the evaluation path. */
  ASSERT_EQ(check(s, "{\"name\":\"ab\",\"tags\":[\"ok\",\"No\"]}", &why),
            MCP_ESCHEMA);
  ASSERT_STR_EQ(why.instance_path, "/tags/1");
  ASSERT_STR_EQ(why.keyword, "pattern");
  ASSERT_STR_EQ(why.schema_path, "/properties/tags/items/$ref/pattern");

  /* Pointer tokens are escaped. */
  ASSERT_EQ(check(s, "{\"name\":\"ab\",\"a/b~c\":3}", &why), MCP_ESCHEMA);
  ASSERT_STR_EQ(why.instance_path, "/a~1b~0c");
  ASSERT_STR_EQ(why.keyword, "enum");
  ASSERT_STR_EQ(why.schema_path, "/properties/a~1b~0c/enum");

  /* anyOf reports itself, not a branch. */
  ASSERT_EQ(check(s, "{\"name\":\"ab\",\"kind\":5}", &why), MCP_ESCHEMA);
  ASSERT_STR_EQ(why.instance_path, "/kind");
  ASSERT_STR_EQ(why.keyword, "anyOf");
  ASSERT_STR_EQ(why.schema_path, "/properties/kind/anyOf");

  ASSERT_EQ(check(s, "{\"name\":\"ab\",\"kind\":null,\"tags\":[]}", &why),
            0);
  ASSERT_EQ(check(s, "{\"name\":\"ab\",\"kind\":null}", NULL), 0);
  ASSERT_EQ(check(s, "[]", NULL), MCP_ESCHEMA);
  mcp_schema_free(s);
}

static void
test_failure_unevaluated(void)
{
  mcp_schema_t *s = compile_ok(
      "{\"allOf\":[{\"properties\":{\"a\":true}}],"
      "\"if\":{\"required\":[\"b\"]},\"then\":{\"properties\":{\"b\":true}},"
      "\"unevaluatedProperties\":false}", NULL);
  mcp_schema_failure_t why;

  ASSERT_EQ(check(s, "{\"a\":1,\"b\":2}", &why), 0);
  ASSERT_EQ(check(s, "{\"a\":1,\"c\":2}", &why), MCP_ESCHEMA);
  ASSERT_STR_EQ(why.instance_path, "/c");
  ASSERT_STR_EQ(why.keyword, "unevaluatedProperties");
  mcp_schema_free(s);
}

/* {"child":{"child":...{}}} nested depth times. */
static cJSON *
nested_children(int depth)
{
  cJSON *top = cJSON_CreateObject(), *cur = top;
  int i;

  for (i = 0; i < depth; i++) {
    cJSON *next = cJSON_CreateObject();

    cJSON_AddItemToObject(cur, "child", next);
    cur = next;
  }
  return top;
}

static void
test_depth_bound(void)
{
  const char *text =
      "{\"$ref\":\"#/$defs/node\",\"$defs\":{\"node\":{\"type\":\"object\","
      "\"properties\":{\"child\":{\"$ref\":\"#/$defs/node\"}}}}}";
  mcp_schema_t *s = compile_ok(text, NULL);
  mcp_schema_opts_t opts;
  mcp_schema_failure_t why;
  cJSON *shallow = nested_children(5), *deep = nested_children(200);

  ASSERT_EQ(mcp_schema_validate(s, shallow, &why), 0);
  ASSERT_EQ(mcp_schema_validate(s, deep, &why), MCP_ETOOBIG);
  ASSERT_STR_EQ(why.keyword, "$ref");
  ASSERT(strstr(why.message, "64") != NULL);
  ASSERT(strncmp(why.instance_path, "/child/child/", 13) == 0);
  mcp_schema_free(s);

  /* A higher bound lets the same instance through. */
  memset(&opts, 0, sizeof opts);
  opts.max_depth = 1000;
  s = compile_ok(text, &opts);
  ASSERT_EQ(mcp_schema_validate(s, deep, NULL), 0);
  mcp_schema_free(s);

  /* And a lower one stops even the shallow one. */
  opts.max_depth = 4;
  s = compile_ok(text, &opts);
  ASSERT_EQ(mcp_schema_validate(s, shallow, NULL), MCP_ETOOBIG);
  mcp_schema_free(s);
  cJSON_Delete(shallow);
  cJSON_Delete(deep);
}

static void
test_ref_loops(void)
{
  mcp_schema_t *s = compile_ok("{\"$ref\":\"#\"}", NULL);
  mcp_schema_failure_t why;

  ASSERT_EQ(check(s, "1", &why), MCP_ETOOBIG);
  ASSERT_STR_EQ(why.keyword, "$ref");
  ASSERT_EQ(check(s, "{}", NULL), MCP_ETOOBIG);
  mcp_schema_free(s);

  s = compile_ok("{\"$defs\":{\"a\":{\"$ref\":\"#/$defs/b\"},"
                 "\"b\":{\"$ref\":\"#/$defs/a\"}},\"$ref\":\"#/$defs/a\"}",
                 NULL);
  ASSERT_EQ(check(s, "null", &why), MCP_ETOOBIG);
  mcp_schema_free(s);

  /* A loop hidden in an anyOf branch is still an error, not a mismatch. */
  s = compile_ok("{\"anyOf\":[{\"$ref\":\"#\"},{\"type\":\"string\"}]}",
                 NULL);
  ASSERT_EQ(check(s, "\"x\"", &why), MCP_ETOOBIG);
  mcp_schema_free(s);
}

static void
test_max_nodes(void)
{
  const char *text =
      "{\"properties\":{\"a\":{},\"b\":{},\"c\":{},\"d\":{},\"e\":{},"
      "\"f\":{\"items\":{\"not\":{}}}}}";
  mcp_schema_opts_t opts;

  memset(&opts, 0, sizeof opts);
  opts.max_nodes = 5;
  ASSERT_EQ(compile_rc(text, &opts), MCP_ETOOBIG);
  opts.max_nodes = 9;
  ASSERT_EQ(compile_rc(text, &opts), 0);
  opts.max_nodes = 8;
  ASSERT_EQ(compile_rc(text, &opts), MCP_ETOOBIG);
  ASSERT_EQ(compile_rc(text, NULL), 0);
}

static void
test_compile_errors(void)
{
  static const char *const bad[] = {
    "{\"type\":5}",
    "{\"type\":\"strings\"}",
    "{\"type\":[\"string\",1]}",
    "{\"minLength\":-1}",
    "{\"maxItems\":1.5}",
    "{\"multipleOf\":0}",
    "{\"maximum\":\"10\"}",
    "{\"required\":\"a\"}",
    "{\"required\":[1]}",
    "{\"enum\":1}",
    "{\"properties\":[]}",
    "{\"properties\":{\"a\":1}}",
    "{\"allOf\":[]}",
    "{\"anyOf\":{}}",
    "{\"not\":\"x\"}",
    "{\"items\":[{}]}",
    "{\"uniqueItems\":1}",
    "{\"pattern\":\"(\"}",
    "{\"pattern\":\"a(?=b)\"}",
    "{\"pattern\":\"(a)\\\\1\"}",
    "{\"patternProperties\":{\"[\":{}}}",
    "{\"dependentRequired\":{\"a\":[1]}}",
    "{\"$ref\":\"#/$defs/missing\"}",
    /* References into invalid subschemas (issue 11, defect 2: the
     * half-compiled target was kept and dereferenced). */
    "{\"$ref\":\"#/x/y\",\"x\":{\"y\":{\"type\":\"\",\"items\":{}}}}",
    "{\"$ref\":\"#/x\",\"x\":{\"items\":{},\"minLength\":-1}}",
    "{\"properties\":{\"a\":{\"$ref\":\"#/x/0\"}},"
    "\"x\":[{\"required\":[1],\"items\":{}}]}",
    "{\"$dynamicRef\":\"#/x\",\"x\":{\"type\":\"\",\"items\":{}}}",
    "{\"$ref\":\"#nowhere\"}",
    "{\"$ref\":\"http://example.com/remote.json\"}",
    "{\"$ref\":5}",
    "{\"$id\":\"http://example.com/a#frag\"}",
    "{\"$anchor\":\"1bad\"}",
    "5",
    "\"schema\"",
    "null",
  };
  size_t i;

  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    int rc = compile_rc(bad[i], NULL);

    if (rc != MCP_EINVAL)
      fprintf(stderr, "schema %s gave %d\n", bad[i], rc);
    ASSERT_EQ(rc, MCP_EINVAL);
  }
  /* Unknown keywords are ignored; booleans are schemas. */
  ASSERT_EQ(compile_rc("{\"x-custom\":5,\"format\":\"email\"}", NULL), 0);
  ASSERT_EQ(compile_rc("true", NULL), 0);
}

static void
test_reuse(void)
{
  mcp_schema_t *s = compile_ok(
      "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\","
      "\"minimum\":0}},\"required\":[\"n\"],"
      "\"unevaluatedProperties\":false}", NULL);
  mcp_schema_failure_t why;
  int i;

  for (i = 0; i < 2000; i++) {
    cJSON *inst = cJSON_CreateObject();

    cJSON_AddNumberToObject(inst, "n", i % 3 == 0 ? -i : i);
    if (i % 5 == 0)
      cJSON_AddBoolToObject(inst, "x", 1);
    if (i % 3 == 0 && i > 0) {
      ASSERT_EQ(mcp_schema_validate(s, inst, &why), MCP_ESCHEMA);
      ASSERT_STR_EQ(why.keyword, "minimum");
      ASSERT_STR_EQ(why.instance_path, "/n");
    } else if (i % 5 == 0) {
      ASSERT_EQ(mcp_schema_validate(s, inst, &why), MCP_ESCHEMA);
      ASSERT_STR_EQ(why.keyword, "unevaluatedProperties");
    } else {
      ASSERT_EQ(mcp_schema_validate(s, inst, &why), 0);
    }
    cJSON_Delete(inst);
  }
  mcp_schema_free(s);
}

static void
test_items_drafts(void)
{
  mcp_schema_t *s;
  mcp_schema_failure_t why;

  /* draft-07: an items array is a tuple; additionalItems the rest. */
  s = compile_ok("{\"$schema\":\"http://json-schema.org/draft-07/schema#\","
                 "\"items\":[{\"type\":\"integer\"}]}", NULL);
  ASSERT_EQ(check(s, "[1,\"x\"]", NULL), 0);
  ASSERT_EQ(check(s, "[\"x\"]", &why), MCP_ESCHEMA);
  ASSERT_STR_EQ(why.instance_path, "/0");
  ASSERT_STR_EQ(why.schema_path, "/items/0/type");
  mcp_schema_free(s);

  s = compile_ok("{\"$schema\":\"http://json-schema.org/draft-07/schema#\","
                 "\"items\":[{\"type\":\"integer\"}],"
                 "\"additionalItems\":false}", NULL);
  ASSERT_EQ(check(s, "[1]", NULL), 0);
  ASSERT_EQ(check(s, "[1,2]", &why), MCP_ESCHEMA);
  ASSERT_STR_EQ(why.instance_path, "/1");
  ASSERT_STR_EQ(why.keyword, "additionalItems");
  mcp_schema_free(s);

  /* draft-07 ignores prefixItems; $ref overrides its siblings. */
  s = compile_ok("{\"$schema\":\"http://json-schema.org/draft-07/schema\","
                 "\"definitions\":{\"s\":{\"type\":\"string\"}},"
                 "\"properties\":{\"p\":{\"prefixItems\":[false]},"
                 "\"r\":{\"$ref\":\"#/definitions/s\",\"maxLength\":1}}}",
                 NULL);
  ASSERT_EQ(check(s, "{\"p\":[1],\"r\":\"long\"}", NULL), 0);
  ASSERT_EQ(check(s, "{\"r\":1}", NULL), MCP_ESCHEMA);
  mcp_schema_free(s);

  /* 2020-12: prefixItems is the tuple, items the rest; an items array is
   * not a schema. */
  s = compile_ok("{\"prefixItems\":[{\"type\":\"integer\"}],"
                 "\"items\":false}", NULL);
  ASSERT_EQ(check(s, "[1]", NULL), 0);
  ASSERT_EQ(check(s, "[1,2]", &why), MCP_ESCHEMA);
  ASSERT_STR_EQ(why.instance_path, "/1");
  ASSERT_STR_EQ(why.keyword, "items");
  mcp_schema_free(s);
  ASSERT_EQ(compile_rc("{\"items\":[{\"type\":\"integer\"}]}", NULL),
            MCP_EINVAL);
  /* 2020-12 ignores additionalItems. */
  s = compile_ok("{\"additionalItems\":false}", NULL);
  ASSERT_EQ(check(s, "[1,2]", NULL), 0);
  mcp_schema_free(s);
}

/* Serves one document for http://example.com/defs.json. */
static cJSON *
test_resolve(void *ud, const char *uri)
{
  int *calls = ud;

  (*calls)++;
  if (strcmp(uri, "http://example.com/defs.json") != 0)
    return NULL;
  return cJSON_Parse("{\"$defs\":{\"id\":{\"type\":\"string\","
                     "\"maxLength\":3}}}");
}

static void
test_resolver(void)
{
  mcp_schema_opts_t opts;
  mcp_schema_t *s;
  mcp_schema_failure_t why;
  int calls = 0;

  memset(&opts, 0, sizeof opts);
  opts.resolve = test_resolve;
  opts.resolve_ud = &calls;
  s = compile_ok("{\"$id\":\"http://example.com/root.json\","
                 "\"properties\":{\"a\":{\"$ref\":\"defs.json#/$defs/id\"},"
                 "\"b\":{\"$ref\":\"http://example.com/defs.json#/$defs/id\"}"
                 "}}", &opts);
  ASSERT_EQ(calls, 1); /* fetched once, the document is then known */
  ASSERT_EQ(check(s, "{\"a\":\"abc\",\"b\":\"x\"}", NULL), 0);
  ASSERT_EQ(check(s, "{\"a\":\"abcd\"}", &why), MCP_ESCHEMA);
  ASSERT_STR_EQ(why.keyword, "maxLength");
  ASSERT_STR_EQ(why.schema_path, "/properties/a/$ref/maxLength");
  mcp_schema_free(s);
  ASSERT_EQ(compile_rc("{\"$ref\":\"http://example.com/other.json\"}",
                       &opts),
            MCP_EINVAL);
}

static void
test_strings_and_format(void)
{
  mcp_schema_t *s = compile_ok(
      "{\"type\":\"string\",\"maxLength\":2,\"format\":\"email\"}", NULL);

  /* Code points, not bytes: U+00E9 is two bytes, U+1F600 four. */
  ASSERT_EQ(check(s, "\"\\u00e9\\u00e9\"", NULL), 0);
  ASSERT_EQ(check(s, "\"\\ud83d\\ude00x\"", NULL), 0);
  ASSERT_EQ(check(s, "\"abc\"", NULL), MCP_ESCHEMA);
  ASSERT_EQ(check(s, "\"no\"", NULL), 0); /* format is not asserted */
  mcp_schema_free(s);
}

static void
test_patterns(void)
{
  mcp_schema_t *s = compile_ok(
      "{\"properties\":{"
      "\"a\":{\"pattern\":\"^\\\\d{3}-\\\\p{L}+$\"},"
      "\"b\":{\"pattern\":\"^(?:ab|cd)*x?$\"},"
      "\"c\":{\"pattern\":\"\\\\bfoo\\\\b\"},"
      "\"d\":{\"pattern\":\"^[^\\\\s/]{2,4}\\\\.[a-z\\\\u00e9]$\"},"
      "\"e\":{\"pattern\":\"^(a*)*$\"}}}", NULL);

  ASSERT_EQ(check(s, "{\"a\":\"123-abc\"}", NULL), 0);
  ASSERT_EQ(check(s, "{\"a\":\"123-\\u00e9t\\u00e9\"}", NULL), 0);
  ASSERT_EQ(check(s, "{\"a\":\"12-abc\"}", NULL), MCP_ESCHEMA);
  ASSERT_EQ(check(s, "{\"a\":\"123-ab1\"}", NULL), MCP_ESCHEMA);
  ASSERT_EQ(check(s, "{\"b\":\"abcdabx\"}", NULL), 0);
  ASSERT_EQ(check(s, "{\"b\":\"\"}", NULL), 0);
  ASSERT_EQ(check(s, "{\"b\":\"abc\"}", NULL), MCP_ESCHEMA);
  ASSERT_EQ(check(s, "{\"c\":\"a foo b\"}", NULL), 0);
  ASSERT_EQ(check(s, "{\"c\":\"afoob\"}", NULL), MCP_ESCHEMA);
  ASSERT_EQ(check(s, "{\"d\":\"abc.\\u00e9\"}", NULL), 0);
  ASSERT_EQ(check(s, "{\"d\":\"a c.e\"}", NULL), MCP_ESCHEMA);
  ASSERT_EQ(check(s, "{\"d\":\"abcde.e\"}", NULL), MCP_ESCHEMA);
  /* Nested stars match in linear time, without backtracking. */
  ASSERT_EQ(check(s, "{\"e\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab\"}",
                  NULL),
            MCP_ESCHEMA);
  mcp_schema_free(s);
}

static void
test_boolean_and_misc(void)
{
  mcp_schema_t *s = compile_ok("false", NULL);
  mcp_schema_failure_t why;

  ASSERT_EQ(check(s, "{}", &why), MCP_ESCHEMA);
  ASSERT_STR_EQ(why.keyword, "false");
  ASSERT_STR_EQ(why.schema_path, "");
  mcp_schema_free(s);
  s = compile_ok("true", NULL);
  ASSERT_EQ(check(s, "[1,{}]", NULL), 0);
  ASSERT_EQ(mcp_schema_validate(s, NULL, NULL), MCP_EINVAL);
  mcp_schema_free(s);
  mcp_schema_free(NULL);

  s = compile_ok("{\"const\":{\"a\":[1,2.0]},\"uniqueItems\":true}", NULL);
  ASSERT_EQ(check(s, "{\"a\":[1.0,2]}", NULL), 0);
  ASSERT_EQ(check(s, "{\"a\":[2,1]}", &why), MCP_ESCHEMA);
  ASSERT_STR_EQ(why.keyword, "const");
  mcp_schema_free(s);
}

/* Validates instance (a value built by the caller, taken over). */
static int
check_value(const mcp_schema_t *s, cJSON *inst, mcp_schema_failure_t *why)
{
  int rc;

  ASSERT_NOT_NULL(inst);
  memset(why, 0, sizeof *why);
  rc = mcp_schema_validate(s, inst, why);
  cJSON_Delete(inst);
  return rc;
}

/* Issue 11, defect 3: work that grows with schema times instance stops at
 * the step budget with ETOOBIG, instead of freezing the caller (this
 * pattern took 12 s over 300 KB). */
static void
test_step_budget(void)
{
  static const char slow[] = "{\"pattern\":\"(?:(?:a?){1000}){9}b\"}";
  mcp_schema_opts_t opts;
  mcp_schema_failure_t why;
  mcp_schema_t *s;
  cJSON *arr, *obj;
  char *subject;
  size_t n = 300000;
  int i;

  subject = malloc(n + 1);
  ASSERT_NOT_NULL(subject);
  memset(subject, 'a', n);
  subject[n] = '\0';
  s = compile_ok(slow, NULL);
  ASSERT_EQ(check_value(s, cJSON_CreateString(subject), &why), MCP_ETOOBIG);
  ASSERT_STR_EQ(why.keyword, "pattern");
  ASSERT(strstr(why.message, "steps") != NULL);
  /* A short subject is well within the budget, and the schema is reusable. */
  ASSERT_EQ(check_value(s, cJSON_CreateString("aaab"), &why), 0);
  ASSERT_EQ(check_value(s, cJSON_CreateString("aaa"), &why), MCP_ESCHEMA);
  mcp_schema_free(s);

  /* The same through patternProperties, on a long member name. */
  s = compile_ok("{\"patternProperties\":{\"(?:(?:a?){1000}){9}b\":{}}}",
                 NULL);
  obj = cJSON_CreateObject();
  cJSON_AddNullToObject(obj, subject);
  ASSERT_EQ(check_value(s, obj, &why), MCP_ETOOBIG);
  ASSERT_STR_EQ(why.keyword, "patternProperties");
  mcp_schema_free(s);
  free(subject);

  /* uniqueItems compares every pair: 100,000 distinct items are 5e9. */
  s = compile_ok("{\"uniqueItems\":true}", NULL);
  arr = cJSON_CreateArray();
  for (i = 0; i < 100000; i++)
    cJSON_AddItemToArray(arr, cJSON_CreateNumber(i));
  ASSERT_EQ(check_value(s, arr, &why), MCP_ETOOBIG);
  ASSERT_STR_EQ(why.keyword, "uniqueItems");
  mcp_schema_free(s);

  /* A smaller budget from the options: each subschema applied costs a
   * step, so 10 items against "items" pass with 20 steps, not with 5. */
  memset(&opts, 0, sizeof opts);
  opts.max_steps = 20;
  s = compile_ok("{\"items\":{\"type\":\"integer\"}}", &opts);
  ASSERT_EQ(check(s, "[1,2,3,4,5,6,7,8,9,10]", &why), 0);
  mcp_schema_free(s);
  opts.max_steps = 5;
  s = compile_ok("{\"items\":{\"type\":\"integer\"}}", &opts);
  memset(&why, 0, sizeof why);
  ASSERT_EQ(check(s, "[1,2,3,4,5,6,7,8,9,10]", &why), MCP_ETOOBIG);
  /* Running out inside an anyOf branch is reported, not muted. */
  mcp_schema_free(s);
  s = compile_ok("{\"anyOf\":[{\"items\":{\"minimum\":0}},true]}", &opts);
  memset(&why, 0, sizeof why);
  ASSERT_EQ(check(s, "[1,2,3,4,5,6,7,8,9,10]", &why), MCP_ETOOBIG);
  ASSERT(strstr(why.message, "after 5 steps") != NULL);
  mcp_schema_free(s);
}

/* Found by fuzzing (issue 11): compiling cost grew with every pattern of a
 * schema (a pattern refused for its size was generated up to the limit
 * first). A pattern's size is now measured before it is generated, and a
 * schema's patterns share one bound. */
static void
test_pattern_budget(void)
{
  size_t n = 200, i, len = 0, cap = n * 48 + 64;
  char *text = malloc(cap);
  mcp_schema_t *s;

  ASSERT_NOT_NULL(text);
  /* One large pattern (19,000 instructions) still compiles and works. */
  s = compile_ok("{\"pattern\":\"^(?:a{1000}){19}$\"}", NULL);
  mcp_schema_free(s);
  /* Too large once expanded: refused, however it nests. */
  ASSERT_EQ(compile_rc("{\"pattern\":\"((a{1000}){1000}){1000}\"}", NULL),
            MCP_EINVAL);
  ASSERT_EQ(compile_rc("{\"pattern\":\"a{1000}{1000}\"}", NULL), MCP_EINVAL);
  /* 200 such patterns are 3.8 million instructions: over the schema's. */
  len += (size_t) snprintf(text + len, cap - len, "{\"properties\":{");
  for (i = 0; i < n; i++)
    len += (size_t) snprintf(text + len, cap - len,
                             "%s\"p%zu\":{\"pattern\":\"(?:a{1000}){19}\"}",
                             i ? "," : "", i);
  snprintf(text + len, cap - len, "}}");
  ASSERT_EQ(compile_rc(text, NULL), MCP_ETOOBIG);
  free(text);
}

int
main(void)
{
  RUN_TEST(test_failure_nested_type);
  RUN_TEST(test_failure_keywords);
  RUN_TEST(test_failure_unevaluated);
  RUN_TEST(test_depth_bound);
  RUN_TEST(test_ref_loops);
  RUN_TEST(test_max_nodes);
  RUN_TEST(test_compile_errors);
  RUN_TEST(test_reuse);
  RUN_TEST(test_items_drafts);
  RUN_TEST(test_resolver);
  RUN_TEST(test_strings_and_format);
  RUN_TEST(test_patterns);
  RUN_TEST(test_step_budget);
  RUN_TEST(test_pattern_budget);
  RUN_TEST(test_boolean_and_misc);
  TEST_DONE();
}
