/*
 * lhttp.c - mcp.core.http_request: one HTTP request, callback style.
 *
 * syntax: h = core.http_request(opts, cb)   -- or nil, err (not started)
 *         h:cancel()                        -- cb(nil, ECANCELED) follows
 * opts: url, method, headers ({name = value} and/or {"Name: value"}), body,
 *       timeout / connect_timeout (ms), max_size (bytes), max_redirects,
 *       on_headers = fn(status, headers), on_data = fn(chunk), ca_file,
 *       ca_path, cert, key, insecure.
 * cb(response) or cb(nil, err): response = { status, headers (lower-case
 * names; repeated headers joined with ", "), body (unless on_data was
 * given), http_version, url, connects, redirect_url (a 3xx not followed) }.
 * An HTTP error status is a response, not an error.
 *
 * All requests of a Lua state share one curl_uv engine (one CURLM, so
 * connections are pooled), kept in the registry and closed by its __gc
 * when the state closes; it is created after the loop context, so it is
 * finalized before the loop is closed. A running request is anchored in
 * the registry (callbacks and the response being built) until cb has run;
 * dropping the handle does not cancel it. Callbacks run on the main thread
 * through lmcp_pcall, never from inside libcurl and never re-entrantly from
 * http_request or cancel. A callback that raises cancels its request.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "common.h"
#include "http.h"
#include "lutil.h"

#define HTTP_MT "mcp.core.http"
#define ENGINE_MT "mcp.core.http_engine"
#define ENGINE_KEY "mcp.core.http_engine.instance"
/* Buffered bodies (no on_data) are limited unless max_size says otherwise. */
#define LHTTP_DEFAULT_MAX_BODY (16u * 1024u * 1024u)

/* The slots of a request's state table (anchored by state_ref). */
enum { ST_CB = 1, ST_ON_HEADERS, ST_ON_DATA, ST_RESPONSE };

typedef struct lengine_s {
  mcp_curl_uv_t *cu;           /* NULL once closed */
  int closing;                 /* the Lua state is closing: call no Lua */
} lengine_t;

typedef struct lhttp_ud_s lhttp_ud_t;

typedef struct lhttp_s {
  lmcp_ctx_t *ctx;
  lengine_t *eng;
  mcp_http_t *req;             /* NULL once on_done started */
  int state_ref;               /* { cb, on_headers, on_data, response } */
  int streaming;               /* on_data given: no body buffer */
  int oom;                     /* the body buffer could not grow */
  int cancelled;               /* h:cancel() was called */
  mcp_buf_t body;
  lhttp_ud_t *owner;           /* the handle, while it lives */
} lhttp_t;

struct lhttp_ud_s {
  lhttp_t *r;                  /* NULL once done or collected */
};

typedef struct lhcall_s {
  lhttp_t *r;
  mcp_http_t *req;
  int status;
  const mcp_http_header_t *headers;
  size_t n;
  const char *data;
  size_t len;
  const mcp_error_t *err;
} lhcall_t;

/* ---- the engine ---------------------------------------------------------- */

static int
engine_gc(lua_State *L)
{
  lengine_t *eng = lua_touserdata(L, 1);

  eng->closing = 1;
  if (eng->cu != NULL)
    mcp_curl_uv_close(eng->cu);  /* completes requests without Lua */
  eng->cu = NULL;
  return 0;
}

/* The state's engine, created on first use; NULL and err on failure. */
static lengine_t *
get_engine(lua_State *L, lmcp_ctx_t *ctx, mcp_error_t *err)
{
  lengine_t *eng;

  lua_getfield(L, LUA_REGISTRYINDEX, ENGINE_KEY);
  eng = lua_touserdata(L, -1);
  lua_pop(L, 1);
  if (eng != NULL)
    return eng;
  eng = lua_newuserdatauv(L, sizeof *eng, 0);
  eng->cu = NULL;
  eng->closing = 0;
  if (luaL_newmetatable(L, ENGINE_MT)) {
    lua_pushcfunction(L, engine_gc);
    lua_setfield(L, -2, "__gc");
  }
  lua_setmetatable(L, -2);
  if (mcp_curl_uv_new(&ctx->loop, &eng->cu, err) != 0) {
    lua_pop(L, 1);
    return NULL;
  }
  lua_setfield(L, LUA_REGISTRYINDEX, ENGINE_KEY);
  return eng;
}

/* The state's shared engine for other bindings (lclient.c's HTTP
 * transports), so every HTTP user of a Lua state pools its connections in
 * one CURLM. NULL and err when it cannot be created or the state closes.
 * Transfers still attached when the state closes are completed (with
 * CURLE_ABORTED_BY_CALLBACK) by the engine's __gc. */
