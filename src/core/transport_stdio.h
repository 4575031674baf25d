/*
 * transport_stdio.h - the stdio transport: a supervised child process
 * speaking newline-delimited JSON on its stdin and stdout.
 */
#ifndef MCP_TRANSPORT_STDIO_H
#define MCP_TRANSPORT_STDIO_H

#include <uv.h>

#include "process.h"
#include "transport.h"

typedef struct mcp_stdio_opts_s {
  mcp_process_opts_t process;
  size_t max_message;          /* 0: MCP_DEFAULT_MAX_MESSAGE */
} mcp_stdio_opts_t;

/* Starts the child. On failure returns MCP_ESPAWN (or another code) with
 * err set and no callback will ever be called. */
int mcp_transport_stdio_new(uv_loop_t *loop, const mcp_stdio_opts_t *opts,
                            const mcp_transport_cb_t *cb, void *ud,
                            mcp_transport_t **out, mcp_error_t *err);

#endif
