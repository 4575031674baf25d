-- OAuth against a hostile server (spec/fixtures/oauth_hostile.js): every
-- URL a server hands to discovery is untrusted. A metadata URL at a
-- link-local or private address is refused before anything is sent, a
-- document past the size limit is refused, a redirect to another origin
-- is not followed, metadata about another resource or from another
-- issuer is not used, an authorization server without PKCE S256 is
-- refused; each with a clear error, and nothing past the refusal is
-- fetched.
require "spec.helper"
local mcp = require "mcp"
local fixture = require "spec.support.fixture"

local function connect(server, mode, oauth)
  oauth = oauth or {}
  oauth.store = oauth.store or false
  return mcp.connect{
    url = server.url("/mcp/" .. mode), oauth = oauth, timeout = 20,
    init_timeout = 20,
  }
end

local function hits(server)
  local response = assert(mcp.http.request{ url = server.url("/stats") })
  return table.concat(mcp.json.decode(response.body).hits, "\n")
end

-- An open function that must not be reached: the flow stops before it.
local function no_browser(url)
  error("the flow reached the browser with " .. url)
end

describe("OAuth discovery against a hostile server", function()
  it("refuses resource metadata at a link-local address (SSRF)", function()
    run_async(function()
      local server <close> = fixture.http_server("oauth_hostile")
      local client, err = connect(server, "ssrf-link-local", { open = no_browser })
      assert.is_nil(client)
      assert.equal("EREFUSED", err.code)
      assert.matches("169.254.169.254", err.message, 1, true)
    end)
  end)

  it("refuses resource metadata at a loopback address not the server's (SSRF)", function()
    run_async(function()
      local server <close> = fixture.http_server("oauth_hostile")
      local client, err = connect(server, "ssrf-loopback-prm", { open = no_browser })
      assert.is_nil(client)
      assert.equal("EREFUSED", err.code)
      assert.matches("127%.0%.0%.2", err.message)
      assert.is_nil(hits(server):find("GET /.well-known/oauth-protected-resource/mcp/ssrf",
        1, true), "the refused request was never sent")
    end)
  end)

  it("refuses an authorization server at another loopback address (SSRF)", function()
    run_async(function()
      local server <close> = fixture.http_server("oauth_hostile")
      local client, err = connect(server, "ssrf-private-as", { open = no_browser })
      assert.is_nil(client)
      assert.equal("EREFUSED", err.code)
      assert.matches("127%.0%.0%.2", err.message)
      assert.is_nil(hits(server):find("/as/ssrf-private-as", 1, true))
    end)
  end)

  it("stops reading a metadata document past its size limit", function()
    run_async(function()
      local server <close> = fixture.http_server("oauth_hostile")
      local before = fixture.peak_rss_kb()
      local client, err = connect(server, "huge-prm", { open = no_browser })
      assert.is_nil(client)
      -- The oversized document is skipped like a missing one; what stops
      -- the flow is then the lack of anything usable, never memory.
      assert.truthy(err.code == "EAUTH" or err.code == "ENEEDSREG"
        or err.code == "ENEEDSAUTH", tostring(err))
      assert.is_true(fixture.peak_rss_kb() - before < 8 * 1024,
        "reading the 10 MB document must not hold it")
    end)
  end)

  it("does not use metadata that describes another resource", function()
    run_async(function()
      local server <close> = fixture.http_server("oauth_hostile")
      local client, err = connect(server, "other-resource", { open = no_browser })
      assert.is_nil(client)
      assert.equal("EAUTH", err.code)
      assert.matches("is for .*/mcp/another", err.message)
      assert.is_nil(hits(server):find("/as/", 1, true),
        "no authorization server of refused metadata is asked")
    end)
  end)

  it("does not follow a metadata redirect to another origin", function()
    run_async(function()
      local server <close> = fixture.http_server("oauth_hostile")
      local client, err = connect(server, "cross-origin", { open = no_browser })
      assert.is_nil(client)
      assert.is_nil(hits(server):find("/elsewhere", 1, true))
      assert.truthy(err.code == "EAUTH" or err.code == "ENEEDSREG"
        or err.code == "ENEEDSAUTH", tostring(err))
    end)
  end)

  it("refuses an authorization server without PKCE S256", function()
    run_async(function()
      local server <close> = fixture.http_server("oauth_hostile")
      local client, err = connect(server, "no-s256", { open = no_browser })
      assert.is_nil(client)
      assert.equal("EAUTH", err.code)
      assert.matches("S256", err.message)
      assert.is_nil(hits(server):find("/register", 1, true))
    end)
  end)

  it("uses no endpoint of metadata that names another issuer", function()
    run_async(function()
      local server <close> = fixture.http_server("oauth_hostile")
      local client, err = connect(server, "issuer-mismatch", { open = no_browser })
      assert.is_nil(client)
      assert.equal("EAUTH", err.code)
      assert.matches("attacker%.example%.com", err.message)
      local log = hits(server)
      assert.is_nil(log:find("/register", 1, true))
      assert.is_nil(log:find("/authorize", 1, true))
    end)
  end)

  it("refuses an authorization endpoint that is not https or loopback", function()
    run_async(function()
      local server <close> = fixture.http_server("oauth_hostile")
      local client, err = connect(server, "javascript-as", { open = no_browser })
      assert.is_nil(client)
      assert.equal("EAUTH", err.code)
      assert.matches("authorization_endpoint", err.message)
    end)
  end)

  it("survives a garbage challenge and falls back to the 2025-03-26 defaults", function()
    run_async(function()
      local server <close> = fixture.http_server("oauth_hostile")
      -- Not interactive: the flow gets as far as knowing it needs a person.
      local client, err = connect(server, "garbage-challenge")
      assert.is_nil(client)
      assert.equal("ENEEDSAUTH", err.code)
      assert.matches("luamcp auth", err.message)
      local log = hits(server)
      assert.truthy(log:find("GET /.well-known/oauth-protected-resource/mcp/garbage-challenge", 1, true))
      assert.truthy(log:find("GET /.well-known/oauth-authorization-server\n", 1, true)
        or log:find("GET /.well-known/oauth-authorization-server$"))
    end)
  end)

  it("says which command to run when no registration is possible", function()
    run_async(function()
      local server <close> = fixture.http_server("oauth_hostile")
      local client, err = connect(server, "no-registration")
      assert.is_nil(client)
      assert.equal("ENEEDSREG", err.code)
      assert.matches("client_id", err.message)
    end)
  end)

  it("sends the configured headers on the flow's requests to the MCP server", function()
    run_async(function()
      local server <close> = fixture.http_server("oauth_hostile")
      local client, err = mcp.connect{ url = server.url("/mcp/plain"),
        headers = { ["X-Tenant"] = "t1" }, oauth = { store = false } }
      assert.is_nil(client)
      assert.equal("ENEEDSAUTH", err.code)
      assert.truthy(hits(server):find(
        "GET /.well-known/oauth-protected-resource/mcp/plain x-tenant=t1", 1, true))
    end)
  end)

  it("fails with ENEEDSAUTH without a person, and never opens a browser", function()
    run_async(function()
      local server <close> = fixture.http_server("oauth_hostile")
      local client, err = mcp.connect{ url = server.url("/mcp/plain"),
        oauth = { store = false }, timeout = 20 }
      assert.is_nil(client)
      assert.equal("ENEEDSAUTH", err.code)
      assert.is_nil(hits(server):find("/authorize", 1, true))
    end)
  end)
end)
