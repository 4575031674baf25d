/*
 * urls.h - the URLs of the OAuth flow, built and judged with libcurl's
 * URL API: the canonical resource URI of an MCP server (RFC 8707), the
 * well-known metadata URLs in the order the MCP specification gives,
 * query strings and form bodies, and what may be fetched or opened at all
 * (server-side request forgery, authorization-URL schemes). No I/O.
 *
 * Out strings are malloc'd; the caller frees them with free(). Functions
 * return 0, MCP_EINVAL (err says why) or MCP_ENOMEM.
 */
#ifndef MCP_AUTH_URLS_H
#define MCP_AUTH_URLS_H

#include <stddef.h>

#include "error.h"

/* The canonical resource URI of a server URL: scheme and host in lower
 * case, default port, userinfo and fragment dropped, a lone "/" path
 * dropped, the rest kept. */
int mcp_auth_resource_uri(const char *server_url, char **out,
                          mcp_error_t *err);
/* 1 when both canonicalise to the same URI, 0 when not, MCP_EINVAL when
 * one does not parse. */
int mcp_auth_resource_equal(const char *a, const char *b);

/* 1 when resource (from protected-resource metadata) is server_url's own
 * resource URI or a part of it on a path boundary: its origin, or a path
 * that server_url's path continues ("https://h/api" covers
 * "https://h/api/mcp", not "https://h/apiary"); 0 when not; MCP_EINVAL. */
int mcp_auth_resource_covers(const char *resource, const char *server_url);

/* RFC 9728 metadata URLs for a server URL, in order: path-inserted (not
 * when the path is empty), then the root. */
int mcp_auth_prm_urls(const char *server_url, char *out[2], size_t *n,
                      mcp_error_t *err);
/* Authorization-server metadata URLs for an issuer, in the MCP order:
 * with a path, RFC 8414 path-inserted, OIDC path-inserted, OIDC appended;
 * without one, RFC 8414 then OIDC. */
int mcp_auth_as_metadata_urls(const char *issuer, char *out[3], size_t *n,
                              mcp_error_t *err);
/* scheme://host[:port] (the 2025-03-26 authorization base URL). */
int mcp_auth_origin(const char *url, char **out, mcp_error_t *err);

/* base with kv[0]=kv[1], kv[2]=kv[3]... (npairs pairs, NULL values
 * skipped) appended to its query, form-encoded. */
int mcp_auth_url_with_query(const char *base, const char *const *kv,
                            size_t npairs, char **out, mcp_error_t *err);
/* An application/x-www-form-urlencoded body of the pairs. */
int mcp_auth_form_encode(const char *const *kv, size_t npairs, char **out,
                         mcp_error_t *err);
/* The decoded value of name in a form-encoded query, or in the query of
 * the URL text ("?" present; the fragment ignored). The first occurrence
 * wins. MCP_ENOENT when absent; MCP_EINVAL when it decodes to a NUL. */
int mcp_auth_form_get(const char *text, const char *name, char **out,
                      mcp_error_t *err);

typedef enum {
  MCP_ADDR_INVALID = -1,
  MCP_ADDR_PUBLIC = 0,
  MCP_ADDR_LOOPBACK,      /* 127/8, ::1 */
  MCP_ADDR_PRIVATE,       /* 10/8, 172.16/12, 192.168/16, 100.64/10,
                             fc00::/7 */
  MCP_ADDR_LINK_LOCAL,    /* 169.254/16, fe80::/10 */
  MCP_ADDR_UNSPECIFIED    /* 0/8, ::, multicast, 240/4, broadcast */
} mcp_addr_kind_t;

/* What a numeric address is; IPv4-mapped, IPv4-compatible and NAT64
 * IPv6 addresses are judged as the IPv4 address they carry. */
mcp_addr_kind_t mcp_auth_address_kind(const char *ip);
/* 1 when discovery may connect to ip: a public address, or the very
 * address of the MCP server (server_ip, may be NULL). */
int mcp_auth_address_allowed(const char *ip, const char *server_ip);
/* 1 for an https URL, or http to a loopback host (localhost, 127.x,
 * [::1]); 0 for anything else (javascript:, data:, file:, plain http). */
int mcp_auth_url_allowed(const char *url);

#endif
