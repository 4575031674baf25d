--- mcp.cli.commands: the commands that talk to servers through mcp.host:
--- list, tools, call, resources, read, prompts, prompt, ping. Each takes
--- the parsed options, the plain words and the words after `--`, and
--- returns the exit code.
local mcp = require "mcp"
local core = require "mcp.core"
local args = require "mcp.cli.args"
local format = require "mcp.cli.format"
local progress = require "mcp.cli.progress"
local session = require "mcp.cli.session"

local M = {}
local fail = session.fail

-- States that mean the server could not be used.
local BROKEN = { failed = true, needs_auth = true, needs_client_registration = true }

-- Parses the optional JSON object of call and prompt.
local function json_object(text)
  if text == nil then return {} end
  local value, err = mcp.json.decode(text)
  if value == nil then return nil, "bad JSON arguments: " .. tostring(err) end
  if type(value) ~= "table" or mcp.is_array(value) then
    return nil, "the arguments must be a JSON object"
  end
  return value
end

-- Reads the server and the trailing words; usage names the command.
local function server_and_rest(opts, words, command, arity, usage)
  local server, rest, err = args.server(opts, words, command, arity)
  if err then return nil, nil, err end
  local max = arity.n + (arity.json and 1 or 0)
  local ok, cerr = args.check_count(rest, arity.n, max, usage)
  if not ok then return nil, nil, cerr end
  return server, rest
end

-- One line on stderr for each server that is not usable; their count.
local function report_broken(host)
  local status, n = host:status(), 0
  for _, name in ipairs(host:names()) do
    local s = status[name]
    if BROKEN[s.state] then
      n = n + 1
      io.stderr:write(("luamcp: server %s: %s: %s\n"):format(name, s.state,
        format.one_line(s.error)))
    end
  end
  return n
end

