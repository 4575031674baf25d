/*
 * lclient.c - mcp.core.client: one MCP connection, callback style.
 *
 * The core API here never yields: each waiting operation takes a Lua
 * callback and returns at once; lua/mcp/client.lua turns that into
 * yielding methods. Callbacks run on the main thread, inside a protected
 * call, from the loop, never re-entrantly from the method that started the
 * operation.
 *
 * Lifetime: the userdata holds a pointer to a C record that outlives it
 * while the connection shuts down. The record is freed when both the
 * userdata is collected and the endpoint reported on_closed. The handler
 * table is anchored in the registry until then, so an open connection is
 * never collected behind its owner's back.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "client.h"
#include "common.h"
#include "http.h"
#include "json.h"
#include "jsonscan.h"
#include "lauth.h"
#include "lutil.h"
#include "schema.h"
#include "transport_http.h"
#include "transport_stdio.h"

#define CLIENT_MT "mcp.core.client"
static const char client_mt_key;   /* its address keys the metatable */
#define TAIL_MAX 4096
#define LARGE_RESULT (256u * 1024u) /* bytes of JSON */

typedef struct lclient_s {
  lmcp_ctx_t *ctx;
  mcp_client_t *client;    /* NULL once the core client is freed */
  mcp_transport_t *http;   /* the HTTP transport, or NULL (stdio) */
  int handlers_ref;        /* on_request, on_notification, on_log, ... */
  int init_ref;            /* the initialize callback, while pending */
  char *tail;              /* stderr tail kept when the server was lost */
  unsigned ud_gone : 1;    /* the userdata was collected */
  unsigned closing : 1;    /* close() was called */
} lclient_t;

typedef struct {
  lclient_t *c;
} lclient_ud_t;

typedef struct lreq_s {
  lclient_t *c;
  int cb_ref;
  int progress_ref;        /* opts.on_progress, or LUA_NOREF */
  int ctx_ref;             /* passed to cb first, when given; or NOREF */
  const mcp_schema_t *structured; /* opts.structured_schema, or NULL */
  int structured_ref;      /* keeps its userdata alive; or NOREF */
} lreq_t;

static void
client_free_if_done(lclient_t *c)
{
  if (!c->ud_gone || c->client != NULL)
    return;
  free(c->tail);
  free(c);
}

static lclient_t *
check_client(lua_State *L)
{
  lclient_ud_t *u = lmcp_checkudata(L, 1, &client_mt_key, CLIENT_MT);

  if (u->c == NULL || u->c->client == NULL || u->c->closing)
    luaL_error(L, "attempt to use a closed mcp.client");
  return u->c;
}

/* The stderr tail for an error, into buf; "" when there is none. */
static const char *
client_tail(lclient_t *c, char *buf, size_t cap)
{
  if (c->tail != NULL)
    return c->tail;
  buf[0] = '\0';
  if (c->client != NULL)
    mcp_client_diagnostics(c->client, buf, cap);
  return buf;
}

/* ---- calls into Lua ------------------------------------------------------ */

typedef enum {
  CALL_DONE,          /* fn(result) or fn(nil, err) */
  CALL_RAW,           /* fn(decoded text) or fn(nil, EJSON err) */
  CALL_PROGRESS,      /* fn(params) of a request's on_progress */
  CALL_HANDLER        /* handlers[name](args...) */
} call_kind_t;

typedef struct lcall_s {
  call_kind_t kind;
  lclient_t *c;
  int *ref;                   /* CALL_DONE: the callback's ref */
  const char *name;           /* CALL_HANDLER: which handler */
  const mcp_error_t *err;
  const cJSON *value;
  const cJSON *id;            /* on_request */
  const char *method;
  const char *text;           /* on_log, on_bad_message, CALL_RAW */
  size_t len;
  int *ctx_ref;               /* CALL_DONE/CALL_RAW: a value for cb first */
  const mcp_schema_t *structured; /* CALL_DONE/CALL_RAW: check the result */
} lcall_t;

static void
push_error_with_tail(lua_State *L, lclient_t *c, const mcp_error_t *err,
                     const cJSON *data)
{
  char buf[TAIL_MAX];
  const char *tail = NULL;

  if (err->code == MCP_ECLOSED || err->code == MCP_ESPAWN ||
      err->code == MCP_EVERSION)
    tail = client_tail(c, buf, sizeof buf);
  lmcp_push_error(L, err, data, tail);
}

/* Checks the structuredContent of a tools/call result against schema, on
 * the JSON received: the text of the raw result, or its tree. Returns 0,
 * MCP_ESCHEMA with why (why->keyword "" when the result has none), or
 * the code that stopped the validation (MCP_ETOOBIG, MCP_ENOMEM) with
 * why->message saying why; a result with isError true is not checked. */
static int
check_structured(lcall_t *k, const mcp_schema_t *schema,
                 mcp_schema_failure_t *why)
{
  return mcp_client_check_tool_result(schema,
                                      k->kind == CALL_RAW ? k->text : NULL,
                                      k->len, k->value,
                                      k->c->ctx->max_depth, why);
}

/* With the result on top of the stack: replaces it with nil and an error
 * whose err.result is the result: ESCHEMA when it does not match, or the
 * code (ETOOBIG, ENOMEM) that stopped the validation before it could say:
 * a result that was not checked is not passed as checked. */
static void
push_structured_failure(lua_State *L, int rc, const mcp_schema_failure_t *why)
{
  int result = lua_gettop(L);

  if (rc == MCP_ESCHEMA && why->keyword[0] != '\0') {
    lmcp_schema_fail(L, why);
  } else {
    mcp_error_t err;

    if (rc == MCP_ESCHEMA)
      mcp_error_set(&err, rc, "%s", why->message);
    else
      mcp_error_set(&err, rc, "structuredContent could not be checked "
                    "against the outputSchema: %s", why->message[0]
                    ? why->message : mcp_strerror(rc));
    lmcp_fail(L, &err);
  }
  lua_pushvalue(L, result);
  lua_setfield(L, -2, "result");
  lua_remove(L, result);
}

