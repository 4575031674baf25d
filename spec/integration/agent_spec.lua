-- spec/integration/agent_spec.lua - mcp.agent over real servers
-- (server-everything, server-filesystem, server-memory over stdio, in one
-- mcp.host) and a real model API: the scripted LLM fixture
-- (spec/fixtures/llm.js) through the real providers (mcp.llm.openai,
-- mcp.llm.anthropic). What the model saw is read back from the fixture
-- (GET /requests); what the tools did, from the disk.
local mcp = require "mcp"
local core = require "mcp.core"
local llm_api = require "mcp.llm"
local fixture = require "spec.support.fixture"

local NODE_MODULES = ".deps/npm/node_modules/@modelcontextprotocol/"
local KEY = "sk-test-agent"

local function write_file(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

local function temp_dir()
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p '" .. dir .. "'"))
  return dir
end

local function remove_dir(dir)
  os.execute("rm -rf '" .. dir .. "'")
end

-- The scripted model: the fixture on a script, stopped and its script
-- removed when the variable goes out of scope (`local llm <close> = ...`).
local function scripted_llm(provider, script, opts)
  local path = os.tmpname()
  write_file(path, mcp.json.encode(script))
  local server = fixture.http_server("llm", { "--script", path, "--key", KEY })
  local o = { api_key = KEY, max_retries = 0 }
  for k, v in pairs(opts or {}) do o[k] = v end
  local model
  if provider == "openai" then
    o.model, o.base_url = o.model or "gpt-4o-mini", server.url("/v1")
    model = llm_api.openai(o)
  else
    o.model, o.base_url = o.model or "claude-sonnet-4-5", server.url("")
    model = llm_api.anthropic(o)
  end
  local self = { model = model, server = server }
  function self.requests()
    local res = assert(mcp.http.request{ url = server.url("/requests") })
    assert.equal(200, res.status)
    return assert(mcp.json.decode(res.body))
  end
  return setmetatable(self, { __close = function()
    server.stop()
    os.remove(path)
  end })
end

-- The three servers of the demo in one host; dir is server-filesystem's
-- root and holds server-memory's file.
local function three_servers(dir)
  return assert(mcp.host{
    servers = {
      everything = { command = fixture.everything_command() },
      filesystem = { command = { "node", NODE_MODULES .. "server-filesystem/dist/index.js", dir } },
      memory = { command = { "node", NODE_MODULES .. "server-memory/dist/index.js" },
                 env = { MEMORY_FILE_PATH = dir .. "/memory.jsonl" } },
    },
    on_stderr = function() end,
  })
end

local function everything_only()
  return assert(mcp.host{
    servers = { everything = { command = fixture.everything_command() } },
    on_stderr = function() end,
  })
end

-- The text of every tool result in one request body as the provider's
-- wire form carries it, in order: { { id, text, is_error } }.
local function tool_results_in(provider, body)
  local out = {}
  for _, m in ipairs(body.messages) do
    if provider == "openai" and m.role == "tool" then
      local text = m.content
      if type(text) == "table" then
        local parts = {}
        for _, p in ipairs(text) do parts[#parts + 1] = p.text or "" end
        text = table.concat(parts, "\n")
      end
      out[#out + 1] = { id = m.tool_call_id, text = text }
    elseif provider == "anthropic" and type(m.content) == "table" then
      for _, b in ipairs(m.content) do
        if b.type == "tool_result" then
          local text = b.content
          if type(text) == "table" then
            local parts = {}
            for _, p in ipairs(text) do parts[#parts + 1] = p.text or "" end
            text = table.concat(parts, "\n")
          end
          out[#out + 1] = { id = b.tool_use_id, text = text, is_error = b.is_error == true }
        end
      end
    end
  end
  return out
end

local function tool_names_in(provider, body)
  local names = {}
  for _, t in ipairs(body.tools or {}) do
    names[#names + 1] = provider == "openai" and t["function"].name or t.name
  end
  table.sort(names)
  return names
end

local function system_in(provider, body)
  if provider == "anthropic" then
    if type(body.system) == "table" then return body.system[1].text end
    return body.system
  end
  for _, m in ipairs(body.messages) do
    if m.role == "system" or m.role == "developer" then return m.content end
  end
end

describe("mcp.agent over real servers", function()
  local dir
  before_each(function() dir = temp_dir() end)
  after_each(function() remove_dir(dir) end)

  it("runs a multi-step task through everything, filesystem and memory (OpenAI, plain requests)", function()
    run_async(function()
      local file = dir .. "/sum.txt"
      local llm <close> = scripted_llm("openai", {
        { expect_tool = "everything_get-sum",
          tool_calls = { { name = "everything_get-sum", arguments = { a = 2, b = 3 } } } },
        { text = "Writing it down.", tool_calls = { { name = "filesystem_write_file",
            arguments = { path = file, content = "2 + 3 = 5\n" } } } },
        { tool_calls = { { name = "filesystem_list_directory", arguments = { path = dir } } } },
        { expect_tool = "memory_create_entities", tool_calls = { { name = "memory_create_entities",
            arguments = { entities = { { name = "SumOfTwoAndThree", entityType = "fact",
              observations = { "2 + 3 = 5" } } } } } } },
        { text = "Done. Memory holds: {{last_tool_result}}" },
      })
      local host <close> = three_servers(dir)
      for name, s in pairs(host:status()) do assert.equal("connected", s.state, name) end
      local agent = mcp.agent{ host = host, llm = llm.model, system = "You keep notes." }

      local answer, err = agent:run("Add 2 and 3, write it to a file, list the folder, remember it.")
      assert.is_nil(err)
      assert.equal("answer", agent.stopped)
      assert.equal(5, agent.turns)
      assert.matches("^Done%. Memory holds: ", answer)
      assert.matches("SumOfTwoAndThree", answer)

      -- What the model saw: every tool's real result, in turn.
      local requests = llm.requests()
      assert.equal(5, #requests)
      local function last_result(i)
        local results = tool_results_in("openai", requests[i])
        return results[#results].text
      end
      assert.equal("The sum of 2 and 3 is 5.", last_result(2))
      assert.equal("Successfully wrote to " .. file, last_result(3))
      assert.matches("%[FILE%] sum%.txt", last_result(4))
      assert.matches('"name": "SumOfTwoAndThree"', last_result(5))
      -- The tools of all three servers, and the system prompt with opts.system
      -- and the servers' instructions.
      local names = tool_names_in("openai", requests[1])
      for _, want in ipairs { "everything_get-sum", "filesystem_write_file",
          "filesystem_list_directory", "memory_create_entities" } do
        assert.truthy(table.concat(names, " "):find(want, 1, true), want)
      end
      local system = system_in("openai", requests[1])
      assert.matches("^You keep notes%.", system)
      assert.matches("## everything", system)

      -- The real side effects.
      assert.equal("2 + 3 = 5\n", fixture.slurp(file))
      assert.matches('"name":"SumOfTwoAndThree"', fixture.slurp(dir .. "/memory.jsonl"))

      -- The conversation is kept: user, then 4 x (assistant calls, user
      -- results), then the answer.
      assert.equal(10, #agent.messages)
      assert.equal("user", agent.messages[1].role)
      assert.equal("tool_call", agent.messages[2].content[1].type)
      assert.equal("tool_result", agent.messages[3].content[1].type)
      assert.equal(agent.messages[2].content[1].id, agent.messages[3].content[1].tool_call_id)
      assert.equal(answer, agent.messages[10].content[1].text)
    end, 60)
  end)

  it("runs with Anthropic, streamed, and every hook sees its step", function()
    run_async(function()
      local llm <close> = scripted_llm("anthropic", {
        { text = "Let me add.", tool_calls = { { name = "everything_get-sum", arguments = { a = 20, b = 22 } } } },
        { text = "The answer is {{last_tool_result}}" },
      })
      local host <close> = everything_only()
      local seen, deltas = {}, {}
      local agent = mcp.agent{ host = host, llm = llm.model, stream = true,
        on_delta = function(d) if d.type == "text" then deltas[#deltas + 1] = d.text end end,
        on_turn = function(a, turn, reply) seen[#seen + 1] = ("turn %d %s"):format(turn, reply.stop_reason) end,
        on_tool_call = function(call) seen[#seen + 1] = "call " .. call.name .. " " .. call.arguments.a end,
        on_tool_result = function(call, result) seen[#seen + 1] = "result " .. result.content[1].text end,
      }
      local answer = assert(agent:run("What is 20 + 22?"))
      assert.equal("The answer is The sum of 20 and 22 is 42.", answer)
      assert.same({ "turn 1 tool_use", "call everything_get-sum 20",
                    "result The sum of 20 and 22 is 42.", "turn 2 end_turn" }, seen)
      assert.equal("Let me add.The answer is The sum of 20 and 22 is 42.", table.concat(deltas))
      local requests = llm.requests()
      assert.equal(2, #requests)
      assert.is_true(requests[1].stream)
      local results = tool_results_in("anthropic", requests[2])
      assert.equal(1, #results)
      assert.equal("The sum of 20 and 22 is 42.", results[1].text)
      assert.is_false(results[1].is_error)
    end, 40)
  end)

  it("runs the tool calls of one turn in parallel, with progress for each", function()
    run_async(function()
      local op = "everything_trigger-long-running-operation"
      local args = { duration = 1.5, steps = 3 }
      local llm <close> = scripted_llm("openai", {
        { tool_calls = { { name = op, arguments = args }, { name = op, arguments = args },
                         { name = op, arguments = args } } },
        { text = "All three done." },
      })
      local host <close> = everything_only()
      local progress = {}
      local agent = mcp.agent{ host = host, llm = llm.model,
        on_progress = function(call, p)
          progress[call.id] = (progress[call.id] or 0) + 1
          assert.equal(3, p.total)
        end }
      local started = core.now()
      assert.equal("All three done.", agent:run("Run it three times."))
      local elapsed = (core.now() - started) / 1000
      -- One takes 1.5 s; one after another they would take 4.5 s.
      assert.is_true(elapsed >= 1.4, "too fast: " .. elapsed)
      assert.is_true(elapsed < 3.2, "not in parallel: " .. elapsed .. " s")
      local calls = 0
      for id, n in pairs(progress) do
        calls = calls + 1
        assert.is_true(n >= 2, id)
      end
      assert.equal(3, calls)
      local results = tool_results_in("openai", llm.requests()[2])
      assert.equal(3, #results)
      for _, r in ipairs(results) do assert.matches("Long running operation completed", r.text) end
    end, 40)
  end)

  it("feeds tool errors back as is_error: a server's isError, bad arguments, an unknown tool, a Lua tool that raises", function()
    run_async(function()
      local llm <close> = scripted_llm("anthropic", {
        { tool_calls = {
          { name = "filesystem_read_text_file", arguments = { path = "/etc/hostname" } },
          { name = "everything_get-sum", arguments = { a = "two", b = 3 } },
          { name = "nowhere_tool", arguments = {} },
          { name = "explode", arguments = {} },
          { name = "everything_get-sum", arguments = { a = 1, b = 1 } },
        } },
        { text = "I could add 1 and 1: {{last_tool_result}}" },
      })
      local host <close> = three_servers(dir)
      local agent = mcp.agent{ host = host, llm = llm.model, tools = {
        { name = "explode", description = "Always fails", input_schema = { type = "object" },
          handler = function() error("boom") end },
      } }
      local answer = assert(agent:run("Try things."))
      assert.equal("I could add 1 and 1: The sum of 1 and 1 is 2.", answer)
      local results = tool_results_in("anthropic", llm.requests()[2])
      assert.equal(5, #results)
      assert.is_true(results[1].is_error)
      assert.matches("outside allowed directories", results[1].text)
      assert.is_true(results[2].is_error)
      assert.matches("ESCHEMA", results[2].text)
      assert.is_true(results[3].is_error)
      assert.matches('no tool named "nowhere_tool"', results[3].text)
      assert.is_true(results[4].is_error)
      assert.matches("boom", results[4].text)
      assert.is_false(results[5].is_error)
    end, 60)
  end)

  it("tells the model when its arguments are not JSON, and goes on", function()
    run_async(function()
      local llm <close> = scripted_llm("openai", {
        { tool_calls = {
          { name = "everything_get-sum", arguments_text = '{"a": 1, "b": ' },
          { name = "everything_get-sum", arguments = { a = 2, b = 2 } },
        } },
        { text = "Fixed: {{last_tool_result}}" },
      })
      local host <close> = three_servers(dir)
      local agent = mcp.agent{ host = host, llm = llm.model }
      assert.equal("Fixed: The sum of 2 and 2 is 4.", assert(agent:run("Add.")))
      local second = llm.requests()[2]
      local results = tool_results_in("openai", second)
      -- OpenAI's tool messages carry no flag: the provider says "Error: ".
      assert.matches("^Error: .*not a JSON object", results[1].text)
      assert.equal("The sum of 2 and 2 is 4.", results[2].text)
      -- The model sees what it sent, as it sent it.
      local sent
      for _, m in ipairs(second.messages) do
        if m.role == "assistant" and m.tool_calls then sent = m.tool_calls[1]["function"].arguments end
      end
      assert.equal('{"a": 1, "b": ', sent)
    end, 60)
  end)

  it("stops at max_turns with a conversation that can go on", function()
    run_async(function()
      local sum = { name = "everything_get-sum", arguments = { a = 1, b = 2 } }
      local llm <close> = scripted_llm("openai", {
        { text = "first", tool_calls = { sum } },
        { text = "second", tool_calls = { sum } },
        { text = "Finally: {{last_tool_result}}" },
      })
      local host <close> = everything_only()
      local agent = mcp.agent{ host = host, llm = llm.model, max_turns = 2 }
      local answer, err = agent:run("Keep adding.")
      assert.is_nil(err)
      assert.equal("second", answer)
      assert.equal("max_turns", agent.stopped)
      assert.equal(2, #llm.requests())
      -- The last tool call was answered, so the conversation is valid to continue.
      assert.equal("tool_result", agent.messages[#agent.messages].content[1].type)
      answer = assert(agent:run())
      assert.equal("Finally: The sum of 1 and 2 is 3.", answer)
      assert.equal("answer", agent.stopped)
    end, 40)
  end)

  it("cancels running tool calls at the deadline and fails with ETIMEDOUT", function()
    run_async(function()
      local llm <close> = scripted_llm("openai", {
        { tool_calls = { { name = "everything_trigger-long-running-operation",
                           arguments = { duration = 10, steps = 10 } } } },
      })
      local host <close> = everything_only()
      local agent = mcp.agent{ host = host, llm = llm.model, timeout = 1 }
      local started = core.now()
      local answer, err = agent:run("Take your time.")
      local elapsed = (core.now() - started) / 1000
      assert.is_nil(answer)
      assert.equal("ETIMEDOUT", err.code)
      assert.equal("timeout", agent.stopped)
      assert.is_true(elapsed < 5, "the deadline did not cut the call: " .. elapsed)
      local last = agent.messages[#agent.messages].content[1]
      assert.equal("tool_result", last.type)
      assert.is_true(last.is_error)
      -- The server is still usable: the cancelled call did not break it.
      assert(host:call("everything_get-sum", { a = 1, b = 1 }))
    end, 40)
  end)

  it("offers own Lua tools with the host's, filtered; on_result and on_tool_call change what the model sees", function()
    run_async(function()
      local llm <close> = scripted_llm("openai", {
        { expect_tool = "shout", tool_calls = {
          { name = "shout", arguments = { text = "hello" } },
          { name = "everything_echo", arguments = { message = "secret" } },
          { name = "everything_get-sum", arguments = { a = 2, b = 2 } },
        } },
        { text = "{{last_tool_result}}" },
      })
      local host <close> = everything_only()
      local agent = mcp.agent{ host = host, llm = llm.model,
        tools = { { name = "shout", description = "Upper-cases a text",
          input_schema = { type = "object", properties = { text = { type = "string" } },
                           required = { "text" } },
          handler = function(args) return args.text:upper() end } },
        filter = function(tool)
          return tool.name == "shout" or tool.name == "everything_get-sum" or tool.name == "everything_echo"
        end,
        on_tool_call = function(call)
          if call.name == "everything_echo" then
            return { content = { { type = "text", text = "denied by the user" } }, isError = true }
          end
        end,
        on_result = function(result, call)
          if call.name == "everything_get-sum" then
            return { content = { { type = "text", text = "sum: " .. result.content[1].text } } }
          end
          return result
        end,
      }
      assert.equal("sum: The sum of 2 and 2 is 4.", agent:run("Go."))
      local requests = llm.requests()
      assert.same({ "everything_echo", "everything_get-sum", "shout" }, tool_names_in("openai", requests[1]))
      local results = tool_results_in("openai", requests[2])
      assert.equal("HELLO", results[1].text)
      assert.matches("denied by the user", results[2].text)
      assert.equal("sum: The sum of 2 and 2 is 4.", results[3].text)
    end, 40)
  end)

  it("turns images, structured content and resource links into model input", function()
    run_async(function()
      local llm <close> = scripted_llm("anthropic", {
        { tool_calls = {
          { name = "everything_get-tiny-image", arguments = {} },
          { name = "everything_get-structured-content", arguments = { location = "Chicago" } },
          { name = "everything_get-resource-links", arguments = { count = 2 } },
        } },
        { text = "seen" },
      })
      local host <close> = everything_only()
      local agent = mcp.agent{ host = host, llm = llm.model }
      assert.equal("seen", agent:run("Look."))
      local body = llm.requests()[2]
      local blocks = {}
      for _, m in ipairs(body.messages) do
        for _, b in ipairs(type(m.content) == "table" and m.content or {}) do
          if b.type == "tool_result" then blocks[#blocks + 1] = b end
        end
      end
      assert.equal(3, #blocks)
      local image
      for _, c in ipairs(blocks[1].content) do if c.type == "image" then image = c end end
      assert.truthy(image, "no image block in the tool result")
      assert.equal("base64", image.source.type)
      assert.equal("image/png", image.source.media_type)
      -- The structured content's JSON appears once (the server's text already says it).
      local texts = {}
      for _, c in ipairs(blocks[2].content) do texts[#texts + 1] = c.text end
      local all = table.concat(texts, "\n")
      assert.matches('"temperature"', all)
      local _, count = all:gsub('"temperature"', "")
      assert.equal(1, count)
      texts = {}
      for _, c in ipairs(blocks[3].content) do texts[#texts + 1] = c.text end
      assert.matches("%[resource link [^\n]*demo://resource/", table.concat(texts, "\n"))
    end, 40)
  end)

  it("starts from a server's prompt, with a chosen resource in the system prompt", function()
    run_async(function()
      local llm <close> = scripted_llm("openai", { { text = "Sunny." } })
      local host <close> = everything_only()
      local agent = mcp.agent{ host = host, llm = llm.model, instructions = false,
        resources = { { server = "everything", uri = "demo://resource/static/document/features.md" } } }
      assert.equal("Sunny.", agent:run_prompt("everything", "args-prompt", { city = "Paris" }))
      local body = llm.requests()[1]
      local user
      for _, m in ipairs(body.messages) do if m.role == "user" then user = m.content end end
      if type(user) == "table" then user = user[1].text end
      assert.matches("weather in Paris", user)
      local system = system_in("openai", body)
      assert.matches("# Resource demo://resource/static/document/features%.md %(everything%)", system)
      assert.matches("Everything Server %- Features", system)
      assert.is_nil(system:find("## everything", 1, true))   -- instructions = false
    end, 40)
  end)
end)