--- luamcp list [SERVER] [--json]: every configured server's state.
function M.list(opts, words, command)
  local server, _, err = server_and_rest(opts, words, command,
    { n = 0, optional = true }, "luamcp list [SERVER] [--json]")
  if err then return fail(err) end
  return session.run(function()
    local host <close>, herr = mcp.host(session.host_options(opts, server))
    if not host then return fail(herr) end
    local status, rows, broken = host:status(), {}, {}
    for _, name in ipairs(host:names()) do
      local s = status[name]
      if BROKEN[s.state] then broken[#broken + 1] = name end
      rows[#rows + 1] = {
        name = name, state = s.state, tools = s.tools, transport = s.transport,
        protocol_version = s.protocol_version, era = s.era,
        server_info = s.server_info, url = s.url,
        command = s.command and format.array(s.command) or nil,
        error = format.error(s.error),
      }
    end
    if opts.json then
      format.json(format.array(rows))
    else
      local lines = {}
      for i, r in ipairs(rows) do
        lines[i] = { r.name, r.state, r.tools or "-", r.transport or "-",
                     r.era or "-", r.protocol_version or "-",
                     r.error and r.error.message or "" }
      end
      format.columns({ "NAME", "STATE", "TOOLS", "TRANSPORT", "ERA", "PROTOCOL",
                       "ERROR" }, lines)
    end
    if #broken > 0 then
      return fail(("%d of %d servers failed: %s"):format(#broken, #rows,
        table.concat(broken, ", ")))
    end
    return 0
  end)
end

-- A tool as one server shows it: its own name, no host fields.
local function own_tool(t)
  local copy = {}
  for k, v in pairs(t) do copy[k] = v end
  copy.name, copy.server, copy.tool_name = t.tool_name, nil, nil
  return copy
end

--- luamcp tools [SERVER] [--json]: one server's tools by their own
--- names, or every connected server's as server_tool.
function M.tools(opts, words, command)
  local server, _, err = server_and_rest(opts, words, command,
    { n = 0, optional = true }, "luamcp tools [SERVER] [--json]")
  if err then return fail(err) end
  return session.run(function()
    local host <close>, client = session.open(opts, server)
    if not host then return fail(client) end
    local code = server and 0 or (report_broken(host) > 0 and 1 or 0)
    local list = {}
    local tools, collisions = host:tools()
    for _, t in ipairs(tools) do
      if not server then
        list[#list + 1] = t
      elseif t.server == server.name then
        list[#list + 1] = own_tool(t)
      end
    end
    if opts.json then
      format.json(format.array(list))
    else
      local rows = {}
      for i, t in ipairs(list) do
        rows[i] = { t.name, t.title or (t.annotations and t.annotations.title),
                    t.description }
      end
      format.lines(rows, 3)
      for _, c in ipairs(collisions or {}) do
        local who = {}
        for _, x in ipairs(c.tools) do who[#who + 1] = x.server .. "/" .. x.tool_name end
        io.stderr:write(("luamcp: note: %s is wanted by %s; the others are numbered\n")
          :format(c.name, table.concat(who, ", ")))
      end
    end
    return code
  end)
end

-- The request that calls tool (the server's own name) on the server:
-- through the host (its filters and on_result) when it shows the tool;
-- directly when the server did not list it (the server then says what
-- is wrong); refused when the config's filter leaves it out.
local function start_call(host, client, server_name, tool, arguments, call_opts)
  for _, t in ipairs(host:tools()) do
    if t.server == server_name and t.tool_name == tool then
      return host:start_call(t.name, arguments, call_opts)
    end
  end
  for _, t in ipairs(client.tools or {}) do
    if t.name == tool then
      return nil, mcp.error("ENOENT", ("tool %q of server %q is left out by the config's filter")
        :format(tool, server_name))
    end
  end
  return client:start_tool(tool, arguments, call_opts)
end

--- luamcp call SERVER TOOL [JSON]
function M.call(opts, words, command)
  local server, rest, err = server_and_rest(opts, words, command, { n = 1, json = true },
    "luamcp call SERVER TOOL ['JSON'] (SERVER: a config name, a URL, or -- CMD ARGS)")
  if err then return fail(err) end
  local arguments, jerr = json_object(rest[2])
  if not arguments then return fail(jerr) end
  return session.run(function()
    local host <close>, client = session.open(opts, server)
    if not host then return fail(client) end
    local bar = session.stderr_is_terminal() and progress.new(rest[1]) or nil
    local req, serr = start_call(host, client, server.name, rest[1], arguments,
      { timeout = opts.timeout, on_progress = bar and bar.on_progress,
        on_status = bar and bar.on_status })
    if not req then return fail(serr) end
    local result, cerr = session.wait(req)
    if bar then bar.clear() end
    if not result then return fail(cerr) end
    format.result(result, opts.json)
    return result.isError and 1 or 0
  end)
end

-- Lists what a server (or every server) has: method on one client,
-- gather on the host ("resources" or "prompts"); rows(item) for text.
local function listing(opts, words, command, usage, method, gather, row)
  local server, _, err = server_and_rest(opts, words, command, { n = 0, optional = true }, usage)
  if err then return fail(err) end
  return session.run(function()
    local host <close>, client = session.open(opts, server)
    if not host then return fail(client) end
    local list, code = {}, 0
    if server then
      local items, lerr = client[method](client)
      if not items then return fail(lerr) end
      for i, item in ipairs(items) do list[i] = item end
    else
      code = report_broken(host) > 0 and 1 or 0
      local all, failures = host[gather](host)
      local keys = {}
      for k in pairs(all) do keys[#keys + 1] = k end
      table.sort(keys)
      for _, k in ipairs(keys) do list[#list + 1] = all[k] end
      for name, ferr in pairs(failures or {}) do
        code = 1
        io.stderr:write(("luamcp: server %s: %s\n"):format(name, format.one_line(ferr)))
      end
    end
    if opts.json then
      format.json(format.array(list))
    else
      local rows, n = {}, 0
      for i, item in ipairs(list) do
        local fields
        fields, n = row(item)
        rows[i] = fields
        if not server then
          table.move(fields, 1, n, 2)
          fields[1] = item.server
        end
      end
      format.lines(rows, server and n or n + 1)
    end
    return code
  end)
end

--- luamcp resources [SERVER] [--json]
function M.resources(opts, words, command)
  return listing(opts, words, command, "luamcp resources [SERVER] [--json]",
    "list_resources", "resources", function(r)
      return { r.uri, r.name, r.mimeType, r.description }, 4
    end)
end

--- luamcp prompts [SERVER] [--json]
function M.prompts(opts, words, command)
  return listing(opts, words, command, "luamcp prompts [SERVER] [--json]",
    "list_prompts", "prompts", function(p)
      local names = {}
      for _, a in ipairs(p.arguments or {}) do
        names[#names + 1] = a.name .. (a.required and "" or "?")
      end
      return { p.name, table.concat(names, " "), p.description }, 3
    end)
end

--- luamcp read SERVER URI [--json]
function M.read(opts, words, command)
  local server, rest, err = server_and_rest(opts, words, command, { n = 1 },
    "luamcp read SERVER URI [--json]")
  if err then return fail(err) end
  return session.run(function()
    local host <close>, client = session.open(opts, server)
    if not host then return fail(client) end
    local result, rerr = client:read_resource(rest[1], { timeout = opts.timeout })
    if not result then return fail(rerr) end
    format.contents(result, opts.json)
    return 0
  end)
end

--- luamcp prompt SERVER NAME [JSON] [--json]
function M.prompt(opts, words, command)
  local server, rest, err = server_and_rest(opts, words, command, { n = 1, json = true },
    "luamcp prompt SERVER NAME ['JSON'] [--json]")
  if err then return fail(err) end
  local arguments, jerr = json_object(rest[2])
  if not arguments then return fail(jerr) end
  return session.run(function()
    local host <close>, client = session.open(opts, server)
    if not host then return fail(client) end
    local messages, result = host:get_prompt(server.name, rest[1], arguments)
    if not messages then return fail(result) end
    if opts.json then
      format.json(result)
    else
      for _, m in ipairs(messages) do
        io.stdout:write(m.role, ": ", format.content_text(m.content), "\n")
      end
    end
    return 0
  end)
end

--- luamcp ping SERVER
function M.ping(opts, words, command)
  local server, _, err = server_and_rest(opts, words, command, { n = 0 },
    "luamcp ping SERVER")
  if err then return fail(err) end
  return session.run(function()
    local host <close>, client = session.open(opts, server)
    if not host then return fail(client) end
    local t0 = core.now()
    local ok, perr = client:ping{ timeout = opts.timeout }
    if not ok then return fail(perr) end
    local ms = core.now() - t0
    if opts.json then
      format.json({ server = server.name, ms = ms })
    else
      io.stdout:write(("%s: pong in %.1f ms\n"):format(server.name, ms))
    end
    return 0
  end)
end

return M
