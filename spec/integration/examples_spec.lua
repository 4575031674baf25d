-- Every example in examples/ runs here, against the real servers of
-- `make deps` and the scripted LLM fixture (spec/fixtures/llm.js), so
-- that none of them rots: the agent demo of `make demo` (both wire
-- formats), the tool filter, the sampling bridge, the research agent,
-- the program that owns its loop, and the tour. A new example without a
-- test here fails the last test.
local mcp = require "mcp"
local fixture = require "spec.support.fixture"

local BUILD = os.getenv("MCP_BUILD_DIR") or "build"
local LUAMCP = BUILD .. "/luamcp"
local CWD = io.popen("pwd"):read("l")

-- Keys in the environment would send the examples to a real model.
local CLEAN_ENV = "env -u OPENAI_API_KEY -u OPENAI_BASE_URL -u ANTHROPIC_API_KEY "
  .. "-u ANTHROPIC_BASE_URL -u LUAMCP_CONFIG "

local q = fixture.q

-- Runs a shell command; returns its exit code, stdout and stderr.
local function run(cmd) return fixture.sh(CLEAN_ENV .. cmd) end

local function example(name, ...)
  local args = {}
  for i, a in ipairs { ... } do args[i] = q(a) end
  return run(("%s run examples/%s %s"):format(LUAMCP, name, table.concat(args, " ")))
end

local function exists(path)
  local f = io.open(path, "r")
  if f then f:close() end
  return f ~= nil
end

-- The fixture an example started is gone once it has ended: its port
-- refuses connections.
local function assert_port_closed(port)
  run_async(function()
    local res, err = mcp.http.request{ url = ("http://127.0.0.1:%s/requests"):format(port),
      timeout = 5 }
    assert.is_nil(res)
    assert.equal("ECONNECT", err.code)
  end, 10)
end

-- The lines of text in order: each must come after the one before.
local function assert_in_order(text, list)
  local at = 1
  for _, s in ipairs(list) do
    local i = text:find(s, at, true)
    assert(i, ("%q not found (in order) in:\n%s"):format(s, text))
    at = i + #s
  end
end

local tested = {}

