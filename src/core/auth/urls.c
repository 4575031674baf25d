/*
 * urls.c - the URLs of the OAuth flow (see urls.h), on libcurl's URL API.
 */
#include "auth/urls.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "curl_dl.h"

/* The parts of an absolute http(s) URL, lower-cased where case does not
 * count; each curl_free'd by url_parts_free. */
typedef struct parts_s {
  char *scheme, *host, *port, *path, *query;
} parts_t;

static void
parts_free(parts_t *p)
{
  curl_free(p->scheme);
  curl_free(p->host);
  curl_free(p->port);
  curl_free(p->path);
  curl_free(p->query);
  memset(p, 0, sizeof *p);
}

static int
parts_of(const char *url, parts_t *p, mcp_error_t *err)
{
  CURLU *h;
  char *s;
  int rc = 0;

  memset(p, 0, sizeof *p);
  if (mcp_curl_load(err) != 0)
    return err->code;
  h = curl_url();
  if (h == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  if (url == NULL || curl_url_set(h, CURLUPART_URL, url, 0) != CURLUE_OK ||
      curl_url_get(h, CURLUPART_SCHEME, &p->scheme, 0) != CURLUE_OK ||
      (strcmp(p->scheme, "http") != 0 && strcmp(p->scheme, "https") != 0) ||
      curl_url_get(h, CURLUPART_HOST, &p->host, 0) != CURLUE_OK ||
      curl_url_get(h, CURLUPART_PATH, &p->path, 0) != CURLUE_OK) {
    parts_free(p);
    rc = mcp_error_set(err, MCP_EINVAL, "%.120s is not an absolute http(s) "
                       "URL", url != NULL ? url : "(null)");
  } else {
    curl_url_get(h, CURLUPART_PORT, &p->port, CURLU_NO_DEFAULT_PORT);
    curl_url_get(h, CURLUPART_QUERY, &p->query, 0);
    for (s = p->host; *s != '\0'; s++)
      *s = (char) tolower((unsigned char) *s);
  }
  curl_url_cleanup(h);
  return rc;
}

/* Joins up to five pieces into a malloc'd string. */
static int
join(char **out, mcp_error_t *err, const char *a, const char *b,
     const char *c, const char *d, const char *e)
{
  const char *v[5];
  size_t n = 1, i;
  char *s;

  v[0] = a;
  v[1] = b;
  v[2] = c;
  v[3] = d;
  v[4] = e;
  for (i = 0; i < 5; i++)
    n += v[i] != NULL ? strlen(v[i]) : 0;
  s = malloc(n);
  if (s == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  s[0] = '\0';
  for (i = 0; i < 5; i++)
    if (v[i] != NULL)
      strcat(s, v[i]);
  *out = s;
  return 0;
}

/* scheme://host[:port] */
static int
origin_of(const parts_t *p, char **out, mcp_error_t *err)
{
  return join(out, err, p->scheme, "://", p->host, p->port ? ":" : NULL,
              p->port);
}

int
mcp_auth_origin(const char *url, char **out, mcp_error_t *err)
{
  parts_t p;
  int rc = parts_of(url, &p, err);

  if (rc == 0)
    rc = origin_of(&p, out, err);
  parts_free(&p);
  return rc;
}

int
mcp_auth_resource_uri(const char *server_url, char **out, mcp_error_t *err)
{
  char *origin = NULL;
  parts_t p;
  int rc = parts_of(server_url, &p, err);

  if (rc == 0)
    rc = origin_of(&p, &origin, err);
  if (rc == 0)
    rc = join(out, err, origin, strcmp(p.path, "/") == 0 ? NULL : p.path,
              p.query ? "?" : NULL, p.query, NULL);
  free(origin);
  parts_free(&p);
  return rc;
}

int
mcp_auth_resource_equal(const char *a, const char *b)
{
  char *ca = NULL, *cb = NULL;
  mcp_error_t err;
  int rc = MCP_EINVAL;

  if (mcp_auth_resource_uri(a, &ca, &err) == 0 &&
      mcp_auth_resource_uri(b, &cb, &err) == 0)
    rc = strcmp(ca, cb) == 0;
  free(ca);
  free(cb);
  return rc;
}

int
mcp_auth_resource_covers(const char *resource, const char *server_url)
{
  char *r = NULL, *u = NULL;
  mcp_error_t err;
  size_t n;
  int rc = MCP_EINVAL;

  if (mcp_auth_resource_uri(resource, &r, &err) == 0 &&
      mcp_auth_resource_uri(server_url, &u, &err) == 0 &&
      strchr(r, '?') == NULL) {
    /* r is u, or u's origin, or a path of u's ending at a '/' (so
     * "https://a.example" does not cover "https://a.example.evil"). */
    n = strlen(r);
    rc = strncmp(r, u, n) == 0 &&
         (u[n] == '\0' || u[n] == '/' || u[n] == '?' ||
          (n > 0 && r[n - 1] == '/'));
  }
  free(r);
  free(u);
  return rc;
}

int
mcp_auth_prm_urls(const char *server_url, char *out[2], size_t *n,
                  mcp_error_t *err)
{
  static const char wk[] = "/.well-known/oauth-protected-resource";
  char *origin = NULL;
  parts_t p;
  int rc = parts_of(server_url, &p, err);

  *n = 0;
  if (rc == 0)
    rc = origin_of(&p, &origin, err);
  if (rc == 0 && strcmp(p.path, "/") != 0 && p.path[0] != '\0') {
    rc = join(&out[*n], err, origin, wk, p.path, NULL, NULL);
    if (rc == 0)
      (*n)++;
  }
  if (rc == 0) {
    rc = join(&out[*n], err, origin, wk, NULL, NULL, NULL);
    if (rc == 0)
      (*n)++;
  }
  if (rc != 0) {
    while (*n > 0)
      free(out[--*n]);
  }
  free(origin);
  parts_free(&p);
  return rc;
}

int
mcp_auth_as_metadata_urls(const char *issuer, char *out[3], size_t *n,
                          mcp_error_t *err)
{
  static const char oauth[] = "/.well-known/oauth-authorization-server";
  static const char oidc[] = "/.well-known/openid-configuration";
  char *origin = NULL;
  size_t len;
  parts_t p;
  int rc = parts_of(issuer, &p, err);

  *n = 0;
  if (rc == 0)
    rc = origin_of(&p, &origin, err);
  if (rc != 0) {
    parts_free(&p);
    return rc;
  }
  len = strlen(p.path);
  while (len > 0 && p.path[len - 1] == '/')
    p.path[--len] = '\0';         /* "/tenant/" is "/tenant" */
  if (len == 0) {
    rc = join(&out[0], err, origin, oauth, NULL, NULL, NULL);
    if (rc == 0 && (rc = join(&out[1], err, origin, oidc, NULL, NULL,
                              NULL)) == 0)
      *n = 2;
  } else {
    rc = join(&out[0], err, origin, oauth, p.path, NULL, NULL);
    if (rc == 0)
      rc = join(&out[1], err, origin, oidc, p.path, NULL, NULL);
    if (rc == 0 && (rc = join(&out[2], err, origin, p.path, oidc, NULL,
                              NULL)) == 0)
      *n = 3;
  }
  free(origin);
  parts_free(&p);
  return rc;
}

/* ---- queries and forms --------------------------------------------------- */

/* Appends the pairs to the query of the URL in h (CURLU_URLENCODE: each
 * value percent-encoded, spaces as '+'). */
static int
append_pairs(CURLU *h, const char *const *kv, size_t npairs,
             mcp_error_t *err)
{
  size_t i;

  for (i = 0; i < npairs; i++) {
    const char *name = kv[2 * i], *value = kv[2 * i + 1];
    char *pair = NULL;
    CURLUcode uc;

    if (value == NULL)
      continue;
    if (join(&pair, err, name, "=", value, NULL, NULL) != 0)
      return err->code;
    uc = curl_url_set(h, CURLUPART_QUERY, pair,
                      CURLU_APPENDQUERY | CURLU_URLENCODE);
    free(pair);
    if (uc != CURLUE_OK)
      return mcp_error_set(err, uc == CURLUE_OUT_OF_MEMORY ? MCP_ENOMEM
                           : MCP_EINVAL, "cannot add %s to a query", name);
  }
  return 0;
}

int
mcp_auth_url_with_query(const char *base, const char *const *kv,
                        size_t npairs, char **out, mcp_error_t *err)
{
  CURLU *h;
  char *url = NULL;
  parts_t p;
  int rc = parts_of(base, &p, err);

  parts_free(&p);
  if (rc != 0)
    return rc;
  h = curl_url();
  if (h == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  curl_url_set(h, CURLUPART_URL, base, 0);
  rc = append_pairs(h, kv, npairs, err);
  if (rc == 0 && curl_url_get(h, CURLUPART_URL, &url, 0) != CURLUE_OK)
    rc = mcp_error_set(err, MCP_ENOMEM, NULL);
  if (rc == 0)
    rc = join(out, err, url, NULL, NULL, NULL, NULL);
  curl_free(url);
  curl_url_cleanup(h);
  return rc;
}

int
mcp_auth_form_encode(const char *const *kv, size_t npairs, char **out,
                     mcp_error_t *err)
{
  CURLU *h;
  char *query = NULL;
  int rc;

  rc = mcp_curl_load(err);
  if (rc != 0)
    return rc;
  h = curl_url();
  if (h == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  curl_url_set(h, CURLUPART_URL, "http://form.invalid/", 0);
  rc = append_pairs(h, kv, npairs, err);
  if (rc == 0) {
    CURLUcode uc = curl_url_get(h, CURLUPART_QUERY, &query, 0);

    if (uc == CURLUE_NO_QUERY)
      rc = join(out, err, "", NULL, NULL, NULL, NULL);
    else if (uc != CURLUE_OK)
      rc = mcp_error_set(err, MCP_ENOMEM, NULL);
    else
      rc = join(out, err, query, NULL, NULL, NULL, NULL);
  }
  curl_free(query);
  curl_url_cleanup(h);
  return rc;
}

/* Decodes the form-encoded value[0..len) ('+' is a space). */
static int
form_decode(const char *value, size_t len, char **out, mcp_error_t *err)
{
  char *copy = malloc(len + 1), *decoded;
  int outlen = 0;
  size_t i;

  if (copy == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  for (i = 0; i < len; i++)
    copy[i] = value[i] == '+' ? ' ' : value[i];
  copy[len] = '\0';
  decoded = curl_easy_unescape(NULL, copy, (int) len, &outlen);
  free(copy);
  if (decoded == NULL)
    return mcp_error_set(err, MCP_ENOMEM, NULL);
  if (memchr(decoded, '\0', (size_t) outlen) != NULL) {
    curl_free(decoded);
    return mcp_error_set(err, MCP_EINVAL, "a query value decodes to a NUL "
                         "byte");
  }
  *out = malloc((size_t) outlen + 1);
  if (*out != NULL) {
    memcpy(*out, decoded, (size_t) outlen);
    (*out)[outlen] = '\0';
  }
  curl_free(decoded);
  return *out == NULL ? mcp_error_set(err, MCP_ENOMEM, NULL) : 0;
}

int
mcp_auth_form_get(const char *text, const char *name, char **out,
                  mcp_error_t *err)
{
  const char *q = strchr(text, '?'), *end, *amp, *eq;
  size_t nlen = strlen(name);

  *out = NULL;
  if (mcp_curl_load(err) != 0)
    return err->code;
  q = q != NULL ? q + 1 : text;
  end = strchr(q, '#');
  if (end == NULL)
    end = q + strlen(q);
  while (q < end) {
    amp = memchr(q, '&', (size_t) (end - q));
    if (amp == NULL)
      amp = end;
    eq = memchr(q, '=', (size_t) (amp - q));
    if (eq == NULL)
      eq = amp;
    if ((size_t) (eq - q) == nlen && memcmp(q, name, nlen) == 0)
      return form_decode(eq < amp ? eq + 1 : eq,
                         eq < amp ? (size_t) (amp - eq - 1) : 0, out, err);
    q = amp + 1;
  }
  return mcp_error_set(err, MCP_ENOENT, "no %.60s in the query", name);
}

/* ---- addresses ----------------------------------------------------------- */

static mcp_addr_kind_t
ipv4_kind(const unsigned char *a)
{
  if (a[0] == 127)
    return MCP_ADDR_LOOPBACK;
  if (a[0] == 10 || (a[0] == 172 && (a[1] & 0xf0) == 16) ||
      (a[0] == 192 && a[1] == 168) || (a[0] == 100 && (a[1] & 0xc0) == 64))
    return MCP_ADDR_PRIVATE;
  if (a[0] == 169 && a[1] == 254)
    return MCP_ADDR_LINK_LOCAL;
  if (a[0] == 0 || a[0] >= 224)
    return MCP_ADDR_UNSPECIFIED;    /* multicast, 240/4, broadcast */
  return MCP_ADDR_PUBLIC;
}

/* The address as 16 bytes, IPv4 as ::ffff:a.b.c.d; 0 or -1. */
static int
to_bytes(const char *ip, unsigned char out[16])
{
  static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                            0xff, 0xff };
  static const unsigned char nat64[12] = { 0, 0x64, 0xff, 0x9b };
  static const unsigned char zero[12] = { 0 };
  unsigned char v4[4];

  if (ip == NULL)
    return -1;
  if (inet_pton(AF_INET, ip, v4) == 1) {
    memcpy(out, mapped, 12);
    memcpy(out + 12, v4, 4);
    return 0;
  }
  if (inet_pton(AF_INET6, ip, out) != 1)
    return -1;
  /* IPv4-compatible (not :: and ::1) and NAT64 forms carry IPv4 too. */
  if (memcmp(out, nat64, 12) == 0 ||
      (memcmp(out, zero, 12) == 0 &&
       (out[12] | out[13] | out[14]) != 0)) {
    memcpy(out, mapped, 12);
  }
  return 0;
}

mcp_addr_kind_t
mcp_auth_address_kind(const char *ip)
{
  static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                            0xff, 0xff };
  static const unsigned char zero[15] = { 0 };
  unsigned char a[16];

  if (to_bytes(ip, a) != 0)
    return MCP_ADDR_INVALID;
  if (memcmp(a, mapped, 12) == 0)
    return ipv4_kind(a + 12);
  if (memcmp(a, zero, 15) == 0)
    return a[15] == 1 ? MCP_ADDR_LOOPBACK : MCP_ADDR_UNSPECIFIED;
  if ((a[0] & 0xfe) == 0xfc)
    return MCP_ADDR_PRIVATE;
  if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
    return MCP_ADDR_LINK_LOCAL;
  if (a[0] == 0xff)
    return MCP_ADDR_UNSPECIFIED;
  return MCP_ADDR_PUBLIC;
}

int
mcp_auth_address_allowed(const char *ip, const char *server_ip)
{
  unsigned char a[16], b[16];
  mcp_addr_kind_t kind = mcp_auth_address_kind(ip);

  if (kind == MCP_ADDR_PUBLIC)
    return 1;
  if (kind == MCP_ADDR_INVALID || to_bytes(ip, a) != 0 ||
      to_bytes(server_ip, b) != 0)
    return 0;
  return memcmp(a, b, 16) == 0;
}

int
mcp_auth_url_allowed(const char *url)
{
  mcp_error_t err;
  parts_t p;
  int ok;

  if (parts_of(url, &p, &err) != 0)
    return 0;
  if (strcmp(p.scheme, "https") == 0)
    ok = 1;
  else
    ok = strcmp(p.host, "localhost") == 0 || strcmp(p.host, "[::1]") == 0 ||
         mcp_auth_address_kind(p.host) == MCP_ADDR_LOOPBACK;
  parts_free(&p);
  return ok;
}
