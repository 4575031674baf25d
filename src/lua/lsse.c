/*
 * lsse.c - the core's Server-Sent Events parser (sse.c) for Lua, so that
 * what streams events over plain HTTP (an LLM provider's answer) is read
 * by the same parser as MCP's streams. The parser does no I/O: Lua feeds
 * it the chunks mcp.http's on_data gives.
 *
 * syntax: parser = core.sse_parser(max_event?)  -- bytes; default 4 MB
 *         events, err = parser:feed(chunk)
 *           -- events: a list of { event = type, data = text, id = id? }
 *           -- dispatched by this chunk (maybe empty); nil and ETOOBIG
 *           -- when an event went over max_event (the parser goes on)
 */
#include <string.h>

#include "lutil.h"
#include "sse.h"

#define SSE_MT "mcp.core.sse_parser"

typedef struct lsse_s {
  mcp_sse_t parser;
  lua_State *L;                /* during feed: the events list on top */
  size_t oversize;             /* an event went over: its size */
} lsse_t;

static void
on_event(void *ud, const mcp_sse_event_t *ev)
{
  lsse_t *s = ud;
  lua_State *L = s->L;

  lua_createtable(L, 0, 3);
  lua_pushlstring(L, ev->type, ev->type_len);
  lua_setfield(L, -2, "event");
  lua_pushlstring(L, ev->data, ev->data_len);
  lua_setfield(L, -2, "data");
  if (ev->has_id) {
    lua_pushstring(L, ev->id);
    lua_setfield(L, -2, "id");
  }
  lua_rawseti(L, -2, (lua_Integer) lua_rawlen(L, -2) + 1);
}

static void
on_oversize(void *ud, size_t size, const char *id, size_t id_len)
{
  lsse_t *s = ud;

  MCP_UNUSED(id);
  MCP_UNUSED(id_len);
  s->oversize = size;
}

static int
lsse_new(lua_State *L)
{
  static const mcp_sse_cb_t cb = { on_event, NULL, NULL, on_oversize };
  lua_Integer max = luaL_optinteger(L, 1, 0);
  lsse_t *s;

  luaL_argcheck(L, max >= 0, 1, "must not be negative");
  s = lua_newuserdatauv(L, sizeof *s, 0);
  memset(s, 0, sizeof *s);
  mcp_sse_init(&s->parser, (size_t) max, &cb, s);
  luaL_setmetatable(L, SSE_MT);
  return 1;
}

static int
lsse_feed(lua_State *L)
{
  lsse_t *s = luaL_checkudata(L, 1, SSE_MT);
  size_t len;
  const char *chunk = luaL_checklstring(L, 2, &len);
  mcp_error_t err;
  int rc;

  lua_settop(L, 2);
  lua_newtable(L);
  s->L = L;
  s->oversize = 0;
  rc = mcp_sse_feed(&s->parser, chunk, len);
  s->L = NULL;
  if (rc != 0) {
    mcp_error_set(&err, rc, NULL);
    return lmcp_fail(L, &err);
  }
  if (s->oversize > 0) {
    mcp_error_set(&err, MCP_ETOOBIG, "an event of %zu bytes is over the "
                  "limit of %zu", s->oversize, s->parser.max);
    return lmcp_fail(L, &err);
  }
  return 1;
}

static int
lsse_gc(lua_State *L)
{
  lsse_t *s = luaL_checkudata(L, 1, SSE_MT);

  mcp_sse_free(&s->parser);
  return 0;
}

void
lmcp_open_sse(lua_State *L)
{
  static const luaL_Reg methods[] = {
    { "feed", lsse_feed },
    { NULL, NULL },
  };

  luaL_newmetatable(L, SSE_MT);
  luaL_newlib(L, methods);
  lua_setfield(L, -2, "__index");
  lua_pushcfunction(L, lsse_gc);
  lua_setfield(L, -2, "__gc");
  lua_pop(L, 1);
  lua_pushcfunction(L, lsse_new);
  lua_setfield(L, -2, "sse_parser");
}
