/*
 * ljsondec.c - JSON text straight into Lua values, in one pass.
 *
 * The hot path of every response: no intermediate cJSON tree is built and
 * freed. Produces exactly what lmcp_push_json makes of a cJSON tree:
 * mcp.null for null, arrays with the shared array metatable, integral
 * numbers within +-2^53 as integers. Strict: anything that is not one JSON
 * value (with optional surrounding whitespace) is an error, and so is
 * nesting deeper than the limit. Runs inside a protected call (it may
 * raise on memory errors); syntax errors are returned, not raised.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jsonscan.h"
#include "lutil.h"

/* Object keys repeat ("name", "type", "properties"...): in a large text,
 * the last key seen in each of these slots is kept on the stack and
 * reused, which spares Lua's string table a hash and a lookup per key.
 * A small text (most answers) does without: setting the slots up would
 * cost more than it saves. */
#define KEY_SLOTS 64
#define KEY_CACHE_FROM 4096     /* bytes of text */

/* Stack slots one value takes while it is decoded: a long string with
 * escapes has its scratch userdata and the string at once (a container's
 * own slots are checked when it opens). */
#define VALUE_SLOTS 2

typedef struct {
  lua_State *L;
  const char *p, *end, *start;
  int depth, max_depth;
  int array_mt;
  int keys;               /* stack index of the first key slot; 0: none */
  const char *why;        /* set on the first error */
} dec_t;

static int value(dec_t *d);

/* The end of the plain run of a string starting at s: the first stop
 * byte, or end. */
static const char *
plain_run(const char *s, const char *end)
{
  while (s < end && !mcp__json_string_stop[(unsigned char) *s])
    s++;
  return s;
}

static int
fail(dec_t *d, const char *why)
{
  if (d->why == NULL)
    d->why = why;
  return -1;
}

static void
skip_ws(dec_t *d)
{
  while (d->p < d->end &&
         (*d->p == ' ' || *d->p == '\t' || *d->p == '\n' || *d->p == '\r'))
    d->p++;
}

static int
hex4(const char *s, unsigned *out)
{
  unsigned v = 0;
  int i;

  for (i = 0; i < 4; i++) {
    char c = s[i];

    v <<= 4;
    if (c >= '0' && c <= '9')
      v |= (unsigned) (c - '0');
    else if (c >= 'a' && c <= 'f')
      v |= (unsigned) (c - 'a' + 10);
    else if (c >= 'A' && c <= 'F')
      v |= (unsigned) (c - 'A' + 10);
    else
      return -1;
  }
  *out = v;
  return 0;
}

/* Writes cp as UTF-8 at out (when not NULL); returns its length. */
static size_t
put_utf8(char *out, unsigned cp)
{
  char u[4];
  size_t n;

  if (cp < 0x80) {
    u[0] = (char) cp;
    n = 1;
  } else if (cp < 0x800) {
    u[0] = (char) (0xC0 | (cp >> 6));
    u[1] = (char) (0x80 | (cp & 0x3F));
    n = 2;
  } else if (cp < 0x10000) {
    u[0] = (char) (0xE0 | (cp >> 12));
    u[1] = (char) (0x80 | ((cp >> 6) & 0x3F));
    u[2] = (char) (0x80 | (cp & 0x3F));
    n = 3;
  } else {
    u[0] = (char) (0xF0 | (cp >> 18));
    u[1] = (char) (0x80 | ((cp >> 12) & 0x3F));
    u[2] = (char) (0x80 | ((cp >> 6) & 0x3F));
    u[3] = (char) (0x80 | (cp & 0x3F));
    n = 4;
  }
  if (out != NULL)
    memcpy(out, u, n);
  return n;
}

/*
 * Decodes the escaped string from s (just after its opening quote) to its
 * closing quote. With out NULL it only checks the text and measures the
 * result; otherwise it writes the result it measured before. Returns the
 * decoded length and sets *close to the closing quote, or returns
 * UNESCAPE_BAD with *why set and *close at the offending byte.
 */
#define UNESCAPE_BAD ((size_t) -1)

static size_t
unescape(const char *s, const char *end, char *out, const char **close,
         const char **why)
{
  size_t n = 0;

  while (s < end && *s != '"') {
    unsigned cp, lo;
    char c;

    *close = s;
    if ((unsigned char) *s < 0x20) {
      *why = "control character in a string";
      return UNESCAPE_BAD;
    }
    if (*s != '\\') {
      const char *run = plain_run(s, end);

      if (out != NULL)
        memcpy(out + n, s, (size_t) (run - s));
      n += (size_t) (run - s);
      s = run;
      continue;
    }
    if (s + 1 >= end) {
      s = end;               /* a backslash that ends the text */
      break;
    }
    switch (s[1]) {
    case '"': c = '"'; break;
    case '\\': c = '\\'; break;
    case '/': c = '/'; break;
    case 'b': c = '\b'; break;
    case 'f': c = '\f'; break;
    case 'n': c = '\n'; break;
    case 'r': c = '\r'; break;
    case 't': c = '\t'; break;
    case 'u':
      if (end - s < 6 || hex4(s + 2, &cp) != 0) {
        *why = "bad \\u escape";
        return UNESCAPE_BAD;
      }
      s += 4;
      if (cp >= 0xD800 && cp <= 0xDBFF && end - s >= 8 && s[2] == '\\' &&
          s[3] == 'u' && hex4(s + 4, &lo) == 0 && lo >= 0xDC00 &&
          lo <= 0xDFFF) {
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        s += 6;
      } else if (cp >= 0xD800 && cp <= 0xDFFF) {
        *close = s - 4;
        *why = "lone UTF-16 surrogate";
        return UNESCAPE_BAD;
      }
      n += put_utf8(out != NULL ? out + n : NULL, cp);
      s += 2;
      continue;
    default:
      *why = "bad escape in a string";
      return UNESCAPE_BAD;
    }
    if (out != NULL)
      out[n] = c;
    n++;
    s += 2;
  }
  *close = s;
  if (s >= end) {
    *why = "unterminated string";
    return UNESCAPE_BAD;
  }
  return n;
}

