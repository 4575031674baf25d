-- OAuth without a person, against a real authorization server:
-- oidc-provider in spec/fixtures/oauth_server.js with the client
-- credentials grant and DPoP on, in front of an MCP server that checks
-- its JWT access tokens and, for DPoP-bound ones, the proof of every
-- request. No browser may open (no oauth.open): these grants need none.
require "spec.helper"
local mcp = require "mcp"
local fixture = require "spec.support.fixture"

local q = fixture.q

local function stats(server)
  local r = assert(mcp.http.request{ url = server.url("/stats") })
  return mcp.json.decode(r.body)
end

-- The JSON files the store holds under kind ("tokens", "dpop"), decoded,
-- with each one's mode.
local function stored(store, kind)
  local files = {}
  for path in io.popen("find " .. q(store .. "/" .. kind) .. " -name '*.json' 2>/dev/null"):lines() do
    files[#files + 1] = { doc = mcp.json.decode(fixture.slurp(path)),
                          mode = io.popen("stat -c %a " .. q(path)):read("l") }
  end
  return files
end

-- An initialize POST to the MCP server with these headers: its status.
local function post_initialize(url, headers)
  local body = mcp.json.encode{ jsonrpc = "2.0", id = 1, method = "initialize", params = {
    protocolVersion = "2025-11-25", capabilities = {},
    clientInfo = { name = "spec", version = "1" } } }
  headers["Content-Type"] = "application/json"
  headers["Accept"] = "application/json, text/event-stream"
  return assert(mcp.http.request{ url = url, method = "POST", headers = headers,
                                  body = body }).status
end

