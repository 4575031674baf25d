/*
 * store.c - tokens and client registrations on disk (see store.h).
 *
 * Both records are a set of string fields (and, for tokens, expires_at),
 * described once by a field table; reading and writing go through the
 * same two functions for both.
 */
#include "auth/store.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "auth/pkce.h"
#include "json.h"

#define MAX_FILE (64 * 1024)

typedef struct field_s {
  const char *name;
  size_t offset;             /* of a char * in the record */
  int secret;                /* overwritten before it is freed */
} field_t;

static const field_t token_fields[] = {
  { "resource", offsetof(mcp_auth_tokens_t, resource), 0 },
  { "issuer", offsetof(mcp_auth_tokens_t, issuer), 0 },
  { "token_endpoint", offsetof(mcp_auth_tokens_t, token_endpoint), 0 },
  { "access_token", offsetof(mcp_auth_tokens_t, access_token), 1 },
  { "refresh_token", offsetof(mcp_auth_tokens_t, refresh_token), 1 },
  { "token_type", offsetof(mcp_auth_tokens_t, token_type), 0 },
  { "scope", offsetof(mcp_auth_tokens_t, scope), 0 },
  { NULL, 0, 0 },
};

static const field_t client_fields[] = {
  { "issuer", offsetof(mcp_auth_client_t, issuer), 0 },
  { "client_id", offsetof(mcp_auth_client_t, client_id), 0 },
  { "client_secret", offsetof(mcp_auth_client_t, client_secret), 1 },
  { "auth_method", offsetof(mcp_auth_client_t, auth_method), 0 },
  { "redirect_uri", offsetof(mcp_auth_client_t, redirect_uri), 0 },
  { "registration", offsetof(mcp_auth_client_t, registration), 0 },
  { NULL, 0, 0 },
};

static const field_t dpop_fields[] = {
  { "issuer", offsetof(mcp_auth_dpop_key_t, issuer), 0 },
  { "key", offsetof(mcp_auth_dpop_key_t, key), 1 },
  { NULL, 0, 0 },
};

static char **
slot(void *record, const field_t *f)
{
  return (char **) (void *) ((char *) record + f->offset);
}

static void
free_fields(void *record, const field_t *fields)
{
  const field_t *f;

  for (f = fields; f->name != NULL; f++) {
    char **s = slot(record, f);

    if (*s != NULL && f->secret)
      memset(*s, 0, strlen(*s));
    free(*s);
    *s = NULL;
  }
}

void
mcp_auth_tokens_free(mcp_auth_tokens_t *t)
{
  free_fields(t, token_fields);
  t->expires_at = 0;
}

void
mcp_auth_client_free(mcp_auth_client_t *c)
{
  free_fields(c, client_fields);
}