/* Runs inside lua_pcall, so conversions that raise are safe. */
static int
lcall_run(lua_State *L)
{
  lcall_t *k = lua_touserdata(L, 1);
  int nargs = 0;

  if (k->kind == CALL_DONE || k->kind == CALL_RAW) {
    int with_ctx = k->ctx_ref != NULL && *k->ctx_ref != LUA_NOREF;

    lmcp_push_unref(L, k->ref);
    if (with_ctx)
      lmcp_push_unref(L, k->ctx_ref);
    nargs = with_ctx ? 1 : 0;
    if (k->kind == CALL_RAW) {
      mcp_error_t err;

      /* A large result is about to become many Lua objects: collect
       * first, so that earlier garbage (the previous tool list, say) is
       * gone before the new one is built and memory peaks at one copy. */
      if (k->len > LARGE_RESULT)
        lua_gc(L, LUA_GCCOLLECT);
      if (lmcp_decode_json(L, k->text, k->len, k->c->ctx->max_depth,
                           &err) == 0) {
        mcp_schema_failure_t why;
        int rc = 0;

        nargs += 1;
        if (k->structured != NULL)
          rc = check_structured(k, k->structured, &why);
        if (rc != 0) {
          push_structured_failure(L, rc, &why);
          nargs += 1;
        }
      } else {
        lua_pushnil(L);
        lmcp_push_error(L, &err, NULL, NULL);
        nargs += 2;
      }
    } else if (k->err == NULL) {
      mcp_schema_failure_t why;
      int rc = 0;

      lmcp_push_json(L, k->value);
      nargs += 1;
      if (k->structured != NULL)
        rc = check_structured(k, k->structured, &why);
      if (rc != 0) {
        push_structured_failure(L, rc, &why);
        nargs += 1;
      }
    } else {
      lua_pushnil(L);
      push_error_with_tail(L, k->c, k->err, k->value);
      nargs += 2;
    }
    lua_call(L, nargs, 0);
    return 0;
  }
  if (k->kind == CALL_PROGRESS) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, *k->ref);
    lmcp_push_json(L, k->value);
    lua_call(L, 1, 0);
    return 0;
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, k->c->handlers_ref);
  lua_getfield(L, -1, k->name);
  if (!lua_isfunction(L, -1)) {
    lua_pushboolean(L, 0);
    return 1;
  }
  if (strcmp(k->name, "on_request") == 0) {
    lmcp_push_json(L, k->id);
    lua_pushstring(L, k->method);
    lmcp_push_json(L, k->value);
    nargs = 3;
  } else if (strcmp(k->name, "on_notification") == 0) {
    lua_pushstring(L, k->method);
    lmcp_push_json(L, k->value);
    nargs = 2;
  } else if (strcmp(k->name, "on_log") == 0 ||
             strcmp(k->name, "on_authorize") == 0 ||
             strcmp(k->name, "on_trace") == 0) {
    lua_pushlstring(L, k->text, k->len);
    nargs = 1;
  } else if (strcmp(k->name, "on_bad_message") == 0) {
    push_error_with_tail(L, k->c, k->err, NULL);
    if (k->text != NULL)
      lua_pushlstring(L, k->text, k->len);
    else
      lua_pushnil(L);
    nargs = 2;
  } else if (strcmp(k->name, "on_lost") == 0 ||
             strcmp(k->name, "on_down") == 0) {
    push_error_with_tail(L, k->c, k->err, NULL);
    nargs = 1;
  } else if (strcmp(k->name, "on_session") == 0) {
    lua_pushinteger(L, (lua_Integer) k->len);
    lmcp_push_json(L, k->value);
    nargs = 2;
  }
  lua_call(L, nargs, 1);
  return 1;
}

/* Returns the handler's first result as a boolean (0 on error). */
static int
call_lua(lcall_t *k)
{
  lmcp_ctx_t *ctx = k->c->ctx;
  lua_State *L = ctx->L;
  int result = 0;

  if (ctx->closing) {
    if (k->ref != NULL) {
      *k->ref = LUA_NOREF; /* the registry goes with the state */
    }
    return 0;
  }
  lua_pushcfunction(L, lcall_run);
  lua_pushlightuserdata(L, k);
  if (lmcp_pcall(ctx, 1, 1)) {
    result = lua_toboolean(L, -1);
    lua_pop(L, 1);
  }
  return result;
}

static int
call_handler(lclient_t *c, const char *name, lcall_t *k)
{
  k->kind = CALL_HANDLER;
  k->c = c;
  k->name = name;
  return call_lua(k);
}

/* ---- endpoint callbacks ---------------------------------------------------- */

static int
on_request(void *ud, const cJSON *id, const char *method, const cJSON *params)
{
  lcall_t k = { 0 };

  k.id = id;
  k.method = method;
  k.value = params;
  return call_handler(ud, "on_request", &k);
}

static void
on_notification(void *ud, const char *method, const cJSON *params)
{
  lcall_t k = { 0 };

  k.method = method;
  k.value = params;
  call_handler(ud, "on_notification", &k);
}

static void
on_bad_message(void *ud, const mcp_error_t *err, const char *text, size_t len)
{
  lcall_t k = { 0 };

  k.err = err;
  k.text = text;
  k.len = len;
  call_handler(ud, "on_bad_message", &k);
}

static void
on_log(void *ud, const char *line, size_t len)
{
  lcall_t k = { 0 };

  k.text = line;
  k.len = len;
  call_handler(ud, "on_log", &k);
}

static void
on_lost(void *ud, const mcp_error_t *err)
{
  lclient_t *c = ud;
  lcall_t k = { 0 };
  char buf[TAIL_MAX];

  if (c->tail == NULL) {
    mcp_client_diagnostics(c->client, buf, sizeof buf);
    c->tail = strdup(buf);
  }
  k.err = err;
  call_handler(c, "on_lost", &k);
}

/* The server died and will be started again. */
static void
on_down(void *ud, const mcp_error_t *err)
{
  lcall_t k = { 0 };

  k.err = err;
  call_handler(ud, "on_down", &k);
}

/* A line of the connection's trace (luamcp debug). */
static void
on_trace(void *ud, const char *line, size_t len)
{
  lcall_t k = { 0 };

  k.text = line;
  k.len = len;
  call_handler(ud, "on_trace", &k);
}

/* OAuth: the authorization URL, for the owner's on_authorize. */
static void
on_authorize(void *ud, const char *url)
{
  lcall_t k = { 0 };

  k.text = url;
  k.len = strlen(url);
  call_handler(ud, "on_authorize", &k);
}

/* A new session replaced an expired one (the core did everything). */
static void
on_session(void *ud, unsigned number, const cJSON *result)
{
  lcall_t k = { 0 };

  k.len = number;
  k.value = result;
  call_handler(ud, "on_session", &k);
}

static void
on_closed(void *ud)
{
  lclient_t *c = ud;
  lcall_t k = { 0 };

  c->client = NULL;    /* it frees itself when this returns */
  c->http = NULL;
  call_handler(c, "on_closed", &k);
  if (!c->ctx->closing)
    luaL_unref(c->ctx->L, LUA_REGISTRYINDEX, c->handlers_ref);
  c->handlers_ref = LUA_NOREF;
  client_free_if_done(c);
}