struct mcp_curl_uv_s *
lmcp_http_engine(lua_State *L, mcp_error_t *err)
{
  lengine_t *eng = get_engine(L, lmcp_ctx(L), err);

  if (eng == NULL)
    return NULL;
  if (eng->cu == NULL || eng->closing) {
    mcp_error_set(err, MCP_ECLOSED, "the HTTP engine is closed");
    return NULL;
  }
  return eng->cu;
}

/* ---- calls into Lua (inside lmcp_pcall) ---------------------------------- */

static void
push_lower(lua_State *L, const char *s)
{
  luaL_Buffer b;

  luaL_buffinit(L, &b);
  for (; *s != '\0'; s++)
    luaL_addchar(&b, (char) tolower((unsigned char) *s));
  luaL_pushresult(&b);
}

static int
hcall_headers(lua_State *L)
{
  lhcall_t *k = lua_touserdata(L, 1);
  size_t i;

  lua_rawgeti(L, LUA_REGISTRYINDEX, k->r->state_ref);  /* 2: state */
  lua_createtable(L, 0, 8);                             /* 3: response */
  lua_pushinteger(L, k->status);
  lua_setfield(L, 3, "status");
  lua_createtable(L, 0, (int) k->n);                    /* 4: headers */
  for (i = 0; i < k->n; i++) {
    push_lower(L, k->headers[i].name);
    lua_pushvalue(L, -1);
    if (lua_rawget(L, 4) == LUA_TSTRING) {
      lua_pushliteral(L, ", ");
      lua_pushstring(L, k->headers[i].value);
      lua_concat(L, 3);
    } else {
      lua_pop(L, 1);
      lua_pushstring(L, k->headers[i].value);
    }
    lua_rawset(L, 4);
  }
  lua_pushvalue(L, 4);
  lua_setfield(L, 3, "headers");
  lua_pushstring(L, mcp_http_version(k->req));
  lua_setfield(L, 3, "http_version");
  lua_pushvalue(L, 3);
  lua_rawseti(L, 2, ST_RESPONSE);
  if (lua_rawgeti(L, 2, ST_ON_HEADERS) == LUA_TFUNCTION) {
    lua_pushinteger(L, k->status);
    lua_pushvalue(L, 4);
    lua_call(L, 2, 0);
  }
  return 0;
}

static int
hcall_data(lua_State *L)
{
  lhcall_t *k = lua_touserdata(L, 1);

  lua_rawgeti(L, LUA_REGISTRYINDEX, k->r->state_ref);
  lua_rawgeti(L, -1, ST_ON_DATA);
  lua_pushlstring(L, k->data, k->len);
  lua_call(L, 1, 0);
  return 0;
}

static void
push_http_error(lua_State *L, lhcall_t *k)
{
  int curl_code = mcp_http_curl_code(k->req);
  const char *text = mcp_http_curl_error(k->req);

  lmcp_push_error(L, k->err, NULL, NULL);
  if (curl_code != 0 && k->err->code != MCP_ECANCELED) {
    lua_pushinteger(L, curl_code);
    lua_setfield(L, -2, "curl_code");
    lua_pushfstring(L, "curl %d (%s)%s%s", curl_code,
                    mcp_http_curl_strerror(k->req), text[0] ? ": " : "",
                    text);
    lua_setfield(L, -2, "cause");
  }
}

static int
hcall_done(lua_State *L)
{
  lhcall_t *k = lua_touserdata(L, 1);
  const char *redirect;

  lmcp_push_unref(L, &k->r->state_ref);                 /* 2: state */
  lua_rawgeti(L, 2, ST_CB);                             /* 3: cb */
  if (k->err != NULL) {
    lua_pushnil(L);
    push_http_error(L, k);
    lua_call(L, 2, 0);
    return 0;
  }
  if (lua_rawgeti(L, 2, ST_RESPONSE) != LUA_TTABLE) {   /* 4: response */
    lua_pop(L, 1);
    lua_newtable(L);
  }
  if (!k->r->streaming) {
    lua_pushlstring(L, k->r->body.len ? k->r->body.data : "",
                    k->r->body.len);
    lua_setfield(L, 4, "body");
  }
  lua_pushinteger(L, mcp_http_connects(k->req));
  lua_setfield(L, 4, "connects");
  lua_pushstring(L, mcp_http_version(k->req));
  lua_setfield(L, 4, "http_version");
  lua_pushstring(L, mcp_http_url(k->req));
  lua_setfield(L, 4, "url");
  redirect = mcp_http_redirect_url(k->req);
  if (redirect != NULL) {
    lua_pushstring(L, redirect);
    lua_setfield(L, 4, "redirect_url");
  }
  lua_call(L, 1, 0);
  return 0;
}

