/*
 * lsignal.c - POSIX signals as loop callbacks, so that a program can shut
 * its servers down on Ctrl-C or a kill instead of leaving them running
 * (a stdio server has its own process group: the terminal's SIGINT does
 * not reach it).
 *
 * syntax: core.on_signal(name, fn)   -- name: "SIGINT", "SIGTERM", "SIGHUP"
 *         fn(name, signum) runs from the loop, on the main thread, at each
 *         delivery; fn nil restores the signal's default action.
 * A watched signal does not keep the loop alive. The handles live in the
 * loop context and close with it.
 */
#include <signal.h>

#include "lutil.h"

static const char *const names[] = { "SIGINT", "SIGTERM", "SIGHUP", NULL };
static const int numbers[] = { SIGINT, SIGTERM, SIGHUP };

static void
on_signal(uv_signal_t *h, int signum)
{
  lmcp_ctx_t *ctx = h->data;
  int i = (int) (h - ctx->signals);

  if (ctx->closing || ctx->signal_refs[i] == LUA_NOREF)
    return;
  lua_rawgeti(ctx->L, LUA_REGISTRYINDEX, ctx->signal_refs[i]);
  lua_pushstring(ctx->L, names[i]);
  lua_pushinteger(ctx->L, signum);
  lmcp_pcall(ctx, 2, 0);
}

static int
lmcp_on_signal(lua_State *L)
{
  lmcp_ctx_t *ctx = lmcp_ctx(L);
  int i = luaL_checkoption(L, 1, NULL, names);
  uv_signal_t *h = &ctx->signals[i];

  if (!lua_isnoneornil(L, 2))
    luaL_checktype(L, 2, LUA_TFUNCTION);
  if (ctx->signal_refs[i] != LUA_NOREF)
    luaL_unref(L, LUA_REGISTRYINDEX, ctx->signal_refs[i]);
  ctx->signal_refs[i] = LUA_NOREF;
  if (lua_isnoneornil(L, 2)) {
    if (h->data != NULL)
      uv_signal_stop(h);
    return 0;
  }
  lua_pushvalue(L, 2);
  ctx->signal_refs[i] = luaL_ref(L, LUA_REGISTRYINDEX);
  if (h->data == NULL) {
    if (uv_signal_init(&ctx->loop, h) != 0)
      return luaL_error(L, "cannot watch %s", names[i]);
    h->data = ctx;
    uv_unref((uv_handle_t *) h);
  }
  if (uv_signal_start(h, on_signal, numbers[i]) != 0)
    return luaL_error(L, "cannot watch %s", names[i]);
  return 0;
}

void
lmcp_open_signal(lua_State *L)
{
  lua_pushcfunction(L, lmcp_on_signal);
  lua_setfield(L, -2, "on_signal");
}
