/*
 * test_http_url.c - the URL helpers of src/core/http.c: origin comparison
 * and reference resolution (both on libcurl's URL API), plus the
 * synchronous failures of mcp_http_start, which need no network.
 */
#include <stdlib.h>

#include "http.h"
#include "test.h"

static void
test_same_origin(void)
{
  ASSERT_EQ(mcp_http_same_origin("http://a.example/x", "http://a.example/y?q"),
            1);
  ASSERT_EQ(mcp_http_same_origin("http://a.example/", "http://a.example:80/"),
            1);
  ASSERT_EQ(mcp_http_same_origin("https://A.Example/", "https://a.example:443"),
            1);
  ASSERT_EQ(mcp_http_same_origin("http://a.example/", "https://a.example/"),
            0);
  ASSERT_EQ(mcp_http_same_origin("http://a.example/", "http://b.example/"),
            0);
  ASSERT_EQ(mcp_http_same_origin("http://a.example:8080/",
                                 "http://a.example:8081/"), 0);
  ASSERT_EQ(mcp_http_same_origin("http://127.0.0.1:1/", "http://localhost:1/"),
            0);
  ASSERT_EQ(mcp_http_same_origin("http://[::1]:9/a", "http://[::1]:9/b"), 1);
  ASSERT_EQ(mcp_http_same_origin("not a url", "http://a.example/"),
            MCP_EINVAL);
}

static void
check_resolve(const char *base, const char *ref, const char *want)
{
  char *out = NULL;
  mcp_error_t err;

  ASSERT_EQ(mcp_http_resolve(base, ref, &out, &err), 0);
  ASSERT_STR_EQ(out, want);
  free(out);
}

static void
test_resolve(void)
{
  char *out = NULL;
  mcp_error_t err;

  check_resolve("http://h.example/sse", "/messages?sessionId=1",
                "http://h.example/messages?sessionId=1");
  check_resolve("http://h.example/a/b/sse", "messages",
                "http://h.example/a/b/messages");
  check_resolve("http://h.example/a/b", "../c", "http://h.example/c");
  check_resolve("http://h.example:8/x", "https://o.example/y",
                "https://o.example/y");
  check_resolve("http://h.example/x", "//o.example/y", "http://o.example/y");
  ASSERT_EQ(mcp_http_resolve("nope", "/x", &out, &err), MCP_EINVAL);
  ASSERT_NULL(out);
}

static void
on_done(mcp_http_t *req, const mcp_error_t *err, void *ud)
{
  (void) req;
  (void) err;
  (void) ud;
  ASSERT(0); /* a request that failed to start never completes */
}

static void
test_start_rejects(void)
{
  uv_loop_t loop;
  mcp_curl_uv_t *cu;
  mcp_http_t *req;
  mcp_http_opts_t o;
  mcp_http_cb_t cb = { NULL, NULL, on_done };
  mcp_error_t err;
  const char *bad_header[] = { "X-A: 1\r\nX-B: 2" };

  ASSERT_EQ(uv_loop_init(&loop), 0);
  ASSERT_EQ(mcp_curl_uv_new(&loop, &cu, &err), 0);
  memset(&o, 0, sizeof o);
  o.url = "gopher://h.example/";
  ASSERT_EQ(mcp_http_start(cu, &o, &cb, NULL, &req, &err), MCP_EINVAL);
  ASSERT_NULL(req);
  o.url = "http://h.example/";
  o.method = "GET X";
  ASSERT_EQ(mcp_http_start(cu, &o, &cb, NULL, &req, &err), MCP_EINVAL);
  o.method = NULL;
  o.headers = bad_header;
  o.nheaders = 1;
  ASSERT_EQ(mcp_http_start(cu, &o, &cb, NULL, &req, &err), MCP_EINVAL);
  ASSERT_EQ(mcp_curl_uv_count(cu), 0);
  mcp_curl_uv_close(cu);
  ASSERT_EQ(uv_run(&loop, UV_RUN_DEFAULT), 0);
  ASSERT_EQ(uv_loop_close(&loop), 0);
}

int
main(void)
{
  RUN_TEST(test_same_origin);
  RUN_TEST(test_resolve);
  RUN_TEST(test_start_rejects);
  TEST_DONE();
}