/* Ends a request: calls its callback as k says and frees it. */
static void
finish_request(lreq_t *r, lcall_t *k)
{
  lmcp_ctx_t *ctx = r->c->ctx;

  k->c = r->c;
  k->ref = &r->cb_ref;
  k->ctx_ref = &r->ctx_ref;
  k->structured = r->structured;
  if (r->progress_ref != LUA_NOREF && !ctx->closing)
    luaL_unref(ctx->L, LUA_REGISTRYINDEX, r->progress_ref);
  r->progress_ref = LUA_NOREF;
  call_lua(k);   /* the structured schema's ref holds it alive through this */
  if (r->structured_ref != LUA_NOREF && !ctx->closing)
    luaL_unref(ctx->L, LUA_REGISTRYINDEX, r->structured_ref);
  free(r);
}

static void
on_done(void *data, const mcp_error_t *err, const cJSON *value)
{
  lcall_t k = { 0 };

  k.kind = CALL_DONE;
  k.err = err;
  k.value = value;
  finish_request(data, &k);
}

/* The fast path: the result's text, decoded straight into Lua. */
static void
on_raw_result(void *data, const char *text, size_t len)
{
  lcall_t k = { 0 };

  k.kind = CALL_RAW;
  k.text = text;
  k.len = len;
  finish_request(data, &k);
}

static void
on_progress(void *data, const cJSON *params)
{
  lreq_t *r = data;
  lcall_t k = { 0 };

  k.kind = CALL_PROGRESS;
  k.c = r->c;
  k.ref = &r->progress_ref;
  k.value = params;
  call_lua(&k);
}

/* ---- methods -------------------------------------------------------------- */

static uint64_t
opt_ms(lua_State *L, int idx)
{
  lua_Number ms = luaL_optnumber(L, idx, 0);

  luaL_argcheck(L, ms >= 0, idx, "negative timeout");
  return (uint64_t) ms;
}

/* Converts the value at idx (nil allowed) or raises; the caller owns it. */
static cJSON *
check_json(lua_State *L, int idx, lclient_t *c, int *ref_to_drop)
{
  const char *why;
  cJSON *v;

  if (lua_isnoneornil(L, idx))
    return NULL;
  luaL_checktype(L, idx, LUA_TTABLE);
  v = lmcp_to_json(L, idx, c->ctx->max_depth, &why);
  if (v == NULL) {
    if (ref_to_drop != NULL)
      luaL_unref(L, LUA_REGISTRYINDEX, *ref_to_drop);
    luaL_argerror(L, idx, why);
  }
  return v;
}

/* Frees a request that was never sent, with its references. */
static void
release_req(lua_State *L, lreq_t *r)
{
  luaL_unref(L, LUA_REGISTRYINDEX, r->cb_ref);
  luaL_unref(L, LUA_REGISTRYINDEX, r->progress_ref);
  luaL_unref(L, LUA_REGISTRYINDEX, r->ctx_ref);
  luaL_unref(L, LUA_REGISTRYINDEX, r->structured_ref);
  free(r);
}

/* Pushes the bad start's error (nil, err) after releasing what was taken. */
static int
start_failed(lua_State *L, lclient_t *c, lreq_t *r, const mcp_error_t *err)
{
  release_req(L, r);
  lua_pushnil(L);
  push_error_with_tail(L, c, err, NULL);
  return 2;
}

static lreq_t *
new_req(lua_State *L, lclient_t *c, int cb_idx)
{
  lreq_t *r;

  luaL_checktype(L, cb_idx, LUA_TFUNCTION);
  r = malloc(sizeof *r);
  if (r == NULL)
    luaL_error(L, "out of memory");
  r->c = c;
  r->progress_ref = LUA_NOREF;
  r->ctx_ref = LUA_NOREF;
  r->structured = NULL;
  r->structured_ref = LUA_NOREF;
  lua_pushvalue(L, cb_idx);
  r->cb_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  return r;
}

static void
on_initialized(void *data, const mcp_error_t *err, const cJSON *result)
{
  lclient_t *c = data;
  lreq_t r = { c, c->init_ref, LUA_NOREF, LUA_NOREF, NULL, LUA_NOREF };
  lcall_t k = { 0 };

  c->init_ref = LUA_NOREF;
  k.kind = CALL_DONE;
  k.c = c;
  k.ref = &r.cb_ref;
  k.err = err;
  k.value = result;
  call_lua(&k);
}

/* syntax: ok, err = core_client:initialize(capabilities, client_info?,
 *                                          timeout_ms?, cb, protocol?)
 * protocol: "auto" (the default), "2026-07-28" or a handshake revision. */
static int
lmcp_client_initialize(lua_State *L)
{
  lclient_t *c = check_client(L);
  cJSON *caps, *info = NULL;
  mcp_error_t err;
  int rc;

  luaL_checktype(L, 2, LUA_TTABLE);
  luaL_checktype(L, 5, LUA_TFUNCTION);
  if (c->init_ref != LUA_NOREF)
    return luaL_error(L, "initialize already in progress");
  caps = check_json(L, 2, c, NULL);
  if (!lua_isnoneornil(L, 3)) {
    const char *why;

    luaL_checktype(L, 3, LUA_TTABLE);
    info = lmcp_to_json(L, 3, c->ctx->max_depth, &why);
    if (info == NULL) {
      cJSON_Delete(caps);
      return luaL_argerror(L, 3, why);
    }
  }
  rc = mcp_client_set_protocol(c->client, luaL_optstring(L, 6, NULL), &err);
  if (rc == 0)
    rc = mcp_client_initialize(c->client, caps, info, opt_ms(L, 4),
                               on_initialized, c, &err);
  cJSON_Delete(caps);
  cJSON_Delete(info);
  if (rc != 0) {
    lua_pushnil(L);
    push_error_with_tail(L, c, &err, NULL);
    return 2;
  }
  lua_pushvalue(L, 5);
  c->init_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_pushboolean(L, 1);
  return 1;
}

/* Reads a non-negative number of milliseconds from opts[name]. */
/* The options request() reads, whose names are its upvalues: a lookup by
 * a C string interns the string first, on every request. */
enum {
  OPT_TIMEOUT = 1, OPT_MAX_TIMEOUT, OPT_NO_CANCEL, OPT_ON_PROGRESS,
  OPT_ARGUMENTS_SCHEMA, OPT_STRUCTURED_SCHEMA
};
static const char *const request_opt_names[] = {
  "timeout", "max_timeout", "no_cancel", "on_progress", "arguments_schema",
  "structured_schema", NULL
};

