/*
 * test_auth_store.c - tests for the token store (store.c) and the
 * loopback redirect server (callback.c): round trips, file modes 0600
 * and 0700, no temporary file left, refusals (a file we did not write, a
 * key mismatch, a symbolic link), the directory from XDG_DATA_HOME or
 * HOME; the redirect server's page escaping, its one path, its limits,
 * its deadline, and that it stops once the owner has its answer.
 */
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auth/callback.h"
#include "auth/store.h"
#include "common.h"
#include "curl_dl.h"
#include "test.h"

static char dir[256];

static void
write_file(const char *path, const char *text)
{
  FILE *f = fopen(path, "w");

  ASSERT_NOT_NULL(f);
  fputs(text, f);
  fclose(f);
}

/* The one file in <dir>/<kind>, into path. */
static void
only_file(const char *kind, char *path, size_t cap)
{
  char sub[300];
  struct dirent *e;
  DIR *d;
  int n = 0;

  snprintf(sub, sizeof sub, "%s/%s", dir, kind);
  d = opendir(sub);
  ASSERT_NOT_NULL(d);
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.')
      continue;
    snprintf(path, cap, "%s/%s", sub, e->d_name);
    n++;
  }
  closedir(d);
  ASSERT_EQ(n, 1);              /* no temporary file left behind */
}

static void
tokens_round_trip_with_owner_only_modes(void)
{
  mcp_auth_tokens_t t = { 0 }, back;
  char path[600], sub[300];
  struct stat st;
  mcp_error_t err;

  t.resource = "https://mcp.example.com/mcp";
  t.issuer = "https://as.example.com";
  t.token_endpoint = "https://as.example.com/token";
  t.access_token = "at-1";
  t.refresh_token = "rt-1";
  t.token_type = "Bearer";
  t.expires_at = 1900000000LL;
  ASSERT_EQ(mcp_auth_store_save_tokens(dir, &t, &err), 0);
  t.access_token = "at-2";              /* replaced whole */
  t.refresh_token = NULL;
  ASSERT_EQ(mcp_auth_store_save_tokens(dir, &t, &err), 0);
  ASSERT_EQ(mcp_auth_store_load_tokens(dir, t.resource, &back, &err), 0);
  ASSERT_STR_EQ(back.access_token, "at-2");
  ASSERT_NULL(back.refresh_token);
  ASSERT_NULL(back.scope);
  ASSERT_STR_EQ(back.issuer, "https://as.example.com");
  ASSERT_EQ(back.expires_at, 1900000000LL);
  mcp_auth_tokens_free(&back);
  ASSERT_NULL(back.access_token);
  only_file("tokens", path, sizeof path);
  ASSERT_EQ(stat(path, &st), 0);
  ASSERT_EQ(st.st_mode & 0777, 0600);
  snprintf(sub, sizeof sub, "%s/tokens", dir);
  ASSERT_EQ(stat(sub, &st), 0);
  ASSERT_EQ(st.st_mode & 0777, 0700);
  ASSERT_EQ(mcp_auth_store_load_tokens(dir, "https://other.example/mcp",
                                       &back, &err), MCP_ENOENT);
  ASSERT_EQ(mcp_auth_store_delete_tokens(dir, t.resource, &err), 0);
  ASSERT_EQ(mcp_auth_store_delete_tokens(dir, t.resource, &err), MCP_ENOENT);
  ASSERT_EQ(mcp_auth_store_load_tokens(dir, t.resource, &back, &err),
            MCP_ENOENT);
}

static void
clients_are_kept_per_issuer(void)
{
  mcp_auth_client_t c = { 0 }, back;
  mcp_error_t err;

  c.issuer = "https://as1.example.com";
  c.client_id = "id-1";
  c.client_secret = "secret-1";
  c.auth_method = "client_secret_basic";
  c.registration = "dynamic";
  ASSERT_EQ(mcp_auth_store_save_client(dir, &c, &err), 0);
  ASSERT_EQ(mcp_auth_store_load_client(dir, "https://as1.example.com", &back,
                                       &err), 0);
  ASSERT_STR_EQ(back.client_id, "id-1");
  ASSERT_STR_EQ(back.client_secret, "secret-1");
  mcp_auth_client_free(&back);
  ASSERT_EQ(mcp_auth_store_load_client(dir, "https://as2.example.com", &back,
                                       &err), MCP_ENOENT);
  ASSERT_EQ(mcp_auth_store_delete_client(dir, c.issuer, &err), 0);
}

