/*
 * test_auth_metadata.c - tests for the OAuth metadata rules (metadata.c):
 * protected-resource metadata for the right resource only, authorization-
 * server metadata for the right issuer only, PKCE S256 read, endpoints
 * that must be https or loopback http, the 2025-03-26 defaults, and the
 * scope lists a step-up unions.
 */
#include "auth/metadata.h"
#include "common.h"
#include "curl_dl.h"
#include "test.h"

static cJSON *
parse(const char *text)
{
  cJSON *doc = cJSON_Parse(text);

  ASSERT_NOT_NULL(doc);
  return doc;
}

static void
prm_for_the_resource_is_read(void)
{
  cJSON *doc = parse("{\"resource\":\"https://MCP.example.com/mcp\","
                     "\"authorization_servers\":[\"https://as.example.com\","
                     "\"https://other.example.com\"],"
                     "\"scopes_supported\":[\"mcp:read\",\"mcp:write\"]}");
  mcp_auth_prm_t prm;
  mcp_error_t err;

  ASSERT_EQ(mcp_auth_prm_read(doc, "https://mcp.example.com/mcp", &prm,
                              &err), 0);
  ASSERT_STR_EQ(prm.authorization_server, "https://as.example.com");
  ASSERT_STR_EQ(prm.scopes, "mcp:read mcp:write");
  mcp_auth_prm_free(&prm);
  cJSON_Delete(doc);
}

static void
prm_for_another_resource_is_refused(void)
{
  cJSON *doc = parse("{\"resource\":\"https://mcp.example.com/other\","
                     "\"authorization_servers\":[\"https://as.example.com\"]}");
  mcp_auth_prm_t prm;
  mcp_error_t err;

  ASSERT_EQ(mcp_auth_prm_read(doc, "https://mcp.example.com/mcp", &prm,
                              &err), MCP_EAUTH);
  ASSERT(strstr(err.msg, "is for https://mcp.example.com/other") != NULL);
  ASSERT_NULL(prm.authorization_server);
  cJSON_Delete(doc);
}

static void
prm_without_servers_or_with_bad_ones_is_refused(void)
{
  static const char *const bad[] = {
    "{\"resource\":\"https://m.example/mcp\"}",
    "{\"resource\":\"https://m.example/mcp\",\"authorization_servers\":[]}",
    "{\"resource\":\"https://m.example/mcp\",\"authorization_servers\":[1]}",
    "{\"resource\":\"https://m.example/mcp\","
      "\"authorization_servers\":[\"javascript:alert(1)\"]}",
    "{\"resource\":\"https://m.example/mcp\","
      "\"authorization_servers\":[\"http://as.example.com\"]}",
    "{\"resource\":\"https://m.example/mcp\",\"authorization_servers\":"
      "[\"https://as.example\"],\"scopes_supported\":[\"a b\"]}",
    "{\"authorization_servers\":[\"https://as.example\"]}",
    "[]",
  };
  mcp_auth_prm_t prm;
  mcp_error_t err;
  size_t i;

  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cJSON *doc = parse(bad[i]);

    ASSERT_EQ(mcp_auth_prm_read(doc, "https://m.example/mcp", &prm, &err),
              MCP_EAUTH);
    cJSON_Delete(doc);
  }
}

static const char as_doc[] =
  "{\"issuer\":\"https://as.example.com/tenant\","
  "\"authorization_endpoint\":\"https://as.example.com/tenant/authorize\","
  "\"token_endpoint\":\"https://as.example.com/tenant/token\","
  "\"registration_endpoint\":\"https://as.example.com/tenant/register\","
  "\"code_challenge_methods_supported\":[\"plain\",\"S256\"],"
  "\"token_endpoint_auth_methods_supported\":[\"client_secret_post\"],"
  "\"client_id_metadata_document_supported\":true,"
  "\"authorization_response_iss_parameter_supported\":true,"
  "\"scopes_supported\":[\"openid\",\"offline_access\"]}";

