-- mcp.host with remote servers that need authorization: their states say
-- so (needs_auth, needs_client_registration), nothing opens a browser,
-- and the other servers are connected and usable meanwhile.
local mcp = require "mcp"
local fixture = require "spec.support.fixture"

describe("a host with servers that need authorization", function()
  it("marks them needs_auth and needs_client_registration and serves the others", function()
    run_async(function()
      local server <close> = fixture.http_server("oauth_hostile")
      local states = {}
      local host <close> = assert(mcp.host{
        servers = {
          echo = { command = { "node", "spec/fixtures/echo.js" } },
          plain = { url = server.url("/mcp/plain"), oauth = { store = false } },
          noreg = { url = server.url("/mcp/no-registration"), oauth = { store = false } },
        },
        on_stderr = function() end,
        on_status = function(name, state) states[#states + 1] = name .. "=" .. state end,
      })
      local status = host:status()
      assert.equal("connected", status.echo.state)
      assert.equal("needs_auth", status.plain.state)
      assert.equal("ENEEDSAUTH", status.plain.error.code)
      assert.matches("luamcp auth", status.plain.error.message)
      assert.equal("needs_client_registration", status.noreg.state)
      assert.equal("ENEEDSREG", status.noreg.error.code)
      -- Each went through connecting first.
      for _, name in ipairs{ "echo", "plain", "noreg" } do
        local first
        for i, s in ipairs(states) do
          if s:find("^" .. name .. "=") and not first then first = i end
        end
        assert.equal(name .. "=connecting", states[first])
      end
      local names = {}
      for _, t in ipairs(host:tools()) do names[#names + 1] = t.name end
      assert.same({ "echo_echo", "echo_add" }, names)
      assert.equal("3", assert(host:call("echo_add", { a = 1, b = 2 })).content[1].text)
      local _, err = host:client("plain")
      assert.equal("ENEEDSAUTH", err.code)
      -- Nothing asked a person: no authorization request was made.
      local response = assert(mcp.http.request{ url = server.url("/stats") })
      local hits = table.concat(mcp.json.decode(response.body).hits, "\n")
      assert.truthy(hits:find("/mcp/plain", 1, true))
      assert.is_nil(hits:find("/authorize", 1, true))
    end)
  end)
end)