int
mcp_auth_store_dir(char **out, mcp_error_t *err)
{
  const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
  size_t n;

  /* XDG: a relative XDG_DATA_HOME is invalid and is ignored. */
  if (xdg != NULL && xdg[0] == '/') {
    n = strlen(xdg) + sizeof "/luamcp/oauth";
    *out = malloc(n);
    if (*out == NULL)
      return mcp_error_set(err, MCP_ENOMEM, NULL);
    snprintf(*out, n, "%s/luamcp/oauth", xdg);
    return 0;
  }
  if (home == NULL || home[0] != '/')
    return mcp_error_set(err, MCP_EINVAL, "neither XDG_DATA_HOME nor HOME "
                         "names a directory for the token store");
  n = strlen(home) + sizeof "/.local/share/luamcp/oauth";
  *out = malloc(n);
  if (*out == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  snprintf(*out, n, "%s/.local/share/luamcp/oauth", home);
  return 0;
}

/* <dir>/<kind>/<sha256(key)>.json into path. */
static int
file_path(const char *dir, const char *kind, const char *key, char *path,
          size_t cap, mcp_error_t *err)
{
  char hex[65];
  int rc = mcp_auth_sha256_hex(key, strlen(key), hex, err);

  if (rc != 0)
    return rc;
  if ((size_t) snprintf(path, cap, "%s/%s/%s.json", dir, kind, hex) >= cap)
    return mcp_error_set(err, MCP_EINVAL, "the token store's path is too "
                         "long");
  return 0;
}

/* Creates each missing directory of path (up to its last '/'), 0700. */
static int
make_dirs(const char *path, mcp_error_t *err)
{
  char buf[4096];
  size_t i, n = strlen(path);

  if (n >= sizeof buf)
    return mcp_error_set(err, MCP_EINVAL, "path too long");
  memcpy(buf, path, n + 1);
  for (i = 1; i < n; i++) {
    if (buf[i] != '/')
      continue;
    buf[i] = '\0';
    if (mkdir(buf, 0700) != 0 && errno != EEXIST)
      return mcp_error_set(err, MCP_EIO, "cannot create %.200s: %s", buf,
                           strerror(errno));
    buf[i] = '/';
  }
  return 0;
}

static int
load(const char *dir, const char *kind, const char *key_name,
     const char *key, void *record, const field_t *fields,
     long long *expires_at, mcp_error_t *err)
{
  char path[4096], *text = NULL;
  struct stat st;
  const field_t *f;
  cJSON *doc;
  ssize_t got;
  int fd, rc;

  rc = file_path(dir, kind, key, path, sizeof path, err);
  if (rc != 0)
    return rc;
  fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT)
    return mcp_error_set(err, MCP_ENOENT, "nothing kept for %.200s", key);
  if (fd < 0)
    return mcp_error_set(err, MCP_EPROTO, "cannot open %.200s: %s", path,
                         strerror(errno));
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
      st.st_uid != geteuid() || st.st_size > MAX_FILE ||
      (text = malloc((size_t) st.st_size + 1)) == NULL) {
    close(fd);
    free(text);
    return mcp_error_set(err, MCP_EPROTO, "%.200s is not a token store "
                         "file of ours", path);
  }
  got = read(fd, text, (size_t) st.st_size);
  close(fd);
  doc = got == st.st_size ? mcp_json_parse(text, (size_t) got, 8, err)
                          : NULL;
  free(text);
  if (!cJSON_IsObject(doc) || mcp_json_string(doc, key_name) == NULL ||
      strcmp(mcp_json_string(doc, key_name), key) != 0) {
    cJSON_Delete(doc);
    return mcp_error_set(err, MCP_EPROTO, "%.200s is not what luamcp "
                         "wrote for %.200s", path, key);
  }
  for (f = fields; f->name != NULL; f++) {
    const char *v = mcp_json_string(doc, f->name);

    *slot(record, f) = v != NULL ? strdup(v) : NULL;
    if (v != NULL && *slot(record, f) == NULL)
      rc = MCP_ENOMEM;
  }
  if (expires_at != NULL) {
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(doc, "expires_at");

    *expires_at = cJSON_IsNumber(e) ? (long long) e->valuedouble : 0;
  }
  cJSON_Delete(doc);
  if (rc != 0) {
    free_fields(record, fields);
    return mcp_error_set(err, rc, NULL);
  }
  return 0;
}

