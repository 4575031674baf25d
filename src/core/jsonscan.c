/*
 * jsonscan.c - JSON text without parsing it: the top-level members of an
 * object, and a strict check of the whole grammar.
 */
#include "jsonscan.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "error.h"

static int
is_space(char c)
{
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Moves past the string whose opening quote is at *p; 0 or MCP_EJSON. */
static int
skip_string(const char **p, const char *end)
{
  const char *s = *p + 1;

  while (s < end) {
    const char *q = memchr(s, '"', (size_t) (end - s));
    const char *b;
    size_t bs = 0;

    if (q == NULL)
      return MCP_EJSON;
    for (b = q; b > *p + 1 && b[-1] == '\\'; b--)
      bs++;
    if (bs % 2 == 0) {
      *p = q + 1;
      return 0;
    }
    s = q + 1;
  }
  return MCP_EJSON;
}

/* Moves past one value starting at *p: a string, a bracketed value
 * (nesting checked against max_depth, strings inside skipped whole), or a
 * scalar (up to the next delimiter). */
static int
skip_value(const char **p, const char *end, int depth, int max_depth)
{
  const char *s = *p;
  int level = 0;

  if (s >= end)
    return MCP_EJSON;
  if (*s == '"')
    return skip_string(p, end);
  if (*s != '{' && *s != '[') {
    while (s < end && !is_space(*s) && *s != ',' && *s != '}' && *s != ']')
      s++;
    if (s == *p)
      return MCP_EJSON;
    *p = s;
    return 0;
  }
  while (s < end) {
    if (*s == '"') {
      if (skip_string(&s, end) != 0)
        return MCP_EJSON;
      continue;
    }
    if (*s == '{' || *s == '[') {
      if (++level + depth > max_depth)
        return MCP_ETOOBIG;
    } else if (*s == '}' || *s == ']') {
      if (--level == 0) {
        *p = s + 1;
        return 0;
      }
    }
    s++;
  }
  return MCP_EJSON;
}

int
mcp_json_members(const char *text, size_t len, int max_depth,
                 mcp_json_member_t *out, size_t max, size_t *n)
{
  const char *p = text, *end = text + len, *key, *val;
  int rc;

  *n = 0;
  while (p < end && is_space(*p))
    p++;
  if (p >= end || *p != '{')
    return MCP_EJSON;
  if (max_depth < 1)
    return MCP_ETOOBIG;
  p++;
  for (;;) {
    while (p < end && is_space(*p))
      p++;
    if (p < end && *p == '}' && *n == 0)
      break;
    if (p >= end || *p != '"')
      return MCP_EJSON;
    key = p + 1;
    if (skip_string(&p, end) != 0)
      return MCP_EJSON;
    if (*n < max) {
      out[*n].key = key;
      out[*n].key_len = (size_t) (p - 1 - key);
    }
    while (p < end && is_space(*p))
      p++;
    if (p >= end || *p != ':')
      return MCP_EJSON;
    p++;
    while (p < end && is_space(*p))
      p++;
    val = p;
    rc = skip_value(&p, end, 1, max_depth);
    if (rc != 0)
      return rc;
    if (*n < max) {
      out[*n].value = val;
      out[*n].value_len = (size_t) (p - val);
    }
    (*n)++;
    while (p < end && is_space(*p))
      p++;
    if (p < end && *p == ',') {
      p++;
      continue;
    }
    if (p < end && *p == '}')
      break;
    return MCP_EJSON;
  }
  p++;
  while (p < end && is_space(*p))
    p++;
  if (*n > max)
    *n = max;
  return p == end ? 0 : MCP_EJSON;
}

const mcp_json_member_t *
mcp_json_member(const mcp_json_member_t *m, size_t n, const char *key)
{
  size_t i, len = strlen(key);

  for (i = 0; i < n; i++) {
    if (m[i].key_len == len && memcmp(m[i].key, key, len) == 0)
      return &m[i];
  }
  return NULL;
}

/* ---- strict checking ---------------------------------------------------- */

/* Deepest nesting the checker can follow (cJSON's own limit). */
#define CHECK_MAX_DEPTH 1000

typedef struct {
  const char *p, *end;
  const char *why;          /* the first error */
} check_t;

static int
check_fail(check_t *c, const char *why)
{
  c->why = why;
  return MCP_EJSON;
}

static void
check_ws(check_t *c)
{
  while (c->p < c->end && is_space(*c->p))
    c->p++;
}

/* 1 for the bytes that end the plain run of a JSON string: '"', '\\'
 * and the control characters. One load per byte where three comparisons
 * were; the Lua decoder uses it too. */
const unsigned char mcp__json_string_stop[256] = {
  1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
  1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
  0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,   /* '"' */
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,   /* '\\' */
};

/* 1 when the four bytes at s are hexadecimal digits. */
static int
hex4_at(const char *s)
{
  return isxdigit((unsigned char) s[0]) && isxdigit((unsigned char) s[1]) &&
         isxdigit((unsigned char) s[2]) && isxdigit((unsigned char) s[3]);
}

/* A string from its opening quote; in a key, an escaped NUL is refused:
 * C-string consumers (cJSON) would read "id\u0000" as "id". */
static int
check_string(check_t *c, int is_key)
{
  const char *s = c->p + 1;

  while (s < c->end) {
    unsigned char b;

    while (s < c->end && !mcp__json_string_stop[(unsigned char) *s])
      s++;
    if (s >= c->end)
      break;
    b = (unsigned char) *s;
    if (b == '"') {
      c->p = s + 1;
      return 0;
    }
    if (b < 0x20) {
      c->p = s;
      return check_fail(c, "control character in a string");
    }
    c->p = s;
    if (s + 1 >= c->end)
      break;
    if (strchr("\"\\/bfnrt", s[1]) != NULL && s[1] != '\0') {
      s += 2;
      continue;
    }
    if (s[1] != 'u' || c->end - s < 6 || !hex4_at(s + 2))
      return check_fail(c, "bad escape in a string");
    if (is_key && memcmp(s + 2, "0000", 4) == 0)
      return check_fail(c, "NUL in an object key");
    /* A surrogate must be a high one followed by a low one. */
    if ((s[2] == 'd' || s[2] == 'D') && strchr("89abAB", s[3]) != NULL) {
      if (c->end - s < 12 || s[6] != '\\' || s[7] != 'u' ||
          (s[8] != 'd' && s[8] != 'D') || strchr("cdefCDEF", s[9]) == NULL ||
          s[9] == '\0' || !hex4_at(s + 8))
        return check_fail(c, "lone UTF-16 surrogate");
      s += 6;
    } else if ((s[2] == 'd' || s[2] == 'D') && s[3] != '\0' &&
               strchr("cdefCDEF", s[3]) != NULL) {
      return check_fail(c, "lone UTF-16 surrogate");
    }
    s += 6;
  }
  c->p = c->end;
  return check_fail(c, "unterminated string");
}

static int
check_digits(check_t *c)
{
  const char *s = c->p;

  while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
    c->p++;
  return c->p > s ? 0 : check_fail(c, "malformed number");
}

static int check_number_syntax(check_t *c);

/* RFC 8259: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?, and
 * within a double's range: past it, one reader would see infinity and
 * another an error. */
static int
check_number(check_t *c)
{
  const char *start = c->p;
  char buf[64];
  size_t n;

  if (check_number_syntax(c) != 0)
    return MCP_EJSON;
  n = (size_t) (c->p - start);
  if (n < 16 && memchr(start, 'e', n) == NULL && memchr(start, 'E', n) == NULL)
    return 0;          /* too short to overflow */
  if (n >= sizeof buf) {
    c->p = start;
    return check_fail(c, "number too long");
  }
  memcpy(buf, start, n);
  buf[n] = '\0';
  if (!isfinite(strtod(buf, NULL))) {
    c->p = start;
    return check_fail(c, "number out of range");
  }
  return 0;
}

static int
check_number_syntax(check_t *c)
{
  if (*c->p == '-')
    c->p++;
  if (c->p < c->end && *c->p == '0')
    c->p++;
  else if (check_digits(c) != 0)
    return MCP_EJSON;
  if (c->p < c->end && *c->p == '.') {
    c->p++;
    if (check_digits(c) != 0)
      return MCP_EJSON;
  }
  if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
    c->p++;
    if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
      c->p++;
    if (check_digits(c) != 0)
      return MCP_EJSON;
  }
  return 0;
}

