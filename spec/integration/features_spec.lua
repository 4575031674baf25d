-- Everything a 2025-11-25 server offers, consumed against the real
-- server-everything over stdio: content types, progress, cancellation,
-- logging, resources and subscriptions, prompts, completion.
local fixture = require "spec.support.fixture"
local mcp = require "mcp"
local core = require "mcp.core"

local function connect(opts)
  local o = { name = "everything", command = fixture.everything_command(),
              on_stderr = function() end, on_log = function() end }
  for k, v in pairs(opts or {}) do o[k] = v end
  return mcp.connect(o)
end

describe("tools of server-everything", function()
  it("keeps every field of a tool", function()
    run_async(function()
      local client <close> = assert(connect())
      assert(client:list_tools())
      local t = client.tools_by_name["get-structured-content"]
      assert.equal("object", t.outputSchema.type)
      assert.is_false(t.outputSchema.additionalProperties)
      assert.equal("http://json-schema.org/draft-07/schema#", t.inputSchema["$schema"])
      local echo = client.tools_by_name["echo"]
      assert.same({ readOnlyHint = true, destructiveHint = false,
                    idempotentHint = true, openWorldHint = false }, echo.annotations)
      assert.equal("forbidden", echo.execution.taskSupport)
    end)
  end)

  it("returns structuredContent with its text", function()
    run_async(function()
      local client <close> = assert(connect())
      local r = assert(client:call_tool("get-structured-content", { location = "Chicago" }))
      assert.is_number(r.structuredContent.temperature)
      assert.equal("text", r.content[1].type)
    end)
  end)

  it("keeps resource_link, embedded resource, image and annotations", function()
    run_async(function()
      local client <close> = assert(connect())
      local links = assert(client:call_tool("get-resource-links", { count = 2 }))
      local kinds = {}
      for _, c in ipairs(links.content) do kinds[c.type] = (kinds[c.type] or 0) + 1 end
      assert.equal(2, kinds.resource_link)
      for _, c in ipairs(links.content) do
        if c.type == "resource_link" then
          assert.is_string(c.uri)
          assert.is_string(c.name)
        end
      end

      local ref = assert(client:call_tool("get-resource-reference", { resourceId = 2 }))
      local embedded
      for _, c in ipairs(ref.content) do if c.type == "resource" then embedded = c end end
      assert.is_string(embedded.resource.uri)
      assert.is_string(embedded.resource.text or embedded.resource.blob)

      local img = assert(client:call_tool("get-tiny-image", {}))
      local image
      for _, c in ipairs(img.content) do if c.type == "image" then image = c end end
      assert.equal("image/png", image.mimeType)
      assert.matches("^[A-Za-z0-9+/=]+$", image.data)

      local ann = assert(client:call_tool("get-annotated-message",
        { messageType = "error", includeImage = true }))
      assert.is_table(ann.content[1].annotations)
      assert.is_number(ann.content[1].annotations.priority)
      assert.is_table(ann.content[1].annotations.audience)
      local has_image = false
      for _, c in ipairs(ann.content) do has_image = has_image or c.type == "image" end
      assert.is_true(has_image)
    end)
  end)

  it("reports a tool's own failure as a result with isError", function()
    run_async(function()
      local client <close> = assert(connect())
      local r, err = client:call_tool("no-such-tool", {})
      -- server-everything answers an unknown tool with a JSON-RPC error
      if r then assert.is_true(r.isError) else assert.equal("ERPC", err.code) end
    end)
  end)
end)

