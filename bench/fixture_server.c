/*
 * fixture_server.c - a fast MCP server over stdio, for the benchmark.
 *
 * It exists so that the benchmark measures the client, not the server:
 * newline-delimited JSON-RPC on stdin/stdout, one read(2) per batch of
 * input, every answer to that batch appended to one output buffer and
 * written with one write(2) loop. The input and output buffers are owned
 * by main and grow only when a message is bigger than any seen before;
 * the only per-message allocations are cJSON's own (the parsed request
 * and the small response tree, whose strings point into the request).
 *
 * Methods: initialize (echoes the client's protocolVersion when it is one
 * we know, else answers 2025-11-25), ping, tools/list (one page of N
 * tools: echo, tool-1 .. tool-(N-1)), tools/call (every tool echoes
 * arguments.message as one text item). Notifications are ignored; other
 * requests get -32601. The tools/list result is printed once at startup
 * and reused. The MCP answers are bench/fixture_mcp.c's, shared with the
 * HTTP fixture.
 *
 * Usage: fixture_server [--tools N]      (default 1)
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture_mcp.h"

#define FIX_READ_CHUNK (64 * 1024)

static void
fix_write_all(fx_buf_t *out)
{
  size_t off = 0;
  ssize_t n;

  while (off < out->len)
  {
    n = write(STDOUT_FILENO, out->data + off, out->len - off);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      exit(0);                  /* the client went away */
    off += (size_t) n;
  }
  out->len = 0;
}

/* Handles one line; appends its answer (if any) to out. */
static void
fix_handle_line(fx_buf_t *out, const char *line, size_t len)
{
  cJSON *req = cJSON_ParseWithLength(line, len);
  cJSON *id;
  cJSON *method;

  if (req == NULL)
  {
    fprintf(stderr, "fixture_server: unparsable line ignored\n");
    return;
  }
  id = cJSON_GetObjectItemCaseSensitive(req, "id");
  method = cJSON_GetObjectItemCaseSensitive(req, "method");
  /* A notification or a response gets no answer. */
  if (id != NULL && cJSON_IsString(method))
  {
    fx_answer(out, id, method->valuestring,
      cJSON_GetObjectItemCaseSensitive(req, "params"), "luamcp-bench-fixture");
    FX_ADD_LIT(out, "\n");
  }
  cJSON_Delete(req);
}

int
main(int argc, char **argv)
{
  fx_buf_t in = { NULL, 0, 0 };
  fx_buf_t out = { NULL, 0, 0 };
  int ntools = 1;
  int i;

  for (i = 1; i < argc; i++)
  {
    if (strcmp(argv[i], "--tools") == 0 && i + 1 < argc)
      ntools = atoi(argv[++i]);
    else
    {
      fprintf(stderr, "usage: fixture_server [--tools N]\n");
      return 2;
    }
  }
  if (ntools < 1)
    ntools = 1;
  fx_program = "fixture_server";
  fx_build_tools(ntools);
  fx_buf_reserve(&in, FIX_READ_CHUNK);
  fx_buf_reserve(&out, FIX_READ_CHUNK);

  for (;;)
  {
    size_t start = 0;
    char *nl;
    ssize_t n;

    fx_buf_reserve(&in, FIX_READ_CHUNK / 2);
    n = read(STDIN_FILENO, in.data + in.len, in.cap - in.len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;                    /* EOF: the client closed our stdin */
    in.len += (size_t) n;
    /* Every complete line of this read; the answers go out together. */
    for (;;)
    {
      size_t len;

      nl = memchr(in.data + start, '\n', in.len - start);
      if (nl == NULL)
        break;
      len = (size_t) (nl - (in.data + start));

      if (len > 0 && in.data[start + len - 1] == '\r')
        len--;
      if (len > 0)
        fix_handle_line(&out, in.data + start, len);
      start = (size_t) (nl - in.data) + 1;
    }
    if (start > 0)
    {
      memmove(in.data, in.data + start, in.len - start);
      in.len -= start;
    }
    if (out.len > 0)
      fix_write_all(&out);
  }
  free(in.data);
  free(out.data);
  return 0;
}
