/*
 * ljsonenc.c - Lua values straight into JSON text, in one pass.
 *
 * The hot path of every request: params are written into the endpoint's
 * output buffer with no cJSON tree built and freed on the way. It makes
 * the JSON that lmcp_to_json + cJSON's printer make of the same value:
 * mcp.null and nil are null, a table with the shared array metatable (or
 * keys exactly 1..n, n > 0) is an array, any other table an object whose
 * integer keys become strings, integral floats print without a fraction.
 * Two things are better: integers print exactly (cJSON goes through a
 * double), and a string's embedded NUL is kept (as \u0000). Never raises:
 * a value JSON lacks (a function, NaN, a cycle...) returns -1 and a reason.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "lutil.h"

typedef struct {
  lua_State *L;
  mcp_buf_t *b;
  int array_mt;           /* registry ref of the shared array metatable */
  int top;                /* stack index of the value being encoded */
  lmcp_json_span_t *span; /* where a top-level member's value went */
  const char *why;        /* set on the first error */
} enc_t;

static int encode(enc_t *e, int idx, int depth);

static int
fail(enc_t *e, const char *why)
{
  if (e->why == NULL)
    e->why = why;
  return -1;
}

static int
put(enc_t *e, const char *s, size_t n)
{
  mcp_buf_t *b = e->b;

  /* Most pieces are a byte or a short word into a buffer with room: copied
   * here, the buffer's NUL restored at the end (lmcp_encode_json_span). */
  if (b->max == 0 && b->cap - b->len > n) {
    memcpy(b->data + b->len, s, n);
    b->len += n;
    return 0;
  }
  if (mcp_buf_append(b, s, n) != 0)
    return fail(e, "out of memory");
  return 0;
}

/* A JSON string: runs of plain bytes are copied whole. */
static int
put_string(enc_t *e, const char *s, size_t len)
{
  static const char hex[] = "0123456789abcdef";
  size_t i, run = 0;
  char esc[6];

  if (put(e, "\"", 1) != 0)
    return -1;
  for (i = 0; i < len; i++) {
    unsigned char c = (unsigned char) s[i];
    size_t n = 2;

    if (c >= 0x20 && c != '"' && c != '\\')
      continue;
    if (put(e, s + run, i - run) != 0)
      return -1;
    run = i + 1;
    esc[0] = '\\';
    switch (c) {
    case '"': esc[1] = '"'; break;
    case '\\': esc[1] = '\\'; break;
    case '\b': esc[1] = 'b'; break;
    case '\f': esc[1] = 'f'; break;
    case '\n': esc[1] = 'n'; break;
    case '\r': esc[1] = 'r'; break;
    case '\t': esc[1] = 't'; break;
    default:
      memcpy(esc + 1, "u00", 3);
      esc[4] = hex[c >> 4];
      esc[5] = hex[c & 15];
      n = 6;
      break;
    }
    if (put(e, esc, n) != 0)
      return -1;
  }
  if (put(e, s + run, len - run) != 0)
    return -1;
  return put(e, "\"", 1);
}

static int
put_integer(enc_t *e, lua_Integer v)
{
  char num[24], *p = num + sizeof num;
  /* The magnitude as unsigned, so the most negative integer works too. */
  lua_Unsigned u = v < 0 ? 0u - (lua_Unsigned) v : (lua_Unsigned) v;

  do {
    *--p = (char) ('0' + u % 10);
    u /= 10;
  } while (u != 0);
  if (v < 0)
    *--p = '-';
  return put(e, p, (size_t) (num + sizeof num - p));
}

/* As cJSON: integral values without a fraction, else the shortest of 15
 * or 17 significant digits that reads back the same. */
static int
put_float(enc_t *e, double d)
{
  char num[32];
  int n;

  if (isnan(d) || isinf(d))
    return fail(e, "NaN and infinity have no JSON form");
  if (floor(d) == d && fabs(d) < 9007199254740992.0)
    return put_integer(e, (lua_Integer) d);
  n = snprintf(num, sizeof num, "%1.15g", d);
  if (strtod(num, NULL) != d)
    n = snprintf(num, sizeof num, "%1.17g", d);
  return put(e, num, (size_t) n);
}

static int
is_array_marked(enc_t *e, int idx)
{
  int yes;

  if (!lua_getmetatable(e->L, idx))
    return 0;
  lua_rawgeti(e->L, LUA_REGISTRYINDEX, e->array_mt);
  yes = lua_rawequal(e->L, -1, -2);
  lua_pop(e->L, 2);
  return yes;
}

/* n when the keys of the table at idx are exactly 1..n, else -1. */
static lua_Integer
array_length(lua_State *L, int idx)
{
  lua_Integer n = 0, max = 0, k;

  lua_pushnil(L);
  while (lua_next(L, idx) != 0) {
    lua_pop(L, 1);
    if (!lua_isinteger(L, -1) || (k = lua_tointeger(L, -1)) < 1) {
      lua_pop(L, 1);
      return -1;
    }
    if (k > max)
      max = k;
    n++;
  }
  return n == max ? n : -1;
}

