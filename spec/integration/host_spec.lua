-- mcp.host with real servers (server-everything over stdio and Streamable
-- HTTP, server-filesystem, server-memory) and the fixtures, configured
-- through the config files people have: OpenCode's, Claude's, VS Code's
-- and luamcp's own, written to a temp directory. Statuses (connected,
-- disabled, failed, a hang bounded by its startup timeout), the parallel
-- start, tool names and collisions, globs, filter and on_result, routing,
-- resources, prompts, instructions, restart after a crash, list-changed.
local mcp = require "mcp"
local core = require "mcp.core"
local fixture = require "spec.support.fixture"
local event = require "spec.support.event"

local ROOT = core.cwd()
local NPM = ROOT .. "/.deps/npm/node_modules/@modelcontextprotocol/"
-- Absolute: config files name commands as a person would, from anywhere.
local function absolute(path)
  if path:sub(1, 1) == "/" then return path end
  return ROOT .. "/" .. path:gsub("^%./", "")
end
local EVERYTHING = absolute(fixture.EVERYTHING)
local FILESYSTEM = NPM .. "server-filesystem/dist/index.js"
local MEMORY = NPM .. "server-memory/dist/index.js"

-- Fails (never skips) when a server `make deps` installs is missing.
local function installed(path)
  assert(fixture.slurp(path) ~= "", path .. " is not installed: run `make deps`")
  return path
end

local function fixture_path(name)
  return ROOT .. "/spec/fixtures/" .. name .. ".js"
end

local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- A fresh directory, removed with everything in it when the variable
-- holding it goes out of scope (`local dir <close> = temp_dir()`).
local function temp_dir()
  local path = os.tmpname()
  os.remove(path)
  assert(os.execute("mkdir -m 700 " .. quote(path)))
  return setmetatable({ path = path }, { __close = function(d)
    os.execute("rm -rf " .. quote(d.path))
  end })
end

local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
  return path
end

local function exists(path)
  local f = io.open(path, "r")
  if f then f:close() end
  return f ~= nil
end

-- A JSON string, for config texts written by hand (a table would lose the
-- order of the servers, which the host keeps).
local J = mcp.json.encode

local function text_of(result)
  assert.is_table(result)
  return result.content[1].text
end

local function by_name(tools)
  local out = {}
  for _, t in ipairs(tools) do out[t.name] = t end
  return out
end

