--- mcp.cli: the luamcp command line. Parses arguments and runs one
--- command; every failure becomes one line on stderr and a non-zero exit.
local mcp = require "mcp"
local core = require "mcp.core"
local task = require "mcp.task"

local M = {}

local USAGE = [[
usage: luamcp run SCRIPT.lua [ARGS...]     run a script as a task
       luamcp tools -- CMD [ARGS...]        list the server's tools
       luamcp tools URL                     (a remote server: stored tokens)
       luamcp call [--json] -- CMD [ARGS...] TOOL 'JSON'
       luamcp call [--json] URL TOOL 'JSON' call a tool, print its result
       luamcp auth [OAUTH OPTIONS] URL      authorize luamcp with a server
       luamcp logout URL                    forget the server's tokens
       luamcp version | help

options for tools and call (before -- or URL):
  --timeout SECONDS    per-request timeout (default 60)
  --env NAME=VALUE     set a variable for the server (repeatable)
  --cwd DIR            working directory of the server
  --header 'N: V'      an HTTP header for a remote server (repeatable)
  --quiet              do not show the server's stderr

OAUTH OPTIONS: --client-id ID, --client-secret SECRET, --scope 'A B',
  --callback-port PORT, --redirect-uri URI, --client-metadata-url URL,
  --header 'N: V'. The browser is $BROWSER, else xdg-open; the URL is
  printed too, so the flow works over SSH.]]

local function fail(msg)
  io.stderr:write("luamcp: ", tostring(msg):gsub("\n.*", ""), "\n")
  return 1
end

-- Splits "[options] -- CMD ARGS..." into options and the command words.
local function parse_server_args(argv, first)
  local opts = { env = {}, quiet = false }
  local i = first
  while argv[i] and argv[i] ~= "--" do
    local a = argv[i]
    if a == "--timeout" then
      opts.timeout = tonumber(argv[i + 1])
      if not opts.timeout then return nil, "--timeout needs a number of seconds" end
      i = i + 2
    elseif a == "--env" then
      local k, v = (argv[i + 1] or ""):match("^([^=]+)=(.*)$")
      if not k then return nil, "--env needs NAME=VALUE" end
      opts.env[k] = v
      i = i + 2
    elseif a == "--cwd" then
      opts.cwd = argv[i + 1]
      i = i + 2
    elseif a == "--header" then
      local k, v = (argv[i + 1] or ""):match("^([^:]+):%s*(.*)$")
      if not k then return nil, "--header needs 'Name: value'" end
      opts.headers = opts.headers or {}
      opts.headers[k] = v
      i = i + 2
    elseif a == "--quiet" then
      opts.quiet = true
      i = i + 1
    elseif a == "--json" then
      opts.json = true
      i = i + 1
    elseif a:sub(1, 1) == "-" then
      return nil, ("unknown option '%s'"):format(a)
    else
      break
    end
  end
  local rest = {}
  if argv[i] and argv[i]:match("^https?://") then
    opts.url = argv[i]
    for j = i + 1, #argv do rest[#rest + 1] = argv[j] end
    return opts, rest
  end
  if argv[i] ~= "--" or argv[i + 1] == nil then
    return nil, "missing server command: a URL, or a command after --"
  end
  for j = i + 1, #argv do rest[#rest + 1] = argv[j] end
  return opts, rest
end

local function connect(opts, command)
  if opts.url then
    return mcp.connect{ url = opts.url, headers = opts.headers,
                        timeout = opts.timeout }
  end
  return mcp.connect{
    command = command,
    env = next(opts.env) and opts.env or nil,
    cwd = opts.cwd,
    timeout = opts.timeout,
    on_stderr = opts.quiet and function() end or nil,
  }
end

