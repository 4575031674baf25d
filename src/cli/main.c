/*
 * main.c - the luamcp program: a Lua 5.4 interpreter with mcp.core built
 * in, which hands its arguments to lua/mcp/cli.lua.
 *
 * Lua files are found next to the program first (build tree: build/../lua,
 * install: <prefix>/share/lua/5.4), then on the usual package.path.
 */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "lua_alloc.h"

int luaopen_mcp_core(lua_State *L);

static void
set_path(lua_State *L)
{
  char exe[PATH_MAX], dir[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);

  lua_getglobal(L, "package");
  if (n > 0) {
    exe[n] = '\0';
    snprintf(dir, sizeof dir, "%s", dirname(exe));
  } else {
    snprintf(dir, sizeof dir, ".");
  }
  lua_pushfstring(L,
                  "%s/../lua/?.lua;%s/../lua/?/init.lua;"
                  "%s/../share/lua/5.4/?.lua;%s/../share/lua/5.4/?/init.lua;"
                  "%s/?.lua;%s/?/init.lua;",
                  dir, dir, dir, dir, MCP_SOURCE_LUADIR, MCP_SOURCE_LUADIR);
  lua_getfield(L, -2, "path");
  lua_concat(L, 2);
  lua_setfield(L, -2, "path");
  /* mcp.core is linked in: preload it. */
  lua_getfield(L, -1, "preload");
  lua_pushcfunction(L, luaopen_mcp_core);
  lua_setfield(L, -2, "mcp.core");
  lua_pop(L, 2);
}

static int
msghandler(lua_State *L)
{
  const char *msg = lua_tostring(L, 1);

  if (msg == NULL) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
      return 1;
    msg = lua_pushfstring(L, "(error object is a %s value)",
                          luaL_typename(L, 1));
  }
  luaL_traceback(L, L, msg, 1);
  return 1;
}

/* Runs require("mcp.cli").main(argv) and exits with what it returns. */
static int
pmain(lua_State *L)
{
  int argc = (int) lua_tointeger(L, 1);
  char **argv = lua_touserdata(L, 2);
  int i;

  luaL_openlibs(L);
  set_path(L);
  lua_getglobal(L, "require");
  lua_pushliteral(L, "mcp.cli");
  lua_call(L, 1, 1);
  lua_getfield(L, -1, "main");
  lua_createtable(L, argc, 0);
  for (i = 0; i < argc; i++) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, i);
  }
  lua_call(L, 1, 1);
  return 1;
}

/* As luaL_newstate's: an error outside any protected call. */
static int
panic(lua_State *L)
{
  const char *msg = lua_tostring(L, -1);

  fprintf(stderr, "luamcp: PANIC: unprotected error in call to Lua API (%s)\n",
          msg ? msg : "error object is not a string");
  return 0;
}

/* As luaL_newstate's: warnings are off until "@on", back off with "@off";
 * a warning in pieces ends with a piece sent with tocont 0. */
static void
warnf(void *ud, const char *msg, int tocont)
{
  static int on, continued;

  (void) ud;
  if (!continued && !tocont && *msg == '@') {
    if (strcmp(msg, "@on") == 0)
      on = 1;
    else if (strcmp(msg, "@off") == 0)
      on = 0;
    return;
  }
  if (on) {
    if (!continued)
      fputs("Lua warning: ", stderr);
    fputs(msg, stderr);
    if (!tocont)
      fputc('\n', stderr);
  }
  continued = tocont;
}

int
main(int argc, char **argv)
{
  lua_alloc_t *pool = lua_alloc_new();
  lua_State *L = pool ? lua_newstate(lua_alloc, pool) : NULL;
  int status, code = 1;

  if (L == NULL) {
    fprintf(stderr, "luamcp: cannot create a Lua state\n");
    lua_alloc_free(pool);
    return 1;
  }
  lua_atpanic(L, panic);
  lua_setwarnf(L, warnf, NULL);
  lua_pushcfunction(L, msghandler);
  lua_pushcfunction(L, pmain);
  lua_pushinteger(L, argc);
  lua_pushlightuserdata(L, argv);
  status = lua_pcall(L, 2, 1, 1);
  if (status != LUA_OK) {
    fprintf(stderr, "luamcp: %s\n", lua_tostring(L, -1));
  } else {
    code = lua_isinteger(L, -1) ? (int) lua_tointeger(L, -1)
                                : (lua_toboolean(L, -1) ? 0 : 1);
  }
  lua_close(L);
  lua_alloc_free(pool);
  return code;
}
