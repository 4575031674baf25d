/*
 * store.h - OAuth tokens and client registrations on disk, under
 * $XDG_DATA_HOME/luamcp/oauth (default ~/.local/share/luamcp/oauth):
 * tokens keyed by resource (the canonical MCP server URI, with the issuer
 * that issued them inside), registrations and DPoP keys keyed by issuer,
 * one JSON file each, named by the SHA-256 of the key.
 *
 * Files are created with mode 0600 in directories of mode 0700, written
 * to a temporary file and renamed over the old one, so no other user can
 * read them at any moment and a crash leaves the old or the new file,
 * never half of one. A file that is a symbolic link, not ours, too big,
 * or not what we wrote is refused, not trusted.
 */
#ifndef MCP_AUTH_STORE_H
#define MCP_AUTH_STORE_H

#include "error.h"

typedef struct mcp_auth_client_s {
  char *issuer;          /* the authorization server it belongs to */
  char *client_id, *client_secret;   /* the secret may be NULL */
  char *auth_method;     /* client_secret_basic | client_secret_post | none */
  char *redirect_uri;    /* registered with; may be NULL */
  char *registration;    /* dynamic | metadata_document | configured */
} mcp_auth_client_t;

typedef struct mcp_auth_tokens_s {
  char *resource;        /* canonical MCP server URI */
  char *issuer;          /* who issued them */
  char *token_endpoint;  /* for refreshing in a later process */
  char *access_token, *refresh_token, *token_type, *scope;
  long long expires_at;  /* unix seconds; 0: unknown */
} mcp_auth_tokens_t;

/* A DPoP key pair (RFC 9449) of one authorization server's tokens. */
typedef struct mcp_auth_dpop_key_s {
  char *issuer;          /* the authorization server it is used with */
  char *key;             /* the private key, base64 DER (jwt.h) */
} mcp_auth_dpop_key_t;

/* The directory (not created here). MCP_EINVAL without a usable
 * XDG_DATA_HOME (absolute) or HOME. */
int mcp_auth_store_dir(char **out, mcp_error_t *err);

/* MCP_ENOENT when nothing is kept; MCP_EPROTO for a file we did not
 * write (it is left alone). */
int mcp_auth_store_load_tokens(const char *dir, const char *resource,
                               mcp_auth_tokens_t *out, mcp_error_t *err);
int mcp_auth_store_save_tokens(const char *dir, const mcp_auth_tokens_t *t,
                               mcp_error_t *err);
int mcp_auth_store_delete_tokens(const char *dir, const char *resource,
                                 mcp_error_t *err);

int mcp_auth_store_load_client(const char *dir, const char *issuer,
                               mcp_auth_client_t *out, mcp_error_t *err);
int mcp_auth_store_save_client(const char *dir, const mcp_auth_client_t *c,
                               mcp_error_t *err);
int mcp_auth_store_delete_client(const char *dir, const char *issuer,
                                 mcp_error_t *err);

/* Keys are kept next to the tokens, under dpop/, with the same
 * owner-only protection. */
int mcp_auth_store_load_dpop_key(const char *dir, const char *issuer,
                                 mcp_auth_dpop_key_t *out, mcp_error_t *err);
int mcp_auth_store_save_dpop_key(const char *dir,
                                 const mcp_auth_dpop_key_t *k,
                                 mcp_error_t *err);

/* Free the strings (tokens and secrets overwritten first) and zero. */
void mcp_auth_tokens_free(mcp_auth_tokens_t *t);
void mcp_auth_client_free(mcp_auth_client_t *c);
void mcp_auth_dpop_key_free(mcp_auth_dpop_key_t *k);

#endif
