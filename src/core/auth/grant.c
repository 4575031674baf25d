/*
 * grant.c - grant names, client authentication and secrets from files
 * (see grant.h).
 */
#include "auth/grant.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "auth/urls.h"
#include "curl_dl.h"

#define ASSERTION_LIFE_S 300

static const char *const names[] = {
  "authorization_code", "client_credentials", "jwt_bearer", "token_exchange"
};

int
mcp_auth_grant_from_name(const char *name, mcp_auth_grant_t *out,
                         mcp_error_t *err)
{
  size_t i;

  if (name == NULL) {
    *out = MCP_AUTH_CODE;
    return 0;
  }
  for (i = 0; i < sizeof names / sizeof names[0]; i++) {
    if (strcmp(name, names[i]) == 0) {
      *out = (mcp_auth_grant_t) i;
      return 0;
    }
  }
  return mcp_error_set(err, MCP_EINVAL, "oauth.grant %.40s is none of "
                       "authorization_code, client_credentials, jwt_bearer, "
                       "token_exchange", name);
}

const char *
mcp_auth_grant_name(mcp_auth_grant_t g)
{
  return names[g];
}

int
mcp_auth_read_secret(const char *path, size_t max, char **out,
                     mcp_error_t *err)
{
  struct stat st;
  char *text;
  size_t start = 0, end;
  ssize_t got;
  int fd;

  fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return mcp_error_set(err, MCP_EIO, "cannot read %.200s: %s", path,
                         strerror(errno));
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      (size_t) st.st_size > max) {
    close(fd);
    return mcp_error_set(err, MCP_EINVAL, "%.200s is not a file of at most "
                         "%zu bytes", path, max);
  }
  text = malloc((size_t) st.st_size + 1);
  if (text == NULL) {
    close(fd);
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  }
  got = read(fd, text, (size_t) st.st_size);
  close(fd);
  if (got != st.st_size) {
    free(text);
    return mcp_error_set(err, MCP_EIO, "cannot read %.200s", path);
  }
  end = (size_t) got;
  while (start < end && strchr(" \t\r\n", text[start]) != NULL)
    start++;
  while (end > start && strchr(" \t\r\n", text[end - 1]) != NULL)
    end--;
  if (start == end) {
    free(text);
    return mcp_error_set(err, MCP_EINVAL, "%.200s is empty", path);
  }
  memmove(text, text + start, end - start);
  memset(text + (end - start), 0, (size_t) got - (end - start));
  text[end - start] = '\0';
  *out = text;
  return 0;
}

int
mcp_auth_client_assertion(const mcp_jwt_key_t *key, const char *client_id,
                          const char *audience, char **out, mcp_error_t *err)
{
  cJSON *header = cJSON_CreateObject(), *claims = cJSON_CreateObject();
  double now = (double) time(NULL);
  char jti[32];
  int rc = mcp_jwt_jti(jti, err);

  if (rc == 0 &&
      (header == NULL || claims == NULL ||
       cJSON_AddStringToObject(header, "typ", "JWT") == NULL ||
       cJSON_AddStringToObject(claims, "iss", client_id) == NULL ||
       cJSON_AddStringToObject(claims, "sub", client_id) == NULL ||
       cJSON_AddStringToObject(claims, "aud", audience) == NULL ||
       cJSON_AddNumberToObject(claims, "iat", now) == NULL ||
       cJSON_AddNumberToObject(claims, "exp", now + ASSERTION_LIFE_S) ==
         NULL ||
       cJSON_AddStringToObject(claims, "jti", jti) == NULL))
    rc = mcp_error_set(err, MCP_ENOMEM, NULL);
  if (rc == 0)
    rc = mcp_jwt_sign(key, header, claims, out, err);
  cJSON_Delete(header);
  cJSON_Delete(claims);
  return rc;
}

/* "Authorization: Basic ..." (RFC 6749 section 2.3.1: id and secret each
 * form-encoded, joined with ':', then base64), or NULL on ENOMEM. */
static char *
basic_header(const char *client_id, const char *client_secret)
{
  static const char prefix[] = "Authorization: Basic ";
  const char *pairs[4] = { "a", client_id, "b", client_secret };
  char *id = NULL, *secret = NULL, *joined = NULL, *line = NULL;
  mcp_error_t err;
  size_t len;

  if (mcp_auth_form_encode(pairs, 1, &id, &err) == 0 &&
      mcp_auth_form_encode(pairs + 2, 1, &secret, &err) == 0) {
    len = strlen(id + 2) + 1 + strlen(secret + 2);
    joined = malloc(len + 1);
    line = malloc(sizeof prefix + (len + 2) / 3 * 4);
  }
  if (joined != NULL && line != NULL) {
    snprintf(joined, len + 1, "%s:%s", id + 2, secret + 2);
    memcpy(line, prefix, sizeof prefix - 1);
    EVP_EncodeBlock((unsigned char *) line + sizeof prefix - 1,
                    (const unsigned char *) joined, (int) len);
    memset(joined, 0, len);
  } else {
    free(line);
    line = NULL;
  }
  if (secret != NULL)
    memset(secret, 0, strlen(secret));
  free(id);
  free(secret);
  free(joined);
  return line;
}

int
mcp_auth_client_auth(const mcp_auth_client_t *c, const mcp_jwt_key_t *key,
                     const char *audience, const char **kv, size_t *n,
                     mcp_auth_creds_t *out, mcp_error_t *err)
{
  const char *method = c->auth_method != NULL ? c->auth_method : "none";
  int rc;

  memset(out, 0, sizeof *out);
  if (c->client_id == NULL)
    return 0;
  if (strcmp(method, "private_key_jwt") == 0) {
    if (key == NULL)
      return mcp_error_set(err, MCP_EINVAL, "private_key_jwt needs "
                           "oauth.private_key");
    rc = mcp_auth_client_assertion(key, c->client_id, audience,
                                   &out->assertion, err);
    if (rc != 0)
      return rc;
    /* RFC 7523 section 3: the assertion's sub names the client, so no
     * client_id goes with it. */
    kv[(*n)++] = "client_assertion_type";
    kv[(*n)++] = MCP_AUTH_ASSERTION_TYPE;
    kv[(*n)++] = "client_assertion";
    kv[(*n)++] = out->assertion;
    return 0;
  }
  if (strcmp(method, "client_secret_basic") == 0 &&
      c->client_secret != NULL) {
    out->basic = basic_header(c->client_id, c->client_secret);
    return out->basic != NULL ? 0 : mcp_error_set(err, MCP_ENOMEM, NULL);
  }
  kv[(*n)++] = "client_id";
  kv[(*n)++] = c->client_id;
  if (strcmp(method, "client_secret_post") == 0 && c->client_secret != NULL) {
    kv[(*n)++] = "client_secret";
    kv[(*n)++] = c->client_secret;
  }
  return 0;
}

void
mcp_auth_creds_free(mcp_auth_creds_t *c)
{
  if (c->basic != NULL)
    memset(c->basic, 0, strlen(c->basic));
  free(c->basic);
  if (c->assertion != NULL)     /* a credential for minutes: wiped too */
    memset(c->assertion, 0, strlen(c->assertion));
  free(c->assertion);
  memset(c, 0, sizeof *c);
}
