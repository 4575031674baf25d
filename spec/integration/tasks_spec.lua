-- Tasks of the 2025-11-25 era against the official server-everything,
-- over stdio and Streamable HTTP: a tool that requires a task runs as one
-- through a plain call_tool, its statuses reported; the elicitation it
-- sends while it waits (input_required) is answered by the Lua handler; a
-- task started with start_tool is cancelled with tasks/cancel; tasks are
-- listed and looked up by id. And the other way round: sampling and
-- elicitation handlers declared with task = true answer the server's
-- task-augmented requests as tasks, which the server polls to their end.
local mcp = require "mcp"
local fixture = require "spec.support.fixture"

-- How each transport is reached: server(), whose result the spec closes
-- (nil for stdio: the client starts that server), and connect(srv, opts).
local TRANSPORTS = {
  stdio = {
    server = function() return nil end,
    connect = function(_, opts)
      local o = { name = "everything", command = fixture.everything_command(),
                  on_stderr = function() end }
      for k, v in pairs(opts or {}) do o[k] = v end
      return assert(mcp.connect(o))
    end,
  },
  http = {
    server = function() return fixture.http_server("everything_http", { "streamableHttp" }) end,
    connect = function(srv, opts)
      local o = { name = "everything", url = srv.url("/mcp"), oauth = false }
      for k, v in pairs(opts or {}) do o[k] = v end
      return assert(mcp.connect(o))
    end,
  },
}