/* Pushes opts[name of which] (raw) and returns its type. */
static int
request_opt(lua_State *L, int opts, int which)
{
  lua_pushvalue(L, lua_upvalueindex(which));
  return lua_rawget(L, opts);
}

/* Reads a non-negative number of milliseconds from an option. */
static uint64_t
request_opt_ms(lua_State *L, int opts, int which)
{
  lua_Number ms;

  request_opt(L, opts, which);
  ms = luaL_optnumber(L, -1, 0);
  lua_pop(L, 1);
  if (ms < 0)
    luaL_error(L, "request option '%s' must not be negative",
               request_opt_names[which - 1]);
  return (uint64_t) ms;
}

/* The params of a request from Lua, written straight into the message. */
typedef struct {
  lua_State *L;
  int idx;                          /* stack index of the params table */
  int max_depth;
  const mcp_schema_t *schema;       /* params.arguments must match it */
  mcp_schema_failure_t failure;     /* why they did not */
  int failed_schema;
  const char *why;                  /* a Lua value JSON lacks */
} lua_params_t;


/* Checks the arguments on the very text that goes out: the value of the
 * params' "arguments" member, just written (none: checked as absent). The
 * encoder already held it to the nesting limit. */
static int
check_sent_arguments(lua_params_t *lp, const char *text, size_t len,
                     mcp_error_t *err)
{
  cJSON *value = NULL;
  int rc;

  if (len > 0 && (value = cJSON_ParseWithLength(text, len)) == NULL)
    return mcp_error_set(err, MCP_ENOMEM, "checking the arguments");
  rc = mcp_schema_validate(lp->schema, value, &lp->failure);
  cJSON_Delete(value);
  if (rc == MCP_ESCHEMA) {
    lp->failed_schema = 1;
    return mcp_error_set(err, MCP_ESCHEMA, "arguments do not match");
  }
  /* Arguments that could not be checked are not sent as checked. */
  if (rc != 0)
    return mcp_error_set(err, rc, "the arguments could not be checked "
                         "against the inputSchema: %s",
                         lp->failure.message[0] ? lp->failure.message
                                                : mcp_strerror(rc));
  return 0;
}

static int
write_lua_params(void *ud, uint64_t id, mcp_buf_t *b, mcp_error_t *err)
{
  lua_params_t *lp = ud;
  lua_State *L = lp->L;
  lmcp_json_span_t args = { "arguments", 0, 0 };
  int idx = lp->idx, rc;

  MCP_UNUSED(id);   /* the progress token is rpc's to add */
  rc = lmcp_encode_json_span(L, idx, b, lp->max_depth,
                             lp->schema != NULL ? &args : NULL, &lp->why);
  if (rc != 0)
    return mcp_error_set(err, MCP_EINVAL, "%s", lp->why);
  if (lp->schema != NULL)
    return check_sent_arguments(lp, b->data + args.start, args.len, err);
  return 0;
}

/* syntax: id, err = core_client:request(method, params?, cb, opts?, ctx?)
 * cb(result) or cb(nil, err); with ctx, cb(ctx, result) or cb(ctx, nil,
 * err), so one function can serve every request without a closure each.
 * opts: timeout (ms), max_timeout (ms), no_cancel, on_progress(params),
 * arguments_schema (a compiled schema that params.arguments must match:
 * checked on the very JSON that is sent; nil, ESCHEMA when it does not),
 * structured_schema (a compiled schema that the result's
 * structuredContent must match unless isError is true: checked on the JSON
 * received; cb gets nil and an ESCHEMA error whose err.result is the
 * result). */
static int
lmcp_client_request(lua_State *L)
{
  lclient_t *c = check_client(L);
  const char *method = luaL_checkstring(L, 2);
  mcp_rpc_req_opts_t opts;
  lua_params_t lp;
  mcp_error_t err;
  lreq_t *r;
  uint64_t id;
  int rc, has_opts, has_progress = 0;

  if (!lua_isnoneornil(L, 3))
    luaL_checktype(L, 3, LUA_TTABLE);
  luaL_checktype(L, 4, LUA_TFUNCTION);
  if (!lua_isnoneornil(L, 5))
    luaL_checktype(L, 5, LUA_TTABLE);
  memset(&opts, 0, sizeof opts);
  opts.on_raw_result = on_raw_result;
  has_opts = !lua_isnoneornil(L, 5);
  if (has_opts) {
    opts.timeout_ms = request_opt_ms(L, 5, OPT_TIMEOUT);
    opts.max_timeout_ms = request_opt_ms(L, 5, OPT_MAX_TIMEOUT);
    request_opt(L, 5, OPT_NO_CANCEL);
    opts.no_cancel = lua_toboolean(L, -1);
    request_opt(L, 5, OPT_ON_PROGRESS);
    has_progress = lua_isfunction(L, -1);
    if (!has_progress && !lua_isnil(L, -1))
      return luaL_error(L, "request option 'on_progress' must be a function");
    lua_pop(L, 2);
  }
  r = new_req(L, c, 4);
  if (!lua_isnoneornil(L, 6)) {
    lua_pushvalue(L, 6);
    r->ctx_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  }
  if (has_progress) {
    request_opt(L, 5, OPT_ON_PROGRESS);
    r->progress_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    opts.on_progress = on_progress;
  }
  lp.L = L;
  lp.max_depth = c->ctx->max_depth;
  lp.schema = NULL;
  lp.failed_schema = 0;
  lp.why = NULL;
  if (has_opts && request_opt(L, 5, OPT_ARGUMENTS_SCHEMA) != LUA_TNIL)
    lp.schema = lmcp_toschema(L, -1);
  if (has_opts && request_opt(L, 5, OPT_STRUCTURED_SCHEMA) != LUA_TNIL &&
      (r->structured = lmcp_toschema(L, -1)) != NULL) {
    lua_pushvalue(L, -1);
    r->structured_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  }
  lp.idx = 3;
  rc = mcp_client_request_with(c->client, method,
                            lua_isnoneornil(L, 3)
                                ? NULL
                                : write_lua_params,
                            &lp, &opts, on_done, r, &id, &err);
  if (rc != 0 && lp.failed_schema) {
    release_req(L, r);
    return lmcp_schema_fail(L, &lp.failure);
  }
  if (rc != 0 && lp.why != NULL) {
    release_req(L, r);
    return luaL_argerror(L, 3, lp.why);
  }
  if (rc != 0)
    return start_failed(L, c, r, &err);
  lua_pushinteger(L, (lua_Integer) id);
  return 1;
}

