/*
 * fuzz_regex.c - libFuzzer harness for the regular expressions of JSON
 * Schema "pattern" and "patternProperties" (src/core/schema_regex.c),
 * where both the pattern and the subject come from a server.
 *
 * Input: the pattern up to the first NUL byte, the subject after it (the
 * whole input is also the subject when there is no NUL). A compile error
 * must come with a message. A search must answer 1, 0 or MCP_ETOOBIG,
 * spend no more than its step budget, answer the same twice, and finish
 * within a time bound: FUZZ_TIME_BOUND_MS, 1000 ms by default, for one
 * compile or one search of at most STEPS steps. The bound is what the
 * step budget promises (work in proportion to the steps), with room for
 * the sanitizers and a loaded machine; a search over it aborts, so
 * libFuzzer keeps the input. Run with -timeout as the last resort.
 * FUZZ_SKIP=compile-budget leaves compiling unbounded (see README.md).
 */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "schema_int.h"

/* Steps one search may take: a few ms of a plain build. */
#define STEPS 1000000u

static void
search(const mcp__re_t *re, const char *s, size_t len, double bound,
       const char *pattern)
{
  size_t steps = STEPS, steps2 = STEPS;
  double t0, ms;
  int rc, rc2;

  t0 = fuzz_now_ms();
  rc = mcp__re_search(re, s, len, &steps);
  ms = fuzz_now_ms() - t0;
  if (ms > bound) {
    fprintf(stderr, "regex: one search took %.0f ms (bound %.0f ms, %zu "
            "steps used) for /%.200s/ over %zu bytes\n", ms, bound,
            STEPS - steps, pattern, len);
    abort();
  }
  FUZZ_CHECK(rc == 0 || rc == 1 || rc == MCP_ETOOBIG);
  FUZZ_CHECK(steps <= STEPS);
  rc2 = mcp__re_search(re, s, len, &steps2);
  FUZZ_CHECK(rc2 == rc && steps2 == steps);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const uint8_t *nul = memchr(data, '\0', size);
  size_t plen = nul != NULL ? (size_t) (nul - data) : size;
  char *pattern, msg[128];
  mcp__re_t *re = NULL;
  double bound = fuzz_time_bound_ms(1000.0), t0, ms;
  int rc;

  pattern = malloc(plen + 1);
  FUZZ_CHECK(pattern != NULL);
  memcpy(pattern, data, plen);
  pattern[plen] = '\0';
  msg[0] = '\0';
  t0 = fuzz_now_ms();
  rc = mcp__re_compile(pattern, &re, msg, sizeof msg);
  ms = fuzz_now_ms() - t0;
  if (ms > bound && !fuzz_skip("compile-budget")) {
    fprintf(stderr, "regex: compiling took %.0f ms (bound %.0f ms): "
            "/%.200s/\n", ms, bound, pattern);
    abort();
  }
  if (rc != 0) {
    FUZZ_CHECK(rc == MCP_EINVAL && re == NULL);
    FUZZ_CHECK(msg[0] != '\0' && memchr(msg, '\0', sizeof msg) != NULL);
    free(pattern);
    return 0;
  }
  FUZZ_CHECK(re != NULL);
  if (nul != NULL)
    search(re, (const char *) nul + 1, size - plen - 1, bound, pattern);
  else
    search(re, (const char *) data, size, bound, pattern);
  mcp__re_free(re);
  free(pattern);
  return 0;
}