local function recorder()
  local seen = {}
  return seen, function(t) seen[#seen + 1] = { status = t.status, message = t.statusMessage, id = t.taskId } end
end

local function statuses(seen)
  local out = {}
  for _, s in ipairs(seen) do
    if out[#out] ~= s.status then out[#out + 1] = s.status end
  end
  return table.concat(out, " ")
end

for _, transport in ipairs{ "stdio", "http" } do
  local server, connect = TRANSPORTS[transport].server, TRANSPORTS[transport].connect

  describe("server-everything's tasks over " .. transport, function()
    it("runs a tool that requires a task through a plain call_tool, reporting each status", function()
      run_async(function()
        local srv <close> = server()
        local client <close> = connect(srv)
        assert.equal("required", assert(client:list_tools()) and
          client.tools_by_name["simulate-research-query"].execution.taskSupport)
        local seen, on_status = recorder()
        local res = assert(client:call_tool("simulate-research-query", { topic = "tides" },
          { on_status = on_status, timeout = 15 }))
        assert.matches("# Research Report: tides\n", res.content[1].text, 1, true)
        assert.equal("working completed", statuses(seen))
        -- The stages, in order, as polls saw them: the server's 1 s stages
        -- and its 1 s pollInterval run side by side, so a poll may see a
        -- stage twice (reported once) or, late, one stage later.
        local STAGES = { ["Gathering sources..."] = 1, ["Analyzing content..."] = 2,
                         ["Synthesizing findings..."] = 3, ["Generating report..."] = 4 }
        assert.equal("Gathering sources...", seen[1].message)
        local last = 0
        for i, s in ipairs(seen) do
          local stage = STAGES[s.message]
          assert.is_number(stage, "not a stage: " .. tostring(s.message))
          assert.is_true(stage > last or (i == #seen and stage == last), "out of order")
          last = stage
        end
        assert.is_true(#seen >= 4, #seen .. " reports")
        -- one task, named the same in every report, and the server knows it
        local id = seen[1].id
        for _, s in ipairs(seen) do assert.equal(id, s.id) end
        local t = assert(client:get_task(id))
        assert.equal("completed", t.status)
        assert.equal(300000, t.ttl)
        assert.equal(1000, t.pollInterval)
      end, 30)
    end)

    it("answers the elicitation of an ambiguous query with the Lua handler while the task waits", function()
      run_async(function()
        local asked = {}
        local srv <close> = server()
        local client <close> = connect(srv, { handlers = {
          elicitation = function(params)
            asked[#asked + 1] = params
            local choices = params.requestedSchema.properties.interpretation.oneOf
            return { action = "accept", content = { interpretation = choices[2].const } }
          end,
        } })
        local seen, on_status = recorder()
        local res = assert(client:call_tool("simulate-research-query",
          { topic = "python", ambiguous = true }, { on_status = on_status, timeout = 15 }))
        assert.equal(1, #asked)
        assert.matches("multiple interpretations", asked[1].message)
        -- the request was tied to the task it came for
        assert.equal(seen[1].id, asked[1]._meta["io.modelcontextprotocol/related-task"].taskId)
        assert.equal("working input_required working completed", statuses(seen))
        assert.matches("# Research Report: python (snake)", res.content[1].text, 1, true)
        assert.matches("Clarification**: snake", res.content[1].text, 1, true)
      end, 30)
    end)

    it("cancels a running task started with start_tool, with tasks/cancel", function()
      run_async(function()
        local srv <close> = server()
        local client <close> = connect(srv)
        local running = false
        local handle
        handle = client:start_tool("simulate-research-query", { topic = "cancel me" }, {
          task = true,
          on_status = function(t)
            if t.status == "working" and not running then
              running = true
              -- the handle knows its task as soon as the server named it
              assert.equal(t.taskId, handle.task_id)
            end
          end,
        })
        assert.is_false(handle:done())
        local t = assert(handle:status())      -- waits for nothing but tasks/get
        assert.is_true(running)
        assert.equal("working", t.status)
        assert.is_true(assert(handle:cancel()))
        local res, err = handle:wait()
        assert.is_nil(res)
        assert.equal("ECANCELED", err.code)
        assert.equal("cancelled", assert(client:get_task(handle.task_id)).status)
        -- the server lists it, cancelled; cancelling it again is refused
        local listed
        for _, task in ipairs(assert(client:list_tasks())) do
          if task.taskId == handle.task_id then listed = task end
        end
        assert.equal("cancelled", listed.status)
        local again, cerr = client:cancel_task(handle.task_id)
        assert.is_nil(again)
        assert.equal(-32602, cerr.rpc_code)
      end, 30)
    end)

    it("runs the server's task-augmented sampling request as a task, polled to its end", function()
      run_async(function()
        local tasks_seen = {}
        local srv <close> = server()
        local client <close> = connect(srv, { handlers = {
          sampling = { task = true, handler = function(params, ctx)
            tasks_seen[#tasks_seen + 1] = ctx.task
            mcp.sleep(1.5)    -- the work: the server polls every second meanwhile
            return { role = "assistant", model = "lua-model", stopReason = "endTurn",
                     content = { type = "text", text = "sampled: " .. params.messages[1].content.text } }
          end },
        } })
        assert.same({ createMessage = {} }, client.client_capabilities.tasks.requests.sampling)
        local res = assert(client:call_tool("trigger-sampling-request-async", { prompt = "tides" },
          { timeout = 15 }))
        local text = res.content[1].text
        assert.equal(1, #tasks_seen)
        assert.matches("[COMPLETED] Async sampling completed!", text, 1, true)
        assert.matches("Task created: " .. tasks_seen[1], text, 1, true)
        assert.matches("\nPoll %d+: working", text)
        assert.matches("\nPoll %d+: completed\n", text)
        assert.matches("sampled: Resource trigger-sampling-request-async context: tides", text, 1, true)
        -- tasks/result carried the task it belongs to
        assert.matches('"taskId": "' .. tasks_seen[1] .. '"', text, 1, true)
      end, 30)
    end)

    it("runs the server's task-augmented elicitation as a task, its answer in the server's report", function()
      run_async(function()
        local srv <close> = server()
        local client <close> = connect(srv, { handlers = {
          elicitation = { task = true, handler = function(params, ctx)
            assert.is_string(ctx.task)
            assert.equal("object", params.requestedSchema.type)
            return { action = "accept", content = { name = "Ada Lovelace", favoriteColor = "Green" } }
          end },
        } })
        local res = assert(client:call_tool("trigger-elicitation-request-async", {}, { timeout = 15 }))
        local texts = {}
        for _, block in ipairs(res.content) do texts[#texts + 1] = block.text end
        local text = table.concat(texts, "\n")
        assert.matches("[COMPLETED] User provided the requested information!", text, 1, true)
        assert.matches("- Name: Ada Lovelace", text, 1, true)
        assert.matches("- Favorite Color: Green", text, 1, true)
        assert.matches("Poll 1: completed", text, 1, true)
      end, 30)
    end)
  end)
end
