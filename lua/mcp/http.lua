--- mcp.http: HTTP requests as waiting calls over mcp.core.http_request.
--- It converts timeouts to milliseconds and ties a request to its task; the
--- transfer itself (connection pooling, TLS, limits, redirects, streaming)
--- happens in C (src/core/http.c). It knows nothing of MCP.
local core = require "mcp.core"
local task = require "mcp.task"

local M = {}

M.DEFAULT_TIMEOUT = 60   -- seconds, for the whole transfer

local function to_ms(value, name, default)
  if value == nil then value = default end
  if value == nil or value == false then return nil end
  if type(value) ~= "number" or value <= 0 then
    error(("bad option '%s' (positive number of seconds or false expected)")
      :format(name), 4)
  end
  return math.ceil(value * 1000)
end

--- syntax: response, err = mcp.http.request(opts)
--- Waits for the response. opts:
---   url (string, required), method (default GET, or POST with a body),
---   headers ({ name = value } and/or { "Name: value" }), body (string),
---   timeout (seconds for the whole transfer; default 60; false: none),
---   connect_timeout (seconds), max_size (body bytes; default 16 MiB when
---   the body is buffered, none when on_data is given), max_redirects
---   (same-origin redirects to follow; default 0: a 3xx is returned),
---   ca_file, ca_path, cert, key (PEM paths), insecure (true: do not verify
---   the server's certificate; for tests only),
---   on_start = fn(req): called once the request runs; req:cancel() stops it
---   on_headers = fn(status, headers, req): once, when the headers arrive
---   on_data = fn(chunk, req): body bytes as they arrive (a stream); the
---     response then has no `body`
--- Returns response = { status, headers (lower-case names), body,
--- http_version, url, connects (new connections made: 0 when a pooled
--- one was reused), redirect_url (the target of a 3xx not followed) }, or
--- nil and an mcp.error: ETIMEDOUT, ECANCELED, ETOOBIG, EINVAL, ECONNECT when
--- no connection could be made (nothing was sent), or EIO for another
--- transport failure (err.cause and err.curl_code give libcurl's reason).
--- An HTTP error status is a response, not an error. A task that is
--- closed while waiting cancels its request.
function M.request(opts)
  if type(opts) ~= "table" then
    error("bad argument #1 to 'request' (table expected)", 2)
  end
  if type(opts.url) ~= "string" then
    error("bad option 'url' (string expected)", 2)
  end
  for _, name in ipairs { "on_start", "on_headers", "on_data" } do
    if opts[name] ~= nil and type(opts[name]) ~= "function" then
      error(("bad option '%s' (function expected)"):format(name), 2)
    end
  end
  local handle
  local o = {}
  for k, v in pairs(opts) do o[k] = v end
  o.on_start = nil
  o.timeout = to_ms(opts.timeout, "timeout", M.DEFAULT_TIMEOUT)
  o.connect_timeout = to_ms(opts.connect_timeout, "connect_timeout", nil)
  if opts.on_headers then
    o.on_headers = function(status, headers)
      return opts.on_headers(status, headers, handle)
    end
  end
  if opts.on_data then
    o.on_data = function(chunk) return opts.on_data(chunk, handle) end
  end
  -- Runs when the task leaves this call for any reason: if it was closed
  -- while waiting, the transfer stops too (a no-op once it is done).
  local _ <close> = setmetatable({}, { __close = function()
    if handle then handle:cancel() end
  end })
  return task.await(function(done)
    local h, err = core.http_request(o, done)
    if not h then return nil, err end
    handle = h
    if opts.on_start then opts.on_start(h) end
    return h
  end)
end

return M
