-- spec/integration/llm_spec.lua - mcp.llm's providers (lua/mcp/llm/)
-- against spec/fixtures/llm.js, the scripted model that speaks the OpenAI
-- chat-completions and Anthropic messages wire formats: whole and
-- streamed answers, several tool calls, tool results fed back (as the
-- fixture received them), retries, malformed answers, a wrong key.
local mcp = require "mcp"
local core = require "mcp.core"
local fixture = require "spec.support.fixture"

-- Writes a script to a temp file; returns its path (removed by the caller).
local function script_file(turns)
  local path = os.tmpname()
  local f = assert(io.open(path, "w"))
  f:write(mcp.json.encode(turns))
  f:close()
  return path
end

-- Runs body(llm, server) against a fixture following turns; the fixture
-- and the script file go however the test ends.
local function with_model(provider, turns, opts, body, fixture_args)
  run_async(function()
    local path = script_file(turns)
    local _ <close> = setmetatable({}, { __close = function() os.remove(path) end })
    local args = { "--script", path }
    for _, a in ipairs(fixture_args or {}) do args[#args + 1] = a end
    local server <close> = fixture.http_server("llm", args)
    local o = { model = "test-model", api_key = "right-key" }
    for k, v in pairs(opts or {}) do o[k] = v end
    o.base_url = provider == "openai" and server.url("/v1") or server.url("")
    body(mcp.llm[provider](o), server)
  end)
end

local function received(server, what)
  local res = assert(mcp.http.request{ url = server.url(what or "/requests") })
  return mcp.json.decode(res.body)
end

local SUM = { name = "everything_get-sum", description = "Adds two numbers",
  input_schema = { type = "object", properties = { a = { type = "number" }, b = { type = "number" } },
                   required = mcp.array{ "a", "b" } } }
local ECHO = { name = "everything_echo", description = "Echoes",
  input_schema = { type = "object", properties = { message = { type = "string" } } } }

local TWO_CALLS = {
  text = "Let me compute that.",
  tool_calls = {
    { name = "everything_get-sum", arguments = { a = 2, b = 3 } },
    { name = "everything_echo", arguments = { message = "hello, \"quoted\" world with ünïcode" } },
  },
}

for _, provider in ipairs { "openai", "anthropic" } do
  describe("mcp.llm." .. provider, function()
    it("answers a plain chat: text, stop reason, usage, model and id", function()
      with_model(provider, { { text = "Hello there.", usage = { input_tokens = 11, output_tokens = 3 } } },
        nil, function(llm)
          assert.equal(provider, llm.provider)
          local reply = assert(llm:chat{ system = "Be brief.",
            messages = { { role = "user", content = "Hi" } } })
          assert.equal("Hello there.", reply.text)
          assert.equal("end_turn", reply.stop_reason)
          assert.same({ role = "assistant", content = { { type = "text", text = "Hello there." } } },
                      reply.message)
          assert.same({}, reply.tool_calls)
          assert.equal(11, reply.usage.input_tokens)
          assert.equal(3, reply.usage.output_tokens)
          assert.equal("test-model", reply.model)
          assert.is_string(reply.id)
        end)
    end)

    for _, stream in ipairs { false, true } do
      local how = stream and "streamed" or "whole"
      it("reads several tool calls of one turn, " .. how .. ", with their arguments decoded", function()
        with_model(provider, { TWO_CALLS }, nil, function(llm, server)
          local deltas = {}
          local reply = assert(llm:chat{ messages = { { role = "user", content = "2+3, and echo" } },
            tools = { SUM, ECHO }, stream = stream,
            on_delta = function(d) deltas[#deltas + 1] = d end })
          assert.equal("tool_use", reply.stop_reason)
          assert.equal("Let me compute that.", reply.text)
          assert.equal(2, #reply.tool_calls)
          local sum, echo = reply.tool_calls[1], reply.tool_calls[2]
          assert.equal("everything_get-sum", sum.name)
          assert.same({ a = 2, b = 3 }, sum.arguments)
          assert.equal("everything_echo", echo.name)
          assert.same({ message = "hello, \"quoted\" world with ünïcode" }, echo.arguments)
          assert.is_string(sum.id)
          assert.are_not.equal(sum.id, echo.id)
          -- content keeps the order: the text, then the calls
          assert.equal("text", reply.message.content[1].type)
          assert.equal(sum, reply.message.content[2])
          assert.equal(echo, reply.message.content[3])

          local body = received(server)[1]
          assert.equal(stream or nil, body.stream)
          if stream then
            -- the text came in pieces, in order; each call's arguments in
            -- several fragments that together are the call's JSON
            local text, args, pieces = {}, {}, { 0, 0 }
            for _, d in ipairs(deltas) do
              if d.type == "text" then text[#text + 1] = d.text
              else
                args[d.index] = (args[d.index] or "") .. d.arguments
                if d.arguments ~= "" then pieces[d.index] = pieces[d.index] + 1 end
              end
            end
            assert.is_true(#text >= 3)
            assert.equal("Let me compute that.", table.concat(text))
            assert.same({ a = 2, b = 3 }, mcp.json.decode(args[1]))
            assert.same(echo.arguments, mcp.json.decode(args[2]))
            assert.is_true(pieces[1] >= 3 and pieces[2] >= 3)
          else
            assert.same({}, deltas)
          end
        end)
      end)
    end

    it("offers the tools in the provider's form and feeds results and errors back", function()
      local turns = { TWO_CALLS, { text = "The sum is {{last_tool_result}}.", expect_tool = "everything_echo" } }
      with_model(provider, turns, nil, function(llm, server)
        local messages = { { role = "user", content = "2+3, and echo" } }
        local first = assert(llm:chat{ messages = messages, tools = { SUM, ECHO } })
        messages[#messages + 1] = first.message
        messages[#messages + 1] = { role = "user", content = {
          { type = "tool_result", tool_call_id = first.tool_calls[1].id,
            content = { { type = "text", text = "5" } } },
          { type = "tool_result", tool_call_id = first.tool_calls[2].id,
            content = { { type = "text", text = "echo is broken" } }, is_error = true },
        } }
        local second = assert(llm:chat{ messages = messages, tools = { SUM, ECHO } })
        -- the fixture's last tool result is the error's text
        assert.matches("^The sum is .*echo is broken%.$", second.text)

        local sent = received(server)
        assert.equal(2, #sent)
        local body = sent[2]
        local id1, id2 = first.tool_calls[1].id, first.tool_calls[2].id
        if provider == "openai" then
          assert.same({ type = "function", ["function"] = { name = SUM.name,
            description = SUM.description, parameters = SUM.input_schema } }, body.tools[1])
          assert.equal("auto", body.tool_choice or "auto")
          local m = body.messages
          assert.equal("assistant", m[2].role)
          assert.equal("Let me compute that.", m[2].content)
          assert.equal(id1, m[2].tool_calls[1].id)
          assert.equal("function", m[2].tool_calls[1].type)
          assert.same({ a = 2, b = 3 }, mcp.json.decode(m[2].tool_calls[1]["function"].arguments))
          assert.same({ role = "tool", tool_call_id = id1, content = "5" }, m[3])
          assert.same({ role = "tool", tool_call_id = id2, content = "Error: echo is broken" }, m[4])
          assert.equal(4, #m)
        else
          assert.same({ name = SUM.name, description = SUM.description,
                        input_schema = SUM.input_schema }, body.tools[1])
          local m = body.messages
          assert.same({ type = "tool_use", id = id1, name = SUM.name, input = { a = 2, b = 3 } },
                      m[2].content[2])
          assert.equal("user", m[3].role)
          assert.same({ type = "tool_result", tool_use_id = id1,
                        content = { { type = "text", text = "5" } } }, m[3].content[1])
          assert.same({ type = "tool_result", tool_use_id = id2, is_error = true,
                        content = { { type = "text", text = "echo is broken" } } }, m[3].content[2])
          assert.equal(4096, body.max_tokens)
        end
      end)
    end)

    it("retries a 429 after its Retry-After, then succeeds", function()
      local turns = { { error = { status = 429, retry_after = 1, message = "Rate limit reached" } },
                      { text = "Done." } }
      with_model(provider, turns, nil, function(llm, server)
        local retries = {}
        local started = core.now()
        -- (streamed for one provider: the error body is read, not parsed as events)
        local reply = assert(llm:chat{ messages = { { role = "user", content = "Hi" } },
          stream = provider == "anthropic",
          on_retry = function(err, delay) retries[#retries + 1] = { err, delay } end })
        local waited = core.now() - started
        assert.equal("Done.", reply.text)
        assert.equal(2, #received(server))
        assert.equal(1, #retries)
        assert.equal(429, retries[1][1].status)
        assert.equal(1, retries[1][2])
        assert.is_true(waited >= 1000 - 50, "waited only " .. waited .. " ms")
      end)
    end)

    it("gives up on a 500 after max_retries with the provider's message", function()
      local boom = { error = { status = 500, message = "The server exploded" } }
      with_model(provider, { boom, boom, boom, { text = "never" } }, { max_retries = 2 }, function(llm, server)
        local reply, err = llm:chat{ messages = { { role = "user", content = "Hi" } },
                                     stream = provider == "openai" }
        assert.is_nil(reply)
        assert.equal("EHTTP", err.code)
        assert.equal(500, err.status)
        assert.equal(provider, err.provider)
        assert.equal(3, err.attempts)
        assert.matches("The server exploded", err.message, 1, true)
        assert.equal(3, #received(server))
      end)
    end)

    it("does not wait past its timeout for a Retry-After", function()
      local turns = { { error = { status = 429, retry_after = 30, message = "Slow down" } } }
      with_model(provider, turns, { timeout = 5 }, function(llm, server)
        local started = core.now()
        local reply, err = llm:chat{ messages = { { role = "user", content = "Hi" } } }
        assert.is_nil(reply)
        assert.equal(429, err.status)
        assert.equal(30, err.retry_after)
        assert.is_true(core.now() - started < 2000)
        assert.equal(1, #received(server))
      end)
    end)

    for _, stream in ipairs { false, true } do
      it("reports a malformed " .. (stream and "chunk" or "answer") .. " as EPROTO", function()
        with_model(provider, { { text = "Some words here.", malformed = true } }, nil, function(llm)
          local reply, err = llm:chat{ messages = { { role = "user", content = "Hi" } }, stream = stream }
          assert.is_nil(reply)
          assert.equal("EPROTO", err.code)
          if stream then
            assert.matches(provider .. ": stream (%a+) 2.*not a JSON object", err.message)
          else
            assert.matches(provider .. ": the answer is not JSON", err.message)
          end
        end)
      end)
    end

    it("reports an error event in the middle of a stream as EHTTP", function()
      local turns = { { text = "one two three four five six",
                        stream_error = { status = 529, message = "Overloaded right now" } } }
      with_model(provider, turns, nil, function(llm)
        local texts = {}
        local reply, err = llm:chat{ messages = { { role = "user", content = "Hi" } }, stream = true,
          on_delta = function(d) texts[#texts + 1] = d.text end }
        assert.is_nil(reply)
        assert.equal("EHTTP", err.code)
        assert.matches("Overloaded right now", err.message, 1, true)
        if provider == "anthropic" then
          assert.equal("overloaded_error", err.type)
          assert.equal(529, err.status)
        end
        assert.is_true(#texts >= 1)   -- what came before the error was delivered
      end)
    end)

    it("stops waiting at its timeout with ETIMEDOUT", function()
      with_model(provider, { { text = "late", delay = 5000 } }, { timeout = 0.5 }, function(llm)
        local started = core.now()
        local reply, err = llm:chat{ messages = { { role = "user", content = "Hi" } } }
        assert.is_nil(reply)
        assert.equal("ETIMEDOUT", err.code)
        assert.is_true(core.now() - started < 2000)
      end)
    end)

    it("sends tool_choice, images and a system prompt in the provider's form", function()
      local image = { type = "image", data = "iVBORw0KGgo=", mimeType = "image/png" }
      with_model(provider, { { text = "a" }, { text = "b" } }, nil, function(llm, server)
        assert(llm:chat{ system = "Sys.", tools = { SUM }, tool_choice = { name = SUM.name },
          messages = { { role = "user", content = { { type = "text", text = "Look:" }, image } } } })
        assert(llm:chat{ tools = { SUM }, tool_choice = "required",
          messages = { { role = "user", content = "x" } } })
        local sent = received(server)
        if provider == "openai" then
          assert.same({ role = "system", content = "Sys." }, sent[1].messages[1])
          assert.same({ type = "function", ["function"] = { name = SUM.name } }, sent[1].tool_choice)
          assert.same({ { type = "text", text = "Look:" },
            { type = "image_url", image_url = { url = "data:image/png;base64,iVBORw0KGgo=" } } },
            sent[1].messages[2].content)
          assert.equal("required", sent[2].tool_choice)
        else
          assert.equal("Sys.", sent[1].system)
          assert.same({ type = "tool", name = SUM.name }, sent[1].tool_choice)
          assert.same({ type = "image", source = { type = "base64", media_type = "image/png",
            data = "iVBORw0KGgo=" } }, sent[1].messages[1].content[2])
          assert.same({ type = "any" }, sent[2].tool_choice)
        end
      end)
    end)

    it("passes a tool result's image as the provider can take it", function()
      local image = { type = "image", data = "R0lGODlh", mimeType = "image/gif" }
      with_model(provider, { { text = "seen" } }, nil, function(llm, server)
        assert(llm:chat{ messages = {
          { role = "user", content = "Draw" },
          { role = "assistant", content = { { type = "tool_call", id = "c1", name = "draw", arguments = {} } } },
          { role = "user", content = { { type = "tool_result", tool_call_id = "c1",
            content = { { type = "text", text = "drawn" }, image } } } } } })
        local m = received(server)[1].messages
        if provider == "openai" then
          -- a tool message takes text only: the image follows in a user message
          assert.same({ role = "tool", tool_call_id = "c1", content = "drawn" }, m[3])
          assert.equal("user", m[4].role)
          assert.same({ type = "image_url", image_url = { url = "data:image/gif;base64,R0lGODlh" } },
                      m[4].content[2])
          assert.equal("{}", m[2].tool_calls[1]["function"].arguments)
        else
          assert.same({ { type = "text", text = "drawn" }, { type = "image", source = {
            type = "base64", media_type = "image/gif", data = "R0lGODlh" } } }, m[3].content[1].content)
        end
      end)
    end)

    it("lets an error raised by on_delta through, and stops the stream", function()
      with_model(provider, { { text = "one two three" } }, nil, function(llm)
        local ok, err = pcall(llm.chat, llm, { messages = { { role = "user", content = "Hi" } },
          stream = true, on_delta = function() error("the caller's own error", 0) end })
        assert.is_false(ok)
        assert.equal("the caller's own error", err)
      end)
    end)

    for _, stream in ipairs { false, true } do
      it("marks the one tool call whose arguments are not a JSON object, naming it"
         .. (stream and ", streamed" or ""), function()
        local broken = '{"message": "unfinished'
        local turns = { { tool_calls = {
          { name = "everything_echo", arguments_text = broken },
          { name = "everything_get-sum", arguments = { a = 1, b = 2 } } } } }
        with_model(provider, turns, nil, function(llm)
          local reply, err = llm:chat{ messages = { { role = "user", content = "Hi" } }, stream = stream }
          if provider == "anthropic" and not stream then
            -- A whole Anthropic answer gives input as an object: one that
            -- does not is a malformed answer, not a model's slip.
            assert.is_nil(reply)
            assert.equal("EPROTO", err.code)
            assert.matches("everything_echo", err.message, 1, true)
            return
          end
          assert(reply, err)
          local bad, good = reply.tool_calls[1], reply.tool_calls[2]
          assert.is_nil(bad.arguments)
          assert.equal(broken, bad.arguments_text)
          assert.matches("everything_echo", bad.arguments_error, 1, true)
          assert.matches("not a JSON object", bad.arguments_error, 1, true)
          assert.same({ a = 1, b = 2 }, good.arguments)
        end)
      end)
    end

    for _, stream in ipairs { false, true } do
      it("stops an answer over its size limit" .. (stream and ", streamed" or ""), function()
        with_model(provider, { { text = string.rep("x", 64 * 1024) } }, { max_size = 8 * 1024 },
          function(llm)
            local reply, err = llm:chat{ messages = { { role = "user", content = "Hi" } },
                                         stream = stream }
            assert.is_nil(reply)
            assert.equal("ETOOBIG", err.code)
          end)
      end)
    end

    it("reports a wrong API key as EHTTP 401 without the key", function()
      local secret = "sk-wrong-" .. provider .. "-0123456789"
      with_model(provider, { { text = "unreachable" } }, { api_key = secret, max_retries = 3 }, function(llm, server)
        local reply, err = llm:chat{ messages = { { role = "user", content = "Hi" } } }
        assert.is_nil(reply)
        assert.equal("EHTTP", err.code)
        assert.equal(401, err.status)
        assert.equal(1, err.attempts)
        local said = provider == "openai" and "Incorrect API key provided" or "invalid x-api-key"
        assert.matches(said, err.message, 1, true)
        assert.is_nil(err.message:find(secret, 1, true))
        assert.is_nil(err.body:find(secret, 1, true))
        assert.is_nil(tostring(err):find(secret, 1, true))
        assert.equal(1, #received(server))
        -- and the right one was sent as the provider wants it
        local headers = received(server, "/headers")[1]
        if provider == "openai" then
          assert.equal("Bearer ***", headers.authorization)
        else
          assert.equal("***", headers["x-api-key"])
          assert.equal("2023-06-01", headers["anthropic-version"])
        end
      end, { "--key", "right-key" })
    end)
  end)
end

describe("mcp.llm.openai specifics", function()
  it("honours a Retry-After given as an HTTP date", function()
    local turns = { { error = { status = 503, retry_after_date = 2, message = "Busy" } }, { text = "ok" } }
    with_model("openai", turns, nil, function(llm, server)
      local started = core.now()
      local reply = assert(llm:chat{ messages = { { role = "user", content = "Hi" } } })
      assert.equal("ok", reply.text)
      assert.equal(2, #received(server))
      -- the date has a resolution of a second: 2 s ahead is at least 1 s
      assert.is_true(core.now() - started >= 1000 - 50)
    end)
  end)

  it("sends stream_options.include_usage and reads the usage chunk", function()
    with_model("openai", { { text = "a b c", usage = { input_tokens = 7, output_tokens = 5 } } }, nil,
      function(llm, server)
        local reply = assert(llm:chat{ messages = { { role = "user", content = "Hi" } }, stream = true })
        assert.same({ input_tokens = 7, output_tokens = 5 }, reply.usage)
        assert.is_true(received(server)[1].stream_options.include_usage)
      end)
  end)
end)

describe("mcp.llm without a server", function()
  it("retries a refused connection (nothing was sent), then says ECONNECT", function()
    run_async(function()
      -- a port that was just free: nothing listens there
      local server = fixture.http_server("llm", {})
      local url = server.url("/v1")
      server.stop()
      local llm = mcp.llm.openai{ base_url = url, max_retries = 1 }
      local reply, err = llm:chat{ messages = { { role = "user", content = "Hi" } } }
      assert.is_nil(reply)
      assert.equal("ECONNECT", err.code)
      assert.equal(2, err.attempts)
    end)
  end)

  it("takes its configuration from the environment", function()
    local function run(env, code)
      local cmd = ("env -u OPENAI_API_KEY -u OPENAI_BASE_URL -u ANTHROPIC_API_KEY -u ANTHROPIC_BASE_URL %s "
        .. "%s -e 'package.path=\"./lua/?.lua;./lua/?/init.lua;\"..package.path "
        .. "package.cpath=\"%s/?.so;\"..package.cpath local mcp=require\"mcp\" %s' 2>&1"):format(
          env, os.getenv("MCP_LUA") or "lua5.4", os.getenv("MCP_BUILD_DIR") or "build", code)
      local p = assert(io.popen(cmd))
      local out = p:read("a")
      p:close()
      return out
    end
    local show = "local l, e = mcp.llm.from_env() "
      .. "print(l and (l.provider..\" \"..l.base_url..\" \"..l.model) or e.code)"
    assert.equal("ENOENT\n", run("", show))
    assert.equal("openai https://api.openai.com/v1 gpt-4o-mini\n", run("OPENAI_API_KEY=k1", show))
    assert.equal("openai http://127.0.0.1:11434/v1 gpt-4o-mini\n",
      run("OPENAI_BASE_URL=http://127.0.0.1:11434/v1/", show))
    assert.equal("anthropic https://api.anthropic.com claude-sonnet-4-5\n", run("ANTHROPIC_API_KEY=k2", show))
    assert.equal("anthropic http://proxy.example/x claude-sonnet-4-5\n",
      run("ANTHROPIC_API_KEY=k2 ANTHROPIC_BASE_URL=http://proxy.example/x", show))
    -- the key is kept, but not as a field of the object
    local fields = run("OPENAI_API_KEY=sk-env-secret",
      "local t = {} for k, v in pairs(mcp.llm.from_env()) do t[#t+1] = k .. \"=\" .. tostring(v) end "
      .. "print(table.concat(t, \" \"))")
    assert.is_nil(fields:find("sk-env-secret", 1, true))
  end)
end)

describe("mcp.llm tool definitions", function()
  it("refuses a tool name the APIs would refuse", function()
    for _, provider in ipairs { "openai", "anthropic" } do
      local llm = mcp.llm[provider]{ api_key = "x" }
      assert.equal(1, #llm:tool_definitions{ { name = "fs_read-file_2" } })
      for _, bad in ipairs { "has space", "", ("x"):rep(65), "dot.name", "é" } do
        local ok, err = pcall(llm.tool_definitions, llm, { { name = bad } })
        assert.is_false(ok)
        assert.matches("bad tool name", err)
      end
    end
  end)
end)

describe("mcp.llm.openai strict mode", function()
  local strict = require "mcp.llm.strict"

  it("makes every object closed and every property required, optional ones nullable", function()
    local llm = mcp.llm.openai{ strict = true, api_key = "x" }
    local defs = llm:tool_definitions{ {
      name = "s_t", description = "d",
      input_schema = { type = "object", ["$schema"] = "https://json-schema.org/draft/2020-12/schema",
        properties = {
          path = { type = "string", description = "p" },
          depth = { type = "integer", default = 1 },
          mode = { type = "string", enum = mcp.array{ "a", "b" } },
          opts = { type = "object", properties = { x = { type = "boolean" } } },
        }, required = mcp.array{ "path" } } } }
    local fn = defs[1]["function"]
    assert.is_true(fn.strict)
    local p = fn.parameters
    assert.is_false(p.additionalProperties)
    assert.same({ "depth", "mode", "opts", "path" }, p.required)
    assert.is_nil(p["$schema"])
    assert.same({ type = "string", description = "p" }, p.properties.path)
    assert.same({ type = { "integer", "null" } }, p.properties.depth)
    assert.same({ "a", "b", mcp.null }, p.properties.mode.enum)
    assert.same({ "object", "null" }, p.properties.opts.type)
    assert.is_false(p.properties.opts.additionalProperties)
    assert.same({ "x" }, p.properties.opts.required)
    assert.same({ type = { "boolean", "null" } }, p.properties.opts.properties.x)
    -- and it encodes as OpenAI wants: required lists, never {}
    assert.matches('"required":%["x"%]', mcp.json.encode(p.properties.opts))
  end)

  it("leaves a schema it cannot convert non-strict, unchanged", function()
    local schema = { type = "object", properties = { v = { oneOf = mcp.array{ { type = "string" } } } } }
    local converted, why = strict.convert(schema)
    assert.is_nil(converted)
    assert.matches("oneOf is not supported", why)
    local fn = mcp.llm.openai{ strict = true, api_key = "x" }:tool_definitions{
      { name = "t", input_schema = schema } }[1]["function"]
    assert.is_false(fn.strict)
    assert.equal(schema, fn.parameters)
    local none, free_form = strict.convert{ type = "object",
      properties = { meta = { type = "object" } } }
    assert.is_nil(none)
    assert.matches("properties%.meta: an object without properties", free_form)
  end)

  it("gives a tool without arguments an empty closed object", function()
    local p = assert(strict.convert{ type = "object" })
    assert.same({}, p.properties)
    assert.same({}, p.required)
    assert.equal('[]', mcp.json.encode(p.required))
    assert.is_false(p.additionalProperties)
  end)
end)
