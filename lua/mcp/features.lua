--- mcp.features: the client's methods for what a server offers: tools,
--- resources, prompts, completion and logging, each gated on the
--- capability the server declared, and the notifications that go with
--- them. Method names are the MCP method names in snake_case.
local core = require "mcp.core"
local task = require "mcp.task"
local errors = require "mcp.errors"
local param_headers = require "mcp.param_headers"

-- This module's part of the Client (composed in mcp.client): its
-- methods, and its reactions to notifications.
local Client = {}
local routes = {}
local array_mt = core.array_mt

local MAX_PAGES = 1000          -- a server paging forever is a bug
local HEADER_MISMATCH = -32020  -- 2026-07-28: the routing headers disagree

-- ---- what a 2026-07-28 server lets us keep -----------------------------------
-- A server of the stateless era says how long a list or a read stays good
-- (ttlMs). Until then it is served from here, without a round trip; a
-- list-changed or updated notification drops it, and { fresh = true } asks
-- the server anyway. (The cache is this client's own, so cacheScope,
-- private or public, allows it either way.)

local function cached(self, key, opts)
  if opts and opts.fresh then return nil end
  local entry = self._cache and self._cache[key]
  if entry and core.now() < entry.expires then return entry.value end
  return nil
end

local function keep(self, key, value, ttl)
  if self.era ~= "modern" or math.type(ttl) ~= "integer" or ttl <= 0 then return end
  self._cache = self._cache or {}
  self._cache[key] = { value = value, expires = core.now() + ttl }
end

local function forget(self, key)
  if self._cache then self._cache[key] = nil end
end

-- The ttlMs of a result, or nil when it has none (then nothing is kept).
local function ttl_of(res)
  local ttl = res.ttlMs
  if res.resultType ~= nil and res.resultType ~= "complete" then return nil end
  return math.type(ttl) == "integer" and ttl or nil
end

