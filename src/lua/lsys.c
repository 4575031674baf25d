/*
 * lsys.c - small system helpers the Lua layer needs: whether a descriptor
 * is a terminal, the working directory, a file:// URI built with libcurl's
 * URL API, and reading one line from stdin without blocking the loop.
 *
 * syntax: yes = core.isatty(fd)
 *         dir = core.cwd()
 *         uri = core.file_uri(path)        -- percent-encoded
 *         ok, err = core.read_line(cb)     -- cb(line) or cb(nil, err) once
 */
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "curl_dl.h"

#include "buf.h"
#include "lutil.h"

#define LINE_MAX_BYTES 4096

typedef struct {
  uv_tty_t tty;             /* or a pipe: stdin in either case */
  uv_pipe_t pipe;
  uv_stream_t *stream;
  lmcp_ctx_t *ctx;
  int cb_ref;
  char chunk[4096];
} line_reader_t;

static line_reader_t *reader;   /* one at a time: there is one stdin */

static int
lmcp_isatty(lua_State *L)
{
  lua_Integer fd = luaL_checkinteger(L, 1);

  lua_pushboolean(L, uv_guess_handle((int) fd) == UV_TTY);
  return 1;
}

static int
lmcp_cwd(lua_State *L)
{
  char buf[4096];
  size_t len = sizeof buf;
  int rc = uv_cwd(buf, &len);

  if (rc != 0)
    return luaL_error(L, "cwd: %s", uv_strerror(rc));
  lua_pushlstring(L, buf, len);
  return 1;
}

static int
lmcp_file_uri(lua_State *L)
{
  const char *path = luaL_checkstring(L, 1);
  mcp_error_t err;
  CURLU *u;
  char *out = NULL;

  luaL_argcheck(L, path[0] == '/', 1, "absolute path expected");
  if (mcp_curl_load(&err) != 0)
    return luaL_error(L, "file_uri: %s", err.msg);
  u = curl_url();
  if (u == NULL)
    return luaL_error(L, "out of memory");
  if (curl_url_set(u, CURLUPART_SCHEME, "file", 0) != CURLUE_OK ||
      curl_url_set(u, CURLUPART_PATH, path, CURLU_URLENCODE) != CURLUE_OK ||
      curl_url_get(u, CURLUPART_URL, &out, 0) != CURLUE_OK) {
    curl_url_cleanup(u);
    return luaL_error(L, "file_uri: cannot make a URI of %s", path);
  }
  lua_pushstring(L, out);
  curl_free(out);
  curl_url_cleanup(u);
  return 1;
}

static void
reader_closed(uv_handle_t *h)
{
  free(h->data);
}

/* What stdin gave beyond the lines delivered so far (a pipe delivers
 * many lines per read), kept for the next read_line; and whether stdin
 * has ended. There is one stdin, so these are the process's. */
static mcp_buf_t pending = { 0 };
static int pending_ready, stdin_ended, pending_cut;

/* Pushes the next whole line of pending (without its CR LF or LF) and
 * drops it from pending; at the end of stdin, what is left, then nil.
 * Returns 0 (pushing nothing) when no line is complete yet. */
static int
push_next_line(lua_State *L)
{
  const char *nl = pending.len > 0 ? memchr(pending.data, '\n', pending.len)
                                   : NULL;
  size_t len;

  if (nl == NULL && !stdin_ended && !pending_cut)
    return 0;
  pending_cut = 0;
  if (nl == NULL && pending.len == 0) {
    lua_pushnil(L);
    return 1;
  }
  len = nl != NULL ? (size_t) (nl - pending.data) : pending.len;
  lua_pushlstring(L, pending.data,
                  len > 0 && pending.data[len - 1] == '\r' ? len - 1 : len);
  mcp_buf_consume(&pending, nl != NULL ? len + 1 : len);
  if (pending.len == 0)
    mcp_buf_free(&pending);    /* nothing waits: no memory held */
  return 1;
}

void
lmcp_close_sys(void)
{
  if (pending_ready)
    mcp_buf_free(&pending);
}

