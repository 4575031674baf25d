/*
 * ljson.c - JSON <-> Lua conversion, and mcp.core.json_encode/decode.
 *
 * null is mcp.null (a light userdata holding NULL); arrays carry a shared
 * metatable so an empty array stays an array on the way back; integral
 * numbers within +-2^53 become Lua integers. Conversion to JSON never
 * raises: it returns NULL and a reason, so no cJSON tree can leak.
 */
#include <math.h>
#include <string.h>

#include "buf.h"
#include "json.h"
#include "lutil.h"

#define MAX_SAFE_INT 9007199254740992.0

static void
push_json_depth(lua_State *L, const cJSON *v, int array_mt)
{
  const cJSON *item;
  lua_Integer i;

  luaL_checkstack(L, 4, "JSON nested too deeply");
  if (cJSON_IsNull(v)) {
    lua_pushlightuserdata(L, NULL);
  } else if (cJSON_IsFalse(v)) {
    lua_pushboolean(L, 0);
  } else if (cJSON_IsTrue(v)) {
    lua_pushboolean(L, 1);
  } else if (cJSON_IsNumber(v)) {
    double d = v->valuedouble;

    if (floor(d) == d && fabs(d) <= MAX_SAFE_INT)
      lua_pushinteger(L, (lua_Integer) d);
    else
      lua_pushnumber(L, d);
  } else if (cJSON_IsString(v)) {
    lua_pushstring(L, v->valuestring);
  } else if (cJSON_IsRaw(v)) {
    /* The exact text the core kept (see rpc.h): the one decoder. */
    mcp_error_t err;

    if (lmcp_decode_json(L, v->valuestring, strlen(v->valuestring),
                         lmcp_ctx(L)->max_depth, &err) != 0)
      lua_pushnil(L);
  } else if (cJSON_IsArray(v)) {
    lua_createtable(L, cJSON_GetArraySize(v), 0);
    i = 1;
    cJSON_ArrayForEach(item, v)
    {
      push_json_depth(L, item, array_mt);
      lua_rawseti(L, -2, i++);
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, array_mt);
    lua_setmetatable(L, -2);
  } else if (cJSON_IsObject(v)) {
    lua_createtable(L, 0, 4);
    cJSON_ArrayForEach(item, v)
    {
      push_json_depth(L, item, array_mt);
      lua_setfield(L, -2, item->string);
    }
  } else {
    lua_pushnil(L);
  }
}

void
lmcp_push_json(lua_State *L, const cJSON *v)
{
  if (v == NULL)
    lua_pushnil(L);
  else
    push_json_depth(L, v, lmcp_ctx(L)->array_mt_ref);
}

/* Returns the array length n when t's keys are exactly 1..n, else -1. */
static lua_Integer
array_length(lua_State *L, int idx)
{
  lua_Integer n = 0, max = 0;

  lua_pushnil(L);
  while (lua_next(L, idx) != 0) {
    lua_pop(L, 1);
    if (lua_type(L, -1) != LUA_TNUMBER || !lua_isinteger(L, -1) ||
        lua_tointeger(L, -1) < 1) {
      lua_pop(L, 1);
      return -1;
    }
    if (lua_tointeger(L, -1) > max)
      max = lua_tointeger(L, -1);
    n++;
  }
  return n == max ? n : -1;
}

static int
is_array_marked(lua_State *L, int idx)
{
  int yes;

  if (!lua_getmetatable(L, idx))
    return 0;
  luaL_getmetatable(L, LMCP_ARRAY_MT);
  yes = lua_rawequal(L, -1, -2);
  lua_pop(L, 2);
  return yes;
}

static cJSON *to_json(lua_State *L, int idx, int depth, const char **why);

static cJSON *
table_to_json(lua_State *L, int idx, int depth, const char **why)
{
  lua_Integer n, i;
  cJSON *out, *item;
  char keybuf[32];
  const char *key;

  if (depth <= 0) {
    *why = "table nested too deeply (or a cycle)";
    return NULL;
  }
  if (!lua_checkstack(L, 4)) {
    *why = "out of Lua stack";
    return NULL;
  }
  n = is_array_marked(L, idx) ? (lua_Integer) lua_rawlen(L, idx)
                              : array_length(L, idx);
  if (n > 0 || (n == 0 && is_array_marked(L, idx))) {
    out = cJSON_CreateArray();
    for (i = 1; out != NULL && i <= n; i++) {
      lua_rawgeti(L, idx, i);
      item = to_json(L, lua_gettop(L), depth - 1, why);
      lua_pop(L, 1);
      if (item == NULL) {
        cJSON_Delete(out);
        return NULL;
      }
      cJSON_AddItemToArray(out, item);
    }
    return out;
  }
  out = cJSON_CreateObject();
  lua_pushnil(L);
  while (out != NULL && lua_next(L, idx) != 0) {
    if (lua_type(L, -2) == LUA_TSTRING) {
      key = lua_tostring(L, -2);
    } else if (lua_type(L, -2) == LUA_TNUMBER && lua_isinteger(L, -2)) {
      snprintf(keybuf, sizeof keybuf, LUA_INTEGER_FMT, lua_tointeger(L, -2));
      key = keybuf;
    } else {
      lua_pop(L, 2);
      cJSON_Delete(out);
      *why = "object keys must be strings";
      return NULL;
    }
    item = to_json(L, lua_gettop(L), depth - 1, why);
    lua_pop(L, 1);
    if (item == NULL) {
      lua_pop(L, 1);
      cJSON_Delete(out);
      return NULL;
    }
    cJSON_AddItemToObject(out, key, item);
  }
  if (out == NULL)
    *why = "out of memory";
  return out;
}

