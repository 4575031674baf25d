-- Roots, sampling and elicitation handlers written in Lua, answering real
-- servers: server-everything and the client_requests fixture.
local fixture = require "spec.support.fixture"
local mcp = require "mcp"
local core = require "mcp.core"

local function everything(handlers, opts)
  local o = { name = "everything", command = fixture.everything_command(),
              on_stderr = function() end, on_log = function() end, handlers = handlers }
  for k, v in pairs(opts or {}) do o[k] = v end
  return mcp.connect(o)
end

local function ask(client, method, params, extra)
  local args = { method = method, params = params }
  for k, v in pairs(extra or {}) do args[k] = v end
  local r = assert(client:call_tool("ask", args))
  return mcp.json.decode(r.content[1].text)
end

local function text_reply(text)
  return { role = "assistant", content = { type = "text", text = text },
           model = "lua-test-model", stopReason = "endTurn" }
end

describe("capabilities follow the handlers", function()
  it("declares nothing without handlers, and each sub-capability from its flags", function()
    run_async(function()
      local bare <close> = assert(fixture.connect("client_requests", { skills = false }))
      assert.equal("{}", assert(bare:call_tool("capabilities", {})).content[1].text)
      -- Skills need no handler: declared unless turned off (mcp.skills).
      local plain <close> = assert(fixture.connect("client_requests"))
      assert.same({ extensions = { ["io.modelcontextprotocol/skills"] = {} } },
        mcp.json.decode(assert(plain:call_tool("capabilities", {})).content[1].text))
      local full <close> = assert(fixture.connect("client_requests", { handlers = {
        roots = {},
        sampling = { handler = function() end, tools = true },
        elicitation = { handler = function() end, url = true },
      } }))
      local caps = mcp.json.decode(assert(full:call_tool("capabilities", {})).content[1].text)
      assert.same({ listChanged = true }, caps.roots)
      assert.same({ tools = {} }, caps.sampling)
      assert.same({ form = {}, url = {} }, caps.elicitation)
    end)
  end)

  it("answers -32601 for a request it has no handler for", function()
    run_async(function()
      local client <close> = assert(fixture.connect("client_requests"))
      local r = ask(client, "sampling/createMessage", { messages = {}, maxTokens = 5 })
      assert.equal(-32601, r.error.code)
    end)
  end)
end)

describe("roots", function()
  it("serves a list, and set_roots tells the server", function()
    run_async(function()
      local client <close> = assert(everything{ roots = {
        { uri = "file:///srv/project", name = "project" } } })
      local r = assert(client:call_tool("get-roots-list", {}))
      assert.matches("file:///srv/project", r.content[1].text)
      assert(client:set_roots{ { uri = "file:///srv/other", name = "other" } })
      mcp.sleep(0.1)
      r = assert(client:call_tool("get-roots-list", {}))
      assert.matches("file:///srv/other", r.content[1].text)
      assert.not_matches("project", r.content[1].text)
    end)
  end)

  it("serves a function's list and refuses URIs that are not file://", function()
    run_async(function()
      local calls = 0
      local client <close> = assert(fixture.connect("client_requests", { handlers = {
        roots = function() calls = calls + 1; return { { uri = "file:///a" } } end } }))
      local r = ask(client, "roots/list")
      assert.same({ { uri = "file:///a" } }, r.result.roots)
      assert.equal(1, calls)
      assert.has_error(function() client:set_roots{ { uri = "https://example.com" } } end)
      assert.has_error(function()
        mcp.connect{ command = { "true" }, handlers = { roots = { { uri = "/no/scheme" } } } }
      end)
    end)
  end)
end)