static int
lua_allowed(lhttp_t *r)
{
  return !r->ctx->closing && !r->eng->closing;
}

/* ---- core callbacks ------------------------------------------------------ */

static void
on_headers(mcp_http_t *req, int status, const mcp_http_header_t *headers,
           size_t n, void *ud)
{
  lhttp_t *r = ud;
  lhcall_t k;

  if (!lua_allowed(r))
    return;
  memset(&k, 0, sizeof k);
  k.r = r;
  k.req = req;
  k.status = status;
  k.headers = headers;
  k.n = n;
  lua_pushcfunction(r->ctx->L, hcall_headers);
  lua_pushlightuserdata(r->ctx->L, &k);
  if (!lmcp_pcall(r->ctx, 1, 0))
    mcp_http_cancel(req);
}

static void
on_data(mcp_http_t *req, const char *data, size_t len, void *ud)
{
  lhttp_t *r = ud;
  lhcall_t k;

  if (!r->streaming) {
    if (mcp_buf_append(&r->body, data, len) != 0) {
      r->oom = 1;
      mcp_http_cancel(req);
    }
    return;
  }
  if (!lua_allowed(r))
    return;
  memset(&k, 0, sizeof k);
  k.r = r;
  k.req = req;
  k.data = data;
  k.len = len;
  lua_pushcfunction(r->ctx->L, hcall_data);
  lua_pushlightuserdata(r->ctx->L, &k);
  if (!lmcp_pcall(r->ctx, 1, 0))
    mcp_http_cancel(req);
}

static void
on_done(mcp_http_t *req, const mcp_error_t *err, void *ud)
{
  lhttp_t *r = ud;
  mcp_error_t oom;
  lhcall_t k;

  r->req = NULL;
  if (r->owner != NULL)
    r->owner->r = NULL;
  r->owner = NULL;
  if (lua_allowed(r)) {
    if (r->oom) {
      mcp_error_set(&oom, MCP_ENOMEM, "HTTP response body: out of memory");
      err = &oom;
    }
    memset(&k, 0, sizeof k);
    k.r = r;
    k.req = req;
    k.err = err;
    lua_pushcfunction(r->ctx->L, hcall_done);
    lua_pushlightuserdata(r->ctx->L, &k);
    lmcp_pcall(r->ctx, 1, 0);   /* hcall_done releases state_ref first */
  }
  if (r->state_ref != LUA_NOREF && !r->ctx->closing)
    luaL_unref(r->ctx->L, LUA_REGISTRYINDEX, r->state_ref);
  mcp_buf_free(&r->body);
  free(r);
}

/* ---- core.http_request --------------------------------------------------- */

static const char *
opt_string(lua_State *L, const char *name)
{
  const char *s = NULL;

  if (lua_getfield(L, 1, name) != LUA_TNIL) {
    if (lua_type(L, -1) != LUA_TSTRING)
      luaL_error(L, "bad option '%s' (string expected, got %s)", name,
                 luaL_typename(L, -1));
    s = lua_tostring(L, -1);
  }
  lua_pop(L, 1);   /* s stays valid: opts still references the string */
  return s;
}

static lua_Integer
opt_count(lua_State *L, const char *name, lua_Integer dflt)
{
  lua_Number v;

  if (lua_getfield(L, 1, name) == LUA_TNIL) {
    lua_pop(L, 1);
    return dflt;
  }
  if (lua_type(L, -1) != LUA_TNUMBER)
    luaL_error(L, "bad option '%s' (number expected, got %s)", name,
               luaL_typename(L, -1));
  v = lua_tonumber(L, -1);
  lua_pop(L, 1);
  if (!(v >= 0 && v < 9.0e15))
    luaL_error(L, "bad option '%s' (non-negative number expected)", name);
  return (lua_Integer) v + (v > (lua_Number) (lua_Integer) v ? 1 : 0);
}

static int
opt_function(lua_State *L, const char *name)
{
  int t = lua_getfield(L, 1, name);

  lua_pop(L, 1);
  if (t != LUA_TNIL && t != LUA_TFUNCTION)
    luaL_error(L, "bad option '%s' (function expected, got %s)", name,
               lua_typename(L, t));
  return t == LUA_TFUNCTION;
}

