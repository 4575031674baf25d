/*
 * callback.h - the loopback server the authorization redirect comes back
 * to (RFC 8252 section 7.3): a minimal HTTP/1.x server for one purpose,
 * on 127.0.0.1, on the caller's libuv loop.
 *
 * It answers GET of its path with a small page whose text the owner's
 * function chooses (HTML-escaped here), 404 for other paths, 405 for
 * other methods, 431 for a request head over 8 KB. A connection that says
 * nothing is dropped after its deadline; at most 8 are open at once. Once
 * the owner has its answer (*done), nothing more is accepted.
 */
#ifndef MCP_AUTH_CALLBACK_H
#define MCP_AUTH_CALLBACK_H

#include <uv.h>

#include "error.h"

typedef struct mcp_auth_callback_s mcp_auth_callback_t;

/* For each GET of the path: query is what follows "?" ("" when nothing;
 * valid during the call). Returns the page's plain text; sets *done when
 * the owner has what it waited for. */
typedef const char *(*mcp_auth_callback_fn)(void *ud, const char *query,
                                            int *done);

/* Listens on host (a loopback literal) and port (0: an ephemeral one). */
int mcp_auth_callback_start(uv_loop_t *loop, const char *host, int port,
                            const char *path, mcp_auth_callback_fn fn,
                            void *ud, mcp_auth_callback_t **out,
                            mcp_error_t *err);
int mcp_auth_callback_port(const mcp_auth_callback_t *cb);
/* The read deadline of each connection (default 10 s). */
void mcp_auth_callback_set_deadline(mcp_auth_callback_t *cb, uint64_t ms);
/* Stops listening and closes the connections (a page being sent is
 * finished first); fn is never called again; cb frees itself. Safe from
 * inside fn. */
void mcp_auth_callback_close(mcp_auth_callback_t *cb);

/* text with & < > " ' and control bytes escaped, malloc'd; NULL on
 * ENOMEM. */
char *mcp_auth_html_escape(const char *text);

#endif
