/*
 * fuzz_jsondec.c - libFuzzer harness for the one-pass JSON decoder of the
 * Lua binding (lmcp_decode_json in src/lua/ljsondec.c), compared with
 * the reference path it replaces: mcp_json_parse, then lmcp_push_json
 * (src/lua/ljson.c). These are core.json_decode and core.json_decode_tree;
 * spec/unit/json_decoder_spec.lua compares them on fixed texts.
 *
 * Input: one JSON text, as a server would send it. The decoder runs in a
 * new coroutine, whose small stack must grow (and move) while it works,
 * as in the spec. Both must accept or refuse alike, with the same error
 * code; accepted values must be deeply equal: same types, same integer
 * or float subtype, same array marks. Two differences are by design:
 * the decoder keeps integers past 2^53 exact where cJSON rounds them to
 * a double, and a text escaping a NUL (\u0000) is checked for crashes
 * only, because cJSON's strings stop at NUL. FUZZ_SKIP=inf-number,
 * lone-backslash and lone-surrogate pass over reported differences (see
 * README.md).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "common.h"
#include "fuzz.h"
#include "json.h"
#include "lutil.h"

int luaopen_mcp_core(lua_State *L);

typedef struct job_s {
  const char *text;
  size_t len;
  int rc;                /* 0, or the MCP_E* code of the refusal */
  int pushed;            /* values left on the stack */
} job_t;

static int
decode_fast(lua_State *L)
{
  job_t *j = lua_touserdata(L, 1);
  mcp_error_t err;
  int top = lua_gettop(L);

  memset(&err, 0, sizeof err);
  j->rc = lmcp_decode_json(L, j->text, j->len, lmcp_ctx(L)->max_depth,
                           &err);
  j->pushed = lua_gettop(L) - top;
  if (j->rc != 0)
    FUZZ_CHECK(err.code == j->rc && err.msg[0] != '\0');
  return j->pushed;
}

static int
decode_tree(lua_State *L)
{
  job_t *j = lua_touserdata(L, 1);
  mcp_error_t err;
  cJSON *v;

  memset(&err, 0, sizeof err);
  v = mcp_json_parse(j->text, j->len, lmcp_ctx(L)->max_depth, &err);
  if (v == NULL) {
    j->rc = err.code;
    j->pushed = 0;
    return 0;
  }
  lmcp_push_json(L, v);
  cJSON_Delete(v);
  j->rc = 0;
  j->pushed = 1;
  return 1;
}

static void
differ(const char *path, const char *what)
{
  fprintf(stderr, "jsondec: decoder and cJSON path differ at %s: %s\n", path,
          what);
  abort();
}

/* Deep equality of the decoder's value at a and the reference's at b. */
static void
same(lua_State *L, int a, int b, const char *path)
{
  size_t alen, blen, na = 0, nb = 0;
  const char *as, *bs;
  int amark, bmark;

  luaL_checkstack(L, 6, "same");
  if (lua_type(L, a) != lua_type(L, b))
    differ(path, "type");
  switch (lua_type(L, a)) {
  case LUA_TNUMBER:
    if (lua_isinteger(L, a) && lua_isinteger(L, b)) {
      if (lua_tointeger(L, a) == lua_tointeger(L, b))
        return;
    } else if (!lua_isinteger(L, a) && !lua_isinteger(L, b)) {
      if (lua_tonumber(L, a) == lua_tonumber(L, b))
        return;
    }
    /* An integer kept exact where cJSON's double rounded it. */
    if (lua_isinteger(L, a) &&
        (lua_tointeger(L, a) > ((lua_Integer) 1 << 53) ||
         lua_tointeger(L, a) < -((lua_Integer) 1 << 53)) &&
        (double) lua_tointeger(L, a) == lua_tonumber(L, b))
      return;
    differ(path, "number");
    return;
  case LUA_TSTRING:
    as = lua_tolstring(L, a, &alen);
    bs = lua_tolstring(L, b, &blen);
    if (alen != blen || memcmp(as, bs, alen) != 0)
      differ(path, "string");
    return;
  case LUA_TBOOLEAN:
    if (lua_toboolean(L, a) != lua_toboolean(L, b))
      differ(path, "boolean");
    return;
  case LUA_TLIGHTUSERDATA:
    if (lua_touserdata(L, a) != NULL || lua_touserdata(L, b) != NULL)
      differ(path, "null");
    return;
  case LUA_TTABLE:
    break;
  default:
    differ(path, "unexpected Lua type");
    return;
  }
  amark = lua_getmetatable(L, a);
  bmark = lua_getmetatable(L, b);
  if (amark != bmark || (amark && !lua_rawequal(L, -1, -2)))
    differ(path, "array mark");
  lua_pop(L, amark + bmark);
  lua_pushnil(L);
  while (lua_next(L, a) != 0) {
    /* key at -2, value at -1 */
    lua_pushvalue(L, -2);
    lua_rawget(L, b);
    if (lua_isnil(L, -1))
      differ(path, "member missing from the reference");
    same(L, lua_absindex(L, -2), lua_absindex(L, -1), path);
    lua_pop(L, 2);
    na++;
  }
  lua_pushnil(L);
  while (lua_next(L, b) != 0) {
    lua_pop(L, 1);
    nb++;
  }
  if (na != nb)
    differ(path, "member count");
}

