--- mcp.cli.args: the luamcp command line's words made into options, a
--- server and the command's own arguments. A server is named three ways
--- everywhere: a name from the config file, a URL, or `-- CMD ARGS`. The
--- last two become a server spec of their own (as mcp.host.config makes
--- them), named after the URL's host or the command's basename.
local M = {}

-- Options that take a value: the key they set, and how the value is read.
local VALUED = {
  ["--config"] = "config", ["--timeout"] = "timeout", ["--env"] = "env",
  ["--cwd"] = "cwd", ["--header"] = "header",
  -- luamcp auth's
  -- A secret never on the command line (ps shows it to everyone): the
  -- name of the variable that holds it, or the file.
  ["--client-id"] = "client_id", ["--client-secret-env"] = "client_secret_env",
  ["--client-secret-file"] = "client_secret_file",
  ["--scope"] = "scope", ["--callback-port"] = "callback_port",
  ["--redirect-uri"] = "redirect_uri",
  ["--client-metadata-url"] = "client_metadata_url",
  -- luamcp agent's and chat's
  ["--model"] = "model", ["--provider"] = "provider", ["--max-turns"] = "max_turns",
  ["--system"] = "system",
}
local FLAGS = { ["--quiet"] = "quiet", ["--json"] = "json", ["--stream"] = "stream" }
local PROVIDERS = { openai = true, anthropic = true }
M.OAUTH_KEYS = { "client_id", "client_secret", "scope", "callback_port",
                 "redirect_uri", "client_metadata_url" }

local function set_option(opts, key, flag, value)
  if value == nil then return nil, flag .. " needs a value" end
  if key == "timeout" then
    opts.timeout = tonumber(value)
    if not opts.timeout or opts.timeout <= 0 then
      return nil, "--timeout needs a number of seconds"
    end
  elseif key == "env" then
    local k, v = value:match("^([^=]+)=(.*)$")
    if not k then return nil, "--env needs NAME=VALUE" end
    opts.env = opts.env or {}
    opts.env[k] = v
  elseif key == "header" then
    local k, v = value:match("^([^:]+):%s*(.*)$")
    if not k then return nil, "--header needs 'Name: value'" end
    opts.headers = opts.headers or {}
    opts.headers[k] = v
  elseif key == "callback_port" then
    opts.oauth = opts.oauth or {}
    opts.oauth.callback_port = math.tointeger(tonumber(value))
    if not opts.oauth.callback_port then return nil, flag .. " needs a port number" end
  elseif key == "max_turns" then
    opts.max_turns = math.tointeger(tonumber(value))
    if not opts.max_turns or opts.max_turns < 1 then
      return nil, "--max-turns needs a whole number of turns (1 or more)"
    end
  elseif key == "provider" then
    if not PROVIDERS[value] then
      return nil, ("--provider must be openai or anthropic, not '%s'"):format(value)
    end
    opts.provider = value
  elseif key == "config" or key == "cwd" or key == "model" or key == "system" then
    opts[key] = value
  elseif key == "client_secret_env" or key == "client_secret_file" then
    opts.oauth = opts.oauth or {}
    opts.oauth.client_secret = key == "client_secret_env" and { env = value } or { file = value }
  else
    opts.oauth = opts.oauth or {}
    opts.oauth[key] = value
  end
  return true
end

--- syntax: opts, words, command_words = args.parse(argv, first, stop_at_first?)
--- Reads argv from index first: options anywhere (until `--`), the other
--- words in order, and the words after `--` (nil without `--`). With
--- stop_at_first, stops at the first plain word (which is words[1]) and
--- leaves the rest in words unread: `luamcp run SCRIPT ARGS`.
function M.parse(argv, first, stop_at_first, opts)
  opts = opts or {}
  local words = {}
  local i = first
  while argv[i] ~= nil do
    local a = argv[i]
    if a == "--" then
      local command = table.move(argv, i + 1, #argv, 1, {})
      return opts, words, command
    elseif FLAGS[a] then
      opts[FLAGS[a]] = true
      i = i + 1
    elseif VALUED[a] then
      local ok, err = set_option(opts, VALUED[a], a, argv[i + 1])
      if not ok then return nil, err end
      i = i + 2
    elseif a:sub(1, 2) == "--" and a:find("=", 3, true) and VALUED[a:match("^[^=]+")] then
      local flag, value = a:match("^([^=]+)=(.*)$")
      local ok, err = set_option(opts, VALUED[flag], flag, value)
      if not ok then return nil, err end
      i = i + 1
    elseif a:sub(1, 1) == "-" and #a > 1 and not a:match("^%-%d") then
      return nil, ("unknown option '%s'"):format(a)
    else
      words[#words + 1] = a
      i = i + 1
      if stop_at_first then
        table.move(argv, i, #argv, #words + 1, words)
        return opts, words
      end
    end
  end
  return opts, words
end

local function basename(path)
  return path:match("([^/]+)/*$") or path
end

-- Splits the words after `--` into the server's command and the command's
-- trailing arguments. arity: how many trailing words (n), and whether an
-- optional JSON object may follow (json).
local function split_command(words, arity)
  local n = #words
  local take = arity.n
  if arity.json and n > take and words[n]:match("^%s*[{%[]") then take = take + 1 end
  if n - take < 1 then return nil end
  return table.move(words, 1, n - take, 1, {}), table.move(words, n - take + 1, n, 1, {})
end

--- syntax: server, rest, err = args.server(opts, words, command, arity)
--- The server a command names, and the command's own arguments. server:
--- { name, config_name = true } for a name from the config, or { name,
--- spec } for a URL or a command (the spec as mcp.host.config makes it).
--- arity = { n = words after the server, json = an optional JSON object
--- may follow, optional = the server may be left out }.
function M.server(opts, words, command, arity)
  local t = opts.timeout and { startup = opts.timeout, execution = opts.timeout } or nil
  if command then
    if words[1] then
      return nil, nil, ("'%s' before --: the server's command comes last"):format(words[1])
    end
    local cmd, rest = split_command(command, arity)
    if not cmd then return nil, nil, "missing server command after --" end
    return { name = basename(cmd[1]), spec = {
      enabled = true, command = cmd, env = opts.env, cwd = opts.cwd, timeout = t,
    } }, rest
  end
  local first = words[1]
  if first == nil then
    if arity.optional then return nil, {} end
    return nil, nil, "missing server: a name from the config, a URL, or -- CMD ARGS"
  end
  local rest = table.move(words, 2, #words, 1, {})
  if first:match("^https?://") then
    local host = first:match("^%a+://([^/?#]+)"):gsub("^.*@", "")
    host = host:match("^%[(.-)%]") or host:gsub(":%d+$", "")
    return { name = host, url = first, spec = {
      enabled = true, url = first, headers = opts.headers, transport = "auto",
      oauth = opts.oauth, timeout = t,
    } }, rest
  end
  if opts.env or opts.cwd or opts.headers then
    return nil, nil, "--env, --cwd and --header are for a server given as a URL or -- CMD; "
      .. "server '" .. first .. "' takes them from the config"
  end
  return { name = first, config_name = true }, rest
end

--- syntax: ok, err = args.check_count(rest, min, max, usage)
function M.check_count(rest, min, max, usage)
  if #rest < min or #rest > max then return nil, "usage: " .. usage end
  return true
end

return M