static void
asmeta_for_the_issuer_is_read(void)
{
  cJSON *doc = parse(as_doc);
  mcp_auth_asmeta_t m;
  mcp_error_t err;

  ASSERT_EQ(mcp_auth_asmeta_read(doc, "https://as.example.com/tenant", &m,
                                 &err), 0);
  ASSERT_STR_EQ(m.token_endpoint, "https://as.example.com/tenant/token");
  ASSERT_STR_EQ(m.registration_endpoint,
                "https://as.example.com/tenant/register");
  ASSERT_EQ(m.s256, 1);
  ASSERT_EQ(m.cimd, 1);
  ASSERT_EQ(m.iss_supported, 1);
  ASSERT_EQ(m.auth_post, 1);
  ASSERT_EQ(m.auth_basic, 0);
  ASSERT_EQ(m.auth_none, 0);
  ASSERT_STR_EQ(m.scopes, "openid offline_access");
  mcp_auth_asmeta_free(&m);
  cJSON_Delete(doc);
}

/* RFC 8414 section 3.3: identical, so a trailing slash or another case is
 * another issuer. */
static void
asmeta_for_another_issuer_is_refused(void)
{
  static const char *const others[] = {
    "https://as.example.com/tenant/", "https://AS.example.com/tenant",
    "https://as.example.com", "https://attacker.example.com/tenant",
  };
  cJSON *doc = parse(as_doc);
  mcp_auth_asmeta_t m;
  mcp_error_t err;
  size_t i;

  for (i = 0; i < sizeof others / sizeof others[0]; i++) {
    ASSERT_EQ(mcp_auth_asmeta_read(doc, others[i], &m, &err), MCP_EAUTH);
    ASSERT_NULL(m.token_endpoint);
  }
  cJSON_Delete(doc);
}

static void
asmeta_without_s256_is_marked(void)
{
  cJSON *listed = parse("{\"issuer\":\"https://a.example\","
                        "\"authorization_endpoint\":\"https://a.example/a\","
                        "\"token_endpoint\":\"https://a.example/t\","
                        "\"code_challenge_methods_supported\":[\"plain\"]}");
  cJSON *absent = parse("{\"issuer\":\"https://a.example\","
                        "\"authorization_endpoint\":\"https://a.example/a\","
                        "\"token_endpoint\":\"https://a.example/t\"}");
  mcp_auth_asmeta_t m;
  mcp_error_t err;

  ASSERT_EQ(mcp_auth_asmeta_read(listed, "https://a.example", &m, &err), 0);
  ASSERT_EQ(m.s256, 0);
  ASSERT_EQ(m.methods_listed, 1);
  mcp_auth_asmeta_free(&m);
  ASSERT_EQ(mcp_auth_asmeta_read(absent, "https://a.example", &m, &err), 0);
  ASSERT_EQ(m.s256, 0);
  ASSERT_EQ(m.methods_listed, 0);
  ASSERT_EQ(m.auth_basic, 1);     /* RFC 8414's default */
  mcp_auth_asmeta_free(&m);
  cJSON_Delete(listed);
  cJSON_Delete(absent);
}

static void
asmeta_endpoints_must_be_https_or_loopback(void)
{
  cJSON *plain = parse("{\"issuer\":\"https://a.example\","
                       "\"authorization_endpoint\":\"http://a.example/a\","
                       "\"token_endpoint\":\"https://a.example/t\"}");
  cJSON *loop = parse("{\"issuer\":\"http://localhost:9\","
                      "\"authorization_endpoint\":\"http://localhost:9/a\","
                      "\"token_endpoint\":\"http://127.0.0.1:9/t\"}");
  cJSON *no_token = parse("{\"issuer\":\"https://a.example\","
                          "\"authorization_endpoint\":\"https://a.example/a\"}");
  mcp_auth_asmeta_t m;
  mcp_error_t err;

  ASSERT_EQ(mcp_auth_asmeta_read(plain, "https://a.example", &m, &err),
            MCP_EAUTH);
  ASSERT(strstr(err.msg, "authorization_endpoint") != NULL);
  ASSERT_EQ(mcp_auth_asmeta_read(loop, "http://localhost:9", &m, &err), 0);
  mcp_auth_asmeta_free(&m);
  ASSERT_EQ(mcp_auth_asmeta_read(no_token, "https://a.example", &m, &err),
            MCP_EAUTH);
  ASSERT(strstr(err.msg, "token_endpoint") != NULL);
  cJSON_Delete(plain);
  cJSON_Delete(loop);
  cJSON_Delete(no_token);
}

/* What the grants without a person and DPoP read: the jwt-bearer grant,
 * private_key_jwt and its algorithms, DPoP's algorithms (RFC 9449 5.1). */