/* Whether the value at idx holds a number that is not finite. */
static int
has_inf(lua_State *L, int idx)
{
  int found = 0;

  if (lua_type(L, idx) == LUA_TNUMBER)
    return !isfinite(lua_tonumber(L, idx));
  if (lua_type(L, idx) != LUA_TTABLE)
    return 0;
  luaL_checkstack(L, 3, "has_inf");
  lua_pushnil(L);
  while (!found && lua_next(L, idx) != 0) {
    found = has_inf(L, lua_absindex(L, -1));
    lua_pop(L, 1);
  }
  if (found)
    lua_pop(L, 1);
  return found;
}

/* Whether the text escapes a NUL anywhere. */
static int
escapes_nul(const uint8_t *data, size_t size)
{
  size_t i;

  for (i = 0; i + 6 <= size; i++) {
    if (data[i] == '\\' && memcmp(data + i + 1, "u0000", 5) == 0)
      return 1;
  }
  return 0;
}

/* Whether the text has a \u escape of a UTF-16 surrogate. */
static int
escapes_surrogate(const uint8_t *data, size_t size)
{
  size_t i;

  for (i = 0; i + 4 <= size; i++) {
    if (data[i] == '\\' && data[i + 1] == 'u' &&
        (data[i + 2] == 'd' || data[i + 2] == 'D') &&
        strchr("89abcdefABCDEF", data[i + 3]) != NULL && data[i + 3] != 0)
      return 1;
  }
  return 0;
}

/* Whether the difference is one that FUZZ_SKIP passes over: a number
 * too large for a double, which the decoder refuses and the cJSON path
 * turns into inf (the reference value is on top of the stack); a text
 * ending in a backslash inside a string, or a lone surrogate escape,
 * which the decoder accepts and the cJSON path refuses. */
static int
known(lua_State *L, const job_t *fast, const job_t *tree,
      const uint8_t *data, size_t size)
{
  if (fast->rc == 0 && tree->rc != 0 && size > 0 && data[size - 1] == '\\')
    return fuzz_skip("lone-backslash");
  if (fast->rc == 0 && tree->rc != 0 && escapes_surrogate(data, size))
    return fuzz_skip("lone-surrogate");
  if (fast->rc != 0 && tree->rc == 0 && fuzz_skip("inf-number"))
    return has_inf(L, lua_gettop(L));
  return 0;
}

static lua_State *
state(void)
{
  static lua_State *L;

  if (L == NULL) {
    L = luaL_newstate();
    FUZZ_CHECK(L != NULL);
    luaL_requiref(L, "mcp.core", luaopen_mcp_core, 0);
    lua_settop(L, 0);
  }
  return L;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  lua_State *L = state(), *co;
  job_t fast, tree;
  int status, nres = 0;

  memset(&fast, 0, sizeof fast);
  fast.text = (const char *) data;
  fast.len = size;
  tree = fast;

  /* The decoder, on the small stack of a new coroutine. */
  co = lua_newthread(L);
  lua_pushcfunction(co, decode_fast);
  lua_pushlightuserdata(co, &fast);
  status = lua_resume(co, L, 1, &nres);
  if (status != LUA_OK) {
    fprintf(stderr, "jsondec: the decoder raised: %s\n",
            lua_tostring(co, -1));
    abort();
  }
  FUZZ_CHECK(nres == fast.pushed);
  FUZZ_CHECK(fast.rc == 0 ? nres == 1 : nres == 0);
  FUZZ_CHECK(fast.rc == 0 || fast.rc == MCP_EJSON || fast.rc == MCP_ETOOBIG);
  lua_xmove(co, L, nres);            /* [co, value?] */

  lua_pushcfunction(L, decode_tree);
  lua_pushlightuserdata(L, &tree);
  if (lua_pcall(L, 1, LUA_MULTRET, 0) != LUA_OK) {
    fprintf(stderr, "jsondec: the cJSON path raised: %s\n",
            lua_tostring(L, -1));
    abort();
  }

  /* cJSON's strings end at NUL: only a crash counts for such a text. */
  if (!escapes_nul(data, size) && !known(L, &fast, &tree, data, size)) {
    if ((fast.rc == 0) != (tree.rc == 0)) {
      fprintf(stderr, "jsondec: the decoder %s what cJSON %s\n",
              fast.rc == 0 ? "accepted" : "refused",
              tree.rc == 0 ? "accepted" : "refused");
      abort();
    }
    if (fast.rc != 0)
      FUZZ_CHECK(fast.rc == tree.rc);
    else
      same(L, 2, 3, "$");
  }
  lua_settop(L, 0);
  return 0;
}