static void
files_we_did_not_write_are_refused(void)
{
  mcp_auth_tokens_t t = { 0 }, back;
  char path[600], link_to[640];
  mcp_error_t err;

  t.resource = "https://mcp.example.com/x";
  t.access_token = "at";
  ASSERT_EQ(mcp_auth_store_save_tokens(dir, &t, &err), 0);
  only_file("tokens", path, sizeof path);
  write_file(path, "{\"resource\":\"https://mcp.example.com/other\","
                   "\"access_token\":\"stolen\"}");
  ASSERT_EQ(mcp_auth_store_load_tokens(dir, t.resource, &back, &err),
            MCP_EPROTO);
  write_file(path, "not json");
  ASSERT_EQ(mcp_auth_store_load_tokens(dir, t.resource, &back, &err),
            MCP_EPROTO);
  snprintf(link_to, sizeof link_to, "%s.target", path);
  write_file(link_to, "{\"resource\":\"https://mcp.example.com/x\"}");
  ASSERT_EQ(unlink(path), 0);
  ASSERT_EQ(symlink(link_to, path), 0);
  ASSERT_EQ(mcp_auth_store_load_tokens(dir, t.resource, &back, &err),
            MCP_EPROTO);
  unlink(path);
  unlink(link_to);
}

static void
directory_from_the_environment(void)
{
  mcp_error_t err;
  char *d;

  setenv("XDG_DATA_HOME", "/data", 1);
  ASSERT_EQ(mcp_auth_store_dir(&d, &err), 0);
  ASSERT_STR_EQ(d, "/data/luamcp/oauth");
  free(d);
  setenv("XDG_DATA_HOME", "relative/is/ignored", 1);
  setenv("HOME", "/home/u", 1);
  ASSERT_EQ(mcp_auth_store_dir(&d, &err), 0);
  ASSERT_STR_EQ(d, "/home/u/.local/share/luamcp/oauth");
  free(d);
  unsetenv("XDG_DATA_HOME");
  unsetenv("HOME");
  ASSERT_EQ(mcp_auth_store_dir(&d, &err), MCP_EINVAL);
}

/* ---- the redirect server -------------------------------------------------- */

typedef struct client_s {
  uv_tcp_t tcp;
  uv_connect_t connect;
  uv_write_t write;
  char request[9000];
  char answer[4096];
  size_t len;
  int closed, refused;
} client_t;

typedef struct owner_s {
  char query[256];
  int calls, finish;
} owner_t;

static const char *
on_query(void *ud, const char *query, int *done)
{
  owner_t *o = ud;

  o->calls++;
  snprintf(o->query, sizeof o->query, "%s", query);
  *done = o->finish;
  return "Got it <script>alert('x')</script> & \"done\"";
}

static void
alloc_cb(uv_handle_t *h, size_t size, uv_buf_t *buf)
{
  client_t *c = h->data;

  (void) size;
  *buf = uv_buf_init(c->answer + c->len,
                     (unsigned) (sizeof c->answer - 1 - c->len));
}

static void
closed_cb(uv_handle_t *h)
{
  client_t *c = h->data;

  c->closed = 1;
}

static void
read_cb(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
  client_t *c = s->data;

  (void) buf;
  if (n < 0) {
    uv_close((uv_handle_t *) &c->tcp, closed_cb);
    return;
  }
  c->len += (size_t) n;
  c->answer[c->len] = '\0';
}

static void
connected(uv_connect_t *req, int status)
{
  client_t *c = req->data;
  uv_buf_t buf = uv_buf_init(c->request, (unsigned) strlen(c->request));

  if (status != 0) {
    c->refused = 1;
    uv_close((uv_handle_t *) &c->tcp, closed_cb);
    return;
  }
  if (buf.len > 0)
    uv_write(&c->write, (uv_stream_t *) &c->tcp, &buf, 1, NULL);
  uv_read_start((uv_stream_t *) &c->tcp, alloc_cb, read_cb);
}

/* Sends request to the server and runs the loop until the connection is
 * closed (by the server, or refused). */
static void
exchange(uv_loop_t *loop, int port, const char *request, client_t *c)
{
  struct sockaddr_in addr;

  memset(c, 0, sizeof *c);
  snprintf(c->request, sizeof c->request, "%s", request);
  uv_ip4_addr("127.0.0.1", port, &addr);
  uv_tcp_init(loop, &c->tcp);
  c->tcp.data = c->connect.data = c;
  uv_tcp_connect(&c->connect, &c->tcp, (struct sockaddr *) &addr, connected);
  while (!c->closed)
    uv_run(loop, UV_RUN_ONCE);
}