/*
 * Pushes the string starting after its opening quote.
 *
 * A string with escapes is checked and measured in a first pass and
 * written in a second, so nothing of it is on the stack while the text
 * can still turn out bad. (A luaL_Buffer left there across an error is a
 * to-be-closed slot: Lua 5.4.4's lua_settop closes it, then sets the top
 * from a pointer into the stack that closing may have moved.)
 */
static int
string(dec_t *d)
{
  const char *s, *close;
  char small[256], *out;
  size_t n;

  /* The common case: no escapes, pushed straight from the text. */
  s = plain_run(d->p, d->end);
  if (s >= d->end)
    return fail(d, "unterminated string");
  if ((unsigned char) *s < 0x20)
    return fail(d, "control character in a string");
  if (*s == '"') {
    lua_pushlstring(d->L, d->p, (size_t) (s - d->p));
    d->p = s + 1;
    return 0;
  }
  n = unescape(d->p, d->end, NULL, &close, &d->why);
  if (n == UNESCAPE_BAD) {
    d->p = close;
    return -1;
  }
  /* A long result is written into a plain userdata, which a memory error
   * raised meanwhile simply leaves to the collector. */
  out = n <= sizeof small ? small : lua_newuserdatauv(d->L, n, 0);
  unescape(d->p, d->end, out, &close, &d->why);
  lua_pushlstring(d->L, out, n);
  if (out != small)
    lua_remove(d->L, -2);
  d->p = close + 1;
  return 0;
}

static int
digits(const char **s, const char *end)
{
  const char *p = *s;

  while (p < end && *p >= '0' && *p <= '9')
    p++;
  if (p == *s)
    return -1;
  *s = p;
  return 0;
}

/* RFC 8259's grammar: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
static int
number(dec_t *d)
{
  const char *s = d->p;
  int integral = 1;
  char buf[64], *end;
  size_t n;
  double v;
  long long iv;

  if (s < d->end && *s == '-')
    s++;
  if (s >= d->end || *s < '0' || *s > '9')
    return fail(d, "unexpected character");
  if (*s == '0' && s + 1 < d->end && s[1] >= '0' && s[1] <= '9')
    return fail(d, "leading zero in a number");
  digits(&s, d->end);
  if (s < d->end && *s == '.') {
    s++;
    integral = 0;
    if (digits(&s, d->end) != 0)
      return fail(d, "malformed number");
  }
  if (s < d->end && (*s == 'e' || *s == 'E')) {
    s++;
    integral = 0;
    if (s < d->end && (*s == '+' || *s == '-'))
      s++;
    if (digits(&s, d->end) != 0)
      return fail(d, "malformed number");
  }
  n = (size_t) (s - d->p);
  if (n >= sizeof buf)
    return fail(d, "number too long");
  memcpy(buf, d->p, n);
  buf[n] = '\0';
  if (integral) {
    /* Every digit of a 64-bit integer, negative ones included. */
    errno = 0;
    iv = strtoll(buf, &end, 10);
    if (errno == 0) {
      lua_pushinteger(d->L, (lua_Integer) iv);
      d->p = s;
      return 0;
    }
  }
  v = strtod(buf, &end);
  if (!isfinite(v))
    return fail(d, "number out of range");
  if (floor(v) == v && fabs(v) <= 9007199254740992.0)
    lua_pushinteger(d->L, (lua_Integer) v);
  else
    lua_pushnumber(d->L, v);
  d->p = s;
  return 0;
}

static int
literal(dec_t *d, const char *word, size_t len)
{
  if ((size_t) (d->end - d->p) < len || memcmp(d->p, word, len) != 0)
    return fail(d, "unexpected character");
  d->p += len;
  return 0;
}

static int
array(dec_t *d)
{
  lua_Integer i = 0;

  lua_createtable(d->L, 4, 0);
  lua_rawgeti(d->L, LUA_REGISTRYINDEX, d->array_mt);
  lua_setmetatable(d->L, -2);
  skip_ws(d);
  if (d->p < d->end && *d->p == ']') {
    d->p++;
    return 0;
  }
  for (;;) {
    if (value(d) != 0)
      return -1;
    lua_rawseti(d->L, -2, ++i);
    skip_ws(d);
    if (d->p < d->end && *d->p == ',') {
      d->p++;
      continue;
    }
    if (d->p < d->end && *d->p == ']') {
      d->p++;
      return 0;
    }
    return fail(d, "expected ',' or ']'");
  }
}

