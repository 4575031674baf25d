/*
 * lauth.h - OAuth options of an HTTP connection, read from Lua (lauth.c).
 */
#ifndef MCP_LAUTH_H
#define MCP_LAUTH_H

#include <lua.h>

#include "auth/flow.h"

/* Reads the oauth options table at idx (client_id, client_secret, scope,
 * redirect_uri, callback_port, client_metadata_url, client_name, store,
 * interactive, timeout (ms), ca_file, insecure) and creates the flow for
 * url; headers are the connection's configured lines; on_authorize and
 * trace (both optional) get ud. Raises on a bad
 * option; returns 0 or the core's error. */
int lmcp_auth_new(lua_State *L, int idx, const char *url,
                  const char *const *headers, size_t nheaders,
                  mcp_auth_authorize_cb on_authorize, mcp_trace_cb trace,
                  void *ud, mcp_auth_t **out, mcp_error_t *err);

void lmcp_open_auth(lua_State *L);

#endif