static cJSON *
to_json(lua_State *L, int idx, int depth, const char **why)
{
  cJSON *v = NULL;

  switch (lua_type(L, idx)) {
  case LUA_TNIL:
    v = cJSON_CreateNull();
    break;
  case LUA_TBOOLEAN:
    v = cJSON_CreateBool(lua_toboolean(L, idx));
    break;
  case LUA_TNUMBER:
    if (lua_isinteger(L, idx)) {
      v = cJSON_CreateNumber((double) lua_tointeger(L, idx));
    } else {
      double d = lua_tonumber(L, idx);

      if (isnan(d) || isinf(d)) {
        *why = "NaN and infinity have no JSON form";
        return NULL;
      }
      v = cJSON_CreateNumber(d);
    }
    break;
  case LUA_TSTRING:
    v = cJSON_CreateString(lua_tostring(L, idx));
    break;
  case LUA_TTABLE:
    return table_to_json(L, idx, depth, why);
  case LUA_TLIGHTUSERDATA:
    if (lua_touserdata(L, idx) == NULL) {
      v = cJSON_CreateNull();
      break;
    }
    /* fall through */
  default:
    *why = lua_typename(L, lua_type(L, idx));
    *why = strcmp(*why, "function") == 0 ? "cannot encode a function"
           : strcmp(*why, "userdata") == 0 ? "cannot encode a userdata"
           : strcmp(*why, "thread") == 0   ? "cannot encode a thread"
                                           : "cannot encode this value";
    return NULL;
  }
  if (v == NULL)
    *why = "out of memory";
  return v;
}

cJSON *
lmcp_to_json(lua_State *L, int idx, int max_depth, const char **why)
{
  *why = NULL;
  return to_json(L, lua_absindex(L, idx), max_depth, why);
}

/* syntax: text = core.json_encode(value) -- raises on values JSON lacks */
static int
lmcp_json_encode(lua_State *L)
{
  const char *why;
  mcp_buf_t b;
  int rc;

  luaL_checkany(L, 1);
  mcp_buf_init(&b, 0);
  rc = lmcp_encode_json(L, 1, &b, lmcp_ctx(L)->max_depth, &why);
  if (rc == 0)
    lua_pushlstring(L, b.data, b.len);
  mcp_buf_free(&b);
  if (rc != 0)
    return luaL_error(L, "json_encode: %s", why);
  return 1;
}

/* syntax: text = core.json_encode_tree(value)
 * The same through a cJSON tree and cJSON's printer: the reference the
 * encoder is tested against. */
static int
lmcp_json_encode_tree(lua_State *L)
{
  const char *why;
  cJSON *v;
  char *text;

  luaL_checkany(L, 1);
  v = lmcp_to_json(L, 1, lmcp_ctx(L)->max_depth, &why);
  if (v == NULL)
    return luaL_error(L, "json_encode: %s", why);
  text = cJSON_PrintUnformatted(v);
  cJSON_Delete(v);
  if (text == NULL)
    return luaL_error(L, "json_encode: out of memory");
  lua_pushstring(L, text);
  cJSON_free(text);
  return 1;
}

/* syntax: value, err = core.json_decode(text) -- one pass, no cJSON tree */
static int
lmcp_json_decode(lua_State *L)
{
  size_t len;
  const char *text = luaL_checklstring(L, 1, &len);
  mcp_error_t err;

  if (lmcp_decode_json(L, text, len, lmcp_ctx(L)->max_depth, &err) != 0)
    return lmcp_fail(L, &err);
  return 1;
}

/* syntax: value, err = core.json_decode_tree(text)
 * The same through a cJSON tree: the reference the decoder is tested
 * against. */
static int
lmcp_json_decode_tree(lua_State *L)
{
  size_t len;
  const char *text = luaL_checklstring(L, 1, &len);
  mcp_error_t err;
  cJSON *v;

  v = mcp_json_parse(text, len, lmcp_ctx(L)->max_depth, &err);
  if (v == NULL)
    return lmcp_fail(L, &err);
  lmcp_push_json(L, v);
  cJSON_Delete(v);
  return 1;
}

/* syntax: text = core.json_minify(text)
 * cJSON's minifier: whitespace and comments (// and / * * /) outside
 * strings are removed, so JSONC reads as JSON (trailing commas are the
 * caller's to drop). It works on a C string in place: a copy, and a
 * text holding a NUL byte is refused rather than cut short. */
static int
lmcp_json_minify(lua_State *L)
{
  size_t len;
  const char *text = luaL_checklstring(L, 1, &len);
  luaL_Buffer b;
  char *copy;

  if (memchr(text, '\0', len) != NULL)
    return luaL_error(L, "json_minify: the text holds a NUL byte");
  copy = luaL_buffinitsize(L, &b, len + 1);
  memcpy(copy, text, len + 1);
  cJSON_Minify(copy);
  luaL_pushresultsize(&b, strlen(copy));
  return 1;
}

void
lmcp_open_json(lua_State *L)
{
  static const luaL_Reg fns[] = {
    { "json_encode", lmcp_json_encode },
    { "json_encode_tree", lmcp_json_encode_tree },
    { "json_decode", lmcp_json_decode },
    { "json_decode_tree", lmcp_json_decode_tree },
    { "json_minify", lmcp_json_minify },
    { NULL, NULL },
  };

  luaL_newmetatable(L, LMCP_ARRAY_MT);
  if (lmcp_ctx(L)->array_mt_ref == LUA_NOREF) {
    lua_pushvalue(L, -1);   /* by reference: no lookup by name per array */
    lmcp_ctx(L)->array_mt_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  }
  lua_setfield(L, -2, "array_mt");
  lua_pushlightuserdata(L, NULL);
  lua_setfield(L, -2, "null");
  luaL_setfuncs(L, fns, 0);
}