-- syntax: ok, ... , signum = prun_interruptible(fn, ...)
-- mcp.prun, ended in order by SIGINT or SIGTERM: pending calls fail, every
-- server is shut down with the usual ladder (a stdio server has its own
-- process group: the terminal's Ctrl-C does not reach it), and the number
-- of the signal is returned after prun's results.
local function prun_interruptible(fn, ...)
  local signum
  local function on_signal(name, n)
    signum = signum or n
    task.interrupt("interrupted by " .. name)
  end
  core.on_signal("SIGINT", on_signal)
  core.on_signal("SIGTERM", on_signal)
  local res = table.pack(mcp.prun(fn, ...))
  core.on_signal("SIGINT", nil)
  core.on_signal("SIGTERM", nil)
  return signum, table.unpack(res, 1, res.n)
end

-- Runs fn inside mcp.prun and turns any failure into one line; a signal
-- exits with 128 + its number, as shells do.
local function run_task(fn)
  local signum, ok, code_or_err, err_obj = prun_interruptible(fn)
  if signum then
    fail(code_or_err)
    return 128 + signum
  end
  if not ok then return fail(err_obj or code_or_err) end
  return code_or_err or 0
end

local function one_line(s)
  return (tostring(s or ""):gsub("%s*\n.*", ""))
end

function M.tools(argv)
  local opts, command = parse_server_args(argv, 2)
  if not opts then return fail(command) end
  return run_task(function()
    local client <close>, err = connect(opts, command)
    if not client then return fail(err) end
    local tools, lerr = client:list_tools()
    if not tools then return fail(lerr) end
    for _, tool in ipairs(tools) do
      io.stdout:write(("%s\t%s\t%s\n"):format(tool.name,
        one_line(tool.title or (tool.annotations and tool.annotations.title)),
        one_line(tool.description)))
    end
    return 0
  end)
end

local function print_result(result, as_json)
  if as_json then
    print(mcp.json.encode(result))
    return
  end
  for _, item in ipairs(result.content or {}) do
    if item.type == "text" then
      print(item.text)
    else
      print(mcp.json.encode(item))
    end
  end
  if result.structuredContent ~= nil and #(result.content or {}) == 0 then
    print(mcp.json.encode(result.structuredContent))
  end
end

function M.call(argv)
  local opts, command = parse_server_args(argv, 2)
  if not opts then return fail(command) end
  if #command < (opts.url and 2 or 3) then
    return fail("usage: luamcp call -- CMD [ARGS...] TOOL 'JSON' "
                .. "(or: luamcp call URL TOOL 'JSON')")
  end
  local json_text = table.remove(command)
  local tool = table.remove(command)
  local args, jerr = mcp.json.decode(json_text)
  if args == nil then return fail("bad JSON arguments: " .. tostring(jerr)) end
  if type(args) ~= "table" or mcp.is_array(args) then
    return fail("the tool's arguments must be a JSON object")
  end
  return run_task(function()
    local client <close>, err = connect(opts, command)
    if not client then return fail(err) end
    local result, cerr = client:call_tool(tool, args)
    if not result then return fail(cerr) end
    print_result(result, opts.json)
    return result.isError and 1 or 0
  end)
end

local OAUTH_FLAGS = {
  ["--client-id"] = "client_id", ["--client-secret"] = "client_secret",
  ["--scope"] = "scope", ["--callback-port"] = "callback_port",
  ["--redirect-uri"] = "redirect_uri",
  ["--client-metadata-url"] = "client_metadata_url",
}

-- luamcp auth [OAUTH OPTIONS] URL
function M.auth(argv)
  local opts, i = {}, 2
  while argv[i] and argv[i]:sub(1, 2) == "--" do
    local flag, value = argv[i], argv[i + 1]
    if value == nil then return fail(flag .. " needs a value") end
    if flag == "--header" then
      local k, v = value:match("^([^:]+):%s*(.*)$")
      if not k then return fail("--header needs 'Name: value'") end
      opts.headers = opts.headers or {}
      opts.headers[k] = v
    elseif OAUTH_FLAGS[flag] then
      opts[OAUTH_FLAGS[flag]] = flag == "--callback-port"
        and math.tointeger(tonumber(value)) or value
      if opts[OAUTH_FLAGS[flag]] == nil then
        return fail(flag .. " needs a port number")
      end
    else
      return fail(("unknown option '%s'"):format(flag))
    end
    i = i + 2
  end
  local url = argv[i]
  if not url or not url:match("^https?://") or argv[i + 1] then
    return fail("usage: luamcp auth [OAUTH OPTIONS] URL")
  end
  return run_task(function()
    local info, err = mcp.oauth.login(url, opts)
    if not info then return fail(err) end
    io.stdout:write(("%s: %s%s%s\n"):format(url, info.status,
      info.issuer and (" by " .. info.issuer) or
        " (the server asked for no authorization)",
      info.scope and (", scope " .. info.scope) or ""))
    return 0
  end)
end

-- luamcp logout URL
function M.logout(argv)
  local url = argv[2]
  if not url or not url:match("^https?://") or argv[3] then
    return fail("usage: luamcp logout URL")
  end
  local removed, err = mcp.oauth.logout(url)
  if removed == nil then return fail(err) end
  io.stdout:write(url, removed and ": tokens removed\n"
                               or ": no tokens were kept\n")
  return 0
end

function M.run(argv)
  local script = argv[2]
  if not script then return fail("usage: luamcp run SCRIPT.lua [ARGS...]") end
  local chunk, lerr = loadfile(script)
  if not chunk then return fail(lerr) end
  local script_arg = { [0] = script }
  for i = 3, #argv do script_arg[#script_arg + 1] = argv[i] end
  script_arg[-1] = argv[0]
  _G.arg = script_arg
  local signum, ok, err_text = prun_interruptible(chunk, table.unpack(script_arg))
  if not ok then
    io.stderr:write("luamcp: ", tostring(err_text), "\n")
    return signum and 128 + signum or 1
  end
  return 0
end

--- syntax: code = cli.main(argv) -- argv[0] is the program
function M.main(argv)
  local cmd = argv[1]
  if cmd == "run" then return M.run(argv) end
  if cmd == "tools" then return M.tools(argv) end
  if cmd == "call" then return M.call(argv) end
  if cmd == "auth" then return M.auth(argv) end
  if cmd == "logout" then return M.logout(argv) end
  if cmd == "version" or cmd == "--version" then
    print(mcp._VERSION)
    return 0
  end
  if cmd == "help" or cmd == "--help" or cmd == "-h" then
    print(USAGE)
    return 0
  end
  io.stderr:write(USAGE, "\n")
  return fail(cmd and ("unknown command '" .. cmd .. "'") or "missing command")
end

return M