/* syntax: cancelled = core_client:cancel(id, reason?) */
static int
lmcp_client_cancel(lua_State *L)
{
  lclient_t *c = check_client(L);
  lua_Integer id = luaL_checkinteger(L, 2);
  const char *reason = luaL_optstring(L, 3, NULL);

  lua_pushboolean(L, mcp_client_cancel(c->client, (uint64_t) id, reason) ==
                         0);
  return 1;
}

/* The Lua value at idx (nil: NULL) written by the one encoder, as a cJSON
 * raw item that the core sends as it is: a cJSON tree would round
 * integers past 2^53. Raises on a value that cannot be JSON. */
static cJSON *
encode_raw(lua_State *L, int idx, lclient_t *c)
{
  const char *why = NULL;
  mcp_buf_t b;
  cJSON *raw;

  if (lua_isnoneornil(L, idx))
    return NULL;
  mcp_buf_init(&b, 0);
  if (lmcp_encode_json(L, idx, &b, c->ctx->max_depth, &why) != 0 ||
      mcp_buf_putc(&b, '\0') != 0) {
    mcp_buf_free(&b);
    luaL_argerror(L, idx, why != NULL ? why : "out of memory");
  }
  raw = cJSON_CreateRaw(b.data);
  mcp_buf_free(&b);
  if (raw == NULL)
    luaL_error(L, "out of memory");
  return raw;
}

/* syntax: ok, err = core_client:notify(method, params?) */
static int
lmcp_client_notify(lua_State *L)
{
  lclient_t *c = check_client(L);
  const char *method = luaL_checkstring(L, 2);
  mcp_error_t err;
  cJSON *params;
  int rc;

  if (!lua_isnoneornil(L, 3))
    luaL_checktype(L, 3, LUA_TTABLE);
  params = encode_raw(L, 3, c);

  rc = mcp_client_notify(c->client, method, params, &err);
  cJSON_Delete(params);
  if (rc != 0)
    return lmcp_fail(L, &err);
  lua_pushboolean(L, 1);
  return 1;
}

static cJSON *
check_id(lua_State *L, int idx)
{
  cJSON *id = NULL;

  if (lua_type(L, idx) == LUA_TSTRING) {
    id = cJSON_CreateString(lua_tostring(L, idx));
  } else if (lua_isinteger(L, idx)) {
    char num[32];

    /* Every digit: a double would round ids past 2^53. */
    snprintf(num, sizeof num, LUA_INTEGER_FMT, lua_tointeger(L, idx));
    id = cJSON_CreateRaw(num);
  } else if (lua_type(L, idx) == LUA_TNUMBER) {
    id = cJSON_CreateNumber(lua_tonumber(L, idx));
  } else {
    luaL_argerror(L, idx, "request id must be a string or a number");
  }
  if (id == NULL)
    luaL_error(L, "out of memory");
  return id;
}

/* syntax: ok, err = core_client:respond(id, result) */
static int
lmcp_client_respond(lua_State *L)
{
  lclient_t *c = check_client(L);
  mcp_error_t err;
  cJSON *id, *result;
  int rc;

  luaL_checktype(L, 3, LUA_TTABLE);
  result = encode_raw(L, 3, c);
  if (lua_type(L, 2) != LUA_TSTRING && lua_type(L, 2) != LUA_TNUMBER) {
    cJSON_Delete(result);
    return luaL_argerror(L, 2, "request id must be a string or a number");
  }
  id = check_id(L, 2);
  rc = mcp_client_respond(c->client, id, result, &err);
  cJSON_Delete(id);
  cJSON_Delete(result);
  if (rc != 0)
    return lmcp_fail(L, &err);
  lua_pushboolean(L, 1);
  return 1;
}

/* syntax: ok, err = core_client:respond_error(id, code, message, data?) */
static int
lmcp_client_respond_error(lua_State *L)
{
  lclient_t *c = check_client(L);
  int code = (int) luaL_checkinteger(L, 3);
  const char *message = luaL_checkstring(L, 4);
  mcp_error_t err;
  cJSON *id, *data = NULL;
  int rc;

  if (lua_type(L, 2) != LUA_TSTRING && lua_type(L, 2) != LUA_TNUMBER)
    return luaL_argerror(L, 2, "request id must be a string or a number");
  data = encode_raw(L, 5, c);
  id = check_id(L, 2);
  rc = mcp_client_respond_error(c->client, id, code, message, data, &err);
  cJSON_Delete(id);
  cJSON_Delete(data);
  if (rc != 0)
    return lmcp_fail(L, &err);
  lua_pushboolean(L, 1);
  return 1;
}

/* syntax: true = core_client:close()
 * Fails every pending request with ECLOSED (their callbacks run before
 * this returns) and starts the shutdown; handlers.on_closed follows. */
