/*
 * test_auth_urls.c - tests for the values and URLs of the OAuth flow:
 * PKCE (RFC 7636 appendix B), base64url (RFC 4648 vectors), randomness,
 * SHA-256; canonical resource URIs, the well-known metadata URLs in the
 * specification's order, queries and form bodies, address kinds for
 * server-side request forgery, and which URLs may be opened at all.
 */
#include "auth/pkce.h"
#include "auth/urls.h"
#include "common.h"
#include "curl_dl.h"
#include "test.h"

static void
pkce_rfc7636_appendix_b(void)
{
  char out[64];
  mcp_error_t err;

  ASSERT_EQ(mcp_auth_pkce_s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
                               out, &err), 0);
  ASSERT_STR_EQ(out, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
}

static void
base64url_vectors(void)
{
  static const struct { const char *in, *out; } v[] = {
    { "", "" }, { "f", "Zg" }, { "fo", "Zm8" }, { "foo", "Zm9v" },
    { "foob", "Zm9vYg" }, { "fooba", "Zm9vYmE" }, { "foobar", "Zm9vYmFy" },
    { "\xfb\xff\xbf", "-_-_" },
  };
  char out[64];
  size_t i;

  for (i = 0; i < sizeof v / sizeof v[0]; i++) {
    ASSERT_EQ(mcp_auth_base64url((const unsigned char *) v[i].in,
                                 strlen(v[i].in), out, sizeof out),
              strlen(v[i].out));
    ASSERT_STR_EQ(out, v[i].out);
  }
  ASSERT_EQ(mcp_auth_base64url((const unsigned char *) "foobar", 6, out, 8),
            -1);
}

static void
random_values_differ(void)
{
  mcp_auth_pkce_t a, b;
  mcp_error_t err;
  char check[64];
  size_t i;

  ASSERT_EQ(mcp_auth_pkce_new(&a, &err), 0);
  ASSERT_EQ(mcp_auth_pkce_new(&b, &err), 0);
  ASSERT_EQ(strlen(a.verifier), 43);
  ASSERT_EQ(strlen(a.challenge), 43);
  ASSERT(strcmp(a.verifier, b.verifier) != 0);
  for (i = 0; i < 43; i++)
    ASSERT(strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                  "0123456789-_", a.verifier[i]) != NULL);
  ASSERT_EQ(mcp_auth_pkce_s256(a.verifier, check, &err), 0);
  ASSERT_STR_EQ(check, a.challenge);
  ASSERT_EQ(mcp_auth_random(check, 10, 32, &err), MCP_EINVAL);
}

static void
sha256_hex(void)
{
  char hex[65];
  mcp_error_t err;

  ASSERT_EQ(mcp_auth_sha256_hex("abc", 3, hex, &err), 0);
  ASSERT_STR_EQ(hex, "ba7816bf8f01cfea414140de5dae2223"
                     "b00361a396177a9cb410ff61f20015ad");
}

static void
canonical_resource(void)
{
  static const struct { const char *in, *out; } v[] = {
    { "https://EXAMPLE.com/", "https://example.com" },
    { "HTTPS://example.com:443/mcp", "https://example.com/mcp" },
    { "http://example.com:80/mcp#frag", "http://example.com/mcp" },
    { "https://mcp.example.com:8443", "https://mcp.example.com:8443" },
    { "https://user:pw@example.com/server/mcp", "https://example.com/server/mcp" },
    { "http://[::1]:3000/mcp/", "http://[::1]:3000/mcp/" },
    { "https://example.com/mcp?tenant=a", "https://example.com/mcp?tenant=a" },
  };
  mcp_error_t err;
  char *out;
  size_t i;

  for (i = 0; i < sizeof v / sizeof v[0]; i++) {
    ASSERT_EQ(mcp_auth_resource_uri(v[i].in, &out, &err), 0);
    ASSERT_STR_EQ(out, v[i].out);
    free(out);
  }
  ASSERT_EQ(mcp_auth_resource_uri("mcp.example.com", &out, &err),
            MCP_EINVAL);
  ASSERT_EQ(mcp_auth_resource_uri("ftp://example.com/", &out, &err),
            MCP_EINVAL);
  ASSERT_EQ(mcp_auth_resource_equal("https://A.example/mcp",
                                    "https://a.example:443/mcp"), 1);
  ASSERT_EQ(mcp_auth_resource_equal("https://a.example/mcp",
                                    "https://a.example/mcp2"), 0);
  ASSERT_EQ(mcp_auth_resource_covers("https://a.example",
                                     "https://a.example/x/mcp"), 1);
  ASSERT_EQ(mcp_auth_resource_covers("https://a.example/x",
                                     "https://a.example/x/mcp"), 1);
  ASSERT_EQ(mcp_auth_resource_covers("https://a.example/x",
                                     "https://a.example/xy/mcp"), 0);
  ASSERT_EQ(mcp_auth_resource_covers("https://a.example",
                                     "https://a.example.evil/mcp"), 0);
  ASSERT_EQ(mcp_auth_resource_covers("https://a.example/x/mcp/more",
                                     "https://a.example/x/mcp"), 0);
  ASSERT_EQ(mcp_auth_resource_covers("http://a.example/x/mcp",
                                     "https://a.example/x/mcp"), 0);
}