-- Follows nextCursor to the end. A cursor seen twice, or too many pages,
-- is the server's bug: EPROTO, with what was gathered in err.partial.
-- The whole list, through screen(list) when given, is kept for the
-- shortest ttlMs of its pages.
function Client:_paginate(method, key, opts, screen)
  local hit = cached(self, method, opts)
  if hit then return hit end
  local items                   -- the first page's own list, then appended to
  local seen, pages = {}, 0
  local cursor, ttl
  repeat
    local res, err = self:request(method, cursor and { cursor = cursor } or nil, opts)
    if not res then return nil, err end
    local page_ttl = ttl_of(res)
    if items == nil then
      ttl = page_ttl
    elseif ttl and page_ttl then
      ttl = math.min(ttl, page_ttl)
    else
      ttl = nil                 -- a page that may not be kept: none is
    end
    local page = res[key]
    if type(page) ~= "table" then
      return nil, errors.new("EPROTO", ("%s result has no '%s' list"):format(method, key))
    end
    if items == nil then
      items = setmetatable(page, array_mt)
    else
      table.move(page, 1, #page, #items + 1, items)
    end
    cursor = res.nextCursor
    if type(cursor) ~= "string" then
      cursor = nil
    elseif seen[cursor] then
      return nil, errors.new("EPROTO", ("%s: the server repeated the cursor %q")
        :format(method, cursor), { partial = items })
    else
      seen[cursor] = true
      pages = pages + 1
      if pages >= MAX_PAGES then
        return nil, errors.new("EPROTO", ("%s: more than %d pages")
          :format(method, MAX_PAGES), { partial = items })
      end
    end
  until cursor == nil
  if screen then items = screen(items) end
  keep(self, method, items, ttl)
  return items
end

local function check_string(v, n, fname)
  if type(v) ~= "string" then
    error(("bad argument #%d to '%s' (string expected)"):format(n, fname), 3)
  end
end

local function check_table(v, n, fname)
  if v ~= nil and type(v) ~= "table" then
    error(("bad argument #%d to '%s' (table expected)"):format(n, fname), 3)
  end
end

-- ---- tools ----------------------------------------------------------------

--- syntax: tools, err = client:list_tools(opts?)
--- Every tool of the server, all pages followed, each with every field the
--- server sent. The list is cached in client.tools (and by name in
--- client.tools_by_name) until the server says it changed.
function Client:list_tools(opts)
  self:_check()
  local err = self:_require("tools/list", "tools")
  if err then return nil, err end
  local tools
  tools, err = self:_paginate("tools/list", "tools", opts,
    self.era == "modern" and function(list) return self:_screen_tools(list) end)
  if not tools then return nil, err end
  self.tools, self.tools_by_name = tools, core.index(tools, "name")
  return tools
end

-- The tools of a 2026-07-28 server as they may be offered: one whose
-- x-mcp-header annotations break the rules is left out, with a warning
-- (H7); the others' annotations become the Mcp-Param-* headers of their
-- calls, declared anew from each list (the most recent schema wins).
function Client:_screen_tools(list)
  self._core:declare_params()
  self._left_out = {}
  local kept = setmetatable({}, array_mt)
  for _, tool in ipairs(list) do
    local decl, why
    if type(tool) ~= "table" or type(tool.name) ~= "string" then
      decl, why = nil, "an entry of tools/list that is no tool with a name"
      tool = { name = type(tool) == "table" and tostring(tool.name) or "?" }
    else
      decl, why = param_headers.check(tool)
    end
    if decl and #decl > 0 then
      local ok, err = self._core:declare_params(tool.name, core.json_encode(decl))
      if not ok then decl, why = nil, err.message end
    end
    if decl then
      kept[#kept + 1] = tool
    else
      why = ("tool %q left out: %s"):format(tostring(tool.name), why)
      self._left_out[tool.name] = why
      self.on_warning(why)
    end
  end
  return kept
end

-- opts for the next step of a call whose deadline (loop ms) is given: a
-- copy whose timeout is what is left, so that a step past the deadline
-- fails with ETIMEDOUT. opts itself when there is no deadline.
local function remaining(opts, deadline)
  if deadline == nil then return opts end
  local o = {}
  for k, v in pairs(opts or {}) do o[k] = v end
  o.timeout = math.max(deadline - core.now(), 1) / 1000
  return o
end

--- syntax: result, err = client:call_tool(name, args?, opts?)
--- The CallToolResult as the server sent it: content (every type),
--- structuredContent, isError, _meta. A tool's own failure
--- (isError = true) is a result, not an error. opts: timeout, max_timeout,
--- on_progress as for request.
---
--- With opts.elicit, a call refused with EURLELICIT (-32042) runs the URL
--- elicitations through the elicitation handler, waits for the server to
--- say they are complete (opts.elicit_wait seconds at most, default 10;
--- servers need not say so), and is tried once more: a second EURLELICIT is
--- the final error, with its elicitations.
--- Arguments are checked against the tool's inputSchema before anything is
--- sent, and structuredContent against its outputSchema (ESCHEMA, with the
--- raw result in err.result); see mcp.validation. The first call lists the
--- tools when the client has not yet, so that the schemas are known.
--- The call's timeout covers all of its steps (listing, calling, URL
--- elicitations, calling again): one deadline.
--- A call the server runs as a task is followed to its end (mcp.tasks):
--- opts.task = true (or { ttl = ms }) asks for one where the tool lets
--- the caller choose; opts.on_status(task) hears each status and message.
function Client:call_tool(name, args, opts)
  self:_check()
  if type(name) ~= "string" then check_string(name, 1, "call_tool") end
  if args ~= nil and type(args) ~= "table" then check_table(args, 2, "call_tool") end
  local deadline
  if self.tools_by_name == nil and not self._listing_failed
      and (self._validate_input or self._validate_output)
      and self:_require("tools/list", "tools") == nil then
    deadline = core.now() + (opts and opts.timeout and opts.timeout * 1000 or self._timeout)
    local listed, err = self:list_tools(remaining(opts, deadline))
    if not listed then
      if err.code == "ECLOSED" or err.code == "ETIMEDOUT" then return nil, err end
      self._listing_failed = true
    end
  end
  local result, err = self:_call_tool(name, args, remaining(opts, deadline))
  if not result and err.code == "EURLELICIT" and opts and opts.elicit then
    -- Do what the server asked for, then try once more (E11).
    deadline = deadline or core.now() + (opts.timeout and opts.timeout * 1000 or self._timeout)
    local ok, eerr = self:run_url_elicitations(err.elicitations, remaining(opts, deadline))
    if not ok then return nil, eerr end
    result, err = self:_call_tool(name, args, remaining(opts, deadline))
  end
  if not result and err.rpc_code == HEADER_MISMATCH and self.era == "modern" then
    -- The server's schema is newer than ours (its Mcp-Param-* headers
    -- differ): list the tools again and try once more (H7, C10).
    deadline = deadline or core.now() + (opts and opts.timeout and opts.timeout * 1000 or self._timeout)
    local listed, lerr = self:list_tools(remaining({ fresh = true }, deadline))
    if not listed then return nil, lerr end
    result, err = self:_call_tool(name, args, remaining(opts, deadline))
  end
  if not result then return nil, err end
  return result
