/*
 * lauth.c - the binding of OAuth (src/core/auth): the `oauth` options of
 * an HTTP connection read into the core's flow, and the token store seen
 * from Lua (core.oauth_status, core.oauth_forget).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth/flow.h"
#include "auth/store.h"
#include "auth/urls.h"
#include "curl_dl.h"
#include "lauth.h"
#include "lutil.h"

static const char *
field_string(lua_State *L, int idx, const char *name)
{
  const char *v;

  lua_getfield(L, idx, name);
  v = lua_tostring(L, -1);
  if (v == NULL && !lua_isnil(L, -1))
    luaL_error(L, "mcp.connect: oauth.%s must be a string", name);
  lua_pop(L, 1);   /* the string stays alive in the options table */
  return v;
}

static lua_Integer
field_integer(lua_State *L, int idx, const char *name, lua_Integer dflt)
{
  lua_Integer v;
  int ok;

  lua_getfield(L, idx, name);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return dflt;
  }
  v = lua_tointegerx(L, -1, &ok);
  if (!ok || v < 0)
    luaL_error(L, "mcp.connect: oauth.%s must be a non-negative integer",
               name);
  lua_pop(L, 1);
  return v;
}

/* oauth.store: nil (the default directory), false (memory only), or a
 * directory. */
static const char *
store_dir(lua_State *L, int idx)
{
  const char *dir = "";

  lua_getfield(L, idx, "store");
  if (lua_isnil(L, -1))
    dir = NULL;
  else if (lua_type(L, -1) == LUA_TSTRING)
    dir = lua_tostring(L, -1);
  else if (!(lua_isboolean(L, -1) && !lua_toboolean(L, -1)))
    luaL_error(L, "mcp.connect: oauth.store must be a directory or false");
  lua_pop(L, 1);
  return dir;
}

/* oauth.assertion: a file (a string), or a command (a list of strings,
 * pushed as a NULL-terminated array in a userdata the caller pops after
 * use; the strings stay alive in the options table). */
static void
assertion(lua_State *L, int idx, mcp_auth_opts_t *o)
{
  const char **argv;
  lua_Integer n, i;

  lua_getfield(L, idx, "assertion");
  if (lua_type(L, -1) == LUA_TSTRING || lua_isnil(L, -1)) {
    o->assertion = lua_tostring(L, -1);
    lua_pop(L, 1);
    lua_pushnil(L);
    return;
  }
  if (!lua_istable(L, -1))
    luaL_error(L, "mcp.connect: oauth.assertion must be a file name or a "
               "command (a list of strings)");
  n = (lua_Integer) lua_rawlen(L, -1);
  if (n < 1 || n > 64)
    luaL_error(L, "mcp.connect: oauth.assertion's command must have 1 to 64 "
               "words");
  argv = lua_newuserdatauv(L, (size_t) (n + 1) * sizeof *argv, 0);
  for (i = 1; i <= n; i++) {
    lua_rawgeti(L, -2, i);
    if (lua_type(L, -1) != LUA_TSTRING)
      luaL_error(L, "mcp.connect: oauth.assertion's command must be strings");
    argv[i - 1] = lua_tostring(L, -1);
    lua_pop(L, 1);
  }
  argv[n] = NULL;
  lua_remove(L, -2);
  o->assertion_command = argv;
}

int
lmcp_auth_new(lua_State *L, int idx, const char *url,
              const char *const *headers, size_t nheaders,
              mcp_auth_authorize_cb on_authorize, mcp_trace_cb trace,
              void *ud, mcp_auth_t **out, mcp_error_t *err)
{
  mcp_auth_opts_t o;
  mcp_curl_uv_t *cu = lmcp_http_engine(L, err);
  int rc;

  if (cu == NULL)
    return err->code;
  memset(&o, 0, sizeof o);
  o.server_url = url;
  o.client_id = field_string(L, idx, "client_id");
  o.client_secret = field_string(L, idx, "client_secret");
  o.scope = field_string(L, idx, "scope");
  o.redirect_uri = field_string(L, idx, "redirect_uri");
  o.client_metadata_url = field_string(L, idx, "client_metadata_url");
  o.client_name = field_string(L, idx, "client_name");
  o.ca_file = field_string(L, idx, "ca_file");
  o.callback_port = (int) field_integer(L, idx, "callback_port", 0);
  o.timeout_ms = (uint64_t) field_integer(L, idx, "timeout", 0);
  o.store_dir = store_dir(L, idx);
  o.grant = field_string(L, idx, "grant");
  o.private_key = field_string(L, idx, "private_key");
  o.auth_method = field_string(L, idx, "auth_method");
  o.idp_token_endpoint = field_string(L, idx, "idp_token_endpoint");
  o.idp_client_id = field_string(L, idx, "idp_client_id");
  o.idp_client_secret = field_string(L, idx, "idp_client_secret");
  lua_getfield(L, idx, "dpop");
  o.dpop = lua_toboolean(L, -1);
  lua_pop(L, 1);
  lua_getfield(L, idx, "interactive");
  o.interactive = lua_toboolean(L, -1);
  lua_pop(L, 1);
  lua_getfield(L, idx, "insecure");
  o.insecure = lua_toboolean(L, -1);
  lua_pop(L, 1);
  o.headers = headers;
  o.nheaders = nheaders;
  o.trace = trace;
  o.trace_ud = ud;
  if (o.callback_port > 65535)
    luaL_error(L, "mcp.connect: oauth.callback_port is not a port");
  assertion(L, idx, &o);                 /* pushes the argv, or nil */
  rc = mcp_auth_new(&lmcp_ctx(L)->loop, cu, &o, on_authorize, ud, out, err);
  lua_pop(L, 1);
  return rc;
}

