/*
 * routing.h - the headers a request of the 2026-07-28 era carries over
 * HTTP so that gateways can route it without reading the body:
 * Mcp-Method, Mcp-Name (the tool, prompt, resource or task it acts on),
 * and Mcp-Param-{Name} for each tool argument the tool's inputSchema
 * marks with x-mcp-header.
 *
 * Which arguments those are is declared per tool by the owner, from the
 * most recent tools/list (the declarations are checked there: mcp.params
 * in Lua); a tool never declared gets no Mcp-Param-* header. Values are
 * written as the revision says: a string as it is, or as
 * =?base64?...?= when a header cannot carry it plainly; an integer in
 * decimal; a boolean as true or false; null or absent: no header.
 */
#ifndef MCP_ROUTING_H
#define MCP_ROUTING_H

#include <stddef.h>

#include "buf.h"
#include "error.h"

/* At most this many bytes of routing headers per request: a request whose
 * arguments would need more fails rather than being refused by the
 * server's header limits (431) or sent without them. */
#define MCP_ROUTING_MAX (32u * 1024u)

/* At most this many Mcp-Param-* headers per tool. */
#define MCP_ROUTING_MAX_PARAMS 64

typedef struct mcp_routing_s mcp_routing_t;

mcp_routing_t *mcp_routing_new(void);
void mcp_routing_free(mcp_routing_t *r);

/* Declares the Mcp-Param-* headers of tool: decl is JSON text, an array
 * of [header, key, key, ...], the header's name and the path of property
 * names from the call's arguments to the value. NULL decl: the tool has
 * none. NULL tool: forget every tool's. MCP_EINVAL when decl is not of
 * that shape or has more than MCP_ROUTING_MAX_PARAMS entries. */
int mcp_routing_declare(mcp_routing_t *r, const char *tool, const char *decl,
                        mcp_error_t *err);

/* Appends the routing header lines of the request in text to out, each
 * "Name: value" followed by a NUL, and stores their number in *count
 * (0 when text is not a request). r may be NULL (no tool declared).
 * MCP_ETOOBIG, with err saying which header, past MCP_ROUTING_MAX. */
int mcp_routing_headers(const mcp_routing_t *r, const char *text, size_t len,
                        mcp_buf_t *out, size_t *count, mcp_error_t *err);

#endif
