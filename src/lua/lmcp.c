/*
 * lmcp.c - luaopen_mcp_core: the loop context and the module table.
 *
 * One libuv loop per Lua state, created by the first require and kept in
 * the registry; a second require returns the same module and loop. The
 * loop is run from Lua (core.run), so the coroutine policy stays in Lua.
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "lutil.h"
#include "process.h"

/* Registry keys are addresses, not names: a lookup by name interns the
 * string first, and lmcp_ctx runs on every request and response. */
static const char ctx_key;

void lmcp_timers_close_all(lmcp_ctx_t *ctx);

lmcp_ctx_t *
lmcp_ctx(lua_State *L)
{
  lmcp_ctx_t *ctx;

  lua_rawgetp(L, LUA_REGISTRYINDEX, &ctx_key);
  ctx = lua_touserdata(L, -1);
  lua_pop(L, 1);
  return ctx;
}

void
lmcp_push_unref(lua_State *L, int *ref)
{
  lua_rawgeti(L, LUA_REGISTRYINDEX, *ref);
  luaL_unref(L, LUA_REGISTRYINDEX, *ref);
  *ref = LUA_NOREF;
}

static int
traceback(lua_State *L)
{
  const char *msg = lua_tostring(L, 1);

  if (msg == NULL && !lua_isnoneornil(L, 1) &&
      luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
    msg = lua_tostring(L, -1);
  luaL_traceback(L, L, msg ? msg : "(error object is not a string)", 1);
  return 1;
}

void
lmcp_newmetatable(lua_State *L, const void *key, const char *tname)
{
  luaL_newmetatable(L, tname);
  lua_pushvalue(L, -1);
  lua_rawsetp(L, LUA_REGISTRYINDEX, key);
}

void *
lmcp_testudata(lua_State *L, int idx, const void *key)
{
  void *p = lua_touserdata(L, idx);
  int same;

  if (p == NULL || lua_islightuserdata(L, idx) || !lua_getmetatable(L, idx))
    return NULL;
  lua_rawgetp(L, LUA_REGISTRYINDEX, key);
  same = lua_rawequal(L, -1, -2);
  lua_pop(L, 2);
  return same ? p : NULL;
}

void *
lmcp_checkudata(lua_State *L, int idx, const void *key, const char *tname)
{
  void *p = lmcp_testudata(L, idx, key);

  return p != NULL ? p : luaL_checkudata(L, idx, tname);  /* raises */
}

int
lmcp_pcall(lmcp_ctx_t *ctx, int nargs, int nresults)
{
  lua_State *L = ctx->L;
  int base = lua_gettop(L) - nargs;

  lua_pushcfunction(L, traceback);
  lua_insert(L, base);
  if (lua_pcall(L, nargs, nresults, base) != LUA_OK) {
    if (ctx->error_ref == LUA_NOREF)
      ctx->error_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    else
      lua_pop(L, 1);
    lua_remove(L, base);
    uv_stop(&ctx->loop);
    return 0;
  }
  lua_remove(L, base);
  return 1;
}

/* syntax: alive = core.run(mode?) -- mode "default" | "once" | "nowait"
 * Runs the loop; raises the first error a callback raised. */
static int
lmcp_run(lua_State *L)
{
  static const char *const modes[] = { "default", "once", "nowait", NULL };
  static const uv_run_mode uv_modes[] = { UV_RUN_DEFAULT, UV_RUN_ONCE,
                                          UV_RUN_NOWAIT };
  lmcp_ctx_t *ctx = lmcp_ctx(L);
  int mode = luaL_checkoption(L, 1, "default", modes);
  int alive;

  alive = uv_run(&ctx->loop, uv_modes[mode]);
  if (ctx->error_ref != LUA_NOREF) {
    lmcp_push_unref(L, &ctx->error_ref);
    return lua_error(L);
  }
  lua_pushboolean(L, alive);
  return 1;
}

/* syntax: ms = core.now() -- the loop's clock, in milliseconds */
static int
lmcp_now(lua_State *L)
{
  lmcp_ctx_t *ctx = lmcp_ctx(L);

  uv_update_time(&ctx->loop);
  lua_pushinteger(L, (lua_Integer) uv_now(&ctx->loop));
  return 1;
}

/* For hosts with their own loop: poll this fd, wait at most the timeout,
 * then call core.run("nowait"). */
static int
lmcp_backend_fd(lua_State *L)
{
  lua_pushinteger(L, uv_backend_fd(&lmcp_ctx(L)->loop));
  return 1;
}

static int
lmcp_backend_timeout(lua_State *L)
{
  lua_pushinteger(L, uv_backend_timeout(&lmcp_ctx(L)->loop));
  return 1;
}

static int
lmcp_alive(lua_State *L)
{
  lua_pushboolean(L, uv_loop_alive(&lmcp_ctx(L)->loop));
  return 1;
}

static void
walk_close(uv_handle_t *h, void *arg)
{
  (void) arg;
  if (!uv_is_closing(h))
    uv_close(h, NULL);
}

/* The state is closing: clients' __gc have started their shutdowns (which
 * run in C only), so run the loop until they are done, then close it. */
static int
ctx_gc(lua_State *L)
{
  lmcp_ctx_t *ctx = lua_touserdata(L, 1);

  ctx->closing = 1;
  lmcp_timers_close_all(ctx);
  uv_run(&ctx->loop, UV_RUN_DEFAULT);
  if (uv_loop_close(&ctx->loop) != 0) {
    uv_walk(&ctx->loop, walk_close, NULL);
    uv_run(&ctx->loop, UV_RUN_DEFAULT);
    uv_loop_close(&ctx->loop);
  }
  lmcp_close_sys();
  return 0;
}

static lmcp_ctx_t *
ctx_create(lua_State *L)
{
  lmcp_ctx_t *ctx;

  lua_rawgetp(L, LUA_REGISTRYINDEX, &ctx_key);
  ctx = lua_touserdata(L, -1);
  lua_pop(L, 1);
  if (ctx != NULL)
    return ctx;
  /* Before the loop takes descriptors of its own: see process.h. */
  mcp_process_global_init();
  ctx = lua_newuserdatauv(L, sizeof *ctx, 0);
  memset(ctx, 0, sizeof *ctx);
  if (uv_loop_init(&ctx->loop) != 0)
    luaL_error(L, "mcp.core: cannot create the event loop");
  lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
  ctx->L = lua_tothread(L, -1);
  lua_pop(L, 1);
  ctx->error_ref = LUA_NOREF;
  ctx->array_mt_ref = LUA_NOREF;
  ctx->signal_refs[0] = ctx->signal_refs[1] = ctx->signal_refs[2] = LUA_NOREF;
  ctx->max_depth = MCP_DEFAULT_MAX_DEPTH;
  lua_newtable(L);
  lua_pushcfunction(L, ctx_gc);
  lua_setfield(L, -2, "__gc");
  lua_setmetatable(L, -2);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &ctx_key);
  return ctx;
}