end

--- syntax: request = client:start_tool(name, args?, opts?)
--- Starts a tool call and returns its handle (wait, cancel) without
--- waiting. Arguments are checked as for call_tool; the result is not.
--- A call that is or may become a task (opts.task; a 2025-11-25 tool
--- that requires one; any call in 2026-07-28) runs as call_tool runs it,
--- result checked, and the handle's cancel and status work on the
--- server's task once there is one (mcp.task_handle).
function Client:start_tool(name, args, opts)
  self:_check()
  check_string(name, 1, "start_tool")
  check_table(args, 2, "start_tool")
  if (opts and opts.task) or self.era == "modern" or self:_requires_task(name) then
    return self:_start_tool_task(name, args, opts)
  end
  return self:_start_tool(name, args, opts)
end

--- (internal) Why a call of tool `name` may not be sent at all: no tools
--- capability, a tool left out of the list (x-mcp-header), or a schema
--- whose check cannot be made; nil when it may.
function Client:_tool_call_refusal(name, opts)
  local caps = self.capabilities
  if type(caps) ~= "table" or not caps.tools then
    return self:_require("tools/call", "tools")
  end
  if self._left_out and self._left_out[name] then
    return errors.new("EINVAL", self._left_out[name])
  end
  return self:_schema_refusal(name, opts)
end

-- call_tool's request, waited for, once the arguments are checked.
function Client:_call_tool(name, args, opts)
  local refused = self:_tool_call_refusal(name, opts)
  if refused then return nil, refused end
  if self:_calls_as_task(name, opts) then return self:_call_tool_as_task(name, args, opts) end
  local started = self.era == "modern" and core.now() or nil   -- a task's deadline counts from here
  local result, err = self:_call("tools/call", { name = name, arguments = args or {} },
    opts, self:_call_schemas(name, opts))
  if result and result.resultType == "task" and self.era == "modern" then   -- the server made it one
    return self:_follow_task(name, result, opts, started)
  end
  -- ESCHEMA is the core's (the server's errors are ERPC): on the result
  -- when it carries one, else on the arguments.
  if err and err.code == "ESCHEMA" then
    if err.result ~= nil then
      self:_explain_result_error(name, err)
    else
      self:_explain_arguments_error(name, err)
    end
  end
  return result, err
end

-- start_tool once the arguments are checked.
function Client:_start_tool(name, args, opts)
  local refused = self:_tool_call_refusal(name, opts)
  if refused then return self:_failed_request("tools/call", refused) end
  local req = self:_start("tools/call", { name = name, arguments = args or {} }, opts,
    (self:_call_schemas(name, opts)))   -- start_tool checks no result
  if req._err and req._err.code == "ESCHEMA" and not req.id then
    self:_explain_arguments_error(name, req._err)
  end
  return req
end

routes["notifications/tools/list_changed"] = function(self)
  forget(self, "tools/list")
  self.tools, self.tools_by_name = nil, nil
  if self.on_tools_changed then
    task.spawn(function()
      local tools, err = self:list_tools()
      if self._closing then return end
      self.on_tools_changed(tools, err)
    end)
  end
