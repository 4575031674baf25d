/*
 * metadata.c - protected-resource and authorization-server metadata,
 * read and checked (see metadata.h).
 */
#include "auth/metadata.h"

#include <stdlib.h>
#include <string.h>

#include "auth/urls.h"

#define MAX_SCOPES_TEXT 4096   /* scopes_supported, joined */

/* The string member name of doc, or NULL when absent or not a string. */
static const char *
string_of(const cJSON *doc, const char *name)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, name);

  return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int
array_has(const cJSON *doc, const char *name, const char *word)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, name), *it;

  cJSON_ArrayForEach(it, v) {
    if (cJSON_IsString(it) && strcmp(it->valuestring, word) == 0)
      return 1;
  }
  return 0;
}

/* A string array of doc joined with spaces into *out (NULL when absent
 * or empty). Words with spaces or control bytes are refused. */
static int
join_scopes(const cJSON *doc, const char *name, char **out, mcp_error_t *err)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, name), *it;
  size_t len = 0, n;
  char *s;

  *out = NULL;
  if (v == NULL || cJSON_IsNull(v))
    return 0;
  if (!cJSON_IsArray(v))
    return mcp_error_set(err, MCP_EAUTH, "%s is not an array", name);
  cJSON_ArrayForEach(it, v) {
    const unsigned char *p;

    if (!cJSON_IsString(it) || it->valuestring[0] == '\0')
      return mcp_error_set(err, MCP_EAUTH, "%s has a value that is not a "
                           "scope", name);
    for (p = (const unsigned char *) it->valuestring; *p; p++)
      if (*p <= ' ' || *p == '"' || *p == '\\' || *p == 0x7f)
        return mcp_error_set(err, MCP_EAUTH, "%s has a value that is not "
                             "a scope", name);
    len += strlen(it->valuestring) + 1;
    if (len > MAX_SCOPES_TEXT)
      return mcp_error_set(err, MCP_EAUTH, "%s is too long", name);
  }
  if (len == 0)
    return 0;
  s = malloc(len);
  if (s == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  n = 0;
  cJSON_ArrayForEach(it, v) {
    size_t k = strlen(it->valuestring);

    if (n > 0)
      s[n++] = ' ';
    memcpy(s + n, it->valuestring, k);
    n += k;
  }
  s[n] = '\0';
  *out = s;
  return 0;
}

/* Copies the URL member name of doc into *out after checking that it may
 * be used (https, or http to loopback). required: absent is an error. */
