/*
 * lutil.h - what every binding file shares: the per-state loop context,
 * calling Lua from the loop, JSON <-> Lua, and mcp.error objects.
 *
 * Only the binding files in src/lua include Lua headers; nothing in
 * src/core does.
 */
#ifndef MCP_LUTIL_H
#define MCP_LUTIL_H

#include <cjson/cJSON.h>
#include <lauxlib.h>
#include <lua.h>
#include <uv.h>

#include "error.h"

typedef struct lmcp_timer_s lmcp_timer_t;

/* One per Lua state, created by the first luaopen_mcp_core. */
typedef struct lmcp_ctx_s {
  uv_loop_t loop;
  lua_State *L;          /* the main thread; callbacks run on it */
  int error_ref;         /* first error raised by a callback, or NOREF */
  int closing;           /* the state is being closed: call no Lua */
  lmcp_timer_t *timers;  /* live Lua timers, closed at state close */
  int max_depth;         /* JSON nesting limit for conversions */
  int array_mt_ref;      /* the shared array metatable */
  uv_signal_t signals[3]; /* SIGINT, SIGTERM, SIGHUP (lsignal.c); data is
                             NULL until first watched */
  int signal_refs[3];    /* their Lua functions */
} lmcp_ctx_t;

lmcp_ctx_t *lmcp_ctx(lua_State *L);

/* Expects [fn, args...] on top of ctx->L and calls fn in protected mode
 * with a traceback, leaving nresults results. On error records it (the
 * loop stops and core.run raises it) and returns 0; otherwise 1. */
int lmcp_pcall(lmcp_ctx_t *ctx, int nargs, int nresults);

/* Metatables found by address (key: any static object's address) as well
 * as by name: lmcp_checkudata is luaL_checkudata without a string lookup,
 * for methods on hot paths; lmcp_testudata returns NULL instead of
 * raising. */
void lmcp_newmetatable(lua_State *L, const void *key, const char *tname);
void *lmcp_testudata(lua_State *L, int idx, const void *key);
void *lmcp_checkudata(lua_State *L, int idx, const void *key,
                      const char *tname);

/* Pushes the value of a registry ref and releases the ref. */
void lmcp_push_unref(lua_State *L, int *ref);

/* JSON -> Lua. Objects become tables, arrays tables with the shared array
 * metatable, null becomes mcp.null, integral numbers integers. */
void lmcp_push_json(lua_State *L, const cJSON *v);
/* JSON text -> Lua in one pass (no cJSON tree). Pushes the value and
 * returns 0, or pushes nothing and returns MCP_EJSON / MCP_ETOOBIG with
 * err set. Call it in a protected context (memory errors raise). */
int lmcp_decode_json(lua_State *L, const char *text, size_t len,
                     int max_depth, mcp_error_t *err);
/* Lua -> JSON without raising: returns NULL and a message in *why. */
cJSON *lmcp_to_json(lua_State *L, int idx, int max_depth, const char **why);
/* Lua -> JSON text appended to b, in one pass, without raising: returns 0,
 * or -1 and a message in *why (b then holds a partial value). */
struct mcp_buf_s;
int lmcp_encode_json(lua_State *L, int idx, struct mcp_buf_s *b,
                     int max_depth, const char **why);
/* The same, noting where the value of the top-level object's member `key`
 * was written: b->data[start .. start + len) (len 0: no such member). */
typedef struct lmcp_json_span_s {
  const char *key;
  size_t start, len;
} lmcp_json_span_t;
int lmcp_encode_json_span(lua_State *L, int idx, struct mcp_buf_s *b,
                          int max_depth, lmcp_json_span_t *span,
                          const char **why);

/* Pushes an mcp.error. data (may be NULL) becomes err.data; tail (may be
 * NULL or "") becomes err.stderr. */
void lmcp_push_error(lua_State *L, const mcp_error_t *err, const cJSON *data,
                     const char *tail);
/* Pushes nil and an mcp.error; returns 2, for `return lmcp_fail(...)`. */
int lmcp_fail(lua_State *L, const mcp_error_t *err);

void lmcp_open_json(lua_State *L);
void lmcp_open_error(lua_State *L);
void lmcp_open_client(lua_State *L);
void lmcp_open_timer(lua_State *L);
void lmcp_open_schema(lua_State *L);
void lmcp_open_http(lua_State *L);
void lmcp_open_sys(lua_State *L);
void lmcp_open_index(lua_State *L);
void lmcp_open_signal(lua_State *L);
void lmcp_open_auth(lua_State *L);
void lmcp_open_sse(lua_State *L);
void lmcp_open_digest(lua_State *L);
/* Frees what stdin gave that no read_line took (at the state's close). */
void lmcp_close_sys(void);

/* A compiled schema userdata at idx, or NULL; and the nil, ESCHEMA err
 * (with path, keyword, schema_path) for a failed validation. */
struct mcp_schema_s;
struct mcp_schema_failure_s;
const struct mcp_schema_s *lmcp_toschema(lua_State *L, int idx);
int lmcp_schema_fail(lua_State *L, const struct mcp_schema_failure_s *why);

/* The state's HTTP engine (one CURLM), created on first use. */
struct mcp_curl_uv_s;
struct mcp_curl_uv_s *lmcp_http_engine(lua_State *L, mcp_error_t *err);

#define LMCP_NULL_KEY "mcp.null"
#define LMCP_ARRAY_MT "mcp.array"
#define LMCP_ERROR_MT "mcp.error"

#endif
