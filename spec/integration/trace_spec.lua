-- on_trace: a connection's trace (luamcp debug) shows the messages and,
-- over HTTP, every request's and answer's headers, the OAuth discovery
-- included, with the values of credential headers masked.
local mcp = require "mcp"
local fixture = require "spec.support.fixture"

local function has(lines, pattern)
  for _, l in ipairs(lines) do
    if l:find(pattern) then return true end
  end
  return false
end

describe("a connection's trace", function()
  it("shows every message sent and received over stdio", function()
    run_async(function()
      local lines = {}
      local c <close> = assert(fixture.connect("echo",
        { on_trace = function(l) lines[#lines + 1] = l end }))
      assert(c:call_tool("echo", { message = "traced" }))
      assert.is_true(has(lines, '^> {"jsonrpc":"2.0","id":1,"method":"server/discover"'))
      assert.is_true(has(lines, '^> {"jsonrpc":"2.0","id":2,"method":"initialize"'))
      assert.is_true(has(lines, '^< .*"serverInfo"'))
      assert.is_true(has(lines, '^> .*"method":"tools/call"'))
      assert.is_true(has(lines, '^< .*"text":"traced"'))
    end)
  end)

  it("shows HTTP requests, answers and discovery with credentials masked", function()
    run_async(function()
      local server <close> = fixture.http_server("oauth_hostile")
      local lines = {}
      local c, err = mcp.connect{ url = server.url("/mcp/plain"),
        headers = { ["X-Api-Key"] = "SECRET-KEY-1", Authorization = "Bearer SECRET-TOKEN-2",
                    ["X-Tenant"] = "t1" },
        oauth = { store = false },
        on_trace = function(l) lines[#lines + 1] = l end }
      assert.is_nil(c)
      assert.equal("ENEEDSAUTH", err.code)
      assert.is_true(has(lines, "^> POST /mcp/plain HTTP/1%.1$"))
      assert.is_true(has(lines, "^> X%-Tenant: t1$"))
      assert.is_true(has(lines, "^> X%-Api%-Key: %*%*%*$"))
      assert.is_true(has(lines, "^> Authorization: %*%*%*$"))
      assert.is_true(has(lines, "^< HTTP/1%.1 401"))
      assert.is_true(has(lines, '^< WWW%-Authenticate: Bearer'))   -- a challenge, not a secret
      assert.is_true(has(lines, "^> GET /%.well%-known/oauth%-protected%-resource/mcp/plain"))
      -- The era's probe is what met the 401: no era is known before the
      -- authorization, so nothing else was sent.
      assert.is_true(has(lines, '^> {"jsonrpc":"2.0","id":1,"method":"server/discover"'))
      assert.is_false(has(lines, '"method":"initialize"'))
      for _, l in ipairs(lines) do
        assert.is_nil(l:find("SECRET", 1, true), l)
      end
    end)
  end)
end)
