/*
 * fixture_mcp.h - the MCP side both benchmark fixture servers share
 * (bench/fixture_server.c over stdio, bench/http_fixture_server.c over
 * Streamable HTTP): growable output buffers, the tools/list result
 * printed once, and the answers to initialize, ping, tools/list and
 * tools/call (every tool echoes arguments.message as one text item).
 * Answers are written straight into a buffer, with no envelope tree.
 */
#ifndef BENCH_FIXTURE_MCP_H
#define BENCH_FIXTURE_MCP_H

#include <cjson/cJSON.h>
#include <stddef.h>

typedef struct fx_buf_s
{
  char *data;                   /* owned; malloc'd */
  size_t len;                   /* bytes used */
  size_t cap;                   /* bytes allocated */
} fx_buf_t;

/* The program's name, for fx_die's message. */
extern const char *fx_program;

/* Prints "<program>: what" and exits with status 2. */
void fx_die(const char *what);

/* Makes room for at least n more bytes. */
void fx_buf_reserve(fx_buf_t *b, size_t n);
void fx_buf_add(fx_buf_t *b, const char *s, size_t n);
#define FX_ADD_LIT(b, lit) fx_buf_add((b), (lit), sizeof (lit) - 1)
/* Appends item as unformatted JSON, printed straight into the buffer when
 * it fits in size_hint bytes. */
void fx_buf_add_json(fx_buf_t *b, cJSON *item, size_t size_hint);

/* Prints the tools/list result once: echo, tool-1 .. tool-(ntools-1). */
void fx_build_tools(int ntools);

/* Appends the answer to request (id, method, params), one JSON object
 * without a line end; server_name goes in initialize's serverInfo. */
void fx_answer(fx_buf_t *out, cJSON *id, const char *method, cJSON *params,
               const char *server_name);
/* Appends an error answer; id NULL becomes null. */
void fx_answer_error(fx_buf_t *out, cJSON *id, int code, const char *msg);

#endif