static int
lmcp_client_close(lua_State *L)
{
  lclient_ud_t *u = luaL_checkudata(L, 1, CLIENT_MT);
  lclient_t *c = u->c;

  if (c != NULL && c->client != NULL && !c->closing) {
    c->closing = 1;
    mcp_client_close(c->client);
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* syntax: true = core_client:abort(code, message)
 * As close, but pending requests fail with this error (code is an
 * mcp.error code such as "ECLOSED"). */
static int
lmcp_client_abort(lua_State *L)
{
  lclient_ud_t *u = luaL_checkudata(L, 1, CLIENT_MT);
  const char *code = luaL_checkstring(L, 2);
  const char *message = luaL_checkstring(L, 3);
  lclient_t *c = u->c;
  mcp_error_t err;
  int n;

  mcp_error_set(&err, MCP_ECLOSED, "%s", message);
  for (n = MCP_ERRNO_FIRST_ + 1; n < MCP_ERRNO_LAST_; n++) {
    if (strcmp(mcp_err_name(n), code) == 0)
      err.code = n;
  }
  if (c != NULL && c->client != NULL && !c->closing) {
    c->closing = 1;
    mcp_client_abort(c->client, &err);
  }
  lua_pushboolean(L, 1);
  return 1;
}

static int
lmcp_client_gc(lua_State *L)
{
  lclient_ud_t *u = luaL_checkudata(L, 1, CLIENT_MT);
  lclient_t *c = u->c;

  if (c == NULL)
    return 0;
  u->c = NULL;
  c->ud_gone = 1;
  if (c->client != NULL && !c->closing) {
    c->closing = 1;
    mcp_client_close(c->client);
  }
  client_free_if_done(c);
  return 0;
}

/* syntax: open = core_client:is_open() */
static int
lmcp_client_is_open(lua_State *L)
{
  lclient_ud_t *u = luaL_checkudata(L, 1, CLIENT_MT);
  lclient_t *c = u->c;

  lua_pushboolean(L, c != NULL && c->client != NULL && !c->closing &&
                         mcp_client_is_open(c->client));
  return 1;
}

/* syntax: n = core_client:pending() */
static int
lmcp_client_pending(lua_State *L)
{
  lclient_ud_t *u = luaL_checkudata(L, 1, CLIENT_MT);
  lclient_t *c = u->c;

  lua_pushinteger(L, (c && c->client)
                         ? (lua_Integer) mcp_client_pending(c->client)
                         : 0);
  return 1;
}

/* syntax: text = core_client:stderr() -- the tail of the server's stderr */
static int
lmcp_client_stderr(lua_State *L)
{
  lclient_ud_t *u = luaL_checkudata(L, 1, CLIENT_MT);
  char buf[TAIL_MAX];

  if (u->c == NULL) {
    lua_pushliteral(L, "");
    return 1;
  }
  lua_pushstring(L, client_tail(u->c, buf, sizeof buf));
  return 1;
}

/* syntax: version = core_client:protocol_version() -- nil before init */
static int
lmcp_client_protocol_version(lua_State *L)
{
  lclient_ud_t *u = luaL_checkudata(L, 1, CLIENT_MT);

  if (u->c == NULL || u->c->client == NULL ||
      mcp_client_version(u->c->client)[0] == '\0')
    lua_pushnil(L);
  else
    lua_pushstring(L, mcp_client_version(u->c->client));
  return 1;
}

/* syntax: era = core_client:era() -- "stateless", "handshake" or nil */
static int
lmcp_client_era(lua_State *L)
{
  lclient_ud_t *u = luaL_checkudata(L, 1, CLIENT_MT);
  const char *era = u->c != NULL && u->c->client != NULL
                    ? mcp_client_era(u->c->client) : NULL;

  if (era == NULL)
    lua_pushnil(L);
  else
    lua_pushstring(L, era);
  return 1;
}

/* Reads command/env/cwd and the limits from the options table at idx. The
 * strings stay owned by Lua (they are anchored on the stack). */
typedef struct {
  const char **argv;
  const char **env;
} spawn_strings_t;

static void
free_strings(spawn_strings_t *s)
{
  free(s->argv);
  free(s->env);
}

static int
read_command(lua_State *L, int opts, spawn_strings_t *s)
{
  lua_Integer n, i;
  size_t k = 0;

  lua_getfield(L, opts, "command");
  if (!lua_istable(L, -1))
    return luaL_error(L, "mcp.connect: 'command' must be a list of strings");
  n = (lua_Integer) lua_rawlen(L, -1);
  if (n < 1)
    return luaL_error(L, "mcp.connect: 'command' is empty");
  for (i = 1; i <= n; i++) {
    if (lua_rawgeti(L, -1, i) != LUA_TSTRING)
      return luaL_error(L, "mcp.connect: command[%d] is not a string",
                        (int) i);
    lua_pop(L, 1);
  }
  lua_getfield(L, opts, "env");
  if (!lua_isnil(L, -1)) {
    luaL_argcheck(L, lua_istable(L, -1), 1, "'env' must be a table");
    lua_pushnil(L);
    while (lua_next(L, -2) != 0) {
      if (lua_type(L, -2) != LUA_TSTRING ||
          !(lua_type(L, -1) == LUA_TSTRING || lua_type(L, -1) == LUA_TNUMBER ||
            lua_type(L, -1) == LUA_TBOOLEAN))
        return luaL_error(L, "mcp.connect: env entries must be "
                             "NAME = string (or false to unset)");
      lua_pop(L, 1);
      k++;
    }
  }
  s->argv = calloc((size_t) n + 1, sizeof *s->argv);
  s->env = calloc(k + 1, sizeof *s->env);
  if (s->argv == NULL || s->env == NULL) {
    free_strings(s);
    return luaL_error(L, "out of memory");
  }
  /* Stack: command, env. Strings are anchored in a table kept at opts. */
  for (i = 1; i <= n; i++) {
    lua_rawgeti(L, -2, i);
    s->argv[i - 1] = lua_tostring(L, -1);
    lua_pop(L, 1); /* still referenced by the command table */
  }
  k = 0;
  if (lua_istable(L, -1)) {
    lua_newtable(L); /* keeps "NAME=value" strings alive */
    lua_pushnil(L);
    while (lua_next(L, -3) != 0) {
      if (lua_type(L, -1) == LUA_TBOOLEAN && !lua_toboolean(L, -1))
        lua_pushstring(L, lua_tostring(L, -2));
      else
        lua_pushfstring(L, "%s=%s", lua_tostring(L, -2),
                        lua_type(L, -1) == LUA_TBOOLEAN
                            ? "1"
                            : lua_tostring(L, -1));
      s->env[k++] = lua_tostring(L, -1);
      lua_rawseti(L, -4, (lua_Integer) k);
      lua_pop(L, 1);
    }
  } else {
    lua_pushnil(L);
  }
  /* Stack: command, env, env-strings (or nil). */
  return 0;
}

static lua_Integer
opt_field(lua_State *L, int opts, const char *name, lua_Integer def)
{
  lua_Integer v;

  lua_getfield(L, opts, name);
  v = luaL_opt(L, luaL_checkinteger, -1, def);
  lua_pop(L, 1);
  if (v < 0)
    luaL_error(L, "mcp.connect: '%s' must not be negative", name);
  return v;
}

/* True when the handlers at idx have an on_trace function. */
static int
wants_trace(lua_State *L, int idx)
{
  int yes;

  lua_getfield(L, idx, "on_trace");
  yes = lua_isfunction(L, -1);
  lua_pop(L, 1);
  return yes;
}

/* A new client record with its endpoint, not yet attached to a transport;
 * NULL when out of memory. traced: its messages go to on_trace. */
static lclient_t *
client_alloc(lmcp_ctx_t *ctx, const mcp_rpc_opts_t *opts, int sessions,
             int traced)
{
  static const mcp_client_cb_t cb = { on_request, on_notification,
                                      on_bad_message, on_log, on_lost,
                                      on_closed, on_session, on_down };
  lclient_t *c = calloc(1, sizeof *c);
  mcp_rpc_opts_t ro;

  if (c == NULL)
    return NULL;
  c->ctx = ctx;
  c->handlers_ref = LUA_NOREF;
  c->init_ref = LUA_NOREF;
  ro = *opts;
  if (traced) {
    ro.trace = on_trace;
    ro.trace_ud = c;
  }
  c->client = mcp_client_new(&ctx->loop, &ro, sessions, &cb, c);
  if (c->client == NULL) {
    free(c);
    return NULL;
  }
  return c;
}

/* Joins the transport, anchors the handlers (at handlers_idx) and makes
 * the userdata own the record. */
static void
client_attach(lua_State *L, lclient_t *c, lclient_ud_t *u,
              mcp_transport_t *t, int handlers_idx,
              void (*reset_session)(mcp_transport_t *t))
{
  mcp_client_attach(c->client, t, reset_session);
  lua_pushvalue(L, handlers_idx);
  c->handlers_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  u->c = c;
}

/* syntax: client, err = core.client_stdio(opts, handlers)
 * opts: command (list), env (table), cwd, max_message, max_depth,
 * timeout (ms), grace (ms), stderr_ring (bytes), restart_max and
 * restart_backoff (ms): start the server again when it dies.
 * handlers: on_request(id, method, params) -> handled, on_notification,
 * on_log(line), on_bad_message(err, text), on_lost(err), on_closed(). */
static int
lmcp_client_stdio(lua_State *L)
{
  lmcp_ctx_t *ctx = lmcp_ctx(L);
  mcp_stdio_opts_t so;
  mcp_rpc_opts_t ro;
  spawn_strings_t s = { NULL, NULL };
  mcp_transport_t *t;
  mcp_error_t err;
  lclient_ud_t *u;
  lclient_t *c;
  const char *cwd;
  unsigned restart_max;
  uint64_t restart_backoff;
  int rc;

  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TTABLE);
  memset(&so, 0, sizeof so);
  memset(&ro, 0, sizeof ro);
  so.max_message = (size_t) opt_field(L, 1, "max_message", 0);
  so.process.grace_ms = (uint64_t) opt_field(L, 1, "grace", 0);
  so.process.stderr_ring = (size_t) opt_field(L, 1, "stderr_ring", 0);
  ro.max_depth = (int) opt_field(L, 1, "max_depth", 0);
  ro.timeout_ms = (uint64_t) opt_field(L, 1, "timeout", 0);
  restart_max = (unsigned) opt_field(L, 1, "restart_max", 0);
  restart_backoff = (uint64_t) opt_field(L, 1, "restart_backoff", 1000);
  lua_getfield(L, 1, "cwd");
  cwd = lua_tostring(L, -1);
  if (!lua_isnil(L, -1) && cwd == NULL)
    return luaL_error(L, "mcp.connect: 'cwd' must be a string");

  u = lua_newuserdatauv(L, sizeof *u, 0);
  u->c = NULL;
  luaL_setmetatable(L, CLIENT_MT);
  read_command(L, 1, &s);
  /* stdio sessions do not expire */
  c = client_alloc(ctx, &ro, 0, wants_trace(L, 2));
  if (c == NULL) {
    free_strings(&s);
    return luaL_error(L, "out of memory");
  }
  so.process.argv = s.argv;
  so.process.env = s.env;
  so.process.cwd = cwd;
  rc = restart_max > 0 ? mcp_client_restart_stdio(c->client, &so,
                                                  restart_max, restart_backoff)
                       : 0;
  if (rc == 0)
    rc = mcp_transport_stdio_new(&ctx->loop, &so, mcp_client_transport_cb(),
                                 mcp_client_transport_ud(c->client), &t,
                                 &err);
  else
    mcp_error_set(&err, rc, NULL);
  free_strings(&s);
  if (rc != 0) {
    mcp_client_discard(c->client);
    free(c);
    return lmcp_fail(L, &err);
  }
  client_attach(L, c, u, t, 2, NULL);
  lua_pushvalue(L, 4); /* the userdata, below command, env and strings */
  return 1;
}

/* Reads "Name: value" lines from a { name = value } table at idx into a
 * malloc'd array whose strings Lua keeps alive in a table left on the
 * stack. Raises on a bad entry (before anything is allocated). */
static const char **
read_headers(lua_State *L, int idx, size_t *n)
{
  const char **lines;
  size_t count = 0, i = 0;

  *n = 0;
  if (lua_isnoneornil(L, idx)) {
    lua_newtable(L);
    return NULL;
  }
  luaL_checktype(L, idx, LUA_TTABLE);
  lua_pushnil(L);
  while (lua_next(L, idx) != 0) {
    if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TSTRING)
      luaL_error(L, "headers must be name = value strings");
    if (strpbrk(lua_tostring(L, -2), ":\r\n") != NULL ||
        strpbrk(lua_tostring(L, -1), "\r\n") != NULL)
      luaL_error(L, "header %s: no ':' in names, no line breaks",
                 lua_tostring(L, -2));
    lua_pop(L, 1);
    count++;
  }
  lua_createtable(L, (int) count, 0);
  lines = calloc(count + 1, sizeof *lines);
  if (lines == NULL)
    luaL_error(L, "out of memory");
  lua_pushnil(L);
  while (lua_next(L, idx) != 0) {
    lua_pushfstring(L, "%s: %s", lua_tostring(L, -2), lua_tostring(L, -1));
    lines[i] = lua_tostring(L, -1);
    lua_rawseti(L, -4, (lua_Integer) ++i);
    lua_pop(L, 1);
  }
  *n = count;
  return lines;
}

