-- The client as receiver of 2025-11-25 tasks, asked by a fixture that
-- sends whatever request a test names (spec/fixtures/client_requests.js):
-- a task-augmented sampling request gets a task id at once, and tasks/get,
-- tasks/result (which waits for the handler), tasks/list and tasks/cancel
-- are answered from the task store; without task = true the same request
-- is answered the ordinary way.
local mcp = require "mcp"
local fixture = require "spec.support.fixture"
local event = require "spec.support.event"

local RELATED_TASK = "io.modelcontextprotocol/related-task"

local function ask(client, method, params)
  local r = assert(client:call_tool("ask", { method = method, params = params }))
  return mcp.json.decode(r.content[1].text)
end

local SAMPLE = { messages = { { role = "user", content = { type = "text", text = "2+2?" } } },
                 maxTokens = 5, task = { ttl = 60000 } }

local function reply(text)
  return { role = "assistant", model = "lua-model", stopReason = "endTurn",
           content = { type = "text", text = text } }
end

-- A sampling handler that answers when the test releases it
-- (gate.open:set(how), how = "answer" or "reject").
local function gated()
  local gate = { started = 0, finished = 0, open = event() }
  function gate.handler()
    gate.started = gate.started + 1
    local how = gate.open.wait(10)   -- a task of its own: it may wait
    gate.finished = gate.finished + 1
    if how == "reject" then return mcp.reject("no thanks") end
    return reply("4")
  end
  return gate
end

describe("a sampling handler declared with task = true", function()
  it("declares tasks.requests.sampling.createMessage, with list and cancel", function()
    run_async(function()
      local client <close> = assert(fixture.connect("client_requests", { handlers = {
        sampling = { handler = function() return reply("x") end, task = true },
        elicitation = function() return { action = "decline" } end,
      } }))
      local caps = mcp.json.decode(assert(client:call_tool("capabilities", {})).content[1].text)
      assert.same({ list = {}, cancel = {}, requests = { sampling = { createMessage = {} } } }, caps.tasks)
    end)
  end)

  it("answers a task-augmented request with a task at once, and its result when the handler is done", function()
    run_async(function()
      local gate = gated()
      local client <close> = assert(fixture.connect("client_requests", { handlers = {
        sampling = { handler = gate.handler, task = true } } }))
      local created = ask(client, "sampling/createMessage", SAMPLE).result.task
      assert.equal("working", created.status)
      assert.matches("^[%w_-]+$", created.taskId)
      assert.equal(22, #created.taskId)
      assert.equal(60000, created.ttl)
      assert.is_string(created.createdAt)
      assert.is_string(created.lastUpdatedAt)
      assert.equal(1, gate.started)
      assert.equal("working", ask(client, "tasks/get", { taskId = created.taskId }).result.status)
      -- tasks/result waits for the handler
      local answered = event()
      mcp.spawn(function()
        answered.set(ask(client, "tasks/result", { taskId = created.taskId }))
      end)
      assert.equal("working", ask(client, "tasks/get", { taskId = created.taskId }).result.status)
      gate.open.set("answer")
      local result = assert(answered.wait(5))
      assert.equal("4", result.result.content.text)
      assert.equal(created.taskId, result.result._meta[RELATED_TASK].taskId)
      assert.equal("completed", ask(client, "tasks/get", { taskId = created.taskId }).result.status)
      -- a task that ended cannot be cancelled
      local refused = ask(client, "tasks/cancel", { taskId = created.taskId })
      assert.equal(-32602, refused.error.code)
      assert.equal(-32602, ask(client, "tasks/get", { taskId = "no-such-task" }).error.code)
    end)
  end)

  it("cancels a running task: the handler stops, its status stays cancelled", function()
    run_async(function()
      local gate = gated()
      local client <close> = assert(fixture.connect("client_requests", { handlers = {
        sampling = { handler = gate.handler, task = true } } }))
      local id = ask(client, "sampling/createMessage", SAMPLE).result.task.taskId
      local cancelled = ask(client, "tasks/cancel", { taskId = id }).result
      assert.equal("cancelled", cancelled.status)
      gate.open.set("answer")        -- the handler's task was stopped: nobody hears it
      assert.equal(0, gate.finished)
      assert.equal("cancelled", ask(client, "tasks/get", { taskId = id }).result.status)
      assert.equal(-32603, ask(client, "tasks/result", { taskId = id }).error.code)
    end)
  end)

  it("lists its tasks, and fails one whose handler refused with the error a plain request gets", function()
    run_async(function()
      local gate = gated()
      gate.open.set("reject")
      local client <close> = assert(fixture.connect("client_requests", { handlers = {
        sampling = { handler = gate.handler, task = true } } }))
      local ids = {}
      for i = 1, 3 do ids[i] = ask(client, "sampling/createMessage", SAMPLE).result.task.taskId end
      local listed = ask(client, "tasks/list", {}).result.tasks
      assert.equal(3, #listed)
      for i = 1, 3 do assert.equal(ids[i], listed[i].taskId) end
      local result = ask(client, "tasks/result", { taskId = ids[1] })
      assert.equal(-1, result.error.code)
      assert.equal("no thanks", result.error.message)
      assert.equal("failed", ask(client, "tasks/get", { taskId = ids[1] }).result.status)
      assert.equal(-32602, ask(client, "tasks/list", { cursor = "bogus" }).error.code)
    end)
  end)

  it("answers a request that asks for no task the ordinary way, and one of a kind not declared so too", function()
    run_async(function()
      local client <close> = assert(fixture.connect("client_requests", { handlers = {
        sampling = { handler = function() return reply("plain") end, task = true },
        elicitation = function() return { action = "decline" } end,
      } }))
      local plain = { messages = SAMPLE.messages, maxTokens = 5 }
      assert.equal("plain", ask(client, "sampling/createMessage", plain).result.content.text)
      local elicited = ask(client, "elicitation/create", { message = "?", task = { ttl = 1000 },
        requestedSchema = { type = "object", properties = {} } })
      assert.equal("decline", elicited.result.action)
    end)
  end)
end)

describe("a client without task handlers", function()
  it("answers tasks/* with -32601", function()
    run_async(function()
      local client <close> = assert(fixture.connect("client_requests", { handlers = {
        sampling = function() return reply("x") end } }))
      assert.equal(-32601, ask(client, "tasks/get", { taskId = "x" }).error.code)
      assert.equal(-32601, ask(client, "tasks/list", {}).error.code)
    end)
  end)
end)