static int
deliver_line(lua_State *L)
{
  line_reader_t *r = lua_touserdata(L, 1);
  int ref = r->cb_ref;

  r->cb_ref = LUA_NOREF;
  lmcp_push_unref(L, &ref);
  if (!push_next_line(L))
    lua_pushnil(L);
  lua_call(L, 1, 0);
  return 0;
}

/* Ends the read: calls back with the line (or nil at the end) and
 * closes. */
static void
finish(line_reader_t *r)
{
  lmcp_ctx_t *ctx = r->ctx;

  uv_read_stop(r->stream);
  reader = NULL;
  if (!ctx->closing) {
    lua_pushcfunction(ctx->L, deliver_line);
    lua_pushlightuserdata(ctx->L, r);
    lmcp_pcall(ctx, 1, 0);
  }
  uv_close((uv_handle_t *) r->stream, reader_closed);
}

static void
on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
  line_reader_t *r = h->data;

  (void) suggested;
  buf->base = r->chunk;
  buf->len = sizeof r->chunk;
}

/* Keeps what arrived; a whole line ends the read. A line that outgrows
 * pending ends the read too: what was kept is the line, the chunk that
 * did not fit is dropped, rather than grow without bound. */
static void
on_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
  line_reader_t *r = s->data;

  if (nread < 0) {
    stdin_ended = 1;
    finish(r);
  } else if (mcp_buf_append(&pending, buf->base, (size_t) nread) != 0) {
    pending_cut = 1;
    finish(r);
  } else if (memchr(buf->base, '\n', (size_t) nread) != NULL) {
    finish(r);
  }
}

static int
lmcp_read_line(lua_State *L)
{
  lmcp_ctx_t *ctx = lmcp_ctx(L);
  line_reader_t *r;
  int rc;

  luaL_checktype(L, 1, LUA_TFUNCTION);
  if (reader != NULL)
    return luaL_error(L, "read_line: stdin is already being read");
  if (!pending_ready) {
    mcp_buf_init(&pending, LINE_MAX_BYTES * 16);
    pending_ready = 1;
  }
  /* A line already read (or the end): at once, without reading. */
  lua_pushvalue(L, 1);
  if (push_next_line(L)) {
    lua_call(L, 1, 0);
    lua_pushboolean(L, 1);
    return 1;
  }
  lua_pop(L, 1);
  r = calloc(1, sizeof *r);
  if (r == NULL)
    return luaL_error(L, "out of memory");
  r->ctx = ctx;
  if (uv_guess_handle(0) == UV_TTY) {
    rc = uv_tty_init(&ctx->loop, &r->tty, 0, 1);
    r->stream = (uv_stream_t *) &r->tty;
  } else {
    /* A copy of fd 0, so that closing the handle leaves stdin open. What
     * a read brings beyond the line waits in pending for the next call. */
    int fd = dup(0);

    rc = uv_pipe_init(&ctx->loop, &r->pipe, 0);
    if (rc == 0)
      rc = fd < 0 ? UV_EBADF : uv_pipe_open(&r->pipe, fd);
    r->stream = (uv_stream_t *) &r->pipe;
  }
  r->stream->data = r;
  if (rc == 0)
    rc = uv_read_start(r->stream, on_alloc, on_read);
  if (rc != 0) {
    mcp_error_t err;

    uv_close((uv_handle_t *) r->stream, reader_closed);
    mcp_error_set(&err, MCP_EIO, "cannot read stdin: %s", uv_strerror(rc));
    return lmcp_fail(L, &err);
  }
  lua_pushvalue(L, 1);
  r->cb_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  reader = r;
  lua_pushboolean(L, 1);
  return 1;
}

void
lmcp_open_sys(lua_State *L)
{
  static const luaL_Reg fns[] = {
    { "isatty", lmcp_isatty },
    { "cwd", lmcp_cwd },
    { "file_uri", lmcp_file_uri },
    { "read_line", lmcp_read_line },
    { NULL, NULL },
  };

  luaL_setfuncs(L, fns, 0);
}