static void
metadata_urls_in_order(void)
{
  char *u[3];
  size_t n, i;
  mcp_error_t err;

  ASSERT_EQ(mcp_auth_prm_urls("https://example.com/public/mcp?x=1", u, &n,
                              &err), 0);
  ASSERT_EQ(n, 2);
  ASSERT_STR_EQ(u[0], "https://example.com/.well-known/"
                      "oauth-protected-resource/public/mcp");
  ASSERT_STR_EQ(u[1], "https://example.com/.well-known/"
                      "oauth-protected-resource");
  for (i = 0; i < n; i++)
    free(u[i]);
  ASSERT_EQ(mcp_auth_prm_urls("https://mcp.example.com", u, &n, &err), 0);
  ASSERT_EQ(n, 1);
  ASSERT_STR_EQ(u[0], "https://mcp.example.com/.well-known/"
                      "oauth-protected-resource");
  free(u[0]);
  ASSERT_EQ(mcp_auth_as_metadata_urls("https://auth.example.com/tenant1",
                                      u, &n, &err), 0);
  ASSERT_EQ(n, 3);
  ASSERT_STR_EQ(u[0], "https://auth.example.com/.well-known/"
                      "oauth-authorization-server/tenant1");
  ASSERT_STR_EQ(u[1], "https://auth.example.com/.well-known/"
                      "openid-configuration/tenant1");
  ASSERT_STR_EQ(u[2], "https://auth.example.com/tenant1/.well-known/"
                      "openid-configuration");
  for (i = 0; i < n; i++)
    free(u[i]);
  ASSERT_EQ(mcp_auth_as_metadata_urls("https://auth.example.com/", u, &n,
                                      &err), 0);
  ASSERT_EQ(n, 2);
  ASSERT_STR_EQ(u[0], "https://auth.example.com/.well-known/"
                      "oauth-authorization-server");
  ASSERT_STR_EQ(u[1], "https://auth.example.com/.well-known/"
                      "openid-configuration");
  for (i = 0; i < n; i++)
    free(u[i]);
  ASSERT_EQ(mcp_auth_origin("https://api.example.com:8443/v1/mcp?q", &u[0],
                            &err), 0);
  ASSERT_STR_EQ(u[0], "https://api.example.com:8443");
  free(u[0]);
}

static void
queries_and_forms(void)
{
  const char *kv[] = { "scope", "mcp:read mcp:write", "state", "a&b=c",
                       "skipped", NULL, "resource", "https://x.example/mcp",
                       "u", "\xc3\xa9" };
  char *url, *body, *v;
  mcp_error_t err;

  ASSERT_EQ(mcp_auth_url_with_query("https://as.example/authorize?x=1", kv,
                                    5, &url, &err), 0);
  ASSERT_STR_EQ(url, "https://as.example/authorize?x=1&"
                     "scope=mcp%3aread+mcp%3awrite&state=a%26b%3dc&"
                     "resource=https%3a%2f%2fx.example%2fmcp&u=%c3%a9");
  /* Decoding gives back every value, whatever case the escapes use. */
  ASSERT_EQ(mcp_auth_form_get(url, "state", &v, &err), 0);
  ASSERT_STR_EQ(v, "a&b=c");
  free(v);
  ASSERT_EQ(mcp_auth_form_get(url, "scope", &v, &err), 0);
  ASSERT_STR_EQ(v, "mcp:read mcp:write");
  free(v);
  ASSERT_EQ(mcp_auth_form_get(url, "skipped", &v, &err), MCP_ENOENT);
  free(url);
  ASSERT_EQ(mcp_auth_form_encode(kv, 2, &body, &err), 0);
  ASSERT_STR_EQ(body, "scope=mcp%3aread+mcp%3awrite&state=a%26b%3dc");
  free(body);
  ASSERT_EQ(mcp_auth_form_get("code=a+b%2B&code=second", "code", &v, &err),
            0);
  ASSERT_STR_EQ(v, "a b+");
  free(v);
  ASSERT_EQ(mcp_auth_form_get("http://127.0.0.1:1234/callback?code=x&state"
                              "=y&iss=http%3A%2F%2Flocalhost%3A3000#f=z",
                              "iss", &v, &err), 0);
  ASSERT_STR_EQ(v, "http://localhost:3000");
  free(v);
  ASSERT_EQ(mcp_auth_form_get("a=1#f=z", "f", &v, &err), MCP_ENOENT);
  ASSERT_EQ(mcp_auth_form_get("a=x%00y", "a", &v, &err), MCP_EINVAL);
  ASSERT_EQ(mcp_auth_form_get("a", "a", &v, &err), 0);
  ASSERT_STR_EQ(v, "");
  free(v);
}