describe("sampling", function()
  it("gives the handler the whole request and returns its answer", function()
    run_async(function()
      local got
      local client <close> = assert(everything{ sampling = function(params, ctx)
        got = { params = params, ctx = ctx }
        return text_reply("Lua says hi")
      end })
      local r = assert(client:call_tool("trigger-sampling-request", { prompt = "Greet", maxTokens = 42 }))
      assert.matches("Lua says hi", r.content[1].text)
      assert.matches("lua%-test%-model", r.content[1].text)
      assert.equal(42, got.params.maxTokens)
      assert.is_string(got.params.systemPrompt)
      assert.is_number(got.params.temperature)
      assert.matches("Greet", got.params.messages[1].content.text)
      assert.equal("sampling/createMessage", got.ctx.method)
      assert.equal(client, got.ctx.client)
    end)
  end)

  it("lets a handler wait without blocking anything else", function()
    run_async(function()
      local client <close> = assert(everything{ sampling = function()
        mcp.sleep(0.3)
        return text_reply("after a nap")
      end })
      local done = false
      mcp.spawn(function()
        local r = assert(client:call_tool("trigger-sampling-request", { prompt = "x" }))
        assert.matches("after a nap", r.content[1].text)
        done = true
      end)
      local t0 = core.now()
      assert.is_true(client:ping())
      assert.is_true(core.now() - t0 < 250)
      while not done do mcp.sleep(0.02) end
    end)
  end)

  it("turns a refusal into error -1, and nil, err or a raise into an error response", function()
    run_async(function()
      local mode
      local client <close> = assert(fixture.connect("client_requests", { handlers = {
        sampling = function()
          if mode == "reject" then return mcp.reject("not today") end
          if mode == "nil" then return nil, mcp.error("EBUSY", "model busy", { rpc_code = -32000 }) end
          error("handler bug")
        end } }))
      local params = { messages = { { role = "user", content = { type = "text", text = "q" } } },
                       maxTokens = 10 }
      mode = "reject"
      local r = ask(client, "sampling/createMessage", params)
      assert.equal(-1, r.error.code)
      assert.equal("not today", r.error.message)
      mode = "nil"
      r = ask(client, "sampling/createMessage", params)
      assert.equal(-32000, r.error.code)
      mode = "raise"
      r = ask(client, "sampling/createMessage", params)
      assert.equal(-32603, r.error.code)
      assert.matches("handler bug", r.error.message)
      assert.is_true(client:ping())
    end)
  end)

  it("checks requests and results against the specification", function()
    run_async(function()
      local reply
      local client <close> = assert(fixture.connect("client_requests", { handlers = {
        sampling = function() return reply end } }))
      local user = { role = "user", content = { type = "text", text = "q" } }
      -- tools without the tools capability
      local r = ask(client, "sampling/createMessage",
        { messages = { user }, maxTokens = 5, tools = { { name = "t", inputSchema = { type = "object" } } } })
      assert.equal(-32602, r.error.code)
      -- a tool_use not answered by the next message
      r = ask(client, "sampling/createMessage", { maxTokens = 5, messages = {
        { role = "assistant", content = { { type = "tool_use", id = "u1", name = "t", input = {} } } },
        { role = "user", content = { type = "text", text = "no result" } } } })
      assert.equal(-32602, r.error.code)
      assert.matches("u1", r.error.message)
      -- a result without a model
      reply = { role = "assistant", content = { type = "text", text = "x" } }
      r = ask(client, "sampling/createMessage", { messages = { user }, maxTokens = 5 })
      assert.equal(-32603, r.error.code)
      assert.matches("model", r.error.message)
      -- tool_use in a result needs stopReason toolUse
      reply = { role = "assistant", model = "m", stopReason = "endTurn",
                content = { { type = "tool_use", id = "a", name = "t", input = {} } } }
      r = ask(client, "sampling/createMessage", { messages = { user }, maxTokens = 5 })
      assert.equal(-32603, r.error.code)
      reply.stopReason = "toolUse"
      r = ask(client, "sampling/createMessage", { messages = { user }, maxTokens = 5 })
      assert.equal("a", r.result.content[1].id)
    end)
  end)

  it("sends array content only to a 2025-11-25 server", function()
    run_async(function()
      local reply = { role = "assistant", model = "m", stopReason = "endTurn",
                      content = { { type = "text", text = "a" }, { type = "text", text = "b" } } }
      local params = { messages = { { role = "user", content = { type = "text", text = "q" } } },
                       maxTokens = 5 }
      local old <close> = assert(fixture.connect("client_requests", { args = { "--version", "2025-06-18" },
        handlers = { sampling = function() return reply end } }))
      assert.equal("2025-06-18", old.protocol_version)
      local r = ask(old, "sampling/createMessage", params)
      assert.equal(-32603, r.error.code)
      assert.matches("2025%-11%-25", r.error.message)
      local new <close> = assert(fixture.connect("client_requests", {
        handlers = { sampling = function() return reply end } }))
      r = ask(new, "sampling/createMessage", params)
      assert.equal("b", r.result.content[2].text)
    end)
  end)

  it("can be replaced on a live client", function()
    run_async(function()
      local client <close> = assert(fixture.connect("client_requests", { handlers = {
        sampling = function() return text_reply("first") end, roots = {} } }))
      local params = { messages = { { role = "user", content = { type = "text", text = "q" } } },
                       maxTokens = 5 }
      assert.equal("first", ask(client, "sampling/createMessage", params).result.content.text)
      client:set_handler("sampling", function() return text_reply("second") end)
      assert.equal("second", ask(client, "sampling/createMessage", params).result.content.text)
      client:set_handler("roots", function() return { { uri = "file:///replaced" } } end)
      assert.equal("file:///replaced", ask(client, "roots/list").result.roots[1].uri)
      -- a kind not declared at connect time cannot be added later
      assert.has_error(function() client:set_handler("elicitation", function() end) end)
    end)
  end)

  it("stops the handler and sends nothing when the server cancels", function()
    run_async(function()
      local closed, finished = false, false
      local client <close> = assert(fixture.connect("client_requests", { handlers = {
        sampling = function()
          local _ <close> = setmetatable({}, { __close = function() closed = true end })
          mcp.sleep(1)
          finished = true
          return text_reply("too late")
        end } }))
      local r = ask(client, "sampling/createMessage",
        { messages = { { role = "user", content = { type = "text", text = "q" } } }, maxTokens = 5 },
        { cancel_after_ms = 100 })
      assert.is_true(r.cancelled)
      assert.equal(mcp.null, r.late)
      assert.is_true(closed)
      assert.is_false(finished)
    end)
  end)
end)