static int
lmcp_errnames(lua_State *L)
{
  lua_newtable(L);
#define LMCP_ERRNAME(name, text) \
  lua_pushstring(L, text);       \
  lua_setfield(L, -2, #name);
  MCP_ERRNO_MAP(LMCP_ERRNAME)
#undef LMCP_ERRNAME
  return 1;
}

int luaopen_mcp_core(lua_State *L);

int
luaopen_mcp_core(lua_State *L)
{
  static const luaL_Reg fns[] = {
    { "run", lmcp_run },
    { "now", lmcp_now },
    { "alive", lmcp_alive },
    { "backend_fd", lmcp_backend_fd },
    { "backend_timeout", lmcp_backend_timeout },
    { NULL, NULL },
  };

  ctx_create(L);
  luaL_newlib(L, fns);
  lmcp_open_json(L);
  lmcp_open_error(L);
  lmcp_open_timer(L);
  lmcp_open_client(L);
  lmcp_open_schema(L);
  lmcp_open_http(L);
  lmcp_open_sys(L);
  lmcp_open_index(L);
  lmcp_open_signal(L);
  lmcp_open_auth(L);
  lmcp_open_sse(L);
  lmcp_open_digest(L);
  lmcp_errnames(L);
  lua_setfield(L, -2, "errors");
  lua_pushliteral(L, MCP_VERSION);
  lua_setfield(L, -2, "version");
  return 1;
}
