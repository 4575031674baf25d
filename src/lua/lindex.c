/*
 * lindex.c - an index of a list of tables by one string field, built in
 * one pass into a table sized for it. The Lua loop it replaces spent more
 * time growing and rehashing its table than on anything else (a quarter
 * of a warm 2,000-tool list).
 *
 * syntax: by = core.index(list, field)
 *         -- by[item[field]] = item, for each table item of list whose
 *         -- field is a string; a later item wins over an earlier one
 */
#include "lutil.h"

static int
lindex(lua_State *L)
{
  lua_Integer i, n;

  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TSTRING);
  n = (lua_Integer) lua_rawlen(L, 1);
  lua_createtable(L, 0, n > 0 && n < (1 << 24) ? (int) n : 0);
  for (i = 1; i <= n; i++) {
    if (lua_rawgeti(L, 1, i) == LUA_TTABLE) {
      lua_pushvalue(L, 2);
      if (lua_rawget(L, -2) == LUA_TSTRING) {
        lua_pushvalue(L, -2);        /* by[key] = item */
        lua_rawset(L, -4);
        lua_pop(L, 1);
        continue;
      }
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  return 1;
}

void
lmcp_open_index(lua_State *L)
{
  lua_pushcfunction(L, lindex);
  lua_setfield(L, -2, "index");
}
