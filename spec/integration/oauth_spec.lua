-- OAuth end to end against a real authorization server: oidc-provider in
-- spec/fixtures/oauth_server.js (automatic login and consent), in front
-- of an MCP server that checks its JWT access tokens (audience = the
-- resource). The browser is spec/fixtures/oauth_browser.sh, which follows
-- the redirects as a browser would. Tokens go to a temporary store.
require "spec.helper"
local mcp = require "mcp"
local fixture = require "spec.support.fixture"

local LUAMCP = (os.getenv("MCP_BUILD_DIR") or "build") .. "/luamcp"
local BROWSER = "spec/fixtures/oauth_browser.sh"

local q = fixture.q

-- Runs luamcp with the store under xdg; returns exit code, stdout, stderr.
local function luamcp(xdg, args, env)
  return fixture.sh(("XDG_DATA_HOME=%s %s %s %s"):format(
    q(xdg), env or "BROWSER=false", LUAMCP, args))
end

local function stats(server)
  local r = assert(mcp.http.request{ url = server.url("/stats") })
  return mcp.json.decode(r.body)
end

local function lines(path)
  local t = {}
  for line in fixture.slurp(path):gmatch("[^\n]+") do t[#t + 1] = line end
  return t
end

-- Waits (polling the fixture's counters, bounded) until pred holds.
local function wait_for(server, pred, within)
  local deadline = require("mcp.core").now() + (within or 10) * 1000
  while not pred(stats(server)) do
    assert(require("mcp.core").now() < deadline, "condition not reached")
    mcp.sleep(0.1)
  end
end

describe("OAuth against a real authorization server", function()
  local xdg, log

  before_each(function()
    xdg = os.tmpname()
    os.remove(xdg)
    assert(os.execute("mkdir -p " .. q(xdg)))
    log = xdg .. "/browser.log"
  end)

  after_each(function()
    os.execute("rm -rf " .. q(xdg))
  end)

  it("luamcp auth: the whole flow, then calls with the stored token", function()
    run_async(function()
      local server <close> = fixture.http_server("oauth_server")
      local url = server.url("/mcp")
      local code, out, err = luamcp(xdg, "auth " .. q(url),
        ("BROWSER=%s OAUTH_BROWSER_LOG=%s"):format(q(BROWSER), q(log)))
      assert.equal(0, code, err)
      assert.matches("authorized by http://127%.0%.0%.1:%d+", out)
      -- The URL was printed too (SSH), and the browser got the same one.
      local opened = lines(log)
      assert.equal(1, #opened)
      assert.truthy(err:find(opened[1], 1, true))
      assert.matches("code_challenge_method=S256", opened[1])
      assert.truthy(opened[1]:find(("resource=http%%3a%%2f%%2f127.0.0.1%%3a%d%%2fmcp")
        :format(server.port), 1, true), opened[1])
      -- Stored owner-only, and never in what was printed.
      local files = {}
      for f in io.popen("find " .. q(xdg) .. " -name '*.json'"):lines() do
        files[#files + 1] = f
      end
      assert.equal(2, #files)     -- the tokens and the registration
      for _, f in ipairs(files) do
        local mode = io.popen("stat -c %a " .. q(f)):read("l")
        assert.equal("600", mode)
        local token = mcp.json.decode(fixture.slurp(f)).access_token
        if token then assert.is_nil(out:find(token, 1, true)) end
      end
      assert.equal("700", io.popen("stat -c %a " .. q(xdg .. "/luamcp/oauth/tokens")):read("l"))
      -- A call in another process uses the stored token.
      code, out, err = luamcp(xdg, "call " .. q(url) .. " whoami '{}'")
      assert.equal(0, code, err)
      assert.equal("test-user mcp:read\n", out)
      assert.equal(1, stats(server).registrations)
    end, 40)
  end)

  it("refreshes an expiring token without a person, in the process and in a new one", function()
    run_async(function()
      local server <close> = fixture.http_server("oauth_server", { "--access-ttl", "3" })
      local url = server.url("/mcp")
      local code, _, err = luamcp(xdg, "auth " .. q(url),
        ("BROWSER=%s OAUTH_BROWSER_LOG=%s"):format(q(BROWSER), q(log)))
      assert.equal(0, code, err)
      local store = xdg .. "/luamcp/oauth"
      -- In this process: no browser may open (none is allowed).
      local client <close> = assert(mcp.connect{ url = url, oauth = { store = store } })
      assert.equal("test-user mcp:read", client:call_tool("whoami", {}).content[1].text)
      local before = stats(server)
      wait_for(server, function(s) return s.refreshes > before.refreshes end)
      assert.equal("test-user mcp:read", client:call_tool("whoami", {}).content[1].text)
      assert.is_true(stats(server).tokens_seen > before.tokens_seen,
        "the call used the refreshed token")
      client:close()
      -- A new process, once the stored access token has expired: the
      -- stored refresh token, no browser.
      local deadline = require("mcp.core").now() + 10000
      while mcp.oauth.status(url, { store = store }).status ~= "expired" do
        assert(require("mcp.core").now() < deadline, "the token never expired")
        mcp.sleep(0.2)
      end
      local refreshes = stats(server).refreshes
      code, _, err = luamcp(xdg, "call " .. q(url) .. " whoami '{}'")
      assert.equal(0, code, err)
      assert.is_true(stats(server).refreshes > refreshes)
      assert.equal(1, #lines(log), "the browser was opened once, by luamcp auth")
      assert.equal("authorized", mcp.oauth.status(url, { store = store }).status)
    end, 40)
  end)

  it("steps up on 403 insufficient_scope with the union of the scopes", function()
    run_async(function()
      local server <close> = fixture.http_server("oauth_server")
      local url = server.url("/mcp")
      local opened = {}
      local client <close> = assert(mcp.connect{ url = url, oauth = {
        store = xdg .. "/luamcp/oauth",
        -- In the background: the redirect comes back to this very loop.
        open = function(u)
          opened[#opened + 1] = u
          os.execute(("%s %s >/dev/null 2>&1 &"):format(BROWSER, q(u)))
        end,
      } })
      assert.equal(1, #opened)
      assert.matches("scope=openid%+mcp%%3aread", opened[1])
      local result = assert(client:call_tool("write_note", {}))
      assert.equal("noted", result.content[1].text)
      assert.equal(2, #opened)
      local scope = opened[2]:match("scope=([^&]+)")
      assert.matches("mcp%%3aread", scope)
      assert.matches("mcp%%3awrite", scope)
      assert.equal(1, stats(server).forbidden)
      assert.matches("mcp:write", mcp.oauth.status(url, { store = xdg .. "/luamcp/oauth" }).scope)
    end, 40)
  end)

  it("luamcp logout removes the tokens; a later call says which command to run", function()
    run_async(function()
      local server <close> = fixture.http_server("oauth_server")
      local url = server.url("/mcp")
      local code, out, err = luamcp(xdg, "auth " .. q(url), "BROWSER=" .. q(BROWSER))
      assert.equal(0, code, err)
      code, out = luamcp(xdg, "logout " .. q(url))
      assert.equal(0, code)
      assert.matches("tokens removed", out)
      assert.equal("needs_auth", mcp.oauth.status(url, { store = xdg .. "/luamcp/oauth" }).status)
      assert.equal("", (io.popen("find " .. q(xdg .. "/luamcp/oauth/tokens") .. " -type f"):read("a")))
      code, out, err = luamcp(xdg, "call " .. q(url) .. " whoami '{}'")
      assert.equal(1, code)
      assert.matches("ENEEDSAUTH", err)
      assert.matches("luamcp auth", err)
      code, out = luamcp(xdg, "logout " .. q(url))
      assert.equal(0, code)
      assert.matches("no tokens were kept", out)
    end, 40)
  end)
end)
