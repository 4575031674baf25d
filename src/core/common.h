/*
 * common.h - error codes, limits and small helpers shared by the core.
 *
 * Every core function that can fail returns 0 or a negative MCP_E* code.
 * The names come from one X-macro list, which also gives the Lua binding its
 * stable `code` strings, so C and Lua can never disagree about them.
 */
#ifndef MCP_COMMON_H
#define MCP_COMMON_H

#include <stddef.h>
#include <stdint.h>

#define MCP_VERSION "0.1.0"

#define MCP_ERRNO_MAP(XX)                                                     \
  XX(ECLOSED, "connection closed")                                            \
  XX(ETIMEDOUT, "operation timed out")                                        \
  XX(EPROTO, "protocol error")                                                \
  XX(EHTTP, "HTTP error status")                                              \
  XX(ERPC, "JSON-RPC error response")                                         \
  XX(ESPAWN, "could not start process")                                       \
  XX(ENOMEM, "out of memory")                                                 \
  XX(ETOOBIG, "message exceeds configured limit")                             \
  XX(EJSON, "malformed JSON")                                                 \
  XX(EINVAL, "invalid argument")                                              \
  XX(ECANCELED, "operation canceled")                                         \
  XX(EVERSION, "unsupported protocol version")                                \
  XX(EIO, "input/output error")                                              \
  XX(ESCHEMA, "value does not match its schema")                             \
  XX(ENOTSUP, "the server did not declare this capability")                  \
  XX(ESESSION, "the server's session expired")                                \
  XX(EURLELICIT, "the server needs URL elicitations completed first")         \
  XX(EREJECTED, "the user declined")                                          \
  XX(ECONNECT, "cannot connect to the server")                               \
  XX(ENEEDSAUTH, "the server needs authorization")                           \
  XX(ENEEDSREG, "the server needs a registered client")                     \
  XX(EAUTH, "authorization failed")                                          \
  XX(ENOENT, "not found")                                                    \
  XX(EREFUSED, "refused for safety")                                          \
  XX(EVERIFY, "content does not match what its server listed")

typedef enum {
  MCP_OK = 0,
#define MCP_ERRNO_ENUM(name, text) MCP_##name,
  MCP_ERRNO_FIRST_ = -1000,
  MCP_ERRNO_MAP(MCP_ERRNO_ENUM)
#undef MCP_ERRNO_ENUM
  MCP_ERRNO_LAST_
} mcp_errno_t;

/* Returns "ECLOSED" etc., or "EUNKNOWN" for a code outside the map. */
const char *mcp_err_name(int code);
/* Returns the fixed description of a code. */
const char *mcp_strerror(int code);

/* One line of a trace of what a connection does (luamcp debug): the
 * messages, the HTTP requests and answers with their headers, credentials
 * masked. line is valid only during the call and has no newline. */
typedef void (*mcp_trace_cb)(void *ud, const char *line, size_t len);

/* Default limits. Each is overridable per connection. */
#define MCP_DEFAULT_MAX_MESSAGE (4u * 1024u * 1024u)
#define MCP_DEFAULT_MAX_DEPTH 128
#define MCP_DEFAULT_TIMEOUT_MS 60000u
#define MCP_DEFAULT_STDERR_RING 8192u
#define MCP_DEFAULT_STDERR_LINE 4096u
#define MCP_DEFAULT_GRACE_MS 2000u

#define MCP_UNUSED(x) ((void) (x))

#endif
