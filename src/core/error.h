/*
 * error.h - the error record every fallible core function can fill in.
 *
 * The record keeps the raw cause apart from the message, so a caller can
 * show "ERPC(-32601): Method not found" and still read the JSON-RPC code.
 * All fields are plain values: an mcp_error_t can be copied freely.
 */
#ifndef MCP_ERROR_H
#define MCP_ERROR_H

#include "common.h"

typedef struct mcp_error_s {
  int code;           /* MCP_E* (negative), 0 when there is no error */
  int rpc_code;       /* JSON-RPC error.code when code == MCP_ERPC */
  int status;         /* HTTP status or process exit status, when known */
  char msg[256];      /* one line of human text */
  char challenge[1024]; /* the WWW-Authenticate of a 401 or 403, or "" */
} mcp_error_t;

/* Fills err (which may be NULL) and returns code, so callers can write
 * `return mcp_error_set(err, MCP_EPROTO, "bad %s", what);`. */
int mcp_error_set(mcp_error_t *err, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

void mcp_error_clear(mcp_error_t *err);

#endif
