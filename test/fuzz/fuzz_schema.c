/*
 * fuzz_schema.c - libFuzzer harness for the JSON Schema compiler and
 * validator (src/core/schema*.c): a server sends the schemas of its tools
 * (inputSchema, outputSchema) and the values checked against them.
 *
 * Input: one JSON array [schema, instances, remotes]. instances is an
 * array of values to validate (anything else is one value); remotes, if
 * present, is an object from URI to document that the resolver serves
 * (a remote $ref or a custom "$schema"). The seeds are cases of the
 * JSON-Schema-Test-Suite in this form.
 *
 * Compiling must succeed or fail with MCP_EINVAL or MCP_ETOOBIG and a
 * message. Each validation must answer 0, MCP_ESCHEMA or MCP_ETOOBIG,
 * with NUL-terminated failure strings, and give the same answer and
 * failure twice (a compiled schema is immutable). A compile or one
 * validation (of at most STEPS steps) over FUZZ_TIME_BOUND_MS, 2000 ms
 * by default, aborts: the step budget exists so that no value can freeze
 * the loop. FUZZ_SKIP=compile-budget leaves compiling unbounded (see
 * README.md).
 */
#include <stdint.h>
#include <string.h>

#include "common.h"
#include "fuzz.h"
#include "json.h"
#include "schema.h"

/* Validation work per instance: a small share of the default budget,
 * so that the fuzzer stays quick. */
#define STEPS 2000000u

static cJSON *
resolve(void *ud, const char *uri)
{
  const cJSON *remotes = ud;
  const cJSON *doc = cJSON_GetObjectItemCaseSensitive(remotes, uri);

  FUZZ_CHECK(uri != NULL);
  return doc != NULL ? cJSON_Duplicate(doc, 1) : NULL;
}

static int
terminated(const char *s, size_t size)
{
  return memchr(s, '\0', size) != NULL;
}

static void
validate(const mcp_schema_t *s, const cJSON *instance, double bound)
{
  mcp_schema_failure_t why, why2;
  double t0, ms;
  int rc, rc2;

  memset(&why, 0x55, sizeof why);
  t0 = fuzz_now_ms();
  rc = mcp_schema_validate(s, instance, &why);
  ms = fuzz_now_ms() - t0;
  if (ms > bound) {
    fprintf(stderr, "schema: one validation took %.0f ms (bound %.0f ms)\n",
            ms, bound);
    abort();
  }
  FUZZ_CHECK(rc == 0 || rc == MCP_ESCHEMA || rc == MCP_ETOOBIG);
  if (rc != 0) {
    FUZZ_CHECK(terminated(why.instance_path, sizeof why.instance_path));
    FUZZ_CHECK(terminated(why.keyword, sizeof why.keyword));
    FUZZ_CHECK(terminated(why.schema_path, sizeof why.schema_path));
    FUZZ_CHECK(terminated(why.message, sizeof why.message));
  }
  memset(&why2, 0x55, sizeof why2);
  rc2 = mcp_schema_validate(s, instance, &why2);
  FUZZ_CHECK(rc2 == rc);
  if (rc != 0) {
    FUZZ_CHECK(strcmp(why.instance_path, why2.instance_path) == 0);
    FUZZ_CHECK(strcmp(why.keyword, why2.keyword) == 0);
    FUZZ_CHECK(strcmp(why.schema_path, why2.schema_path) == 0);
    FUZZ_CHECK(strcmp(why.message, why2.message) == 0);
  }
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  mcp_schema_opts_t opts;
  mcp_schema_t *s = NULL;
  mcp_error_t err;
  const cJSON *schema, *instances, *remotes, *item;
  double bound = fuzz_time_bound_ms(2000.0), t0, ms;
  cJSON *doc;
  int rc;

  doc = mcp_json_parse((const char *) data, size, MCP_DEFAULT_MAX_DEPTH,
                       NULL);
  if (doc == NULL)
    return 0;
  if (!cJSON_IsArray(doc) || cJSON_GetArraySize(doc) < 1) {
    cJSON_Delete(doc);
    return 0;
  }
  schema = cJSON_GetArrayItem(doc, 0);
  instances = cJSON_GetArrayItem(doc, 1);
  remotes = cJSON_GetArrayItem(doc, 2);

  memset(&opts, 0, sizeof opts);
  opts.max_steps = STEPS;
  if (cJSON_IsObject(remotes)) {
    opts.resolve = resolve;
    opts.resolve_ud = (void *) remotes;
  }
  memset(&err, 0, sizeof err);
  t0 = fuzz_now_ms();
  rc = mcp_schema_compile(schema, &opts, &s, &err);
  ms = fuzz_now_ms() - t0;
  if (ms > bound && !fuzz_skip("compile-budget")) {
    fprintf(stderr, "schema: compiling took %.0f ms (bound %.0f ms)\n", ms,
            bound);
    abort();
  }
  if (rc != 0) {
    FUZZ_CHECK(rc == MCP_EINVAL || rc == MCP_ETOOBIG);
    FUZZ_CHECK(err.code == rc && err.msg[0] != '\0');
    FUZZ_CHECK(terminated(err.msg, sizeof err.msg));
    cJSON_Delete(doc);
    return 0;
  }
  FUZZ_CHECK(s != NULL);
  if (cJSON_IsArray(instances)) {
    cJSON_ArrayForEach(item, instances)
      validate(s, item, bound);
  } else if (instances != NULL) {
    validate(s, instances, bound);
  }
  mcp_schema_free(s);
  cJSON_Delete(doc);
  return 0;
}
