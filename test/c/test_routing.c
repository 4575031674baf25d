/*
 * test_routing.c - the 2026-07-28 era's routing headers (routing.c):
 * Mcp-Method and Mcp-Name of each method, the base64 sentinel, and the
 * Mcp-Param-* headers of a tool's declared x-mcp-header arguments
 * (strings, integers, booleans, empty, null, absent, nested), the
 * declarations' checks and the size bound.
 */
#include <stdio.h>
#include <string.h>

#include "curl_dl.h"
#include "routing.h"
#include "test.h"

/* The header lines of request text, joined by '|'. */
static const char *
lines_of(const mcp_routing_t *r, const char *text)
{
  static char joined[4096];
  mcp_buf_t out;
  mcp_error_t err;
  size_t n = 0, i, at = 0;
  const char *line;

  mcp_buf_init(&out, 0);
  ASSERT_EQ(mcp_routing_headers(r, text, strlen(text), &out, &n, &err), 0);
  joined[0] = '\0';
  for (i = 0, line = out.data; i < n; i++) {
    at += snprintf(joined + at, sizeof joined - at, "%s%s", i ? "|" : "", line);
    line += strlen(line) + 1;
  }
  mcp_buf_free(&out);
  return joined;
}

static void
method_and_name(void)
{
  ASSERT_STR_EQ(lines_of(NULL, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"),
                "Mcp-Method: tools/list");
  ASSERT_STR_EQ(lines_of(NULL, "{\"id\":1,\"method\":\"tools/call\",\"params\":"
                         "{\"name\":\"add\",\"arguments\":{\"a\":1}}}"),
                "Mcp-Method: tools/call|Mcp-Name: add");
  ASSERT_STR_EQ(lines_of(NULL, "{\"id\":1,\"method\":\"resources/read\",\"params\":"
                         "{\"uri\":\"file:///a%20b?x=1\"}}"),
                "Mcp-Method: resources/read|Mcp-Name: file:///a%20b?x=1");
  ASSERT_STR_EQ(lines_of(NULL, "{\"id\":1,\"method\":\"prompts/get\",\"params\":"
                         "{\"name\":\" padded\"}}"),
                "Mcp-Method: prompts/get|Mcp-Name: =?base64?IHBhZGRlZA==?=");
  ASSERT_STR_EQ(lines_of(NULL, "{\"id\":1,\"method\":\"tasks/get\",\"params\":"
                         "{\"taskId\":\"t-1\"}}"),
                "Mcp-Method: tasks/get|Mcp-Name: t-1");
  /* The sentinel's own form is encoded too, so that it reads back as sent. */
  ASSERT_STR_EQ(lines_of(NULL, "{\"id\":1,\"method\":\"prompts/get\",\"params\":"
                         "{\"name\":\"=?base64?eA==?=\"}}"),
                "Mcp-Method: prompts/get|Mcp-Name: =?base64?PT9iYXNlNjQ/ZUE9PT89?=");
  /* No method: no request, no headers. */
  ASSERT_STR_EQ(lines_of(NULL, "{\"id\":1,\"result\":{}}"), "");
}

static void
param_values(void)
{
  mcp_routing_t *r = mcp_routing_new();
  mcp_error_t err;

  ASSERT_EQ(mcp_routing_declare(r, "t", "[[\"Region\",\"region\"],"
                                "[\"N\",\"n\"],[\"Flag\",\"flag\"],"
                                "[\"Empty\",\"empty\"],[\"Nil\",\"nil\"],"
                                "[\"Absent\",\"absent\"],"
                                "[\"Zone\",\"where\",\"zone\"],"
                                "[\"Uni\",\"uni\"],[\"Ctl\",\"ctl\"]]", &err), 0);
  ASSERT_STR_EQ(lines_of(r, "{\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\","
                         "\"arguments\":{\"region\":\"us west 1\",\"n\":-42,\"flag\":false,"
                         "\"empty\":\"\",\"nil\":null,\"where\":{\"zone\":\"b\"},"
                         "\"uni\":\"\\u4e16\",\"ctl\":\"a\\nb\",\"other\":\"x\"}}}"),
                "Mcp-Method: tools/call|Mcp-Name: t|Mcp-Param-Region: us west 1|"
                "Mcp-Param-N: -42|Mcp-Param-Flag: false|Mcp-Param-Empty: |"
                "Mcp-Param-Zone: b|Mcp-Param-Uni: =?base64?5LiW?=|"
                "Mcp-Param-Ctl: =?base64?YQpi?=");
  /* Another tool, or the same after its declaration is withdrawn: none. */
  ASSERT_STR_EQ(lines_of(r, "{\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"u\","
                         "\"arguments\":{\"region\":\"x\"}}}"),
                "Mcp-Method: tools/call|Mcp-Name: u");
  ASSERT_EQ(mcp_routing_declare(r, "t", NULL, &err), 0);
  ASSERT_STR_EQ(lines_of(r, "{\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\","
                         "\"arguments\":{\"region\":\"x\"}}}"),
                "Mcp-Method: tools/call|Mcp-Name: t");
  /* Forgetting all. */
  ASSERT_EQ(mcp_routing_declare(r, "t", "[[\"R\",\"region\"]]", &err), 0);
  ASSERT_EQ(mcp_routing_declare(r, NULL, NULL, &err), 0);
  ASSERT_STR_EQ(lines_of(r, "{\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\","
                         "\"arguments\":{\"region\":\"x\"}}}"),
                "Mcp-Method: tools/call|Mcp-Name: t");
  mcp_routing_free(r);
}

static void
bad_declarations(void)
{
  mcp_routing_t *r = mcp_routing_new();
  mcp_error_t err;
  char many[4096];
  int i, at = 0;

  ASSERT_EQ(mcp_routing_declare(r, "t", "{}", &err), MCP_EINVAL);
  ASSERT_EQ(mcp_routing_declare(r, "t", "[[\"OnlyName\"]]", &err), MCP_EINVAL);
  ASSERT_EQ(mcp_routing_declare(r, "t", "[[\"R\",1]]", &err), MCP_EINVAL);
  ASSERT_EQ(mcp_routing_declare(r, "t", "not json", &err), MCP_EINVAL);
  at += snprintf(many + at, sizeof many - at, "[");
  for (i = 0; i <= MCP_ROUTING_MAX_PARAMS; i++)
    at += snprintf(many + at, sizeof many - at, "%s[\"H%d\",\"p\"]", i ? "," : "", i);
  snprintf(many + at, sizeof many - at, "]");
  ASSERT_EQ(mcp_routing_declare(r, "t", many, &err), MCP_EINVAL);
  mcp_routing_free(r);
}

static void
too_long(void)
{
  mcp_routing_t *r = mcp_routing_new();
  static char text[MCP_ROUTING_MAX + 200];
  mcp_buf_t out;
  mcp_error_t err;
  size_t n = 99;
  int at;

  ASSERT_EQ(mcp_routing_declare(r, "t", "[[\"Big\",\"big\"]]", &err), 0);
  at = snprintf(text, sizeof text, "{\"id\":1,\"method\":\"tools/call\",\"params\":"
                "{\"name\":\"t\",\"arguments\":{\"big\":\"");
  memset(text + at, 'x', MCP_ROUTING_MAX);
  snprintf(text + at + MCP_ROUTING_MAX, sizeof text - at - MCP_ROUTING_MAX, "\"}}}");
  mcp_buf_init(&out, 0);
  ASSERT_EQ(mcp_routing_headers(r, text, strlen(text), &out, &n, &err), MCP_ETOOBIG);
  ASSERT(strstr(err.msg, "bytes") != NULL);
  ASSERT_EQ(n, 0);
  mcp_buf_free(&out);
  mcp_routing_free(r);
}

int
main(void)
{
  mcp_error_t err;

  ASSERT_EQ(mcp_curl_load(&err), 0);   /* base64 is libcrypto's */
  RUN_TEST(method_and_name);
  RUN_TEST(param_values);
  RUN_TEST(bad_declarations);
  RUN_TEST(too_long);
  TEST_DONE();
}
