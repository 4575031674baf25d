/*
 * fuzz_cjson.h - ordered deep equality of two cJSON trees, for the
 * harnesses that parse a text twice. cJSON_Compare will not do: it looks
 * object members up by name, so an object with a repeated key is not
 * equal to itself, and it calls inf unequal to inf.
 */
#ifndef MCP_FUZZ_CJSON_H
#define MCP_FUZZ_CJSON_H

#include <math.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "fuzz.h"

/* 1 when a and b have the same types, values, keys and order. With
 * approx, numbers need only agree to 15 significant digits (what
 * cJSON's printer keeps: FUZZ_SKIP=print-precision). */
static inline int
fuzz_cjson_same_(const cJSON *a, const cJSON *b, int approx)
{
  const cJSON *x, *y;

  if (a == NULL || b == NULL)
    return a == b;
  if ((a->type & 0xFF) != (b->type & 0xFF))
    return 0;
  if (cJSON_IsNumber(a))
    return a->valuedouble == b->valuedouble ||
           (isnan(a->valuedouble) && isnan(b->valuedouble)) ||
           (approx && fabs(a->valuedouble - b->valuedouble) <=
                        fabs(a->valuedouble) * 1e-14);
  if (cJSON_IsString(a) || cJSON_IsRaw(a))
    return strcmp(a->valuestring, b->valuestring) == 0;
  if (!cJSON_IsArray(a) && !cJSON_IsObject(a))
    return 1;
  for (x = a->child, y = b->child; x != NULL && y != NULL;
       x = x->next, y = y->next) {
    if (cJSON_IsObject(a) && strcmp(x->string, y->string) != 0)
      return 0;
    if (!fuzz_cjson_same_(x, y, approx))
      return 0;
  }
  return x == NULL && y == NULL;
}

static inline int
fuzz_cjson_same(const cJSON *a, const cJSON *b)
{
  return fuzz_cjson_same_(a, b, 0);
}

/* The same, numbers compared as a print by cJSON keeps them when
 * FUZZ_SKIP names print-precision. */
static inline int
fuzz_cjson_same_printed(const cJSON *a, const cJSON *b)
{
  return fuzz_cjson_same_(a, b, fuzz_skip("print-precision"));
}

/* Whether v holds a number that is not finite. */
static inline int
fuzz_cjson_has_inf(const cJSON *v)
{
  const cJSON *item;

  if (cJSON_IsNumber(v))
    return !isfinite(v->valuedouble);
  cJSON_ArrayForEach(item, v)
  {
    if (fuzz_cjson_has_inf(item))
      return 1;
  }
  return 0;
}

#endif