static int
save(const char *dir, const char *kind, const char *key, const void *record,
     const field_t *fields, const long long *expires_at, mcp_error_t *err)
{
  char path[4096], tmp[4200], *text;
  const field_t *f;
  cJSON *doc = cJSON_CreateObject();
  size_t len;
  int fd, rc, ok;

  if (doc == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  for (f = fields; f->name != NULL; f++) {
    const char *v = *slot((void *) record, f);

    if (v != NULL && cJSON_AddStringToObject(doc, f->name, v) == NULL) {
      cJSON_Delete(doc);
      return mcp_error_set(err, MCP_ENOMEM, NULL);
    }
  }
  if (expires_at != NULL && *expires_at != 0)
    cJSON_AddNumberToObject(doc, "expires_at", (double) *expires_at);
  text = cJSON_PrintUnformatted(doc);
  cJSON_Delete(doc);
  if (text == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  rc = file_path(dir, kind, key, path, sizeof path, err);
  if (rc == 0)
    rc = make_dirs(path, err);
  if (rc != 0) {
    cJSON_free(text);
    return rc;
  }
  snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long) getpid());
  unlink(tmp);
  fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    memset(text, 0, strlen(text));
    cJSON_free(text);
    return mcp_error_set(err, MCP_EIO, "cannot write %.200s: %s", tmp,
                         strerror(errno));
  }
  len = strlen(text);
  ok = write(fd, text, len) == (ssize_t) len && fsync(fd) == 0;
  ok = close(fd) == 0 && ok;
  memset(text, 0, len);
  cJSON_free(text);
  if (!ok || rename(tmp, path) != 0) {
    rc = mcp_error_set(err, MCP_EIO, "cannot write %.200s: %s", path,
                       strerror(errno));
    unlink(tmp);
  }
  return rc;
}

static int
delete_file(const char *dir, const char *kind, const char *key,
            mcp_error_t *err)
{
  char path[4096];
  int rc = file_path(dir, kind, key, path, sizeof path, err);

  if (rc != 0)
    return rc;
  if (unlink(path) == 0)
    return 0;
  if (errno == ENOENT)
    return mcp_error_set(err, MCP_ENOENT, "nothing kept for %.200s", key);
  return mcp_error_set(err, MCP_EIO, "cannot remove %.200s: %s", path,
                       strerror(errno));
}

int
mcp_auth_store_load_tokens(const char *dir, const char *resource,
                           mcp_auth_tokens_t *out, mcp_error_t *err)
{
  memset(out, 0, sizeof *out);
  return load(dir, "tokens", "resource", resource, out, token_fields,
              &out->expires_at, err);
}

int
mcp_auth_store_save_tokens(const char *dir, const mcp_auth_tokens_t *t,
                           mcp_error_t *err)
{
  if (t->resource == NULL)
    return mcp_error_set(err, MCP_EINVAL, "tokens without a resource");
  return save(dir, "tokens", t->resource, t, token_fields, &t->expires_at,
              err);
}

int
mcp_auth_store_delete_tokens(const char *dir, const char *resource,
                             mcp_error_t *err)
{
  return delete_file(dir, "tokens", resource, err);
}

int
mcp_auth_store_load_client(const char *dir, const char *issuer,
                           mcp_auth_client_t *out, mcp_error_t *err)
{
  memset(out, 0, sizeof *out);
  return load(dir, "clients", "issuer", issuer, out, client_fields, NULL,
              err);
}

int
mcp_auth_store_save_client(const char *dir, const mcp_auth_client_t *c,
                           mcp_error_t *err)
{
  if (c->issuer == NULL)
    return mcp_error_set(err, MCP_EINVAL, "a client without an issuer");
  return save(dir, "clients", c->issuer, c, client_fields, NULL, err);
}

int
mcp_auth_store_delete_client(const char *dir, const char *issuer,
                             mcp_error_t *err)
{
  return delete_file(dir, "clients", issuer, err);
}

void
mcp_auth_dpop_key_free(mcp_auth_dpop_key_t *k)
{
  free_fields(k, dpop_fields);
}

int
mcp_auth_store_load_dpop_key(const char *dir, const char *issuer,
                             mcp_auth_dpop_key_t *out, mcp_error_t *err)
{
  memset(out, 0, sizeof *out);
  return load(dir, "dpop", "issuer", issuer, out, dpop_fields, NULL, err);
}

int
mcp_auth_store_save_dpop_key(const char *dir, const mcp_auth_dpop_key_t *k,
                             mcp_error_t *err)
{
  if (k->issuer == NULL || k->key == NULL)
    return mcp_error_set(err, MCP_EINVAL, "a DPoP key without an issuer");
  return save(dir, "dpop", k->issuer, k, dpop_fields, NULL, err);
}
