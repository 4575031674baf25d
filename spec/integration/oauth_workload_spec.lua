-- Workload identity federation: the RFC 7523 JWT-bearer grant with a
-- workload's token from a file or a command (spec/fixtures/
-- oauth_workload.js). A fresh token for every token request, renewal
-- before expiry, and after a refusal no retry and no other grant.
require "spec.helper"
local mcp = require "mcp"
local fixture = require "spec.support.fixture"

local q = fixture.q

-- The fixture's counters; with token_requests = n, once it has had n
-- token requests (it waits up to 10 s).
local function stats(server, token_requests)
  local query = token_requests and ("?token_requests=%d"):format(token_requests) or ""
  local r = assert(mcp.http.request{ url = server.url("/stats" .. query), timeout = 15 })
  return mcp.json.decode(r.body)
end

local function has_hit(s, path)
  for _, h in ipairs(s.hits) do
    if h:find(path, 1, true) then return true end
  end
  return false
end

describe("the jwt_bearer grant (workload identity)", function()
  local dir

  before_each(function()
    dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p " .. q(dir)))
  end)

  after_each(function()
    os.execute("rm -rf " .. q(dir))
  end)

  it("runs the command for a fresh token on every grant, renewal included", function()
    run_async(function()
      local server <close> = fixture.http_server("oauth_workload", { "--ttl", "3" })
      -- Prints workload-1, workload-2, ...: a new token each run.
      local counter = dir .. "/n"
      local command = { "sh", "-c", ("n=$(($(cat %s 2>/dev/null || echo 0) + 1)); echo $n > %s; echo workload-$n")
        :format(q(counter), q(counter)) }
      local client <close> = assert(mcp.connect{ url = server.url("/mcp"), oauth = {
        grant = "jwt_bearer", assertion = command, store = false } })
      assert.equal("workload-1", client:call_tool("whoami", {}).content[1].text)
      local first = stats(server).token_requests
      assert.equal(1, #first)
      assert.equal("urn:ietf:params:oauth:grant-type:jwt-bearer", first[1].grant_type)
      assert.equal(server.url("/mcp"), first[1].resource)
      -- Renewed before the 3 s token expires, with the next token.
      local renewed = stats(server, 2).token_requests
      assert.is_true(#renewed >= 2, "no renewal")
      assert.equal("workload-2", renewed[2].assertion)
      assert.equal("workload-2", client:call_tool("whoami", {}).content[1].text)
    end, 40)
  end)

  it("a refused token: one request, no retry, no other grant", function()
    run_async(function()
      local server <close> = fixture.http_server("oauth_workload")
      local path = dir .. "/token"
      local f = assert(io.open(path, "w"))
      f:write("workload-revoked\n")
      f:close()
      local client, err = mcp.connect{ url = server.url("/mcp"), oauth = {
        grant = "jwt_bearer", assertion = path, store = false } }
      assert.is_nil(client)
      assert.equal("EAUTH", err.code)
      assert.matches("invalid_grant", err.message)
      assert.is_nil(tostring(err):find("workload-revoked", 1, true))
      local s = stats(server)
      assert.equal(1, #s.token_requests)
      assert.is_false(has_hit(s, "/as/register"))
      assert.is_false(has_hit(s, "/as/authorize"))
    end, 40)
  end)

  it("answers an authorization server's DPoP nonce once, and only once", function()
    run_async(function()
      local server <close> = fixture.http_server("oauth_workload", { "--dpop-nonce-stuck" })
      local path = dir .. "/token"
      local f = assert(io.open(path, "w"))
      f:write("workload-1\n")
      f:close()
      local client, err = mcp.connect{ url = server.url("/mcp"), oauth = {
        grant = "jwt_bearer", assertion = path, dpop = true, store = false } }
      assert.is_nil(client)
      assert.equal("EAUTH", err.code)
      assert.matches("use_dpop_nonce", err.message)
      local requests = stats(server).token_requests
      assert.equal(2, #requests)
      assert.is_false(requests[1].dpop_nonce, "no nonce before the server gave one")
      assert.is_true(requests[2].dpop_nonce, "the retry carries the server's nonce")
      assert.equal(requests[1].assertion, requests[2].assertion, "the same form again")
    end, 40)
  end)

  it("a failing command: a clear error, nothing sent", function()
    run_async(function()
      local server <close> = fixture.http_server("oauth_workload")
      local client, err = mcp.connect{ url = server.url("/mcp"), oauth = {
        grant = "jwt_bearer", store = false,
        assertion = { "sh", "-c", "echo workload-leaked; exit 3" } } }
      assert.is_nil(client)
      assert.equal("EAUTH", err.code)
      assert.matches("exit status 3", err.message)
      assert.is_nil(tostring(err):find("workload-leaked", 1, true))
      assert.equal(0, #stats(server).token_requests)
    end, 40)
  end)
end)