describe("OAuth without a person (oidc-provider)", function()
  local dir, store

  before_each(function()
    dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p " .. q(dir)))
    store = dir .. "/oauth"
  end)

  after_each(function()
    os.execute("rm -rf " .. q(dir))
  end)

  -- A file holding text, mode 0600.
  local function secret_file(name, text)
    local path = dir .. "/" .. name
    local f = assert(io.open(path, "w"))
    f:write(text)
    f:close()
    assert(os.execute("chmod 600 " .. q(path)))
    return path
  end

  it("client_credentials with DPoP: a bound token calls the tool; sent as Bearer it is refused", function()
    run_async(function()
      local server <close> = fixture.http_server("oauth_server")
      local url = server.url("/mcp")
      local oauth = { grant = "client_credentials", client_id = "m2m-basic",
                      client_secret = { file = secret_file("secret", "m2m-secret\n") },
                      dpop = true, store = store }
      local client <close> = assert(mcp.connect{ url = url, oauth = oauth })
      assert.equal("m2m-basic mcp:read", client:call_tool("whoami", {}).content[1].text)
      local s = stats(server)
      assert.equal(1, s.client_credentials)
      assert.equal(1, s.dpop_tokens, "the token endpoint got a proof and bound the token")
      assert.is_true(s.dpop_requests >= 2, "initialize and the call, each with a proof")
      assert.equal(0, s.proofs_refused)
      assert.equal(0, s.bearer_refused)
      assert.equal(0, s.registrations)
      assert.equal(0, s.authorizations)
      -- declared beside the client's other extensions (skills)
      local declared = {}
      for _, name in ipairs(s.extensions) do declared[name] = true end
      assert.is_true(declared["io.modelcontextprotocol/oauth-client-credentials"])
      assert.is_nil(declared["io.modelcontextprotocol/enterprise-managed-authorization"])
      client:close()

      -- The token and its key, kept owner-only beside each other.
      local tokens, keys = stored(store, "tokens"), stored(store, "dpop")
      assert.equal(1, #tokens)
      assert.equal(1, #keys)
      assert.equal("600", tokens[1].mode)
      assert.equal("600", keys[1].mode)
      assert.equal("DPoP", tokens[1].doc.token_type)
      assert.equal(s.issuer, keys[1].doc.issuer)
      local token = tokens[1].doc.access_token

      -- The same token without its proof is worth nothing: as Bearer,
      -- and as DPoP without a proof.
      assert.equal(401, post_initialize(url, { Authorization = "Bearer " .. token }))
      assert.equal(1, stats(server).bearer_refused)
      assert.equal(401, post_initialize(url, { Authorization = "DPoP " .. token }))
      assert.equal(1, stats(server).proofs_refused)

      -- A new client uses the kept token with the kept key: no new grant.
      -- Its trace shows the headers, never the token or the proof.
      local trace = {}
      local again <close> = assert(mcp.connect{ url = url, oauth = oauth,
        on_trace = function(line) trace[#trace + 1] = line end })
      assert.equal("m2m-basic mcp:read", again:call_tool("whoami", {}).content[1].text)
      assert.equal(1, stats(server).client_credentials)
      assert.equal(1, stats(server).proofs_refused)
      local text = table.concat(trace, "\n")
      assert.matches("DPoP: %*%*%*", text)
      assert.matches("Authorization: %*%*%*", text)
      assert.is_nil(text:find(token, 1, true))
      assert.is_nil(text:find("eyJ", 1, true), "no JWT, proof or token, in the trace")
    end, 40)
  end)

  it("client_credentials with private_key_jwt: an unbound Bearer token without dpop", function()
    run_async(function()
      local key = dir .. "/client.pem"
      assert(os.execute(("openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out %s 2>/dev/null")
        :format(q(key))))
      local server <close> = fixture.http_server("oauth_server", { "--client-key", key })
      local client <close> = assert(mcp.connect{ url = server.url("/mcp"), oauth = {
        grant = "client_credentials", client_id = "m2m-jwt", private_key = key, store = false } })
      assert.equal("m2m-jwt mcp:read", client:call_tool("whoami", {}).content[1].text)
      local s = stats(server)
      assert.equal(1, s.client_credentials)
      assert.equal(0, s.dpop_tokens)
      assert.equal(0, s.dpop_requests)
    end, 40)
  end)

  it("signs a new client assertion for the token request sent again with the nonce", function()
    run_async(function()
      local key = dir .. "/client-nonce.pem"
      assert(os.execute(("openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out %s 2>/dev/null")
        :format(q(key))))
      -- oidc-provider refuses a client assertion whose jti it saw before
      local server <close> = fixture.http_server("oauth_server", { "--client-key", key, "--as-nonce" })
      local client <close> = assert(mcp.connect{ url = server.url("/mcp"), oauth = {
        grant = "client_credentials", client_id = "m2m-jwt", private_key = key,
        dpop = true, store = false } })
      assert.equal("m2m-jwt mcp:read", client:call_tool("whoami", {}).content[1].text)
      local s = stats(server)
      assert.equal(1, s.client_credentials)
      assert.equal(1, s.dpop_tokens)
    end, 40)
  end)

  it("retries once with each server's DPoP nonce, without a new grant", function()
    run_async(function()
      local server <close> = fixture.http_server("oauth_server", { "--as-nonce", "--rs-nonce" })
      local client <close> = assert(mcp.connect{ url = server.url("/mcp"), oauth = {
        grant = "client_credentials", client_id = "m2m-basic", client_secret = "m2m-secret",
        dpop = true, store = false } })
      assert.equal("m2m-basic mcp:read", client:call_tool("whoami", {}).content[1].text)
      assert.equal("m2m-basic mcp:read", client:call_tool("whoami", {}).content[1].text)
      local s = stats(server)
      assert.equal(1, s.client_credentials)
      assert.equal(1, s.dpop_tokens)
      -- Only the first request lacked the nonce: the client keeps it.
      assert.equal(1, s.rs_nonce_challenges)
      assert.equal(0, s.proofs_refused)
    end, 40)
  end)

  it("gives up after one retry when the server refuses its own nonce again", function()
    run_async(function()
      local server <close> = fixture.http_server("oauth_server", { "--rs-nonce-stuck" })
      local client, err = mcp.connect{ url = server.url("/mcp"), oauth = {
        grant = "client_credentials", client_id = "m2m-basic", client_secret = "m2m-secret",
        dpop = true, store = false } }
      assert.is_nil(client)
      assert.equal("EAUTH", err.code)
      assert.matches("nonce", err.message)
      local s = stats(server)
      -- The first refusal, then once, and only once, with the nonce.
      assert.equal(2, s.rs_nonce_challenges)
      assert.equal(1, s.client_credentials, "a nonce refusal starts no new grant")
    end, 40)
  end)

  it("a refused secret fails at once, says why, and never shows the secret", function()
    run_async(function()
      local server <close> = fixture.http_server("oauth_server")
      local client, err = mcp.connect{ url = server.url("/mcp"), oauth = {
        grant = "client_credentials", client_id = "m2m-basic",
        client_secret = "wrong-secret-value", store = false } }
      assert.is_nil(client)
      assert.equal("EAUTH", err.code)
      assert.matches("invalid_client", err.message)
      assert.is_nil(tostring(err):find("wrong-secret-value", 1, true))
      local s = stats(server)
      assert.equal(0, s.client_credentials)
      assert.equal(0, s.registrations, "no fallback to registration")
      assert.equal(0, s.authorizations, "no fallback to a browser")
    end, 40)
  end)
end)