describe("elicitation", function()
  it("answers server-everything's form, with defaults filled in", function()
    run_async(function()
      local seen
      local client <close> = assert(everything{ elicitation = function(params)
        seen = params
        return { action = "accept", content = { name = "Ada Lovelace",
          untitledSingleSelectEnum = "Ross" } }
      end })
      local r = assert(client:call_tool("trigger-elicitation-request", {}))
      assert.equal("form", seen.mode)
      assert.is_string(seen.message)
      local text = ""
      for _, c in ipairs(r.content) do text = text .. c.text end
      assert.is_nil(r.isError, text)
      assert.matches("Ada Lovelace", text)
      assert.matches("42", text)        -- the integer's default
      assert.matches("hero%-1", text)   -- the titled enum's default
    end)
  end)

  it("declines and cancels", function()
    run_async(function()
      local action = "decline"
      local client <close> = assert(fixture.connect("client_requests", { handlers = {
        elicitation = function() return { action = action, content = { x = "ignored" } } end } }))
      local schema = { type = "object", properties = { x = { type = "string" } } }
      local r = ask(client, "elicitation/create", { message = "m", requestedSchema = schema })
      assert.same({ action = "decline" }, r.result)
      action = "cancel"
      r = ask(client, "elicitation/create", { message = "m", requestedSchema = schema })
      assert.same({ action = "cancel" }, r.result)
    end)
  end)

  it("refuses schemas outside the allowed subset and content that breaks the schema", function()
    run_async(function()
      local content
      local client <close> = assert(fixture.connect("client_requests", { handlers = {
        elicitation = function() return { action = "accept", content = content } end } }))
      local nested = { type = "object", properties = { o = { type = "object", properties = {} } } }
      local r = ask(client, "elicitation/create", { message = "m", requestedSchema = nested })
      assert.equal(-32602, r.error.code)
      local schema = { type = "object", required = { "n" }, properties = {
        n = { type = "integer", minimum = 1, maximum = 9 },
        e = { type = "string", format = "email" },
        pick = { type = "array", items = { type = "string", enum = { "a", "b" } }, maxItems = 1 } } }
      for _, bad in ipairs{ { n = 10 }, { n = "1" }, { n = 1, e = "nope" },
                            { n = 1, pick = { "a", "b" } }, { n = 1, extra = true }, {} } do
        content = bad
        r = ask(client, "elicitation/create", { message = "m", requestedSchema = schema })
        assert.equal(-32603, r.error and r.error.code, mcp.json.encode(bad))
      end
      content = { n = 3, e = "a@b.c", pick = { "b" } }
      r = ask(client, "elicitation/create", { message = "m", requestedSchema = schema })
      assert.same({ n = 3, e = "a@b.c", pick = { "b" } }, r.result.content)
    end)
  end)

  it("refuses a mode the client did not declare", function()
    run_async(function()
      local client <close> = assert(fixture.connect("client_requests", { handlers = {
        elicitation = function() return { action = "accept" } end } }))
      local r = ask(client, "elicitation/create", { mode = "url", message = "m",
        url = "https://example.com", elicitationId = "x" })
      assert.equal(-32602, r.error.code)
    end)
  end)

  it("handles URL mode and notifications/elicitation/complete", function()
    run_async(function()
      local got, completed = nil, {}
      local client <close> = assert(fixture.connect("client_requests", {
        handlers = { elicitation = { url = true, handler = function(p)
          got = p
          return { action = "accept" }
        end } },
        on_elicitation_complete = function(id) completed[#completed + 1] = id end,
      }))
      local r = ask(client, "elicitation/create", { mode = "url", message = "Sign in",
        url = "https://example.com/x", elicitationId = "el-1" })
      assert.same({ action = "accept" }, r.result)
      assert.equal("url", got.mode)
      assert.equal("el-1", got.elicitationId)
      mcp.spawn(function()
        mcp.sleep(0.05)
        client:call_tool("notify", { method = "notifications/elicitation/complete",
                                     params = { elicitationId = "el-1" } })
      end)
      assert.is_true(client:wait_elicitation("el-1", { timeout = 5 }))
      assert.same({ "el-1" }, completed)
      local _, err = client:wait_elicitation("never", { timeout = 0.1 })
      assert.equal("ETIMEDOUT", err.code)
    end)
  end)

  it("turns -32042 into EURLELICIT, and elicit = true runs it and retries", function()
    run_async(function()
      local urls = {}
      local client <close> = assert(fixture.connect("client_requests", {
        handlers = { elicitation = { url = true, handler = function(p)
          urls[#urls + 1] = p.url
          return { action = "accept" }
        end } } }))
      local _, err = client:call_tool("needs_url", {})
      assert.equal("EURLELICIT", err.code)
      assert.equal("e-42", err.elicitations[1].elicitationId)
      local r = assert(client:call_tool("needs_url", {}, { elicit = true }))
      assert.equal("authorized", r.content[1].text)
      assert.same({ "https://example.com/connect?elicitation=e-42" }, urls)
    end)
  end)
end)

describe("URL elicitation against server-everything", function()
  -- Its -32042 (trigger-url-elicitation, errorPath) is never followed by
  -- notifications/elicitation/complete: the retry must not wait for the
  -- whole request timeout (issue 12).
  it("runs the elicitation, waits a bounded time for its completion, and retries once", function()
    run_async(function()
      local urls = {}
      local client <close> = assert(mcp.connect{ name = "everything",
        command = fixture.everything_command(), on_log = function() end,
        handlers = { elicitation = { url = true, handler = function(p)
          urls[#urls + 1] = p.url
          return { action = "accept" }
        end } } })
      local t0 = core.now()
      local r, err = client:call_tool("trigger-url-elicitation",
        { url = "https://example.com/consent", elicitationId = "el-7", errorPath = true },
        { elicit = true, elicit_wait = 0.5, timeout = 20 })
      assert(r, err)
      assert.is_true(core.now() - t0 < 10000, "took " .. (core.now() - t0) .. " ms")
      -- The error path's prerequisite, then the request path's on the retry.
      assert.same({ "https://modelcontextprotocol.io", "https://example.com/consent" }, urls)
    end, 30)
  end)
end)

describe("built-in handlers", function()
  local schema = { type = "object", required = { "name", "age" }, properties = {
    name = { type = "string", title = "Your name", minLength = 2 },
    age = { type = "integer", minimum = 0, maximum = 150 },
    color = { type = "string", enum = { "red", "green" }, enumNames = { "Red", "Green" } },
    hero = { type = "string", oneOf = { { const = "h1", title = "Superman" },
                                        { const = "h2", title = "Batman" } }, default = "h1" },
    tags = { type = "array", items = { type = "string", enum = { "a", "b", "c" } }, maxItems = 2 },
    ok = { type = "boolean", default = true } } }

  local function terminal(lines)
    local prompts, out = {}, {}
    local i = 0
    return mcp.handlers.terminal_elicitation{
      input = function(prompt)
        prompts[#prompts + 1] = prompt
        mcp.sleep(0)            -- a real terminal waits: so may this
        i = i + 1
        return lines[i]
      end,
      output = function(text) out[#out + 1] = text end,
    }, prompts, out
  end

  it("asks each field at the terminal with checks, choices and defaults", function()
    run_async(function()
      local handler, prompts, out = terminal{ "x", "Ada", "two hundred", "200", "36", -- name, age
                                              "2", "", "", "1, c" }  -- color, hero, ok, tags
      local client <close> = assert(fixture.connect("client_requests",
        { handlers = { elicitation = handler } }))
      local r = ask(client, "elicitation/create", { message = "Who are you?", requestedSchema = schema })
      assert.same({ action = "accept", content = { name = "Ada", age = 36, color = "green",
        hero = "h1", tags = { "a", "c" }, ok = true } }, r.result)
      assert.matches("Your name %(required%)", prompts[1])
      assert.matches("1%) Red", prompts[6])
      assert.matches("default h1", prompts[7])
      local all = table.concat(out)
      assert.matches("at least 2 characters", all)
      assert.matches("expected an integer", all)
      assert.matches("at most 150", all)
    end)
  end)

  it("answers decline, cancel, and cancel at end of input", function()
    run_async(function()
      for _, case in ipairs{ { { ":decline" }, "decline" }, { { "Ada", ":cancel" }, "cancel" },
                             { {}, "cancel" } } do
        local handler = terminal(case[1])
        local client <close> = assert(fixture.connect("client_requests",
          { handlers = { elicitation = handler } }))
        local r = ask(client, "elicitation/create", { message = "m", requestedSchema = schema })
        assert.equal(case[2], r.result.action)
      end
    end)
  end)

  it("declines cleanly when stdin is not a terminal", function()
    run_async(function()
      assert.is_false(core.isatty(0))
      local client <close> = assert(fixture.connect("client_requests",
        { handlers = { elicitation = mcp.handlers.terminal_elicitation() } }))
      local r = ask(client, "elicitation/create", { message = "m", requestedSchema = schema })
      assert.same({ action = "decline" }, r.result)
    end)
  end)

  it("shows a URL with its host for consent, and does not open it unasked", function()
    run_async(function()
      local out = {}
      local client <close> = assert(fixture.connect("client_requests", { handlers = {
        elicitation = mcp.handlers.url_elicitation{ output = function(t) out[#out + 1] = t end } } }))
      local r = ask(client, "elicitation/create", { mode = "url", message = "Connect GitHub",
        url = "https://xn--gthub-n4a.example/login?x=1", elicitationId = "u1" })
      assert.same({ action = "accept" }, r.result)
      local text = table.concat(out)
      assert.matches("https://xn%-%-gthub%-n4a%.example/login%?x=1", text)
      assert.matches("host: xn%-%-gthub%-n4a%.example", text)
      assert.matches("punycode", text)
      -- a form request is refused: this handler only declared url mode
      r = ask(client, "elicitation/create", { message = "m", requestedSchema = schema })
      assert.equal(-32602, r.error.code)
    end)
  end)

  it("offers the working directory as a root", function()
    run_async(function()
      local client <close> = assert(fixture.connect("client_requests",
        { handlers = { roots = mcp.handlers.roots_from_cwd() } }))
      local r = ask(client, "roots/list")
      assert.equal(core.file_uri(core.cwd()), r.result.roots[1].uri)
      assert.matches("^file:///", r.result.roots[1].uri)
    end)
  end)
end)