static const char *
opt_string(lua_State *L, int opts, const char *name)
{
  const char *v;

  lua_getfield(L, opts, name);
  v = lua_tostring(L, -1);
  if (v == NULL && !lua_isnil(L, -1))
    luaL_error(L, "mcp.connect: '%s' must be a string", name);
  lua_pop(L, 1); /* the string stays alive in the options table */
  return v;
}

/* syntax: client, err = core.client_http(opts, handlers)
 * opts: url, transport ("auto" | "streamable-http" | "sse"), headers,
 * max_message, max_depth, timeout, connect_timeout, idle_timeout (ms),
 * max_failures, ca_file, ca_path, cert, key, insecure. handlers as for
 * client_stdio. */
static int
lmcp_client_http(lua_State *L)
{
  static const char *const modes[] = { "auto", "streamable-http", "sse",
                                       NULL };
  lmcp_ctx_t *ctx = lmcp_ctx(L);
  mcp_http_transport_opts_t ho;
  mcp_auth_t *auth = NULL;
  mcp_curl_uv_t *cu;
  mcp_rpc_opts_t ro;
  mcp_transport_t *t;
  mcp_error_t err;
  lclient_ud_t *u;
  lclient_t *c;
  int rc;

  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_settop(L, 2);
  memset(&ho, 0, sizeof ho);
  memset(&ro, 0, sizeof ro);
  ho.url = opt_string(L, 1, "url");
  if (ho.url == NULL)
    return luaL_error(L, "mcp.connect: 'url' is required");
  lua_getfield(L, 1, "transport");
  ho.mode = (mcp_http_mode_t) luaL_checkoption(L, -1, "auto", modes);
  lua_pop(L, 1);
  ho.max_message = (size_t) opt_field(L, 1, "max_message", 0);
  ho.connect_timeout_ms = (long) opt_field(L, 1, "connect_timeout", 0);
  ho.idle_timeout_ms = (long) opt_field(L, 1, "idle_timeout", 0);
  ho.max_failures = (int) opt_field(L, 1, "max_failures", 0);
  ho.ca_file = opt_string(L, 1, "ca_file");
  ho.ca_path = opt_string(L, 1, "ca_path");
  ho.cert = opt_string(L, 1, "cert");
  ho.key = opt_string(L, 1, "key");
  lua_getfield(L, 1, "insecure");
  ho.insecure = lua_toboolean(L, -1);
  lua_pop(L, 1);
  ro.max_depth = (int) opt_field(L, 1, "max_depth", 0);
  ro.timeout_ms = (uint64_t) opt_field(L, 1, "timeout", 0);
  lua_getfield(L, 1, "headers");          /* 3 */
  cu = lmcp_http_engine(L, &err);
  if (cu == NULL)
    return lmcp_fail(L, &err);
  u = lua_newuserdatauv(L, sizeof *u, 0); /* 4 */
  u->c = NULL;
  luaL_setmetatable(L, CLIENT_MT);
  ho.headers = read_headers(L, 3, &ho.nheaders); /* 5: the strings */
  lua_getfield(L, 1, "oauth");            /* 6 */
  if (!lua_isnil(L, 6) && !lua_istable(L, 6) &&
      !(lua_isboolean(L, 6) && !lua_toboolean(L, 6)))
    return luaL_error(L, "mcp.connect: 'oauth' must be a table or false");
  c = client_alloc(ctx, &ro, 1, wants_trace(L, 2));
  if (c == NULL) {
    free((void *) ho.headers);
    return luaL_error(L, "out of memory");
  }
  if (wants_trace(L, 2)) {
    ho.trace = on_trace;
    ho.trace_ud = c;
  }
  rc = mcp_http_check_url(ho.url, &err);
  if (rc == 0 && lua_istable(L, 6)) {
    int has_open;

    lua_getfield(L, 2, "on_authorize");
    has_open = lua_isfunction(L, -1);
    lua_pop(L, 1);
    rc = lmcp_auth_new(L, 6, ho.url, ho.headers, ho.nheaders,
                       has_open ? on_authorize : NULL, ho.trace, c, &auth,
                       &err);
  }
  if (rc == 0)
    rc = mcp_transport_http_new(&ctx->loop, cu, &ho,
                                mcp_client_transport_cb(),
                                mcp_client_transport_ud(c->client), &t, &err);
  free((void *) ho.headers);
  if (rc != 0) {
    mcp_auth_close(auth);
    mcp_client_discard(c->client);
    free(c);
    return lmcp_fail(L, &err);
  }
  c->http = t;
  client_attach(L, c, u, t, 2, mcp_transport_http_reset_session);
  if (auth != NULL)
    mcp_client_use_auth(c->client, auth);
  lua_pushvalue(L, 4);
  return 1;
}