describe("examples", function()
  setup(function() fixture.everything_command() end)   -- fails when not installed

  for _, provider in ipairs { "openai", "anthropic" } do
    it("agent_demo.lua (make demo) runs its task of five turns through three servers, "
        .. provider .. " wire format", function()
      tested["agent_demo.lua"] = true
      local code, out, err = example("agent_demo.lua",
        table.unpack(provider == "anthropic" and { "--anthropic" } or {}))
      assert.equal(0, code, err)
      assert.matches("Model: the scripted LLM fixture %(spec/fixtures/llm.js, " .. provider, out)
      for _, server in ipairs { "everything", "filesystem", "memory" } do
        assert.matches("Server " .. server .. "%s+connected, %d+ tools", out)
      end
      local dir = out:match("Task: The folder (/tmp/luamcp%-demo%-%w+)/notes ")
      assert.is_string(dir, out)
      assert_in_order(out, {
        "-> filesystem_list_directory", "<- filesystem_list_directory: [FILE] team.md [FILE] todo.md",
        "-> filesystem_read_text_file", "Ada works on the parser",
        "-> memory_create_entities", "-> everything_get-sum {",
        "[turn 4] The sum of 12 and 30 is 42. Now the summary.",
        "-> filesystem_write_file", "<- filesystem_write_file: Successfully wrote to " .. dir,
        "Answer (5 turns", "and the summary is written: Successfully wrote to " .. dir
          .. "/notes/summary.md",
        "summary.md:\n# Week 36", "Total: 42 hours",
        "holds 2 records",
      })
      -- It cleans up: the temporary folder and the fixture are gone.
      assert.is_false(exists(dir .. "/notes/team.md"))
      assert_port_closed(out:match("at http://127%.0%.0%.1:(%d+)"))
    end)
  end

  it("tool_filter.lua leaves destructive tools out, cuts long text, makes links text", function()
    tested["tool_filter.lua"] = true
    local code, out, err = example("tool_filter.lua")
    assert.equal(0, code, err)
    for _, name in ipairs { "write_file", "edit_file", "move_file" } do
      assert.matches("left out: filesystem_" .. name .. " %(destructiveHint%)", out)
    end
    local all, shown = out:match("(%d+) tools on the servers, (%d+) shown")
    assert.equal(tonumber(all) - 3, tonumber(shown))
    assert.matches("filesystem_write_file: ENOENT", out)
    assert.matches("All work and no play%.[^\n]*%.%.%. %[%d+ characters cut%]\n", out)
    assert.matches('Resource "[^"]+" at demo://resource/dynamic/', out)
    assert.no.matches('"type":"resource_link"', out, 1, true)
  end)

  it("sampling_bridge.lua answers server-everything's trigger-sampling-request with the model",
      function()
    tested["sampling_bridge.lua"] = true
    local code, out, err = example("sampling_bridge.lua", "Write a haiku about C")
    assert.equal(0, code, err)
    assert.matches("The server asks the model %(100 tokens at most%): Resource "
      .. "trigger%-sampling%-request context: Write a haiku about C", out)
    assert.matches('"model": "gpt-fixture"', out, 1, true)
    assert.matches('"stopReason": "endTurn"', out, 1, true)
    assert.matches("tables nest inside tables", out, 1, true)
    assert.matches('The model received: system "You are a helpful test server.", user '
      .. '"Resource trigger-sampling-request context: Write a haiku about C"', out, 1, true)
    assert_port_closed(out:match("at http://127%.0%.0%.1:(%d+)"))
  end)

  it("research_agent.lua gathers from several servers in parallel and keeps findings in Lua",
      function()
    tested["research_agent.lua"] = true
    local code, out, err = example("research_agent.lua")
    assert.equal(0, code, err)
    assert_in_order(out, {
      "[turn 1] filesystem_search_files, memory_search_nodes",
      "[turn 2] filesystem_read_multiple_files",
      "[turn 3] save_finding, save_finding",
      "[turn 4] answer",
      "so it waits for Ada. (saved: 2 findings so far)",
      "Findings:", "[people] Ada works on the parser, Grace on the compiler.",
      "[release 0.3] Release 0.3 waits for the parser",
      "4 turns,",
    })
    -- Real data: the knowledge graph's milestone, the copied notes.
    assert.matches('memory_search_nodes: { "entities": [ { "name": "Release 0.3"', out, 1, true)
    assert.matches("filesystem_read_multiple_files: /tmp/luamcp%-research%-%w+/notes/team%.md", out)
    -- Only read-only tools and the Lua one: no write_file, no everything_*.
    local offered = tonumber(out:match("(%d+) tools offered"))
    assert.is_true(offered > 1 and offered < 20, out)
  end)

  it("embed_loop.lua: a program's own loop steps luamcp and keeps ticking meanwhile", function()
    tested["embed_loop.lua"] = true
    -- MCP_LUA: lua5.4 with the sanitizers' runtime under make check-asan.
    local code, out, err = run(("LUA_CPATH=%s %s examples/embed_loop.lua"):format(
      q(BUILD .. "/?.so;;"), os.getenv("MCP_LUA") or "lua5.4"))
    assert.equal(0, code, err)
    assert_in_order(out, {
      "[mcp] connected to", "[mcp] get-sum -> The sum of 2 and 3 is 5.",
      "[mcp] progress 1/4", "[program] tick", "[mcp] progress 4/4",
      "[mcp] long operation -> Long running operation completed.",
      "luamcp has nothing left open: true",
    })
  end)

  it("tour.lua shows a server's info, tools and two calls", function()
    tested["tour.lua"] = true
    local everything = fixture.everything_command()
    local code, out, err = run(("%s run examples/tour.lua node %s stdio"):format(LUAMCP,
      q(everything[2])))
    assert.equal(0, code, err)
    assert.matches("get%-sum {a=2, b=3} %-> The sum of 2 and 3 is 5%.", out)
    assert.matches("echo %-> Echo: Hello from Lua!", out)
  end)

  it("every example has a test here", function()
    -- conformance_client.lua is run by make conformance.
    local missing = {}
    for name in io.popen("ls " .. q(CWD .. "/examples")):lines() do
      if name:match("%.lua$") and name ~= "conformance_client.lua" and not tested[name] then
        missing[#missing + 1] = name
      end
    end
    assert.same({}, missing)
  end)
end)
