/*
 * error.c - error names and the error record.
 */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *
mcp_err_name(int code)
{
  switch (code) {
#define MCP_ERRNO_NAME(name, text) \
  case MCP_##name:                 \
    return #name;
    MCP_ERRNO_MAP(MCP_ERRNO_NAME)
#undef MCP_ERRNO_NAME
  default:
    return "EUNKNOWN";
  }
}

const char *
mcp_strerror(int code)
{
  switch (code) {
#define MCP_ERRNO_TEXT(name, text) \
  case MCP_##name:                 \
    return text;
    MCP_ERRNO_MAP(MCP_ERRNO_TEXT)
#undef MCP_ERRNO_TEXT
  default:
    return "unknown error";
  }
}

int
mcp_error_set(mcp_error_t *err, int code, const char *fmt, ...)
{
  va_list ap;

  if (err == NULL)
    return code;
  err->code = code;
  err->rpc_code = 0;
  err->status = 0;
  err->challenge[0] = '\0';
  if (fmt == NULL) {
    snprintf(err->msg, sizeof err->msg, "%s", mcp_strerror(code));
    return code;
  }
  va_start(ap, fmt);
  vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  va_end(ap);
  return code;
}

void
mcp_error_clear(mcp_error_t *err)
{
  if (err != NULL)
    memset(err, 0, sizeof *err);
}