/* syntax: ok = core_client:set_headers(headers) -- HTTP only */
static int
lmcp_client_set_headers(lua_State *L)
{
  lclient_t *c = check_client(L);
  const char **lines;
  size_t n;
  int rc;

  if (c->http == NULL)
    return luaL_error(L, "set_headers: not an HTTP connection");
  lines = read_headers(L, 2, &n);
  rc = mcp_transport_http_set_headers(c->http, lines, n);
  free((void *) lines);
  if (rc != 0)
    return luaL_error(L, "out of memory");
  lua_pushboolean(L, 1);
  return 1;
}

/* syntax: ok, err = core_client:declare_params(tool?, decl?)
 * The Mcp-Param-* headers of tool's calls (decl: JSON text, see
 * mcp_routing_declare); no tool: forget every tool's. Nothing over stdio,
 * where there are no headers. */
static int
lmcp_client_declare_params(lua_State *L)
{
  lclient_t *c = check_client(L);
  const char *tool = luaL_optstring(L, 2, NULL);
  const char *decl = luaL_optstring(L, 3, NULL);
  mcp_error_t err;

  if (c->http != NULL &&
      mcp_transport_http_declare_params(c->http, tool, decl, &err) != 0) {
    lua_pushnil(L);
    lmcp_push_error(L, &err, NULL, NULL);
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* syntax: kind = core_client:transport() -- "stdio", "streamable-http",
 * "sse", or nil while an HTTP transport has not found out yet */
static int
lmcp_client_transport(lua_State *L)
{
  lclient_ud_t *u = luaL_checkudata(L, 1, CLIENT_MT);
  const char *kind = "stdio";

  if (u->c != NULL && u->c->http != NULL)
    kind = mcp_transport_http_kind(u->c->http);
  if (kind == NULL)
    lua_pushnil(L);
  else
    lua_pushstring(L, kind);
  return 1;
}

void
lmcp_open_client(lua_State *L)
{
  static const luaL_Reg methods[] = {
    { "initialize", lmcp_client_initialize },
    { "cancel", lmcp_client_cancel },
    { "notify", lmcp_client_notify },
    { "respond", lmcp_client_respond },
    { "respond_error", lmcp_client_respond_error },
    { "close", lmcp_client_close },
    { "abort", lmcp_client_abort },
    { "is_open", lmcp_client_is_open },
    { "pending", lmcp_client_pending },
    { "stderr", lmcp_client_stderr },
    { "protocol_version", lmcp_client_protocol_version },
    { "era", lmcp_client_era },
    { "set_headers", lmcp_client_set_headers },
    { "declare_params", lmcp_client_declare_params },
    { "transport", lmcp_client_transport },
    { NULL, NULL },
  };
  int i;

  lmcp_newmetatable(L, &client_mt_key, CLIENT_MT);
  lua_pushcfunction(L, lmcp_client_gc);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, lmcp_client_close);
  lua_setfield(L, -2, "__close");
  luaL_newlib(L, methods);
  for (i = 0; request_opt_names[i] != NULL; i++)
    lua_pushstring(L, request_opt_names[i]);
  lua_pushcclosure(L, lmcp_client_request, i);
  lua_setfield(L, -2, "request");
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  lua_pushcfunction(L, lmcp_client_stdio);
  lua_setfield(L, -2, "client_stdio");
  lua_pushcfunction(L, lmcp_client_http);
  lua_setfield(L, -2, "client_http");
}
