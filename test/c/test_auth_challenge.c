/*
 * test_auth_challenge.c - tests for the WWW-Authenticate parser
 * (challenge.c): the RFC 6750 and MCP examples, several challenges,
 * token68, quoted strings and escapes, whitespace around "=", empty list
 * elements, the limits, and byte by byte: every prefix of every example
 * parses or fails cleanly, read from an exactly-sized buffer without a
 * terminating NUL (so an overread is caught by ASan).
 */
#include "auth/challenge.h"
#include "common.h"
#include "test.h"

static mcp_auth_challenges_t
parse_ok(const char *text)
{
  mcp_auth_challenges_t c;
  mcp_error_t err;
  int rc = mcp_auth_challenges_parse(text, strlen(text), &c, &err);

  if (rc != 0)
    TEST_FAIL_("parsing <%s>: %s", text, err.msg);
  return c;
}

static int
parse_rc(const char *text, size_t len, mcp_error_t *err)
{
  mcp_auth_challenges_t c;
  char *copy = malloc(len > 0 ? len : 1);   /* no NUL after the text */
  int rc;

  ASSERT_NOT_NULL(copy);
  memcpy(copy, text, len);
  rc = mcp_auth_challenges_parse(copy, len, &c, err);
  if (rc == 0) {
    size_t i;

    for (i = 0; i < c.n; i++)
      ASSERT(c.v[i].scheme[0] != '\0');
  } else {
    ASSERT_EQ(c.n, 0);
    ASSERT_NULL(c.v);
  }
  mcp_auth_challenges_free(&c);
  free(copy);
  return rc;
}

static void
rfc6750_example(void)
{
  mcp_auth_challenges_t c = parse_ok(
    "Bearer realm=\"example\", error=\"invalid_token\", "
    "error_description=\"The access token expired\"");

  ASSERT_EQ(c.n, 1);
  ASSERT_STR_EQ(c.v[0].scheme, "Bearer");
  ASSERT_EQ(c.v[0].nparams, 3);
  ASSERT_STR_EQ(mcp_auth_challenge_param(&c.v[0], "realm"), "example");
  ASSERT_STR_EQ(mcp_auth_challenge_param(&c.v[0], "ERROR"), "invalid_token");
  ASSERT_STR_EQ(mcp_auth_challenge_param(&c.v[0], "error_description"),
                "The access token expired");
  ASSERT_NULL(mcp_auth_challenge_param(&c.v[0], "scope"));
  mcp_auth_challenges_free(&c);
}

static void
mcp_401_and_403(void)
{
  static const char h401[] =
    "Bearer error=\"invalid_token\", error_description=\"Missing "
    "Authorization header\", resource_metadata=\"http://localhost:3000/"
    ".well-known/oauth-protected-resource/mcp\"";
  static const char h403[] =
    "Bearer error=\"insufficient_scope\", scope=\"mcp:read mcp:write\", "
    "resource_metadata=\"https://mcp.example.com/.well-known/"
    "oauth-protected-resource\", error_description=\"more scope\"";
  mcp_auth_bearer_t b;
  mcp_error_t err;

  ASSERT_EQ(mcp_auth_bearer_parse(h401, strlen(h401), &b, &err), 0);
  ASSERT_STR_EQ(b.resource_metadata, "http://localhost:3000/.well-known/"
                "oauth-protected-resource/mcp");
  ASSERT_STR_EQ(b.error, "invalid_token");
  ASSERT_NULL(b.scope);
  mcp_auth_bearer_free(&b);
  ASSERT_EQ(mcp_auth_bearer_parse(h403, strlen(h403), &b, &err), 0);
  ASSERT_STR_EQ(b.error, "insufficient_scope");
  ASSERT_STR_EQ(b.scope, "mcp:read mcp:write");
  ASSERT_STR_EQ(b.error_description, "more scope");
  mcp_auth_bearer_free(&b);
  ASSERT_EQ(mcp_auth_bearer_parse("Basic realm=\"x\"", 15, &b, &err),
            MCP_ENOENT);
}

static void
several_challenges_and_token68(void)
{
  mcp_auth_challenges_t c = parse_ok(
    "Basic realm=\"simple\", Newauth realm=\"apps\", type=1, "
    "title=\"Login to \\\"apps\\\"\", Negotiate abc+/==, "
    "DPoP algs=\"ES256 PS256\", Bearer scope=x");
  const mcp_auth_challenge_t *ch;

  ASSERT_EQ(c.n, 5);
  ASSERT_STR_EQ(c.v[1].scheme, "Newauth");
  ASSERT_EQ(c.v[1].nparams, 3);
  ASSERT_STR_EQ(mcp_auth_challenge_param(&c.v[1], "type"), "1");
  ASSERT_STR_EQ(mcp_auth_challenge_param(&c.v[1], "title"),
                "Login to \"apps\"");
  ASSERT_STR_EQ(c.v[2].scheme, "Negotiate");
  ASSERT_STR_EQ(c.v[2].token68, "abc+/==");
  ASSERT_EQ(c.v[2].nparams, 0);
  ch = mcp_auth_challenges_find(&c, "dpop");
  ASSERT_NOT_NULL(ch);
  ASSERT_STR_EQ(mcp_auth_challenge_param(ch, "algs"), "ES256 PS256");
  ch = mcp_auth_challenges_find(&c, "BEARER");
  ASSERT_NOT_NULL(ch);
  ASSERT_STR_EQ(mcp_auth_challenge_param(ch, "scope"), "x");
  ASSERT_NULL(mcp_auth_challenges_find(&c, "Digest"));
  mcp_auth_challenges_free(&c);
}