static int
check_scalar(check_t *c)
{
  static const char *const words[] = { "true", "false", "null" };
  size_t i, n;

  if (*c->p == '"')
    return check_string(c, 0);
  if (*c->p == '-' || (*c->p >= '0' && *c->p <= '9'))
    return check_number(c);
  for (i = 0; i < 3; i++) {
    n = strlen(words[i]);
    if ((size_t) (c->end - c->p) >= n && memcmp(c->p, words[i], n) == 0) {
      c->p += n;
      return 0;
    }
  }
  return check_fail(c, "unexpected character");
}

/* An object key and its colon. */
static int
check_key(check_t *c)
{
  check_ws(c);
  if (c->p >= c->end || *c->p != '"')
    return check_fail(c, "expected a key");
  if (check_string(c, 1) != 0)
    return MCP_EJSON;
  check_ws(c);
  if (c->p >= c->end || *c->p != ':')
    return check_fail(c, "expected ':'");
  c->p++;
  return 0;
}

int
mcp_json_check(const char *text, size_t len, int max_depth, mcp_error_t *err)
{
  unsigned char in_object[CHECK_MAX_DEPTH / 8 + 1];
  check_t c;
  int depth = 0, rc;

  if (max_depth <= 0 || max_depth > CHECK_MAX_DEPTH)
    max_depth = CHECK_MAX_DEPTH;
  c.p = text;
  c.end = text + len;
  c.why = NULL;
  for (;;) {
    /* A value. */
    check_ws(&c);
    if (c.p >= c.end) {
      rc = check_fail(&c, "unexpected end of text");
      goto error;
    }
    if (*c.p == '{' || *c.p == '[') {
      int object = *c.p == '{';

      if (depth >= max_depth) {
        rc = MCP_ETOOBIG;
        goto error;
      }
      in_object[depth / 8] = (unsigned char) (object
          ? in_object[depth / 8] | (1u << (depth % 8))
          : in_object[depth / 8] & ~(1u << (depth % 8)));
      depth++;
      c.p++;
      check_ws(&c);
      if (c.p < c.end && *c.p == (object ? '}' : ']')) {
        c.p++;
        depth--;
      } else {
        rc = object ? check_key(&c) : 0;
        if (rc != 0)
          goto error;
        continue;
      }
    } else {
      rc = check_scalar(&c);
      if (rc != 0)
        goto error;
    }
    /* After a value: a separator, the ends of containers, or the end. */
    for (;;) {
      int object;

      check_ws(&c);
      if (depth == 0) {
        if (c.p == c.end)
          return 0;
        rc = check_fail(&c, "trailing data after the value");
        goto error;
      }
      object = (in_object[(depth - 1) / 8] >> ((depth - 1) % 8)) & 1;
      if (c.p < c.end && *c.p == ',') {
        c.p++;
        rc = object ? check_key(&c) : 0;
        if (rc != 0)
          goto error;
        break;
      }
      if (c.p < c.end && *c.p == (object ? '}' : ']')) {
        c.p++;
        depth--;
        continue;
      }
      rc = check_fail(&c, object ? "expected ',' or '}'"
                                 : "expected ',' or ']'");
      goto error;
    }
  }

error:
  if (rc == MCP_ETOOBIG)
    return mcp_error_set(err, MCP_ETOOBIG, "JSON nesting deeper than %d",
                         max_depth);
  return mcp_error_set(err, MCP_EJSON, "malformed JSON at byte %zu: %s",
                       (size_t) (c.p - text), c.why);
}