describe("progress", function()
  it("calls on_progress for each notification and extends the timeout", function()
    run_async(function()
      local client <close> = assert(connect())
      local seen = {}
      local t0 = core.now()
      -- 1.2 s of work in 4 steps, with a 0.5 s timeout: only progress keeps
      -- the call alive.
      local r = assert(client:call_tool("trigger-long-running-operation",
        { duration = 1.2, steps = 4 },
        { timeout = 0.5, max_timeout = 10,
          on_progress = function(p) seen[#seen + 1] = p end }))
      assert.is_true(core.now() - t0 >= 1000)
      assert.is_true(#seen >= 3, "got " .. #seen .. " progress notifications")
      for i, p in ipairs(seen) do
        assert.is_number(p.progress)
        assert.equal(4, p.total)
        if i > 1 then assert.is_true(p.progress > seen[i - 1].progress) end
      end
      assert.matches("completed", r.content[1].text)
    end)
  end)

  it("stops at max_timeout however much progress comes", function()
    run_async(function()
      local client <close> = assert(connect())
      local n = 0
      local t0 = core.now()
      local r, err = client:call_tool("trigger-long-running-operation",
        { duration = 3, steps = 30 },
        { timeout = 0.4, max_timeout = 0.9, on_progress = function() n = n + 1 end })
      assert.is_nil(r)
      assert.equal("ETIMEDOUT", err.code)
      local took = core.now() - t0
      assert.is_true(took >= 850 and took < 1500, "took " .. took .. " ms")
      assert.is_true(n >= 3)
    end)
  end)

  it("times out without progress when none is asked for", function()
    run_async(function()
      local client <close> = assert(connect())
      local _, err = client:call_tool("trigger-long-running-operation",
        { duration = 2, steps = 4 }, { timeout = 0.3 })
      assert.equal("ETIMEDOUT", err.code)
      assert.is_true(client:ping())
    end)
  end)
end)

describe("cancellation", function()
  it("cancels a call in flight; the waiter gets ECANCELED at once", function()
    run_async(function()
      local client <close> = assert(connect())
      local call = client:start_tool("trigger-long-running-operation", { duration = 5, steps = 5 })
      mcp.spawn(function() mcp.sleep(0.1); assert.is_true(call:cancel("user pressed stop")) end)
      local t0 = core.now()
      local r, err = call:wait()
      assert.is_nil(r)
      assert.equal("ECANCELED", err.code)
      assert.matches("user pressed stop", err.message)
      assert.is_true(core.now() - t0 < 1000)
      assert.is_false(call:cancel())           -- already finished
      assert.is_true(client:ping())            -- the connection is fine
    end)
  end)
end)

describe("logging", function()
  it("sets the level and delivers notifications/message to on_log", function()
    run_async(function()
      local logs = {}
      local client <close> = assert(connect{ on_log = function(p) logs[#logs + 1] = p end })
      assert.is_true(client:set_log_level("debug"))
      assert(client:call_tool("toggle-simulated-logging", {}))
      for _ = 1, 100 do
        if #logs >= 1 then break end
        mcp.sleep(0.05)
      end
      assert(client:call_tool("toggle-simulated-logging", {}))
      assert.is_true(#logs >= 1)
      assert.is_string(logs[1].level)
      assert.is_not_nil(logs[1].data)
      assert.has_error(function() client:set_log_level("loud") end)
    end, 30)
  end)
end)

describe("resources", function()
  it("lists resources and templates, and reads text and blob contents", function()
    run_async(function()
      local client <close> = assert(connect())
      local resources = assert(client:list_resources())
      assert.is_true(#resources >= 1)
      local templates = assert(client:list_resource_templates())
      assert.is_true(#templates >= 1)
      assert.is_string(templates[1].uriTemplate)
      local text = assert(client:read_resource("demo://resource/dynamic/text/1"))
      assert.is_string(text.contents[1].text)
      local blob = assert(client:read_resource("demo://resource/dynamic/blob/1"))
      assert.is_string(blob.contents[1].blob)
    end)
  end)

  it("delivers notifications/resources/updated to the subscription's callback", function()
    run_async(function()
      local client <close> = assert(connect())
      local uri = "demo://resource/dynamic/text/1"
      local updates = {}
      assert(client:subscribe_resource(uri, function(p) updates[#updates + 1] = p end))
      assert(client:call_tool("toggle-subscriber-updates", {}))
      for _ = 1, 200 do
        if #updates >= 1 then break end
        mcp.sleep(0.05)
      end
      assert(client:call_tool("toggle-subscriber-updates", {}))
      assert.is_true(#updates >= 1, "no update arrived")
      assert.equal(uri, updates[1].uri)
      assert.is_true(client:unsubscribe_resource(uri))
    end, 30)
  end)
end)

describe("prompts and completion", function()
  it("gets args-prompt and resource-prompt", function()
    run_async(function()
      local client <close> = assert(connect())
      local prompts = assert(client:list_prompts())
      assert.is_true(#prompts >= 3)
      local p = assert(client:get_prompt("args-prompt", { city = "Lisbon", state = "LX" }))
      assert.equal("user", p.messages[1].role)
      assert.matches("Lisbon", p.messages[1].content.text)
      local r = assert(client:get_prompt("resource-prompt",
        { resourceType = "Text", resourceId = "1" }))
      local embedded = false
      for _, m in ipairs(r.messages) do
        embedded = embedded or (m.content.type == "resource")
      end
      assert.is_true(embedded)
      assert.has_error(function() client:get_prompt("args-prompt", { city = 5 }) end)
    end)
  end)

  it("completes a prompt argument with context", function()
    run_async(function()
      local client <close> = assert(connect())
      local c = assert(client:complete({ type = "ref/prompt", name = "completable-prompt" },
        { name = "department", value = "E" }))
      assert.is_true(#c.values >= 1)
      for _, v in ipairs(c.values) do assert.matches("^E", v) end
      local names = assert(client:complete({ type = "ref/prompt", name = "completable-prompt" },
        { name = "name", value = "" }, { arguments = { department = c.values[1] } }))
      assert.is_true(#names.values >= 1)
    end)
  end)
end)