static void
asmeta_machine_signals_are_read(void)
{
  cJSON *m2m = parse("{\"issuer\":\"https://a.example\","
    "\"authorization_endpoint\":\"https://a.example/a\","
    "\"token_endpoint\":\"https://a.example/t\","
    "\"grant_types_supported\":[\"client_credentials\","
    "\"urn:ietf:params:oauth:grant-type:jwt-bearer\"],"
    "\"token_endpoint_auth_methods_supported\":[\"private_key_jwt\"],"
    "\"token_endpoint_auth_signing_alg_values_supported\":[\"ES256\"],"
    "\"dpop_signing_alg_values_supported\":[\"ES256\",\"EdDSA\"]}");
  cJSON *plain = parse("{\"issuer\":\"https://a.example\","
    "\"authorization_endpoint\":\"https://a.example/a\","
    "\"token_endpoint\":\"https://a.example/t\","
    "\"grant_types_supported\":[\"authorization_code\"],"
    "\"dpop_signing_alg_values_supported\":[\"RS256\"]}");
  mcp_auth_asmeta_t m;
  mcp_error_t err;

  ASSERT_EQ(mcp_auth_asmeta_read(m2m, "https://a.example", &m, &err), 0);
  ASSERT_EQ(m.grants_listed, 1);
  ASSERT_EQ(m.jwt_bearer, 1);
  ASSERT_EQ(m.auth_private_key_jwt, 1);
  ASSERT_EQ(m.auth_basic, 0);
  ASSERT_EQ(m.signing_listed, 1);
  ASSERT_EQ(m.signing_es256, 1);
  ASSERT_EQ(m.signing_rs256, 0);
  ASSERT_EQ(m.dpop_es256, 1);
  mcp_auth_asmeta_free(&m);
  ASSERT_EQ(mcp_auth_asmeta_read(plain, "https://a.example", &m, &err), 0);
  ASSERT_EQ(m.grants_listed, 1);
  ASSERT_EQ(m.jwt_bearer, 0);
  ASSERT_EQ(m.signing_listed, 0);
  ASSERT_EQ(m.dpop_es256, 0);    /* luamcp's DPoP keys are ES256 */
  mcp_auth_asmeta_free(&m);
  cJSON_Delete(m2m);
  cJSON_Delete(plain);
}

static void
legacy_defaults_are_at_the_base(void)
{
  mcp_auth_asmeta_t m;
  mcp_error_t err;

  ASSERT_EQ(mcp_auth_asmeta_default("http://localhost:3000", &m, &err), 0);
  ASSERT_STR_EQ(m.authorization_endpoint, "http://localhost:3000/authorize");
  ASSERT_STR_EQ(m.token_endpoint, "http://localhost:3000/token");
  ASSERT_STR_EQ(m.registration_endpoint, "http://localhost:3000/register");
  ASSERT_EQ(m.s256, 1);
  mcp_auth_asmeta_free(&m);
}

static void
scope_lists(void)
{
  char *u;
  int oom;

  ASSERT_EQ(mcp_auth_scope_has("a b  c", "b"), 1);
  ASSERT_EQ(mcp_auth_scope_has("a bc", "b"), 0);
  ASSERT_EQ(mcp_auth_scope_has(NULL, "b"), 0);
  u = mcp_auth_scope_union("mcp:basic", "mcp:write mcp:basic", &oom);
  ASSERT_STR_EQ(u, "mcp:basic mcp:write");
  free(u);
  u = mcp_auth_scope_union(NULL, " x  x y ", &oom);
  ASSERT_STR_EQ(u, "x y");
  free(u);
  ASSERT_NULL(mcp_auth_scope_union(NULL, "  ", &oom));
  ASSERT_EQ(oom, 0);
}

int
main(void)
{
  mcp_error_t err;

  ASSERT_EQ(mcp_curl_load(&err), 0);
  RUN_TEST(prm_for_the_resource_is_read);
  RUN_TEST(prm_for_another_resource_is_refused);
  RUN_TEST(prm_without_servers_or_with_bad_ones_is_refused);
  RUN_TEST(asmeta_for_the_issuer_is_read);
  RUN_TEST(asmeta_for_another_issuer_is_refused);
  RUN_TEST(asmeta_without_s256_is_marked);
  RUN_TEST(asmeta_endpoints_must_be_https_or_loopback);
  RUN_TEST(asmeta_machine_signals_are_read);
  RUN_TEST(legacy_defaults_are_at_the_base);
  RUN_TEST(scope_lists);
  TEST_DONE();
  return 0;
}