static void
redirect_server(void)
{
  uv_loop_t loop;
  mcp_auth_callback_t *cb;
  owner_t owner = { "", 0, 0 };
  mcp_error_t err;
  client_t c;
  char big[8800];
  int port;

  uv_loop_init(&loop);
  ASSERT_EQ(mcp_auth_callback_start(&loop, "127.0.0.1", 0, "/callback",
                                    on_query, &owner, &cb, &err), 0);
  port = mcp_auth_callback_port(cb);
  ASSERT(port > 0);
  exchange(&loop, port, "GET /other HTTP/1.1\r\nHost: x\r\n\r\n", &c);
  ASSERT(strncmp(c.answer, "HTTP/1.1 404", 12) == 0);
  exchange(&loop, port, "POST /callback HTTP/1.1\r\n\r\n", &c);
  ASSERT(strncmp(c.answer, "HTTP/1.1 405", 12) == 0);
  memset(big, 'a', sizeof big - 1);
  big[sizeof big - 1] = '\0';
  memcpy(big, "GET /callback?", 14);
  exchange(&loop, port, big, &c);
  ASSERT(strncmp(c.answer, "HTTP/1.1 431", 12) == 0);
  ASSERT_EQ(owner.calls, 0);
  /* A connection that says nothing is dropped at its deadline. */
  mcp_auth_callback_set_deadline(cb, 50);
  exchange(&loop, port, "", &c);
  ASSERT_EQ(c.len, 0);
  /* Not the answer yet: the page, and the server stays. */
  exchange(&loop, port, "GET /callback?code=a&state=b HTTP/1.1\r\n\r\n", &c);
  ASSERT(strncmp(c.answer, "HTTP/1.1 200", 12) == 0);
  ASSERT_STR_EQ(owner.query, "code=a&state=b");
  ASSERT(strstr(c.answer, "Cache-Control: no-store") != NULL);
  ASSERT(strstr(c.answer, "Got it &#60;script&#62;alert(&#39;x&#39;)"
                          "&#60;/script&#62; &#38; &#34;done&#34;") != NULL);
  ASSERT_NULL(strstr(c.answer, "<script>"));
  /* The answer: after its page, nothing more is accepted. */
  owner.finish = 1;
  exchange(&loop, port, "GET /callback HTTP/1.1\r\n\r\n", &c);
  ASSERT(strncmp(c.answer, "HTTP/1.1 200", 12) == 0);
  ASSERT_STR_EQ(owner.query, "");
  exchange(&loop, port, "GET /callback?again HTTP/1.1\r\n\r\n", &c);
  ASSERT_EQ(c.refused, 1);
  ASSERT_EQ(owner.calls, 2);
  mcp_auth_callback_close(cb);
  uv_run(&loop, UV_RUN_DEFAULT);
  ASSERT_EQ(uv_loop_close(&loop), 0);
}

/* The owner closes the server from inside its function (its flow ended):
 * the page is still sent, and everything is freed. */
static mcp_auth_callback_t *closing_cb;

static const char *
close_inside(void *ud, const char *query, int *done)
{
  (void) ud;
  (void) query;
  *done = 1;
  mcp_auth_callback_close(closing_cb);
  return "Authorization failed.";
}

static void
close_from_inside(void)
{
  uv_loop_t loop;
  mcp_error_t err;
  client_t c;

  uv_loop_init(&loop);
  ASSERT_EQ(mcp_auth_callback_start(&loop, "127.0.0.1", 0, "/cb",
                                    close_inside, NULL, &closing_cb, &err),
            0);
  exchange(&loop, mcp_auth_callback_port(closing_cb),
           "GET /cb?error=x HTTP/1.1\r\n\r\n", &c);
  ASSERT(strstr(c.answer, "Authorization failed.") != NULL);
  uv_run(&loop, UV_RUN_DEFAULT);
  ASSERT_EQ(uv_loop_close(&loop), 0);
}

static void
html_escape(void)
{
  char *s = mcp_auth_html_escape("a<b>&\"'\n\x01z");

  ASSERT_STR_EQ(s, "a&#60;b&#62;&#38;&#34;&#39;&#10;&#1;z");
  free(s);
}

int
main(void)
{
  mcp_error_t err;
  char tmpl[] = "/tmp/luamcp-store-XXXXXX";

  ASSERT_EQ(mcp_curl_load(&err), 0);
  ASSERT_NOT_NULL(mkdtemp(tmpl));
  snprintf(dir, sizeof dir, "%s/luamcp/oauth", tmpl);
  RUN_TEST(tokens_round_trip_with_owner_only_modes);
  RUN_TEST(clients_are_kept_per_issuer);
  RUN_TEST(files_we_did_not_write_are_refused);
  RUN_TEST(directory_from_the_environment);
  RUN_TEST(redirect_server);
  RUN_TEST(close_from_inside);
  RUN_TEST(html_escape);
  {
    char cmd[300];

    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpl);
    ASSERT_EQ(system(cmd), 0);
  }
  TEST_DONE();
  return 0;
}
