/*
 * lschema.c - mcp.core.schema: compiled JSON Schemas for Lua.
 *
 * syntax: s, err = core.schema_compile(schema)   -- a table or a boolean
 *         ok, err = s:validate(value)            -- err.code == "ESCHEMA"
 * The error of a failed validation carries path (the instance's JSON
 * pointer), keyword and schema_path besides its one-line message.
 */
#include <string.h>

#include "lutil.h"
#include "schema.h"

#define SCHEMA_MT "mcp.core.schema"
static const char schema_mt_key;   /* its address keys the metatable */

typedef struct {
  mcp_schema_t *s;
} lschema_t;

static int
lmcp_schema_compile(lua_State *L)
{
  const char *why;
  mcp_error_t err;
  lschema_t *u;
  cJSON *doc;
  int rc;

  luaL_argexpected(L, lua_istable(L, 1) || lua_isboolean(L, 1), 1,
                   "table or boolean");
  u = lua_newuserdatauv(L, sizeof *u, 0);
  u->s = NULL;
  luaL_setmetatable(L, SCHEMA_MT);
  doc = lmcp_to_json(L, 1, lmcp_ctx(L)->max_depth, &why);
  if (doc == NULL)
    return luaL_argerror(L, 1, why);
  rc = mcp_schema_compile(doc, NULL, &u->s, &err);
  cJSON_Delete(doc);
  if (rc != 0)
    return lmcp_fail(L, &err);
  return 1;
}

static int
lmcp_schema_validate(lua_State *L)
{
  lschema_t *u = luaL_checkudata(L, 1, SCHEMA_MT);
  mcp_schema_failure_t why;
  mcp_error_t err;
  const char *convert_why;
  cJSON *doc;
  int rc;

  luaL_checkany(L, 2);
  if (u->s == NULL)
    return luaL_error(L, "attempt to use a freed mcp.core.schema");
  doc = lmcp_to_json(L, 2, lmcp_ctx(L)->max_depth, &convert_why);
  if (doc == NULL) {
    mcp_error_set(&err, MCP_ESCHEMA, "value cannot be JSON: %s", convert_why);
    return lmcp_fail(L, &err);
  }
  memset(&why, 0, sizeof why);
  rc = mcp_schema_validate(u->s, doc, &why);
  cJSON_Delete(doc);
  if (rc == 0) {
    lua_pushboolean(L, 1);
    return 1;
  }
  if (rc != MCP_ESCHEMA) {
    mcp_error_set(&err, rc, "schema validation stopped: %s",
                  why.message[0] ? why.message : mcp_strerror(rc));
    return lmcp_fail(L, &err);
  }
  return lmcp_schema_fail(L, &why);
}

const mcp_schema_t *
lmcp_toschema(lua_State *L, int idx)
{
  lschema_t *u = lmcp_testudata(L, idx, &schema_mt_key);

  return u ? u->s : NULL;
}

int
lmcp_schema_fail(lua_State *L, const mcp_schema_failure_t *why)
{
  mcp_error_t err;

  mcp_error_set(&err, MCP_ESCHEMA, "at '%s': %s (%s)",
                why->instance_path[0] ? why->instance_path : "/",
                why->message, why->keyword);
  lmcp_fail(L, &err);
  lua_pushstring(L, why->instance_path);
  lua_setfield(L, -2, "path");
  lua_pushstring(L, why->keyword);
  lua_setfield(L, -2, "keyword");
  lua_pushstring(L, why->schema_path);
  lua_setfield(L, -2, "schema_path");
  return 2;
}

static int
lmcp_schema_gc(lua_State *L)
{
  lschema_t *u = luaL_checkudata(L, 1, SCHEMA_MT);

  mcp_schema_free(u->s);
  u->s = NULL;
  return 0;
}

void
lmcp_open_schema(lua_State *L)
{
  static const luaL_Reg methods[] = {
    { "validate", lmcp_schema_validate },
    { NULL, NULL },
  };

  lmcp_newmetatable(L, &schema_mt_key, SCHEMA_MT);
  lua_pushcfunction(L, lmcp_schema_gc);
  lua_setfield(L, -2, "__gc");
  luaL_newlib(L, methods);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  lua_pushcfunction(L, lmcp_schema_compile);
  lua_setfield(L, -2, "schema_compile");
}