static int
copy_url(const cJSON *doc, const char *name, int required, char **out,
         mcp_error_t *err)
{
  const char *v = string_of(doc, name);

  *out = NULL;
  if (v == NULL) {
    if (!required)
      return 0;
    return mcp_error_set(err, MCP_EAUTH, "the metadata has no %s", name);
  }
  if (!mcp_auth_url_allowed(v))
    return mcp_error_set(err, MCP_EAUTH, "the metadata's %s is neither "
                         "https nor a loopback http URL", name);
  *out = strdup(v);
  if (*out == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  return 0;
}

int
mcp_auth_prm_read(const cJSON *doc, const char *resource,
                  mcp_auth_prm_t *out, mcp_error_t *err)
{
  const cJSON *servers, *first;
  const char *r;
  int rc;

  memset(out, 0, sizeof *out);
  if (!cJSON_IsObject(doc))
    return mcp_error_set(err, MCP_EAUTH, "the protected resource metadata "
                         "is not a JSON object");
  r = string_of(doc, "resource");
  if (r == NULL)
    return mcp_error_set(err, MCP_EAUTH, "the protected resource metadata "
                         "has no resource");
  /* RFC 9728 section 3.3: metadata about another resource is not ours.
   * Metadata found at the root describes the origin, which holds the
   * server's path: that is the resource then. */
  if (mcp_auth_resource_covers(r, resource) != 1)
    return mcp_error_set(err, MCP_EAUTH, "the protected resource metadata "
                         "is for %.80s, not for %.80s", r, resource);
  servers = cJSON_GetObjectItemCaseSensitive(doc, "authorization_servers");
  first = cJSON_IsArray(servers) ? cJSON_GetArrayItem(servers, 0) : NULL;
  if (!cJSON_IsString(first))
    return mcp_error_set(err, MCP_EAUTH, "the protected resource metadata "
                         "names no authorization server");
  if (!mcp_auth_url_allowed(first->valuestring))
    return mcp_error_set(err, MCP_EAUTH, "the authorization server %.80s is "
                         "neither https nor a loopback http URL",
                         first->valuestring);
  if (mcp_auth_resource_uri(r, &out->resource, err) != 0)
    return err->code;
  out->authorization_server = strdup(first->valuestring);
  if (out->resource == NULL || out->authorization_server == NULL) {
    mcp_auth_prm_free(out);
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  }
  rc = join_scopes(doc, "scopes_supported", &out->scopes, err);
  if (rc != 0)
    mcp_auth_prm_free(out);
  return rc;
}

void
mcp_auth_prm_free(mcp_auth_prm_t *prm)
{
  free(prm->resource);
  free(prm->authorization_server);
  free(prm->scopes);
  memset(prm, 0, sizeof *prm);
}

int
mcp_auth_asmeta_read(const cJSON *doc, const char *issuer,
                     mcp_auth_asmeta_t *out, mcp_error_t *err)
{
  const cJSON *methods, *cimd, *iss;
  const char *i;
  int rc;

  memset(out, 0, sizeof *out);
  if (!cJSON_IsObject(doc))
    return mcp_error_set(err, MCP_EAUTH, "the authorization server "
                         "metadata is not a JSON object");
  i = string_of(doc, "issuer");
  /* RFC 8414 section 3.3: identical, no normalisation. */
  if (i == NULL || (issuer != NULL && strcmp(i, issuer) != 0))
    return mcp_error_set(err, MCP_EAUTH, "the authorization server "
                         "metadata fetched for %.80s names issuer %.80s",
                         issuer != NULL ? issuer : "the server",
                         i != NULL ? i : "(none)");
  out->issuer = strdup(i);
  if (out->issuer == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  rc = copy_url(doc, "authorization_endpoint", 1,
                &out->authorization_endpoint, err);
  if (rc == 0)
    rc = copy_url(doc, "token_endpoint", 1, &out->token_endpoint, err);
  if (rc == 0)
    rc = copy_url(doc, "registration_endpoint", 0,
                  &out->registration_endpoint, err);
  if (rc == 0)
    rc = join_scopes(doc, "scopes_supported", &out->scopes, err);
  if (rc != 0) {
    mcp_auth_asmeta_free(out);
    return rc;
  }
  methods = cJSON_GetObjectItemCaseSensitive(
    doc, "code_challenge_methods_supported");
  out->methods_listed = cJSON_IsArray(methods);
  out->s256 = array_has(doc, "code_challenge_methods_supported", "S256");
  cimd = cJSON_GetObjectItemCaseSensitive(doc,
           "client_id_metadata_document_supported");
  out->cimd = cJSON_IsTrue(cimd);
  iss = cJSON_GetObjectItemCaseSensitive(doc,
          "authorization_response_iss_parameter_supported");
  out->iss_supported = cJSON_IsTrue(iss);
  if (cJSON_GetObjectItemCaseSensitive(doc,
        "token_endpoint_auth_methods_supported") == NULL) {
    out->auth_basic = 1;     /* RFC 8414 section 2: the default */
  } else {
    out->auth_none = array_has(doc, "token_endpoint_auth_methods_supported",
                               "none");
    out->auth_basic = array_has(doc, "token_endpoint_auth_methods_supported",
                                "client_secret_basic");
    out->auth_post = array_has(doc, "token_endpoint_auth_methods_supported",
                               "client_secret_post");
    out->auth_private_key_jwt =
      array_has(doc, "token_endpoint_auth_methods_supported",
                "private_key_jwt");
  }
  /* The algorithms of private_key_jwt assertions (RFC 8414 section 2). */
  out->signing_listed = cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(
    doc, "token_endpoint_auth_signing_alg_values_supported"));
  out->signing_es256 = array_has(
    doc, "token_endpoint_auth_signing_alg_values_supported", "ES256");
  out->signing_es384 = array_has(
    doc, "token_endpoint_auth_signing_alg_values_supported", "ES384");
  out->signing_rs256 = array_has(
    doc, "token_endpoint_auth_signing_alg_values_supported", "RS256");
  /* RFC 9449 section 5.1: the algorithms its DPoP proofs may use. */
  out->dpop_es256 = array_has(doc, "dpop_signing_alg_values_supported",
                              "ES256");
  out->grants_listed = cJSON_IsArray(
    cJSON_GetObjectItemCaseSensitive(doc, "grant_types_supported"));
  out->jwt_bearer = array_has(doc, "grant_types_supported",
                              "urn:ietf:params:oauth:grant-type:jwt-bearer");
  return 0;
}

int
mcp_auth_asmeta_default(const char *base, mcp_auth_asmeta_t *out,
                        mcp_error_t *err)
{
  static const char *const paths[] = { "/authorize", "/token", "/register" };
  char **slots[3];
  size_t i, n = strlen(base);

  memset(out, 0, sizeof *out);
  slots[0] = &out->authorization_endpoint;
  slots[1] = &out->token_endpoint;
  slots[2] = &out->registration_endpoint;
  out->issuer = strdup(base);
  if (out->issuer == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  for (i = 0; i < 3; i++) {
    *slots[i] = malloc(n + strlen(paths[i]) + 1);
    if (*slots[i] == NULL) {
      mcp_auth_asmeta_free(out);
      return mcp_error_set(err, MCP_ENOMEM, NULL);
    }
    memcpy(*slots[i], base, n);
    strcpy(*slots[i] + n, paths[i]);
  }
  /* Nothing is advertised; PKCE S256 is still sent (OAuth 2.1). */
  out->s256 = 1;
  out->auth_none = out->auth_basic = out->auth_post = 1;
  return 0;
}

void
mcp_auth_asmeta_free(mcp_auth_asmeta_t *m)
{
  free(m->issuer);
  free(m->authorization_endpoint);
  free(m->token_endpoint);
  free(m->registration_endpoint);
  free(m->scopes);
  memset(m, 0, sizeof *m);
}

/* ---- scope lists --------------------------------------------------------- */

/* The next word of a space-separated list at *p: its start, length in
 * *len; NULL at the end. */
static const char *
next_word(const char **p, size_t *len)
{
  const char *s = *p, *e;

  while (*s == ' ')
    s++;
  if (*s == '\0')
    return NULL;
  e = s;
  while (*e != '\0' && *e != ' ')
    e++;
  *len = (size_t) (e - s);
  *p = e;
  return s;
}

static int
has_word(const char *list, const char *w, size_t n)
{
  const char *p = list, *s;
  size_t len;

  if (list == NULL)
    return 0;
  while ((s = next_word(&p, &len)) != NULL) {
    if (len == n && memcmp(s, w, n) == 0)
      return 1;
  }
  return 0;
}

int
mcp_auth_scope_has(const char *list, const char *word)
{
  return has_word(list, word, strlen(word));
}

char *
mcp_auth_scope_union(const char *a, const char *b, int *oom)
{
  size_t cap = (a ? strlen(a) : 0) + (b ? strlen(b) : 0) + 2, n = 0, len;
  const char *lists[2], *p, *s;
  char *out = malloc(cap);
  int i;

  *oom = out == NULL;
  if (out == NULL)
    return NULL;
  out[0] = '\0';
  lists[0] = a;
  lists[1] = b;
  for (i = 0; i < 2; i++) {
    p = lists[i];
    if (p == NULL)
      continue;
    while ((s = next_word(&p, &len)) != NULL) {
      if (has_word(out, s, len))
        continue;
      if (n > 0)
        out[n++] = ' ';
      memcpy(out + n, s, len);
      n += len;
      out[n] = '\0';
    }
  }
  if (n == 0) {
    free(out);
    return NULL;
  }
  return out;
}
