--- mcp.cli.auth: luamcp auth and logout. The server is a URL, or a name
--- from the config file, whose url, headers and oauth options are used.
local mcp = require "mcp"
local config = require "mcp.host.config"
local args = require "mcp.cli.args"
local session = require "mcp.cli.session"

local M = {}
local fail = session.fail

--- syntax: spec, err = auth.config_spec(opts, name)
--- The server called name in the config file (--config, LUAMCP_CONFIG or
--- the search order), as mcp.host.config normalizes it.
function M.config_spec(opts, name)
  local path, err = config.find{ path = opts.config }
  if not path then return nil, err end
  local cfg
  cfg, err = config.load(path)
  if not cfg then return nil, err end
  local spec = cfg.servers[name]
  if not spec then
    return nil, mcp.error("ENOENT", ("no server named %q in %s"):format(name, path))
  end
  return spec, nil, cfg
end

-- The URL and login options of the server the words name.
local function remote(opts, words, command, usage)
  local server, rest, err = args.server(opts, words, command, { n = 0 })
  if err then return nil, err end
  if #rest > 0 or not server then return nil, "usage: " .. usage end
  if server.url then
    local o = {}
    for k, v in pairs(opts.oauth or {}) do o[k] = v end
    o.headers = opts.headers
    return server.url, o
  end
  if not server.config_name then
    return nil, "a server given as -- CMD has nothing to authorize: give a URL or a config name"
  end
  local spec, serr = M.config_spec(opts, server.name)
  if not spec then return nil, serr end
  if not spec.url then
    return nil, ("server %q runs a command: only remote servers are authorized"):format(server.name)
  end
  if spec.oauth == false then
    return nil, ("server %q has oauth turned off in the config"):format(server.name)
  end
  local o = {}
  for k, v in pairs(spec.oauth or {}) do o[k] = v end
  for k, v in pairs(opts.oauth or {}) do o[k] = v end
  o.headers = spec.headers
  return spec.url, o
end

--- luamcp auth [OAUTH OPTIONS] SERVER
function M.auth(opts, words, command)
  local url, o = remote(opts, words, command, "luamcp auth [OAUTH OPTIONS] SERVER")
  if not url then return fail(o) end
  return session.run(function()
    local info, err = mcp.oauth.login(url, o)
    if not info then return fail(err) end
    io.stdout:write(("%s: %s%s%s\n"):format(url, info.status,
      info.issuer and (" by " .. info.issuer) or
        " (the server asked for no authorization)",
      info.scope and (", scope " .. info.scope) or ""))
    return 0
  end)
end

--- luamcp logout SERVER
function M.logout(opts, words, command)
  local url, o = remote(opts, words, command, "luamcp logout SERVER")
  if not url then return fail(o) end
  local removed, err = mcp.oauth.logout(url)
  if removed == nil then return fail(err) end
  io.stdout:write(url, removed and ": tokens removed\n"
                               or ": no tokens were kept\n")
  return 0
end

return M
