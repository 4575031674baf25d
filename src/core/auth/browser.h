/*
 * browser.h - showing the authorization URL to a person: $BROWSER, else
 * xdg-open, started without a shell (the URL is one argument, so nothing
 * in it is ever interpreted), detached from the loop and reaped.
 */
#ifndef MCP_AUTH_BROWSER_H
#define MCP_AUTH_BROWSER_H

#include <uv.h>

#include "error.h"

/* $BROWSER is a ':'-separated list of programs (the old convention); the
 * first that starts is used, "%s" in it replaced by the URL, else the URL
 * appended. 0 when a program started; MCP_ESPAWN when none could;
 * MCP_EINVAL for a URL that is not https or loopback http. */
int mcp_auth_open_browser(uv_loop_t *loop, const char *url,
                          mcp_error_t *err);

#endif
