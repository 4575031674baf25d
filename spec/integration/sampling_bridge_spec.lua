-- spec/integration/sampling_bridge_spec.lua - mcp.handlers.sampling_from:
-- a server's sampling/createMessage answered by a real model API (the
-- scripted LLM fixture, spec/fixtures/llm.js, through mcp.llm.openai and
-- mcp.llm.anthropic). server-everything's trigger-sampling-request asks
-- without tools (it has no variant with tools); the client_requests
-- fixture sends the requests with tools, toolChoice and tool history.
local mcp = require "mcp"
local llm_api = require "mcp.llm"
local fixture = require "spec.support.fixture"

local KEY = "sk-test-sampling"

local function write_file(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

-- The scripted model, stopped when the variable goes out of scope.
local function scripted_llm(provider, script)
  local path = os.tmpname()
  write_file(path, mcp.json.encode(script))
  local server = fixture.http_server("llm", { "--script", path, "--key", KEY })
  local model
  if provider == "openai" then
    model = llm_api.openai{ model = "gpt-4o-mini", base_url = server.url("/v1"),
                            api_key = KEY, max_retries = 0 }
  else
    model = llm_api.anthropic{ model = "claude-sonnet-4-5", base_url = server.url(""),
                               api_key = KEY, max_retries = 0 }
  end
  local self = { model = model, server = server }
  function self.requests()
    local res = assert(mcp.http.request{ url = server.url("/requests") })
    return assert(mcp.json.decode(res.body))
  end
  return setmetatable(self, { __close = function()
    server.stop()
    os.remove(path)
  end })
end

local function everything_with(sampling)
  return assert(mcp.connect{ name = "everything", command = fixture.everything_command(),
    handlers = { sampling = sampling }, on_stderr = function() end })
end

-- The CreateMessageResult server-everything got, from its tool's text.
local function sampled(result)
  local text = result.content[1].text
  local json = text:match("^LLM sampling result: %s*(.*)$")
  assert(json, "not a sampling result: " .. text)
  return assert(mcp.json.decode(json))
end

-- What the client answered to a request the client_requests fixture sent.
local function ask(client, method, params)
  local result = assert(client:call_tool("ask", { method = method, params = params }))
  return assert(mcp.json.decode(result.content[1].text))
end

local WEATHER_TOOL = {
  name = "get_weather", description = "The weather in a city",
  inputSchema = { type = "object", properties = { city = { type = "string" } },
                  required = { "city" } },
}

describe("mcp.handlers.sampling_from", function()
  it("answers server-everything's trigger-sampling-request with the model's reply (OpenAI)", function()
    run_async(function()
      local llm <close> = scripted_llm("openai", { { text = "Hello from the fixture model." } })
      local client <close> = everything_with(mcp.handlers.sampling_from(llm.model))
      assert.is_table(client.client_capabilities.sampling.tools)
      local result = assert(client:call_tool("trigger-sampling-request",
        { prompt = "Say hello", maxTokens = 64 }))
      local answer = sampled(result)
      assert.equal("assistant", answer.role)
      assert.same({ type = "text", text = "Hello from the fixture model." }, answer.content)
      assert.equal("endTurn", answer.stopReason)
      assert.equal("gpt-4o-mini", answer.model)

      -- What the model was asked: the server's system prompt, messages and limits.
      local requests = llm.requests()
      assert.equal(1, #requests)
      local body = requests[1]
      assert.equal("gpt-4o-mini", body.model)
      local limit = body.max_completion_tokens or body.max_tokens
      assert.equal(64, limit)
      assert.equal(0.7, body.temperature)
      assert.equal("system", body.messages[1].role)
      assert.equal("You are a helpful test server.", body.messages[1].content)
      local user = body.messages[2].content
      if type(user) == "table" then user = user[1].text end
      assert.equal("Resource trigger-sampling-request context: Say hello", user)
      assert.is_nil(body.tools)
    end, 30)
  end)

  it("answers it through Anthropic too", function()
    run_async(function()
      local llm <close> = scripted_llm("anthropic", { { text = "Bonjour." } })
      local client <close> = everything_with(mcp.handlers.sampling_from(llm.model))
      local answer = sampled(assert(client:call_tool("trigger-sampling-request",
        { prompt = "Say hello in French", maxTokens = 32 })))
      assert.same({ type = "text", text = "Bonjour." }, answer.content)
      assert.equal("endTurn", answer.stopReason)
      local body = llm.requests()[1]
      assert.equal(32, body.max_tokens)
      local system = type(body.system) == "table" and body.system[1].text or body.system
      assert.equal("You are a helpful test server.", system)
    end, 30)
  end)

  it("rejects with the specification's user-rejected error when approve says no, without asking the model", function()
    run_async(function()
      local llm <close> = scripted_llm("openai", { { text = "never sent" } })
      local asked = {}
      local client <close> = everything_with(mcp.handlers.sampling_from(llm.model, {
        approve = function(params, ctx)
          asked[#asked + 1] = ctx.server .. ": " .. params.messages[1].content.text
          if #asked == 1 then return false end
          return "not with this prompt"
        end,
      }))
      for _, reason in ipairs { "User rejected", "not with this prompt" } do
        local result, err = client:call_tool("trigger-sampling-request", { prompt = "p" })
        -- The server turns the client's error into its tool's error.
        local text = result and result.content[1].text or tostring(err)
        assert.is_true(result == nil or result.isError == true, text)
        assert.truthy(text:find(reason, 1, true), text)
      end
      assert.same({ "everything: Resource trigger-sampling-request context: p",
                    "everything: Resource trigger-sampling-request context: p" }, asked)
      assert.equal(0, #llm.requests())
    end, 30)
  end)

  it("passes tools and toolChoice to the model and returns its tool calls as tool_use (OpenAI)", function()
    run_async(function()
      local llm <close> = scripted_llm("openai", {
        { expect_tool = "get_weather",
          tool_calls = { { name = "get_weather", arguments = { city = "Paris" } },
                         { name = "get_weather", arguments = { city = "Rome" } } } },
      })
      local client <close> = assert(fixture.connect("client_requests", {
        handlers = { sampling = mcp.handlers.sampling_from(llm.model) } }))
      local response = ask(client, "sampling/createMessage", {
        messages = { { role = "user", content = { type = "text", text = "Weather in Paris and Rome?" } } },
        maxTokens = 100, tools = { WEATHER_TOOL }, toolChoice = { mode = "required" },
      })
      local result = response.result
      assert.truthy(result, mcp.json.encode(response))
      assert.equal("toolUse", result.stopReason)
      assert.equal(2, #result.content)
      for i, city in ipairs { "Paris", "Rome" } do
        local use = result.content[i]
        assert.equal("tool_use", use.type)
        assert.equal("get_weather", use.name)
        assert.same({ city = city }, use.input)
        assert.is_string(use.id)
      end
      local body = llm.requests()[1]
      assert.equal("required", body.tool_choice)
      assert.equal("get_weather", body.tools[1]["function"].name)
      assert.same(WEATHER_TOOL.inputSchema, body.tools[1]["function"].parameters)
    end, 30)
  end)

  it("carries tool_use and tool_result history to the model and maps model preferences (Anthropic)", function()
    run_async(function()
      local llm <close> = scripted_llm("anthropic", {
        { text = "Paris: {{last_tool_result}}" },
      })
      local prefs_seen
      local client <close> = assert(fixture.connect("client_requests", {
        handlers = { sampling = mcp.handlers.sampling_from(llm.model, {
          model_map = function(prefs)
            prefs_seen = prefs
            return "claude-haiku-4-5"
          end }) } }))
      local response = ask(client, "sampling/createMessage", {
        systemPrompt = "You report weather.",
        messages = {
          { role = "user", content = { type = "text", text = "Weather in Paris?" } },
          { role = "assistant", content = { { type = "tool_use", id = "toolu_1", name = "get_weather",
                                              input = { city = "Paris" } } } },
          { role = "user", content = { { type = "tool_result", toolUseId = "toolu_1",
                                         content = { { type = "text", text = "18 C, cloudy" } } } } },
        },
        maxTokens = 50, stopSequences = { "END" },
        tools = { WEATHER_TOOL }, toolChoice = { mode = "auto" },
        modelPreferences = { hints = { { name = "haiku" } }, speedPriority = 0.9 },
      })
      local result = response.result
      assert.truthy(result, mcp.json.encode(response))
      assert.same({ type = "text", text = "Paris: 18 C, cloudy" }, result.content)
      assert.equal("endTurn", result.stopReason)
      assert.equal("haiku", prefs_seen.hints[1].name)

      local body = llm.requests()[1]
      assert.equal("claude-haiku-4-5", body.model)
      assert.equal(50, body.max_tokens)
      assert.same({ "END" }, body.stop_sequences)
      local system = type(body.system) == "table" and body.system[1].text or body.system
      assert.equal("You report weather.", system)
      assert.same({ type = "auto" }, body.tool_choice)
      assert.equal("get_weather", body.tools[1].name)
      local use = body.messages[2].content[1]
      assert.equal("tool_use", use.type)
      assert.equal("toolu_1", use.id)
      assert.same({ city = "Paris" }, use.input)
      local tr = body.messages[3].content[1]
      assert.equal("tool_result", tr.type)
      assert.equal("toolu_1", tr.tool_use_id)
    end, 30)
  end)
end)