/* The store directory and canonical resource of a server URL, pushed as
 * Lua strings; raises on a bad URL. */
static void
store_key(lua_State *L, const char *url, const char **dir,
          const char **resource)
{
  mcp_error_t err;
  char *d = NULL, *r = NULL;

  if (mcp_curl_load(&err) != 0 ||
      mcp_auth_resource_uri(url, &r, &err) != 0)
    luaL_error(L, "%s", err.msg);
  lua_pushstring(L, r);
  free(r);
  *resource = lua_tostring(L, -1);
  if (lua_type(L, 2) == LUA_TSTRING) {
    *dir = lua_tostring(L, 2);
    return;
  }
  if (mcp_auth_store_dir(&d, &err) != 0)
    luaL_error(L, "%s", err.msg);
  lua_pushstring(L, d);
  free(d);
  *dir = lua_tostring(L, -1);
}

/* syntax: info = core.oauth_status(url, dir?)
 * info: { status = "authorized" | "expired" | "needs_auth", resource,
 * issuer, scope, expires_at, refreshable }; never a token. */
static int
lauth_status(lua_State *L)
{
  const char *url = luaL_checkstring(L, 1), *dir, *resource;
  mcp_auth_tokens_t t;
  mcp_error_t err;
  long long now = (long long) time(NULL);
  int rc;

  store_key(L, url, &dir, &resource);
  memset(&t, 0, sizeof t);
  rc = mcp_auth_store_load_tokens(dir, resource, &t, &err);
  lua_createtable(L, 0, 6);
  lua_pushstring(L, resource);
  lua_setfield(L, -2, "resource");
  if (rc != 0 && rc != MCP_ENOENT) {
    mcp_auth_tokens_free(&t);
    return lmcp_fail(L, &err);
  }
  if (rc == MCP_ENOENT || t.access_token == NULL) {
    lua_pushliteral(L, "needs_auth");
    lua_setfield(L, -2, "status");
    mcp_auth_tokens_free(&t);
    return 1;
  }
  if (t.expires_at != 0 && t.expires_at <= now)
    lua_pushliteral(L, "expired");
  else
    lua_pushliteral(L, "authorized");
  lua_setfield(L, -2, "status");
  lua_pushstring(L, t.issuer);
  lua_setfield(L, -2, "issuer");
  if (t.scope != NULL) {
    lua_pushstring(L, t.scope);
    lua_setfield(L, -2, "scope");
  }
  if (t.expires_at != 0) {
    lua_pushinteger(L, (lua_Integer) t.expires_at);
    lua_setfield(L, -2, "expires_at");
  }
  lua_pushboolean(L, t.refresh_token != NULL);
  lua_setfield(L, -2, "refreshable");
  mcp_auth_tokens_free(&t);
  return 1;
}

/* syntax: removed, err = core.oauth_forget(url, dir?)
 * Deletes the tokens kept for the server; false when there were none. */
static int
lauth_forget(lua_State *L)
{
  const char *url = luaL_checkstring(L, 1), *dir, *resource;
  mcp_error_t err;
  int rc;

  store_key(L, url, &dir, &resource);
  rc = mcp_auth_store_delete_tokens(dir, resource, &err);
  if (rc == MCP_ENOENT) {
    lua_pushboolean(L, 0);
    return 1;
  }
  if (rc != 0)
    return lmcp_fail(L, &err);
  lua_pushboolean(L, 1);
  return 1;
}

void
lmcp_open_auth(lua_State *L)
{
  lua_pushcfunction(L, lauth_status);
  lua_setfield(L, -2, "oauth_status");
  lua_pushcfunction(L, lauth_forget);
  lua_setfield(L, -2, "oauth_forget");
}
