--- mcp.oauth: signing in to remote MCP servers (OAuth 2.1), and the tokens
--- kept for them. The flow itself is the core's (src/core/auth): connect
--- uses and refreshes stored tokens on its own; these functions are for
--- the step that needs a person, and for looking at or dropping what is
--- kept. Tokens never leave the store through this API.
local core = require "mcp.core"
local client = require "mcp.client"

local M = {}

local function check_url(url, fn)
  if type(url) ~= "string" or not url:match("^https?://") then
    error(("bad argument #1 to '%s' (http(s) URL expected)"):format(fn), 3)
  end
end

--- syntax: info, err = mcp.oauth.login(url, opts?)
--- Authorizes luamcp with the server at url: the browser ($BROWSER, else
--- xdg-open; the URL is printed too) unless opts.open is a function(url),
--- the redirect taken on 127.0.0.1, tokens stored. opts: the oauth options
--- of mcp.connect (client_id, client_secret, scope, redirect_uri,
--- callback_port, client_metadata_url, store, open, timeout in seconds:
--- the person's step, default 300), and headers. Returns mcp.oauth.status.
function M.login(url, opts)
  check_url(url, "login")
  opts = opts or {}
  local oauth = {}
  for k, v in pairs(opts) do oauth[k] = v end
  oauth.headers = nil
  oauth.interactive = true
  if oauth.open == nil then oauth.open = true end
  local timeout = opts.timeout or 300
  local c, err = client.connect{
    name = url, url = url, oauth = oauth, headers = opts.headers,
    init_timeout = timeout + 30, timeout = timeout + 30,
    ca_file = opts.ca_file, insecure = opts.insecure,
  }
  if not c then return nil, err end
  c:close()
  return M.status(url, opts)
end

--- syntax: info = mcp.oauth.status(url, opts?)
--- What is kept for the server: { status = "authorized" | "expired" |
--- "needs_auth", resource, issuer, scope, expires_at, refreshable }.
function M.status(url, opts)
  check_url(url, "status")
  local store = opts and opts.store
  return core.oauth_status(url, type(store) == "string" and store or nil)
end

--- syntax: removed, err = mcp.oauth.logout(url, opts?)
--- Forgets the tokens kept for the server (true when there were some).
function M.logout(url, opts)
  check_url(url, "logout")
  local store = opts and opts.store
  return core.oauth_forget(url, type(store) == "string" and store or nil)
end

return M