static void
whitespace_escapes_and_empty_elements(void)
{
  mcp_auth_challenges_t c = parse_ok(
    " ,Bearer   realm = \"a\\\\b\" ,  , scope=\"\" , error=\"x\\,y\",");

  ASSERT_EQ(c.n, 1);
  ASSERT_EQ(c.v[0].nparams, 3);
  ASSERT_STR_EQ(mcp_auth_challenge_param(&c.v[0], "realm"), "a\\b");
  ASSERT_STR_EQ(mcp_auth_challenge_param(&c.v[0], "scope"), "");
  ASSERT_STR_EQ(mcp_auth_challenge_param(&c.v[0], "error"), "x,y");
  mcp_auth_challenges_free(&c);
  c = parse_ok("Bearer");
  ASSERT_EQ(c.n, 1);
  ASSERT_EQ(c.v[0].nparams, 0);
  ASSERT_NULL(c.v[0].token68);
  mcp_auth_challenges_free(&c);
  c = parse_ok("");
  ASSERT_EQ(c.n, 0);
  mcp_auth_challenges_free(&c);
}

/* Duplicates are all kept; lookup gives the first. */
static void
duplicate_parameters(void)
{
  mcp_auth_challenges_t c = parse_ok("Bearer scope=a, scope=b");

  ASSERT_EQ(c.v[0].nparams, 2);
  ASSERT_STR_EQ(mcp_auth_challenge_param(&c.v[0], "scope"), "a");
  mcp_auth_challenges_free(&c);
}

static void
bad_input_says_where(void)
{
  static const struct { const char *text; size_t len; size_t at; } bad[] = {
    { "Bearer realm=\"unterminated", 26, 26 },
    { "Bearer realm=\"a\tb\x01\"", 20, 0 },
    { "Bearer =value", 13, 7 },
    { "Bearer a=b, realm=", 18, 18 },   /* (alone, "realm=" is token68) */
    { "Bearer realm=\"x\" junk", 21, 18 },
    { "Bearer a=b c", 12, 11 },
    { "\"Bearer\"", 8, 0 },
    { "Bearer realm=\"a\0b\"", 18, 0 },
    { "Bearer\x7f", 7, 0 },
  };
  mcp_error_t err;
  size_t i;

  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    if (parse_rc(bad[i].text, bad[i].len, &err) != MCP_EPROTO)
      TEST_FAIL_("bad input %zu was accepted", i);
    ASSERT(strstr(err.msg, "WWW-Authenticate") != NULL);
  }
  /* The offset is in the message. */
  ASSERT_EQ(parse_rc("Bearer =value", 13, &err), MCP_EPROTO);
  ASSERT(strstr(err.msg, "byte 7") != NULL);
  {
    mcp_auth_challenges_t c = parse_ok("Bearer realm=");

    ASSERT_STR_EQ(c.v[0].token68, "realm=");
    mcp_auth_challenges_free(&c);
  }
}

static void
limits(void)
{
  char *text = malloc(MCP_AUTH_MAX_CHALLENGE_TEXT + 64);
  mcp_error_t err;
  size_t n = 0;
  int i;

  ASSERT_NOT_NULL(text);
  for (i = 0; i < MCP_AUTH_MAX_CHALLENGES; i++)
    n += (size_t) sprintf(text + n, "S%d a=b, ", i);
  ASSERT_EQ(parse_rc(text, n, &err), 0);
  n += (size_t) sprintf(text + n, "One more");
  ASSERT_EQ(parse_rc(text, n, &err), MCP_ETOOBIG);
  n = (size_t) sprintf(text, "Bearer ");
  for (i = 0; i < MCP_AUTH_MAX_PARAMS; i++)
    n += (size_t) sprintf(text + n, "p%d=v, ", i);
  ASSERT_EQ(parse_rc(text, n, &err), 0);
  n += (size_t) sprintf(text + n, "p=v");
  ASSERT_EQ(parse_rc(text, n, &err), MCP_ETOOBIG);
  memset(text, 'a', MCP_AUTH_MAX_CHALLENGE_TEXT + 1);
  ASSERT_EQ(parse_rc(text, MCP_AUTH_MAX_CHALLENGE_TEXT + 1, &err),
            MCP_ETOOBIG);
  ASSERT_EQ(parse_rc(text, MCP_AUTH_MAX_CHALLENGE_TEXT, &err), 0);
  free(text);
}

/* Every prefix of every example: a clean answer, never a crash or an
 * overread (the copy has no byte past the prefix). */
static void
every_prefix(void)
{
  static const char *const examples[] = {
    "Bearer realm=\"example\", error=\"invalid_token\", "
      "error_description=\"The access token expired\"",
    "Basic realm=\"simple\", Newauth realm=\"apps\", type=1, "
      "title=\"Login to \\\"apps\\\"\", Negotiate abc+/==",
    "DPoP algs=\"ES256\", Bearer scope=\"a b\", error=x",
  };
  mcp_error_t err;
  size_t i, len;
  int rc;

  for (i = 0; i < sizeof examples / sizeof examples[0]; i++) {
    for (len = 0; len <= strlen(examples[i]); len++) {
      rc = parse_rc(examples[i], len, &err);
      ASSERT(rc == 0 || rc == MCP_EPROTO);
    }
  }
}

int
main(void)
{
  RUN_TEST(rfc6750_example);
  RUN_TEST(mcp_401_and_403);
  RUN_TEST(several_challenges_and_token68);
  RUN_TEST(whitespace_escapes_and_empty_elements);
  RUN_TEST(duplicate_parameters);
  RUN_TEST(bad_input_says_where);
  RUN_TEST(limits);
  RUN_TEST(every_prefix);
  TEST_DONE();
  return 0;
}
