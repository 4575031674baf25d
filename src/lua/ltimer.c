/*
 * ltimer.c - one-shot timers for mcp.sleep and the Lua layer's deadlines.
 *
 * syntax: t = core.timer(ms, fn)  -- calls fn() once after ms
 *         t:stop()                -- it will not be called; idempotent
 * A to-be-closed timer stops when its scope ends (`local t <close>`).
 * A started timer anchors fn in the registry until it fires or stops.
 */
#include <stdlib.h>

#include "lutil.h"

typedef struct ltimer_s ltimer_t;

struct lmcp_timer_s {
  uv_timer_t handle;
  lmcp_ctx_t *ctx;
  int fn_ref;
  ltimer_t *owner;             /* the userdata, while it lives */
  lmcp_timer_t *prev, *next;   /* the context's list of live timers */
};

struct ltimer_s {
  lmcp_timer_t *t;             /* NULL once stopped or fired */
};

static void
on_close(uv_handle_t *h)
{
  free(h->data);
}

static void
timer_release(lmcp_timer_t *t)
{
  lmcp_ctx_t *ctx = t->ctx;

  if (t->prev != NULL)
    t->prev->next = t->next;
  else
    ctx->timers = t->next;
  if (t->next != NULL)
    t->next->prev = t->prev;
  if (t->owner != NULL)
    t->owner->t = NULL;
  t->owner = NULL;
  if (!ctx->closing)
    luaL_unref(ctx->L, LUA_REGISTRYINDEX, t->fn_ref);
  t->fn_ref = LUA_NOREF;
  uv_close((uv_handle_t *) &t->handle, on_close);
}

static int
call_timer_fn(lua_State *L)
{
  int *ref = lua_touserdata(L, 1);

  lmcp_push_unref(L, ref);
  lua_call(L, 0, 0);
  return 0;
}

static void
on_timer(uv_timer_t *h)
{
  lmcp_timer_t *t = h->data;
  lmcp_ctx_t *ctx = t->ctx;
  int ref = t->fn_ref;

  t->fn_ref = LUA_NOREF;       /* call_timer_fn releases it */
  timer_release(t);
  if (ctx->closing)
    return;
  lua_pushcfunction(ctx->L, call_timer_fn);
  lua_pushlightuserdata(ctx->L, &ref);
  lmcp_pcall(ctx, 1, 0);
}

static int
lmcp_timer_new(lua_State *L)
{
  lua_Number ms = luaL_checknumber(L, 1);
  lmcp_ctx_t *ctx = lmcp_ctx(L);
  ltimer_t *u;
  lmcp_timer_t *t;

  luaL_checktype(L, 2, LUA_TFUNCTION);
  luaL_argcheck(L, ms >= 0, 1, "negative delay");
  u = lua_newuserdatauv(L, sizeof *u, 0);
  u->t = NULL;
  luaL_setmetatable(L, "mcp.core.timer");
  t = calloc(1, sizeof *t);
  if (t == NULL)
    return luaL_error(L, "out of memory");
  t->ctx = ctx;
  lua_pushvalue(L, 2);
  t->fn_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  uv_timer_init(&ctx->loop, &t->handle);
  t->handle.data = t;
  t->next = ctx->timers;
  if (ctx->timers != NULL)
    ctx->timers->prev = t;
  ctx->timers = t;
  /* From now: the loop's clock stands still while Lua runs outside it
   * (a script that blocked in os.execute for a minute), and a timer
   * counted from that old time would fire at once. */
  uv_update_time(&ctx->loop);
  uv_timer_start(&t->handle, on_timer, (uint64_t) ms, 0);
  u->t = t;
  t->owner = u;
  return 1;
}

static int
lmcp_timer_stop(lua_State *L)
{
  ltimer_t *u = luaL_checkudata(L, 1, "mcp.core.timer");

  if (u->t != NULL)
    timer_release(u->t); /* clears u->t */
  lua_pushboolean(L, 1);
  return 1;
}

/* A dropped handle does not stop its timer: the callback still runs. */
static int
lmcp_timer_gc(lua_State *L)
{
  ltimer_t *u = luaL_checkudata(L, 1, "mcp.core.timer");

  if (u->t != NULL)
    u->t->owner = NULL;
  u->t = NULL;
  return 0;
}

/* Stops every live timer: used when the Lua state closes. */
void lmcp_timers_close_all(lmcp_ctx_t *ctx);

void
lmcp_timers_close_all(lmcp_ctx_t *ctx)
{
  while (ctx->timers != NULL)
    timer_release(ctx->timers);
}

void
lmcp_open_timer(lua_State *L)
{
  static const luaL_Reg methods[] = {
    { "stop", lmcp_timer_stop },
    { NULL, NULL },
  };

  luaL_newmetatable(L, "mcp.core.timer");
  lua_pushcfunction(L, lmcp_timer_gc);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, lmcp_timer_stop);
  lua_setfield(L, -2, "__close");
  luaL_newlib(L, methods);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  lua_pushcfunction(L, lmcp_timer_new);
  lua_setfield(L, -2, "timer");
}