static int
encode_array(enc_t *e, int idx, lua_Integer n, int depth)
{
  lua_Integer i;

  if (put(e, "[", 1) != 0)
    return -1;
  for (i = 1; i <= n; i++) {
    if (i > 1 && put(e, ",", 1) != 0)
      return -1;
    lua_rawgeti(e->L, idx, i);
    if (encode(e, lua_gettop(e->L), depth - 1) != 0)
      return -1;   /* the caller's settop drops what is left */
    lua_pop(e->L, 1);
  }
  return put(e, "]", 1);
}

static int
encode_object(enc_t *e, int idx, int depth)
{
  lua_State *L = e->L;
  int first = 1;

  if (put(e, "{", 1) != 0)
    return -1;
  lua_pushnil(L);
  while (lua_next(L, idx) != 0) {
    if (!first && put(e, ",", 1) != 0)
      return -1;
    first = 0;
    if (lua_type(L, -2) == LUA_TSTRING) {
      size_t len;
      const char *key = lua_tolstring(L, -2, &len);

      if (put_string(e, key, len) != 0)
        return -1;
      if (idx == e->top && e->span != NULL &&
          len == strlen(e->span->key) && memcmp(key, e->span->key, len) == 0)
        e->span->start = e->b->len + 1;   /* after the ':' */
    } else if (lua_isinteger(L, -2)) {
      if (put(e, "\"", 1) != 0 || put_integer(e, lua_tointeger(L, -2)) != 0 ||
          put(e, "\"", 1) != 0)
        return -1;
    } else {
      return fail(e, "object keys must be strings");
    }
    if (put(e, ":", 1) != 0 || encode(e, lua_gettop(L), depth - 1) != 0)
      return -1;
    if (idx == e->top && e->span != NULL && e->span->start != 0 &&
        e->span->len == 0)
      e->span->len = e->b->len - e->span->start;
    lua_pop(L, 1);
  }
  return put(e, "}", 1);
}

static int
encode_table(enc_t *e, int idx, int depth)
{
  lua_Integer n;
  int marked;

  if (depth <= 0)
    return fail(e, "table nested too deeply (or a cycle)");
  if (!lua_checkstack(e->L, 4))
    return fail(e, "out of Lua stack");
  marked = is_array_marked(e, idx);
  n = marked ? (lua_Integer) lua_rawlen(e->L, idx) : array_length(e->L, idx);
  if (n > 0 || (n == 0 && marked))
    return encode_array(e, idx, n, depth);
  return encode_object(e, idx, depth);
}

static int
encode(enc_t *e, int idx, int depth)
{
  lua_State *L = e->L;

  switch (lua_type(L, idx)) {
  case LUA_TNIL:
    return put(e, "null", 4);
  case LUA_TBOOLEAN:
    return lua_toboolean(L, idx) ? put(e, "true", 4) : put(e, "false", 5);
  case LUA_TNUMBER:
    if (lua_isinteger(L, idx))
      return put_integer(e, lua_tointeger(L, idx));
    return put_float(e, lua_tonumber(L, idx));
  case LUA_TSTRING: {
    size_t len;
    const char *s = lua_tolstring(L, idx, &len);

    return put_string(e, s, len);
  }
  case LUA_TTABLE:
    return encode_table(e, idx, depth);
  case LUA_TLIGHTUSERDATA:
    if (lua_touserdata(L, idx) == NULL)
      return put(e, "null", 4);
    break;
  default:
    break;
  }
  switch (lua_type(L, idx)) {
  case LUA_TFUNCTION:
    return fail(e, "cannot encode a function");
  case LUA_TUSERDATA:
  case LUA_TLIGHTUSERDATA:
    return fail(e, "cannot encode a userdata");
  case LUA_TTHREAD:
    return fail(e, "cannot encode a thread");
  default:
    return fail(e, "cannot encode this value");
  }
}

int
lmcp_encode_json(lua_State *L, int idx, mcp_buf_t *b, int max_depth,
                 const char **why)
{
  return lmcp_encode_json_span(L, idx, b, max_depth, NULL, why);
}

int
lmcp_encode_json_span(lua_State *L, int idx, mcp_buf_t *b, int max_depth,
                      lmcp_json_span_t *span, const char **why)
{
  enc_t e;
  int top = lua_gettop(L), rc;

  e.L = L;
  e.b = b;
  e.array_mt = lmcp_ctx(L)->array_mt_ref;
  e.top = lua_absindex(L, idx);
  e.span = span;
  e.why = NULL;
  if (span != NULL)
    span->start = span->len = 0;
  rc = encode(&e, e.top, max_depth);
  if (b->data != NULL)
    b->data[b->len] = '\0';
  lua_settop(L, top);
  *why = e.why;
  return rc;
}
