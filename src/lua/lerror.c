/*
 * lerror.c - mcp.error objects: tables with a stable `code` string, a
 * one-line message and the raw cause, sharing one metatable.
 */
#include <string.h>

#include "lutil.h"

void
lmcp_push_error(lua_State *L, const mcp_error_t *err, const cJSON *data,
                const char *tail)
{
  lua_createtable(L, 0, 6);
  lua_pushstring(L, mcp_err_name(err->code));
  lua_setfield(L, -2, "code");
  lua_pushstring(L, err->msg[0] ? err->msg : mcp_strerror(err->code));
  lua_setfield(L, -2, "message");
  if (err->code == MCP_ERPC || err->rpc_code != 0) {
    lua_pushinteger(L, err->rpc_code);
    lua_setfield(L, -2, "rpc_code");
  }
  if (err->status != 0) {
    lua_pushinteger(L, err->status);
    lua_setfield(L, -2, "status");
  }
  if (err->challenge[0] != '\0') {
    lua_pushstring(L, err->challenge);
    lua_setfield(L, -2, "www_authenticate");
  }
  if (data != NULL) {
    lmcp_push_json(L, data);
    lua_setfield(L, -2, "data");
  }
  if (tail != NULL && tail[0] != '\0') {
    lua_pushstring(L, tail);
    lua_setfield(L, -2, "stderr");
  }
  luaL_setmetatable(L, LMCP_ERROR_MT);
}

int
lmcp_fail(lua_State *L, const mcp_error_t *err)
{
  lua_pushnil(L);
  lmcp_push_error(L, err, NULL, NULL);
  return 2;
}

/* "ERPC(-32601): Method not found" - one line, for assert() and logs. */
static int
error_tostring(lua_State *L)
{
  const char *code, *msg;

  luaL_checktype(L, 1, LUA_TTABLE);
  lua_getfield(L, 1, "code");
  lua_getfield(L, 1, "message");
  lua_getfield(L, 1, "rpc_code");
  code = lua_tostring(L, -3);
  msg = lua_tostring(L, -2);
  if (lua_isinteger(L, -1))
    lua_pushfstring(L, "%s(%d): %s", code ? code : "E?",
                    (int) lua_tointeger(L, -1), msg ? msg : "");
  else
    lua_pushfstring(L, "%s: %s", code ? code : "E?", msg ? msg : "");
  return 1;
}

/* syntax: err = core.error(code, message, fields?) -- for the Lua layer */
static int
error_new(lua_State *L)
{
  const char *code = luaL_checkstring(L, 1);
  const char *msg = luaL_optstring(L, 2, NULL);

  if (lua_istable(L, 3)) {
    lua_settop(L, 3);
  } else {
    lua_settop(L, 2);
    lua_newtable(L);
  }
  lua_pushstring(L, code);
  lua_setfield(L, 3, "code");
  lua_pushstring(L, msg ? msg : code);
  lua_setfield(L, 3, "message");
  luaL_setmetatable(L, LMCP_ERROR_MT);
  return 1;
}

void
lmcp_open_error(lua_State *L)
{
  luaL_newmetatable(L, LMCP_ERROR_MT);
  lua_pushcfunction(L, error_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pushliteral(L, "mcp.error");
  lua_setfield(L, -2, "__name");
  lua_setfield(L, -2, "error_mt");
  lua_pushcfunction(L, error_new);
  lua_setfield(L, -2, "error");
}
