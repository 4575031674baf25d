/*
 * ldigest.c - SHA-256 and base64 for the Lua layer, on OpenSSL's libcrypto
 * (loaded on first use by curl_dl.h). Skills (lua/mcp/skills.lua) verify
 * what a server sent against the digest it listed: the bytes of a text
 * content, or the decoded bytes of a blob.
 *
 * syntax: hex, err = core.sha256(bytes)     -- 64 lower-case hex digits
 *         bytes, err = core.base64_decode(text)
 *         -- nil, EINVAL for text that is not base64 (RFC 4648 section 4,
 *         -- padded; whitespace only at the ends)
 *         id, err = core.random_id()     -- 16 random bytes (RAND_bytes)
 *         -- as 22 base64url characters: ids a peer must not guess
 */
#include <string.h>

#include "auth/pkce.h"
#include "curl_dl.h"
#include "lutil.h"

static int
ldigest_sha256(lua_State *L)
{
  size_t len;
  const char *data = luaL_checklstring(L, 1, &len);
  char hex[65];
  mcp_error_t err;

  if (mcp_auth_sha256_hex(data, len, hex, &err) != 0)
    return lmcp_fail(L, &err);
  lua_pushlstring(L, hex, 64);
  return 1;
}

static int
ldigest_base64_decode(lua_State *L)
{
  size_t len, start = 0, pad = 0, i;
  const char *text = luaL_checklstring(L, 1, &len);
  luaL_Buffer b;
  unsigned char *out;
  mcp_error_t err;
  int n, c;

  /* EVP_DecodeBlock takes an int length and skips only outer blanks;
   * trim them here so that the padding count below is right. */
  while (start < len && text[start] != '\0'
         && strchr(" \t\r\n", text[start]) != NULL)
    start++;
  while (len > start && text[len - 1] != '\0'
         && strchr(" \t\r\n", text[len - 1]) != NULL)
    len--;
  len -= start;
  if (len > (size_t) 0x7ffffff0 || len % 4 != 0) {
    mcp_error_set(&err, MCP_EINVAL, "not base64 (length %zu)", len);
    return lmcp_fail(L, &err);
  }
  /* EVP_DecodeBlock writes the padding out as zero bytes: count it. */
  while (pad < 2 && pad < len && text[start + len - 1 - pad] == '=')
    pad++;
  /* It also lets '=' and blanks through elsewhere: only the alphabet
   * before the padding is base64. */
  for (i = start; i < start + len - pad; i++) {
    c = (unsigned char) text[i];
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')
          || (c >= '0' && c <= '9') || c == '+' || c == '/')) {
      mcp_error_set(&err, MCP_EINVAL, "not base64 (byte %zu)", i - start);
      return lmcp_fail(L, &err);
    }
  }
  if (mcp_curl_load(&err) != 0)
    return lmcp_fail(L, &err);
  out = (unsigned char *) luaL_buffinitsize(L, &b, len / 4 * 3 + 1);
  n = EVP_DecodeBlock(out, (const unsigned char *) text + start, (int) len);
  if (n < 0 || (size_t) n < pad) {
    mcp_error_set(&err, MCP_EINVAL, "not base64");
    return lmcp_fail(L, &err);
  }
  luaL_pushresultsize(&b, (size_t) n - pad);
  return 1;
}

static int
ldigest_random_id(lua_State *L)
{
  char id[32];
  mcp_error_t err;

  if (mcp_curl_load(&err) != 0 || mcp_auth_random(id, sizeof id, 16, &err) != 0)
    return lmcp_fail(L, &err);
  lua_pushstring(L, id);
  return 1;
}

void
lmcp_open_digest(lua_State *L)
{
  lua_pushcfunction(L, ldigest_sha256);
  lua_setfield(L, -2, "sha256");
  lua_pushcfunction(L, ldigest_base64_decode);
  lua_setfield(L, -2, "base64_decode");
  lua_pushcfunction(L, ldigest_random_id);
  lua_setfield(L, -2, "random_id");
}