/* Pushes the key whose text (without escapes) is s[0..len). */
static void
push_key(dec_t *d, const char *s, size_t len)
{
  unsigned h = (unsigned) len * 31u;
  const char *cached;
  size_t cached_len;
  int slot;

  if (d->keys == 0) {
    lua_pushlstring(d->L, s, len);
    return;
  }
  if (len > 0)
    h = h * 31u + (unsigned char) s[0] + 7u * (unsigned char) s[len - 1] +
        3u * (unsigned char) s[len / 2];
  slot = d->keys + (int) (h % KEY_SLOTS);
  cached = lua_tolstring(d->L, slot, &cached_len);
  if (cached != NULL && cached_len == len && memcmp(cached, s, len) == 0) {
    lua_pushvalue(d->L, slot);
    return;
  }
  lua_pushlstring(d->L, s, len);
  lua_pushvalue(d->L, -1);
  lua_replace(d->L, slot);
}

/* An object key: a string, through the key slots when it has no escapes. */
static int
key(dec_t *d)
{
  const char *s = d->p;

  s = plain_run(s, d->end);
  if (s < d->end && *s == '"') {
    push_key(d, d->p, (size_t) (s - d->p));
    d->p = s + 1;
    return 0;
  }
  return string(d);   /* escapes, errors: the general way */
}

static int
object(dec_t *d)
{
  lua_createtable(d->L, 0, 4);
  skip_ws(d);
  if (d->p < d->end && *d->p == '}') {
    d->p++;
    return 0;
  }
  for (;;) {
    skip_ws(d);
    if (d->p >= d->end || *d->p != '"')
      return fail(d, "expected a key");
    d->p++;
    if (key(d) != 0)
      return -1;
    skip_ws(d);
    if (d->p >= d->end || *d->p != ':')
      return fail(d, "expected ':'");
    d->p++;
    if (value(d) != 0)
      return -1;
    lua_rawset(d->L, -3);
    skip_ws(d);
    if (d->p < d->end && *d->p == ',') {
      d->p++;
      continue;
    }
    if (d->p < d->end && *d->p == '}') {
      d->p++;
      return 0;
    }
    return fail(d, "expected ',' or '}'");
  }
}

static int
value(dec_t *d)
{
  int rc;

  skip_ws(d);
  if (d->p >= d->end)
    return fail(d, "unexpected end of text");
  switch (*d->p) {
  case '{':
  case '[':
    if (++d->depth > d->max_depth)
      return fail(d, "nested too deeply");
    /* A container holds its table and a key, then its value. */
    luaL_checkstack(d->L, 2 + VALUE_SLOTS, "JSON nested too deeply");
    d->p++;
    rc = *(d->p - 1) == '{' ? object(d) : array(d);
    d->depth--;
    return rc;
  case '"':
    d->p++;
    return string(d);
  case 't':
    if (literal(d, "true", 4) != 0)
      return -1;
    lua_pushboolean(d->L, 1);
    return 0;
  case 'f':
    if (literal(d, "false", 5) != 0)
      return -1;
    lua_pushboolean(d->L, 0);
    return 0;
  case 'n':
    if (literal(d, "null", 4) != 0)
      return -1;
    lua_pushlightuserdata(d->L, NULL);
    return 0;
  default:
    return number(d);
  }
}

int
lmcp_decode_json(lua_State *L, const char *text, size_t len, int max_depth,
                 mcp_error_t *err)
{
  int top = lua_gettop(L), i;
  dec_t d;

  memset(&d, 0, sizeof d);
  d.L = L;
  d.p = d.start = text;
  d.end = text + len;
  d.max_depth = max_depth;
  d.array_mt = lmcp_ctx(L)->array_mt_ref;
  luaL_checkstack(L, VALUE_SLOTS, "JSON decoder");      /* the top value */
  if (len >= KEY_CACHE_FROM) {
    luaL_checkstack(L, KEY_SLOTS + VALUE_SLOTS, "JSON decoder");
    for (i = 0; i < KEY_SLOTS; i++)
      lua_pushnil(L);
    d.keys = top + 1;
  }
  if (value(&d) == 0) {
    skip_ws(&d);
    if (d.p == d.end) {
      if (d.keys != 0) {
        lua_replace(L, top + 1);      /* the value, where the slots began */
        lua_settop(L, top + 1);
      }
      return 0;
    }
    fail(&d, "trailing data after the value");
  }
  lua_settop(L, top);
  mcp_error_set(err, strcmp(d.why, "nested too deeply") == 0 ? MCP_ETOOBIG
                                                             : MCP_EJSON,
                "malformed JSON at byte %zu: %s", (size_t) (d.p - text),
                d.why);
  return err ? err->code : MCP_EJSON;
}