-- The states one server went through, from on_status calls recorded as
-- { name, state }.
local function states_of(log, name)
  local out = {}
  for _, e in ipairs(log) do
    if e[1] == name then out[#out + 1] = e[2] end
  end
  return out
end

local function quiet() end

describe("mcp.host with real servers", function()
  it("reads opencode.json (JSONC): stdio everything and filesystem, a failing, a hanging and a disabled server", function()
    installed(EVERYTHING)
    installed(FILESYSTEM)
    run_async(function()
      local dir <close> = temp_dir()
      local files = dir.path .. "/files"
      assert(os.execute("mkdir " .. quote(files)))
      local path = write(dir.path .. "/opencode.json", ([[
{
  // OpenCode's own shape, with comments and trailing commas.
  "$schema": "https://opencode.ai/config.json",
  "mcp": {
    "everything": { "type": "local", "command": ["node", %s, "stdio"] },
    "fs": { "type": "local", "command": ["node", %s, %s], "enabled": true },
    "broken": { "type": "local", "command": ["node", %s] },
    /* never answers initialize: bounded by its own timeout (ms) */
    "stuck": { "type": "local", "command": ["node", %s], "timeout": 500 },
    "off": { "type": "local", "command": ["node", %s], "enabled": false },
  },
}
]]):format(J(EVERYTHING), J(FILESYSTEM), J(files), J(fixture_path("exits_at_once")),
        J(fixture_path("silent_init")), J(fixture_path("echo"))))
      local log, stderr = {}, {}
      local host <close> = assert(mcp.host{
        config = path,
        on_status = function(name, state) log[#log + 1] = { name, state } end,
        on_stderr = function(name, line) stderr[#stderr + 1] = name .. ": " .. line end,
      })
      assert.equal("opencode", host.config_format)
      assert.same({ "everything", "fs", "broken", "stuck", "off" }, host:names())

      local status = host:status()
      assert.equal("connected", status.everything.state)
      assert.equal("stdio", status.everything.transport)
      assert.equal("2025-11-25", status.everything.protocol_version)
      assert.is_string(status.everything.server_info.name)
      assert.is_nil(status.everything.error)
      assert.equal("connected", status.fs.state)
      assert.equal("failed", status.broken.state)
      -- The error says why, with what the server said on stderr.
      assert.equal("ECLOSED", status.broken.error.code)
      assert.matches("refuses to start", status.broken.error.stderr)
      assert.equal("failed", status.stuck.state)
      assert.equal("ETIMEDOUT", status.stuck.error.code)
      assert.equal("disabled", status.off.state)
      assert.is_nil(status.off.error)
      assert.same({ "connecting", "failed" }, states_of(log, "stuck"))
      assert.same({ "connecting", "connected" }, states_of(log, "everything"))
      assert.same({ "disabled" }, states_of(log, "off"))
      assert.equal(status.everything.tools, #(host:client("everything").tools))

      -- Only the connected servers' tools, named server_tool.
      local tools = host:tools()
      local named = by_name(tools)
      assert.equal("everything", named["everything_get-sum"].server)
      assert.equal("get-sum", named["everything_get-sum"].tool_name)
      assert.equal("read_text_file", named.fs_read_text_file.tool_name)
      for _, t in ipairs(tools) do
        assert.matches("^[%w_-]+$", t.name)
        assert.is_true(#t.name <= 64)
        assert.truthy(t.server == "everything" or t.server == "fs", t.server)
      end
      -- Config order: every everything tool before the first fs tool.
      local first_fs
      for i, t in ipairs(tools) do
        if t.server == "fs" and not first_fs then first_fs = i end
        if first_fs then assert.equal("fs", t.server) end
      end

      -- Calls go to the server the name belongs to.
      assert.equal("The sum of 2 and 3 is 5.",
        text_of(assert(host:call("everything_get-sum", { a = 2, b = 3 }))))
      assert(host:call("fs_write_file", { path = files .. "/a.txt", content = "hello" }))
      assert.equal("hello", fixture.slurp(files .. "/a.txt"))
      assert.equal("hello", text_of(assert(host:call("fs_read_text_file",
        { path = files .. "/a.txt" }))))
      local result, err = host:call("broken_anything", {})
      assert.is_nil(result)
      assert.equal("ENOENT", err.code)
      local _, cerr = host:client("stuck")
      assert.equal("ETIMEDOUT", cerr.code)
    end, 60)
  end)

  it("reads Claude's .mcp.json: everything over Streamable HTTP, memory with ${VAR:-default}; resources, prompts, instructions", function()
    installed(EVERYTHING)
    installed(MEMORY)
    run_async(function()
      local dir <close> = temp_dir()
      local srv <close> = fixture.http_server("everything_http", { "streamableHttp" })
      local memory_file = dir.path .. "/memory.jsonl"
      local path = write(dir.path .. "/.mcp.json", ([[
{
  "mcpServers": {
    "everything": { "type": "http", "url": %s },
    "memory": {
      "command": "node", "args": [%s],
      "env": { "MEMORY_FILE_PATH": "${LUAMCP_SPEC_UNSET_VARIABLE:-%s}" }
    },
    "off": { "command": "node", "args": [%s], "disabled": true }
  }
}
]]):format(J(srv.url("/mcp")), J(MEMORY), memory_file, J(fixture_path("echo"))))
      local host <close> = assert(mcp.host{ config = path, on_stderr = quiet })
      assert.equal("claude", host.config_format)
      local status = host:status()
      assert.equal("connected", status.everything.state)
      assert.equal("streamable-http", status.everything.transport)
      assert.equal(srv.url("/mcp"), status.everything.url)
      assert.equal("connected", status.memory.state)
      assert.equal("disabled", status.off.state)

      assert.equal("The sum of 4 and 5 is 9.",
        text_of(assert(host:call("everything_get-sum", { a = 4, b = 5 }))))
      -- The memory server writes where the default of ${VAR:-default} says.
      assert(host:call("memory_create_entities", { entities = {
        { name = "luamcp", entityType = "project", observations = { "a host" } } } }))
      assert.truthy(fixture.slurp(memory_file):find('"luamcp"', 1, true))
      local graph = text_of(assert(host:call("memory_read_graph", {})))
      assert.truthy(graph:find("a host", 1, true))

      local resources, failures = host:resources()
      assert.same({}, failures)
      local doc = resources["everything:architecture.md"]
      assert.equal("everything", doc.server)
      local read = assert(host:read("everything", doc.uri))
      assert.matches("Architecture", read.contents[1].text)

      local prompts = host:prompts()
      assert.equal("everything", prompts["everything:simple-prompt"].server)
      local messages, raw = host:get_prompt("everything", "args-prompt", { city = "Lyon" })
      assert.is_table(raw)
      assert.equal("user", messages[1].role)
      assert.is_string(messages[1].content)
      assert.matches("Lyon", messages[1].content)

      local text, list = host:instructions()
      assert.equal("everything", list[1].server)
      assert.truthy(text:find("## everything\n\n" .. list[1].text, 1, true))
    end, 60)
  end)

  it("reads VS Code's .vscode/mcp.json with ${workspaceFolder}; a filter drops destructiveHint tools, annotations are kept", function()
    installed(EVERYTHING)
    installed(FILESYSTEM)
    run_async(function()
      local dir <close> = temp_dir()
      assert(os.execute("mkdir " .. quote(dir.path .. "/.vscode")))
      local path = write(dir.path .. "/.vscode/mcp.json", ([[
{
  "servers": {
    "everything": {
      "type": "stdio", "command": "node", "args": [%s, "stdio"],
      "env": { "LUAMCP_SPEC_WORKSPACE": "${workspaceFolder}" }
    },
    "fs": { "type": "stdio", "command": "node", "args": [%s, "${workspaceFolder}"] }
  }
}
]]):format(J(EVERYTHING), J(FILESYSTEM)))
      local seen = {}
      local host <close> = assert(mcp.host{
        config = path,
        on_stderr = quiet,
        filter = function(tool, server)
          seen[#seen + 1] = server .. "/" .. tool.name
          return not (tool.annotations and tool.annotations.destructiveHint)
        end,
      })
      assert.equal("vscode", host.config_format)
      local named = by_name(host:tools())
      -- The filter sees each server's own tool names.
      assert.truthy(table.concat(seen, " "):find("fs/write_file", 1, true))
      assert.is_nil(named.fs_write_file)
      assert.is_nil(named.fs_edit_file)
      assert.is_nil(named.fs_move_file)
      assert.is_table(named.fs_create_directory)   -- destructiveHint = false
      assert.is_true(named.fs_read_text_file.annotations.readOnlyHint)
      assert.is_true(named["everything_get-sum"].annotations.readOnlyHint)
      local _, err = host:call("fs_write_file", { path = dir.path .. "/x", content = "x" })
      assert.equal("ENOENT", err.code)
      assert.is_false(exists(dir.path .. "/x"))

      -- ${workspaceFolder} is the folder that holds .vscode.
      local env = text_of(assert(host:call("everything_get-env", {})))
      assert.truthy(env:find(dir.path, 1, true))
      local allowed = text_of(assert(host:call("fs_list_allowed_directories", {})))
      assert.truthy(allowed:find(dir.path, 1, true))
    end, 60)
  end)

  it("starts servers in parallel: three that take 1 s each take about 1 s together", function()
    run_async(function()
      local dir <close> = temp_dir()
      local entries = {}
      for i = 1, 3 do
        entries[i] = ([["slow%d": { "command": ["node", %s, "--delay-ms", "1000"] }]])
          :format(i, J(fixture_path("slow_init")))
      end
      local path = write(dir.path .. "/luamcp.json",
        '{ "mcp": {\n' .. table.concat(entries, ",\n") .. "\n} }\n")
      local started = core.now()
      local host <close> = assert(mcp.host{ config = path, on_stderr = quiet })
      local elapsed = core.now() - started
      for _, name in ipairs{ "slow1", "slow2", "slow3" } do
        assert.equal("connected", host:status()[name].state)
      end
      -- At least one delay (the fixture does wait), well under the sum.
      assert.is_true(elapsed >= 950, ("elapsed %d ms"):format(elapsed))
      assert.is_true(elapsed < 2000, ("elapsed %d ms: not in parallel"):format(elapsed))
    end, 30)
  end)

  it("bounds a hanging server by its own startup timeout (else the host's) and delays nobody", function()
    run_async(function()
      local dir <close> = temp_dir()
      local silent = J(fixture_path("silent_init"))
      -- The newer OpenCode form: mcp.servers, disabled, timeout in parts.
      local path = write(dir.path .. "/luamcp.json", ([[
{ "mcp": { "servers": {
  "own": { "command": ["node", %s], "timeout": { "startup": 1500 } },
  "default": { "command": ["node", %s] },
  "echo": { "command": ["node", %s] },
  "off": { "command": ["node", %s], "disabled": true }
} } }
]]):format(silent, silent, J(fixture_path("echo")), silent))
      local started = core.now()
      local at = {}
      local host <close> = assert(mcp.host{
        config = path,
        timeout = 0.3,
        on_stderr = quiet,
        on_status = function(name, state)
          if state ~= "connecting" then at[name] = core.now() - started end
        end,
      })
      local elapsed = core.now() - started
      local status = host:status()
      assert.equal("ETIMEDOUT", status.own.error.code)
      assert.equal("ETIMEDOUT", status.default.error.code)
      assert.equal("connected", status.echo.state)
      assert.equal("disabled", status.off.state)
      -- own waited its 1.5 s, not the host's 0.3 s; default did not wait
      -- for own, nor echo for either.
      assert.is_true(at.own >= 1400, ("own failed after %d ms"):format(at.own))
      assert.is_true(at.default < at.own)
      assert.is_true(at.echo < at.own)
      assert.is_true(elapsed < 3000, ("the host took %d ms"):format(elapsed))
      assert.equal("echo", host:tools()[1].server)
    end, 30)
  end)

  it("names tools server_tool, sanitized and cut to 64, and reports every collision, none shadowed", function()
    run_async(function()
      local dir <close> = temp_dir()
      local odd = J(fixture_path("odd_names"))
      -- "my.srv" and "my_srv" sanitize alike: every tool of one collides
      -- with the other's, and get.file / get_file collide within each.
      local path = write(dir.path .. "/luamcp.json", ([[
{ "mcp": {
  "my.srv": { "command": ["node", %s, "--tag", "dot:"] },
  "my_srv": { "command": ["node", %s, "--tag", "under:"] }
} }
]]):format(odd, odd))
      local host <close> = assert(mcp.host{ config = path, on_stderr = quiet })
      local tools, collisions = host:tools()
      assert.equal(18, #tools)                  -- 9 tools each, none hidden
      local names, pairs_seen = {}, {}
      for _, t in ipairs(tools) do
        assert.matches("^[%w_-]+$", t.name)
        assert.is_true(#t.name <= 64, t.name)
        assert.is_nil(names[t.name], "shown twice: " .. t.name)
        names[t.name] = t
        pairs_seen[t.server .. "|" .. t.tool_name] = true
      end
      for _, server in ipairs{ "my.srv", "my_srv" } do
        for _, tool in ipairs{ "get.file", "get_file", "with space", "naïve", "ünï.cödé",
            ("l"):rep(70) .. "_one", ("l"):rep(70) .. "_two", "delete_everything",
            "read_notes" } do
          assert.is_true(pairs_seen[server .. "|" .. tool], server .. " " .. tool)
        end
      end
      -- The first in config order keeps the plain name.
      assert.equal("my.srv", names.my_srv_with_space.server)
      assert.equal("with space", names.my_srv_with_space.tool_name)
      assert.equal("get.file", names.my_srv_get_file.tool_name)
      local long = ("my_srv_" .. ("l"):rep(70) .. "_one"):sub(1, 64)
      assert.equal(("l"):rep(70) .. "_one", names[long].tool_name)

      -- Reported: the four contenders for my_srv_get_file, and the two
      -- long names that only differ after the cut.
      local reported = {}
      for _, c in ipairs(collisions) do reported[c.name] = c.tools end
      local contenders = {}
      for _, t in ipairs(reported.my_srv_get_file or {}) do
        contenders[#contenders + 1] = t.server .. "|" .. t.tool_name
        assert.is_table(names[t.name], t.name)
      end
      table.sort(contenders)
      assert.same({ "my.srv|get.file", "my.srv|get_file", "my_srv|get.file", "my_srv|get_file" },
        contenders)
      assert.is_table(reported[long])
      assert.is_table(reported["my_srv_na_ve"])   -- one "_" for "ï", as OpenCode

      -- Every shown name reaches its own server's own tool.
      for name, t in pairs(names) do
        local tag = t.server == "my.srv" and "dot:" or "under:"
        assert.equal(tag .. t.tool_name, text_of(assert(host:call(name, {}))), name)
      end
    end, 30)
  end)

  it("applies luamcp.json's include/exclude globs and on_result", function()
    installed(FILESYSTEM)
    run_async(function()
      local dir <close> = temp_dir()
      local path = write(dir.path .. "/luamcp.json", ([[
{ "mcp": {
  "fs": { "type": "local", "command": ["node", %s, %s],
          "tools": { "include": ["read_*", "list_*"], "exclude": ["*_with_sizes", "fs_read_m*"] } },
  "echo": { "type": "local", "command": ["node", %s], "tools": { "exclude": ["add"] } }
} }
]]):format(J(FILESYSTEM), J(dir.path), J(fixture_path("echo"))))
      local seen
      local host <close> = assert(mcp.host{
        config = path,
        on_stderr = quiet,
        on_result = function(result, tool, server)
          seen = { tool = tool.name, tool_name = tool.tool_name, server = server }
          return { content = { { type = "text",
            text = ("%s/%s: %s"):format(server, tool.tool_name, result.content[1].text) } } }
        end,
      })
      local shown = {}
      for _, t in ipairs(host:tools()) do shown[#shown + 1] = t.name end
      table.sort(shown)
      assert.same({ "echo_echo", "fs_list_allowed_directories", "fs_list_directory",
        "fs_read_file", "fs_read_text_file" }, shown)
      assert.equal(1, host:status().echo.tools)
      assert.equal("echo/echo: hi", text_of(assert(host:call("echo_echo", { message = "hi" }))))
      assert.same({ tool = "echo_echo", tool_name = "echo", server = "echo" }, seen)
      local _, err = host:call("echo_add", { a = 1, b = 2 })
      assert.equal("ENOENT", err.code)
    end, 30)
  end)

  it("gives every server the host's handlers unless its luamcp.json entry overrides them (a module), roots per server", function()
    run_async(function()
      local dir <close> = temp_dir()
      assert(os.execute("mkdir " .. quote(dir.path .. "/sub")))
      local requests = J(fixture_path("client_requests"))
      local path = write(dir.path .. "/luamcp.json", ([[
{ "mcp": {
  "plain": { "command": ["node", %s] },
  "own": { "command": ["node", %s], "roots": ["sub"],
           "handlers": { "sampling": "spec.fixtures.sampling_handler" } }
} }
]]):format(requests, requests))
      local host_roots = { { uri = "file:///host/root", name = "host root" } }
      local host <close> = assert(mcp.host{
        config = path,
        on_stderr = quiet,
        handlers = {
          roots = host_roots,
          sampling = function()
            return { role = "assistant", model = "host-model", stopReason = "endTurn",
                     content = { type = "text", text = "from the host" } }
          end,
        },
      })
      -- What the server got back when it asked the client.
      local function ask(server, method, params)
        local text = text_of(assert(host:call(server .. "_ask",
          { method = method, params = params })))
        return mcp.json.decode(text).result
      end
      local sampling = { messages = { { role = "user",
        content = { type = "text", text = "hi" } } }, maxTokens = 5 }
      assert.equal("host-model", ask("plain", "sampling/createMessage", sampling).model)
      assert.equal("module-model", ask("own", "sampling/createMessage", sampling).model)
      assert.same(host_roots, ask("plain", "roots/list").roots)
      local own_roots = ask("own", "roots/list").roots
      assert.equal(1, #own_roots)
      assert.equal(core.file_uri(dir.path .. "/sub"), own_roots[1].uri)
      assert.equal("sub", own_roots[1].name)
    end, 30)
  end)

  it("restarts a crashed stdio server (restart in luamcp.json): reconnecting, then connected, its tools back", function()
    run_async(function()
      local dir <close> = temp_dir()
      local path = write(dir.path .. "/luamcp.json", ([[
{ "mcp": {
  "crashy": { "command": ["node", %s], "restart": { "max": 2, "backoff": 100 } },
  "steady": { "command": ["node", %s] }
} }
]]):format(J(fixture_path("crash")), J(fixture_path("echo"))))
      local log = {}
      local down, back = event(), event()
      local was_down = false
      local host <close> = assert(mcp.host{
        config = path,
        on_stderr = quiet,
        on_status = function(name, state, err)
          log[#log + 1] = { name, state }
          if name ~= "crashy" then return end
          if state == "reconnecting" then
            was_down = true
            down.set(err or true)
          elseif state == "connected" and was_down then
            back.set(true)
          end
        end,
      })
      assert.equal("connected", host:status().crashy.state)
      local result, err = host:call("crashy_crash", {})
      assert.is_nil(result)
      assert.equal("ECLOSED", err.code)
      assert.is_not_nil(down.wait(10))
      assert.is_true(back.wait(10))
      assert.same({ "connecting", "connected", "reconnecting", "connected" },
        states_of(log, "crashy"))
      assert.equal("connected", host:status().crashy.state)
      local named = by_name(host:tools())
      assert.is_table(named.crashy_echo)
      assert.is_table(named.crashy_crash)
      assert.equal("back", text_of(assert(host:call("crashy_echo", { message = "back" }))))
      -- The other server never noticed.
      assert.same({ "connecting", "connected" }, states_of(log, "steady"))
    end, 30)
  end)

  it("refreshes a server's tools on its list-changed notification and fires on_tools_changed", function()
    run_async(function()
      local changed = event()
      local host <close> = assert(mcp.host{
        config = { mcp = {
          lc = { type = "local", command = { "node", fixture_path("list_changed") } },
          steady = { type = "local", command = { "node", fixture_path("echo") } },
        } },
        on_stderr = quiet,
        on_tools_changed = function(h, name) changed.set(h, name) end,
      })
      assert.is_nil(by_name(host:tools()).lc_extra1)
      assert.equal("grown", text_of(assert(host:call("lc_grow", {}))))
      local h, name = changed.wait(10)
      assert.equal(host, h)
      assert.equal("lc", name)
      local named = by_name(host:tools())
      assert.is_table(named.lc_extra1)
      assert.is_table(named.lc_extra2)
      assert.is_table(named.steady_echo)
      assert.equal("extra1", text_of(assert(host:call("lc_extra1", {}))))
    end, 30)
  end)
end)