end

-- ---- resources --------------------------------------------------------------

--- syntax: resources, err = client:list_resources(opts?)
function Client:list_resources(opts)
  self:_check()
  local err = self:_require("resources/list", "resources")
  if err then return nil, err end
  return self:_paginate("resources/list", "resources", opts)
end

--- syntax: templates, err = client:list_resource_templates(opts?)
function Client:list_resource_templates(opts)
  self:_check()
  local err = self:_require("resources/templates/list", "resources")
  if err then return nil, err end
  return self:_paginate("resources/templates/list", "resourceTemplates", opts)
end

--- syntax: result, err = client:read_resource(uri, opts?)
--- The ReadResourceResult: contents, each with text or blob (base64).
function Client:read_resource(uri, opts)
  self:_check()
  check_string(uri, 1, "read_resource")
  local err = self:_require("resources/read", "resources")
  if err then return nil, err end
  local key = "resources/read " .. uri
  local hit = cached(self, key, opts)
  if hit then return hit end
  local res
  res, err = self:request("resources/read", { uri = uri }, opts)
  -- What came after input was given is that exchange's, not the URI's (C3).
  if res and not self:_after_input(res) then keep(self, key, res, ttl_of(res)) end
  return res, err
end

--- syntax: ok, err = client:subscribe_resource(uri, callback, opts?)
--- callback(params) runs for each notifications/resources/updated of uri.
--- Needs the server's resources.subscribe capability (else ENOTSUP).
--- 2026-07-28: the subscription rides on the client's listen
--- (mcp.listen), and this returns once the server acknowledged it.
function Client:subscribe_resource(uri, callback, opts)
  self:_check()
  check_string(uri, 1, "subscribe_resource")
  if type(callback) ~= "function" then
    error("bad argument #2 to 'subscribe_resource' (function expected)", 2)
  end
  if self.era == "modern" then
    local caps = self.capabilities.resources
    if type(caps) ~= "table" or caps.subscribe ~= true then
      return nil, errors.new("ENOTSUP", "the server offers no resource subscriptions")
    end
    self._subscriptions = self._subscriptions or {}
    self._subscriptions[uri] = callback
    local ok, err = self:_listen_subscribe(uri,
      opts and opts.timeout and opts.timeout * 1000 or self._timeout)
    if not ok then
      self._subscriptions[uri] = nil
      self:_listen_update()
    end
    return ok, err
  end
  local err = self:_require("resources/subscribe", "resources", "subscribe")
  if err then return nil, err end
  local res
  res, err = self:request("resources/subscribe", { uri = uri }, opts)
  if not res then return nil, err end
  self._subscriptions = self._subscriptions or {}
  self._subscriptions[uri] = callback
  return true
end

--- syntax: ok, err = client:unsubscribe_resource(uri, opts?)
function Client:unsubscribe_resource(uri, opts)
  self:_check()
  check_string(uri, 1, "unsubscribe_resource")
  if self.era == "modern" then
    if self._subscriptions then self._subscriptions[uri] = nil end
    self:_listen_update()
    return true
  end
  local err = self:_require("resources/unsubscribe", "resources", "subscribe")
  if err then return nil, err end
  if self._subscriptions then self._subscriptions[uri] = nil end
  local res
  res, err = self:request("resources/unsubscribe", { uri = uri }, opts)
  if not res then return nil, err end
  return true
end

