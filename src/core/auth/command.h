/*
 * command.h - a token from a configured command: a workload identity
 * platform's helper (a cloud CLI, a SPIFFE agent client) run for every
 * token request, whose standard output is the token.
 *
 * The command runs as a supervised child (process.h) without a shell.
 * Its output is bounded; it must exit with status 0 within the deadline,
 * or it is stopped and the run fails. What it prints is never put in an
 * error message, its standard error neither: either may hold the token.
 *
 * Ownership: the run frees itself. After mcp_auth_command_cancel its
 * callback is not called; the child is stopped in the background.
 */
#ifndef MCP_AUTH_COMMAND_H
#define MCP_AUTH_COMMAND_H

#include <stddef.h>
#include <stdint.h>

#include <uv.h>

#include "error.h"

typedef struct mcp_auth_command_s mcp_auth_command_t;

/* token: the output with white space around it removed (the callee
 * overwrites it after the call), or NULL with err. */
typedef void (*mcp_auth_command_cb)(void *ud, const char *token,
                                    const mcp_error_t *err);

/* argv: NULL-terminated, argv[0] looked up in PATH. */
int mcp_auth_command_start(uv_loop_t *loop, const char *const *argv,
                           size_t max, uint64_t timeout_ms,
                           mcp_auth_command_cb cb, void *ud,
                           mcp_auth_command_t **out, mcp_error_t *err);
void mcp_auth_command_cancel(mcp_auth_command_t *c);

#endif