static void
address_kinds(void)
{
  static const struct { const char *ip; mcp_addr_kind_t kind; } v[] = {
    { "8.8.8.8", MCP_ADDR_PUBLIC }, { "127.0.0.1", MCP_ADDR_LOOPBACK },
    { "127.255.0.9", MCP_ADDR_LOOPBACK }, { "10.0.0.1", MCP_ADDR_PRIVATE },
    { "172.15.255.255", MCP_ADDR_PUBLIC }, { "172.16.0.0", MCP_ADDR_PRIVATE },
    { "172.31.255.255", MCP_ADDR_PRIVATE }, { "172.32.0.0", MCP_ADDR_PUBLIC },
    { "192.168.1.1", MCP_ADDR_PRIVATE }, { "192.169.0.1", MCP_ADDR_PUBLIC },
    { "100.64.0.1", MCP_ADDR_PRIVATE }, { "100.128.0.1", MCP_ADDR_PUBLIC },
    { "169.254.169.254", MCP_ADDR_LINK_LOCAL },
    { "0.0.0.0", MCP_ADDR_UNSPECIFIED }, { "224.0.0.1", MCP_ADDR_UNSPECIFIED },
    { "255.255.255.255", MCP_ADDR_UNSPECIFIED },
    { "::1", MCP_ADDR_LOOPBACK }, { "::", MCP_ADDR_UNSPECIFIED },
    { "fe80::1", MCP_ADDR_LINK_LOCAL }, { "fd00::1", MCP_ADDR_PRIVATE },
    { "fc00::1", MCP_ADDR_PRIVATE }, { "ff02::1", MCP_ADDR_UNSPECIFIED },
    { "2001:4860::8888", MCP_ADDR_PUBLIC },
    { "::ffff:10.0.0.1", MCP_ADDR_PRIVATE },
    { "::ffff:127.0.0.1", MCP_ADDR_LOOPBACK },
    { "::ffff:8.8.8.8", MCP_ADDR_PUBLIC },
    { "64:ff9b::a9fe:a9fe", MCP_ADDR_LINK_LOCAL },
    { "::10.0.0.1", MCP_ADDR_PRIVATE },
    { "example.com", MCP_ADDR_INVALID }, { "", MCP_ADDR_INVALID },
  };
  size_t i;

  for (i = 0; i < sizeof v / sizeof v[0]; i++)
    if (mcp_auth_address_kind(v[i].ip) != v[i].kind)
      TEST_FAIL_("%s: kind %d, expected %d", v[i].ip,
                 (int) mcp_auth_address_kind(v[i].ip), (int) v[i].kind);
  ASSERT_EQ(mcp_auth_address_allowed("8.8.8.8", NULL), 1);
  ASSERT_EQ(mcp_auth_address_allowed("127.0.0.1", NULL), 0);
  ASSERT_EQ(mcp_auth_address_allowed("127.0.0.1", "127.0.0.1"), 1);
  ASSERT_EQ(mcp_auth_address_allowed("::ffff:127.0.0.1", "127.0.0.1"), 1);
  ASSERT_EQ(mcp_auth_address_allowed("127.0.0.2", "127.0.0.1"), 0);
  ASSERT_EQ(mcp_auth_address_allowed("10.0.0.1", "10.0.0.2"), 0);
  ASSERT_EQ(mcp_auth_address_allowed("garbage", "garbage"), 0);
}

static void
urls_that_may_be_opened(void)
{
  ASSERT_EQ(mcp_auth_url_allowed("https://as.example/authorize"), 1);
  ASSERT_EQ(mcp_auth_url_allowed("http://localhost:3000/authorize"), 1);
  ASSERT_EQ(mcp_auth_url_allowed("http://127.0.0.1/a"), 1);
  ASSERT_EQ(mcp_auth_url_allowed("http://[::1]:9/a"), 1);
  ASSERT_EQ(mcp_auth_url_allowed("http://as.example/authorize"), 0);
  ASSERT_EQ(mcp_auth_url_allowed("javascript:alert(1)"), 0);
  ASSERT_EQ(mcp_auth_url_allowed("data:text/html,x"), 0);
  ASSERT_EQ(mcp_auth_url_allowed("file:///etc/passwd"), 0);
  ASSERT_EQ(mcp_auth_url_allowed("vbscript:x"), 0);
}

int
main(void)
{
  mcp_error_t err;

  ASSERT_EQ(mcp_curl_load(&err), 0);
  RUN_TEST(pkce_rfc7636_appendix_b);
  RUN_TEST(base64url_vectors);
  RUN_TEST(random_values_differ);
  RUN_TEST(sha256_hex);
  RUN_TEST(canonical_resource);
  RUN_TEST(metadata_urls_in_order);
  RUN_TEST(queries_and_forms);
  RUN_TEST(address_kinds);
  RUN_TEST(urls_that_may_be_opened);
  TEST_DONE();
  return 0;
}