-- Whether the resource `inner` is `outer` or one of its sub-resources
-- (outer followed by a path, query or fragment): an update of a
-- sub-resource reaches the subscriber of its parent, and an update of a
-- parent makes what was read below it stale.
local function covers(outer, inner)
  if outer == inner then return true end
  if #inner <= #outer or inner:sub(1, #outer) ~= outer then return false end
  return outer:sub(-1) == "/" or inner:sub(#outer + 1, #outer + 1):match("[/?#]") ~= nil
end

routes["notifications/resources/updated"] = function(self, params)
  local uri = type(params) == "table" and params.uri
  if type(uri) ~= "string" then return end
  for key in pairs(self._cache or {}) do
    local read = key:match("^resources/read (.*)")
    if read and covers(uri, read) then self._cache[key] = nil end
  end
  for sub, fn in pairs(self._subscriptions or {}) do
    if covers(sub, uri) then fn(params) end
  end
end

routes["notifications/resources/list_changed"] = function(self, params)
  forget(self, "resources/list")
  forget(self, "resources/templates/list")
  if self.on_resources_changed then self.on_resources_changed(params) end
end

-- ---- prompts --------------------------------------------------------------

--- syntax: prompts, err = client:list_prompts(opts?)
function Client:list_prompts(opts)
  self:_check()
  local err = self:_require("prompts/list", "prompts")
  if err then return nil, err end
  return self:_paginate("prompts/list", "prompts", opts)
end

--- syntax: result, err = client:get_prompt(name, args?, opts?)
--- The GetPromptResult: description and messages. Argument values are
--- strings, as the specification requires.
function Client:get_prompt(name, args, opts)
  self:_check()
  check_string(name, 1, "get_prompt")
  check_table(args, 2, "get_prompt")
  for k, v in pairs(args or {}) do
    if type(k) ~= "string" or type(v) ~= "string" then
      error("bad argument #2 to 'get_prompt' (prompt arguments are strings)", 2)
    end
  end
  local err = self:_require("prompts/get", "prompts")
  if err then return nil, err end
  return self:request("prompts/get", { name = name, arguments = args }, opts)
end

routes["notifications/prompts/list_changed"] = function(self, params)
  forget(self, "prompts/list")
  if self.on_prompts_changed then self.on_prompts_changed(params) end
end

-- ---- completion --------------------------------------------------------------

--- syntax: completion, err = client:complete(ref, argument, context?, opts?)
--- ref: { type = "ref/prompt", name = ... } or { type = "ref/resource",
--- uri = ... }; argument: { name = ..., value = ... }; context:
--- { arguments = { name = value, ... } }. Returns result.completion
--- ({ values, total?, hasMore? }).
function Client:complete(ref, argument, context, opts)
  self:_check()
  if type(ref) ~= "table" or (ref.type ~= "ref/prompt" and ref.type ~= "ref/resource") then
    error("bad argument #1 to 'complete' ({ type = 'ref/prompt' | 'ref/resource', ... } expected)", 2)
  end
  if type(argument) ~= "table" or type(argument.name) ~= "string" then
    error("bad argument #2 to 'complete' ({ name = ..., value = ... } expected)", 2)
  end
  check_table(context, 3, "complete")
  local err = self:_require("completion/complete", "completions")
  if err then return nil, err end
  local res
  res, err = self:request("completion/complete",
    { ref = ref, argument = { name = argument.name, value = argument.value or "" },
      context = context }, opts)
  if not res then return nil, err end
  return res.completion
end

-- ---- logging --------------------------------------------------------------------

local LEVELS = { debug = true, info = true, notice = true, warning = true,
                 error = true, critical = true, alert = true, emergency = true }

--- syntax: ok, err = client:set_log_level(level, opts?)
--- level: debug, info, notice, warning, error, critical, alert, emergency.
function Client:set_log_level(level, opts)
  self:_check()
  if not LEVELS[level] then
    error("bad argument #1 to 'set_log_level' (a syslog level name expected)", 2)
  end
  local err = self:_require("logging/setLevel", "logging")
  if err then return nil, err end
  local res
  res, err = self:request("logging/setLevel", { level = level }, opts)
  if not res then return nil, err end
  self.log_level = level
  return true
end

local function default_log(self, params)
  local data = params.data
  if type(data) ~= "string" then data = core.json_encode(data) end
  io.stderr:write(("[%s] %s%s: %s\n"):format(self.name, params.level or "log",
    params.logger and (" (" .. params.logger .. ")") or "", data))
end

routes["notifications/message"] = function(self, params)
  if type(params) ~= "table" then return end
  if self.on_log then self.on_log(params) else default_log(self, params) end
end

return { methods = Client, routes = routes }
