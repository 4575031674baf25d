--- mcp.cli.session: how a command runs. Its body runs as a task that a
--- signal (Ctrl-C, a kill) ends in order: the running call is cancelled
--- (the server hears notifications/cancelled), every server is shut down,
--- and luamcp exits 128 + the signal's number. Servers come from mcp.host,
--- with the handlers the CLI declares for everyone.
local mcp = require "mcp"
local core = require "mcp.core"
local task = require "mcp.task"
local format = require "mcp.cli.format"
local progress = require "mcp.cli.progress"

local M = {}

--- syntax: 1 = session.fail(msg) -- one line on stderr
function M.fail(msg)
  io.stderr:write("luamcp: ", format.one_line(msg), "\n")
  return 1
end

-- The request a command waits for, which a signal cancels.
local current

--- syntax: result, err = session.wait(request)
--- Waits for a request's outcome; a signal meanwhile cancels it.
function M.wait(req)
  current = req
  local result, err = req:wait()
  current = nil
  return result, err
end

--- syntax: signum, ok, ... = session.prun_interruptible(fn, ...)
--- mcp.prun, ended in order by SIGINT or SIGTERM: the request being waited
--- for is cancelled, pending calls fail, every server is shut down with
--- the usual ladder (a stdio server has its own process group: the
--- terminal's Ctrl-C does not reach it), and the number of the signal is
--- returned before prun's results.
function M.prun_interruptible(fn, ...)
  local signum
  local function on_signal(name, n)
    if signum then return end
    signum = n
    local req = current
    current = nil
    if req then req:cancel("interrupted by " .. name) end
    task.interrupt("interrupted by " .. name)
  end
  core.on_signal("SIGINT", on_signal)
  core.on_signal("SIGTERM", on_signal)
  local res = table.pack(mcp.prun(fn, ...))
  core.on_signal("SIGINT", nil)
  core.on_signal("SIGTERM", nil)
  current = nil
  return signum, table.unpack(res, 1, res.n)
end

local SIGNAL_NAMES = { [2] = "SIGINT", [15] = "SIGTERM", [1] = "SIGHUP" }

--- syntax: code = session.run(fn) -- fn() -> exit code, in a task
--- Any failure becomes one line; a signal exits with 128 + its number,
--- as shells do.
function M.run(fn)
  local signum, ok, code_or_err, err_obj = M.prun_interruptible(fn)
  if signum then
    M.fail("interrupted by " .. (SIGNAL_NAMES[signum] or ("signal " .. signum)))
    return 128 + signum
  end
  if not ok then return M.fail(err_obj or code_or_err) end
  return code_or_err or 0
end

--- syntax: handlers = session.handlers()
--- What the CLI answers for every server: elicitation asked at the
--- terminal, the working directory as the root. Declaring them makes the
--- tools that need them appear.
function M.handlers()
  return {
    elicitation = mcp.handlers.terminal_elicitation(),
    roots = mcp.handlers.roots_from_cwd(),
  }
end

--- syntax: opts = session.host_options(opts, server, extra?)
--- mcp.host's options for the parsed command line: the config file
--- (--config, else LUAMCP_CONFIG and the search order), the server a URL or
--- a command gives (then no config file is read), only that server, the
--- stderr of servers unless --quiet. extra's fields are added.
function M.host_options(opts, server, extra)
  local o = {
    config = opts.config,
    handlers = M.handlers(),
    timeout = opts.timeout,
    on_stderr = opts.quiet and function() end or function(name, line)
      progress.write(("[%s] %s\n"):format(name, line))
    end,
    on_log = opts.quiet and function() end or function(name, p)
      local data = p.data
      if type(data) ~= "string" then data = mcp.json.encode(data) end
      progress.write(("[%s] %s%s: %s\n"):format(name, p.level or "log",
        p.logger and (" (" .. p.logger .. ")") or "", data))
    end,
  }
  if server then
    o.only = { server.name }
    if server.spec then
      server.spec.name = server.name
      o.servers = { [server.name] = server.spec }
    end
  end
  for k, v in pairs(extra or {}) do o[k] = v end
  return o
end

--- syntax: host, client_or_err = session.open(opts, server, extra?) -- in a task
--- The host for the command line, and the client of the one server named
--- (when one is). Returns nil, err when the config or the server fails.
function M.open(opts, server, extra)
  local host, err = mcp.host(M.host_options(opts, server, extra))
  if not host then return nil, err end
  if not server then return host end
  local client, cerr = host:client(server.name)
  if not client then
    host:close()
    return nil, cerr
  end
  return host, client
end

--- syntax: yes = session.stderr_is_terminal()
function M.stderr_is_terminal()
  return core.isatty(2) == true
end

return M