static int
valid_name(const char *s, size_t len)
{
  size_t i;

  if (len == 0)
    return 0;
  for (i = 0; i < len; i++) {
    if (!isalnum((unsigned char) s[i]) &&
        strchr("!#$%&'*+-.^_`|~", s[i]) == NULL)
      return 0;
  }
  return 1;
}

/* Pushes a sequence of "Name: value" strings built from opts.headers
 * (raises on a bad header) and returns how many there are. */
static size_t
collect_headers(lua_State *L)
{
  size_t n = 0, len, vlen;
  const char *name, *value, *colon;
  int list;

  lua_newtable(L);
  list = lua_gettop(L);
  if (lua_getfield(L, 1, "headers") == LUA_TNIL) {
    lua_pop(L, 1);
    return 0;
  }
  if (!lua_istable(L, -1))
    luaL_error(L, "bad option 'headers' (table expected)");
  lua_pushnil(L);
  while (lua_next(L, -2) != 0) {
    if (lua_type(L, -2) == LUA_TNUMBER) {
      /* a "Name: value" line */
      if (lua_type(L, -1) != LUA_TSTRING)
        luaL_error(L, "bad header #%d (\"Name: value\" string expected)",
                   (int) lua_tointeger(L, -2));
      name = lua_tolstring(L, -1, &len);
      colon = memchr(name, ':', len);
      if (colon == NULL || !valid_name(name, (size_t) (colon - name)) ||
          strpbrk(name, "\r\n") != NULL || strlen(name) != len)
        luaL_error(L, "bad header line '%s'", name);
      lua_pushvalue(L, -1);
    } else {
      if (lua_type(L, -2) != LUA_TSTRING)
        luaL_error(L, "bad header name (string expected)");
      name = lua_tolstring(L, -2, &len);
      if (!valid_name(name, len))
        luaL_error(L, "bad header name '%s'", name);
      if (lua_type(L, -1) != LUA_TSTRING && lua_type(L, -1) != LUA_TNUMBER)
        luaL_error(L, "bad value for header '%s' (string expected)", name);
      value = lua_tolstring(L, -1, &vlen);
      if (strpbrk(value, "\r\n") != NULL || strlen(value) != vlen)
        luaL_error(L, "bad value for header '%s' (line break or NUL)", name);
      lua_pushfstring(L, "%s: %s", name, value);
    }
    lua_rawseti(L, list, (lua_Integer) ++n);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return n;
}

static int
lmcp_http_request(lua_State *L)
{
  lmcp_ctx_t *ctx = lmcp_ctx(L);
  mcp_http_opts_t o;
  mcp_http_cb_t cb = { on_headers, on_data, on_done };
  mcp_error_t err;
  lengine_t *eng;
  lhttp_ud_t *u;
  lhttp_t *r;
  const char **lines;
  size_t nheaders, i, body_len = 0;
  int streaming, insecure, headers_idx;

  /* Every argument is checked before the first C allocation. */
  luaL_checktype(L, 1, LUA_TTABLE);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  lua_settop(L, 2);
  memset(&o, 0, sizeof o);
  mcp_error_clear(&err);
  o.url = opt_string(L, "url");
  if (o.url == NULL)
    return luaL_error(L, "bad option 'url' (string expected, got nil)");
  o.method = opt_string(L, "method");
  if (lua_getfield(L, 1, "body") != LUA_TNIL) {
    if (lua_type(L, -1) != LUA_TSTRING)
      return luaL_error(L, "bad option 'body' (string expected, got %s)",
                        luaL_typename(L, -1));
    o.body = lua_tolstring(L, -1, &body_len);
    o.body_len = body_len;
  }
  lua_pop(L, 1);
  o.ca_file = opt_string(L, "ca_file");
  o.ca_path = opt_string(L, "ca_path");
  o.cert = opt_string(L, "cert");
  o.key = opt_string(L, "key");
  o.timeout_ms = (long) opt_count(L, "timeout", 0);
  o.connect_timeout_ms = (long) opt_count(L, "connect_timeout", 0);
  o.max_redirects = (int) opt_count(L, "max_redirects", 0);
  if (o.max_redirects > 100)
    return luaL_error(L, "bad option 'max_redirects' (at most 100)");
  opt_function(L, "on_headers");
  streaming = opt_function(L, "on_data");
  o.max_size = (size_t) opt_count(L, "max_size",
                                  streaming ? 0 : LHTTP_DEFAULT_MAX_BODY);
  lua_getfield(L, 1, "insecure");
  if (!lua_isnil(L, -1) && !lua_isboolean(L, -1))
    return luaL_error(L, "bad option 'insecure' (boolean expected)");
  insecure = lua_toboolean(L, -1);
  lua_pop(L, 1);
  o.insecure = insecure;
  nheaders = collect_headers(L);                /* 3: the lines */
  headers_idx = 3;
  lines = lua_newuserdatauv(L, (nheaders + 1) * sizeof *lines, 0); /* 4 */
  for (i = 0; i < nheaders; i++) {
    lua_rawgeti(L, headers_idx, (lua_Integer) i + 1);
    lines[i] = lua_tostring(L, -1);             /* anchored by the list */
    lua_pop(L, 1);
  }
  o.headers = lines;
  o.nheaders = nheaders;

  eng = get_engine(L, ctx, &err);
  if (eng == NULL)
    return lmcp_fail(L, &err);
  if (eng->cu == NULL || eng->closing) {
    mcp_error_set(&err, MCP_ECLOSED, "the HTTP engine is closed");
    return lmcp_fail(L, &err);
  }

  /* The handle, closed until the request has started. */
  u = lua_newuserdatauv(L, sizeof *u, 0);       /* 5 */
  u->r = NULL;
  luaL_setmetatable(L, HTTP_MT);
  /* The state table: { cb, on_headers, on_data, response }. */
  lua_createtable(L, 4, 0);                     /* 6 */
  lua_pushvalue(L, 2);
  lua_rawseti(L, 6, ST_CB);
  lua_getfield(L, 1, "on_headers");
  lua_rawseti(L, 6, ST_ON_HEADERS);
  lua_getfield(L, 1, "on_data");
  lua_rawseti(L, 6, ST_ON_DATA);
  lua_pushvalue(L, 6);
  i = (size_t) luaL_ref(L, LUA_REGISTRYINDEX);  /* may raise: no C heap yet */

  r = calloc(1, sizeof *r);
  if (r == NULL) {
    luaL_unref(L, LUA_REGISTRYINDEX, (int) i);
    mcp_error_set(&err, MCP_ENOMEM, NULL);
    return lmcp_fail(L, &err);
  }
  r->ctx = ctx;
  r->eng = eng;
  r->state_ref = (int) i;
  r->streaming = streaming;
  mcp_buf_init(&r->body, 0);
  if (mcp_http_start(eng->cu, &o, &cb, r, &r->req, &err) != 0) {
    luaL_unref(L, LUA_REGISTRYINDEX, r->state_ref);
    free(r);
    return lmcp_fail(L, &err);
  }
  r->owner = u;
  u->r = r;
  lua_pushvalue(L, 5);
  return 1;
}

/* ---- the handle ---------------------------------------------------------- */

/* syntax: cancelled = h:cancel()
 * True when this call stopped the request (its callback will get
 * ECANCELED); false when it had finished or was cancelled already. */
static int
lmcp_http_cancel(lua_State *L)
{
  lhttp_ud_t *u = luaL_checkudata(L, 1, HTTP_MT);
  int stop = u->r != NULL && u->r->req != NULL && !u->r->cancelled;

  if (stop) {
    u->r->cancelled = 1;
    mcp_http_cancel(u->r->req);
  }
  lua_pushboolean(L, stop);
  return 1;
}

/* Collecting the handle does not stop the request: cb still runs. */
static int
lmcp_http_gc(lua_State *L)
{
  lhttp_ud_t *u = luaL_checkudata(L, 1, HTTP_MT);

  if (u->r != NULL)
    u->r->owner = NULL;
  u->r = NULL;
  return 0;
}

static int
lmcp_http_tostring(lua_State *L)
{
  lhttp_ud_t *u = luaL_checkudata(L, 1, HTTP_MT);

  lua_pushfstring(L, "mcp.core.http (%s): %p",
                  u->r != NULL ? "running" : "done", (void *) u);
  return 1;
}

void
lmcp_open_http(lua_State *L)
{
  static const luaL_Reg methods[] = {
    { "cancel", lmcp_http_cancel },
    { NULL, NULL },
  };
  static const luaL_Reg meta[] = {
    { "__gc", lmcp_http_gc },
    { "__close", lmcp_http_cancel },
    { "__tostring", lmcp_http_tostring },
    { "__index", NULL },
    { NULL, NULL },
  };

  luaL_newmetatable(L, HTTP_MT);
  luaL_setfuncs(L, meta, 0);
  luaL_newlib(L, methods);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  lua_pushcfunction(L, lmcp_http_request);
  lua_setfield(L, -2, "http_request");
}
