--- mcp.stateless: what the stateless era (2026-07-28) asks of a result,
--- as a part of the Client: every result says its resultType (none means
--- complete); an input_required result (of tools/call, prompts/get or
--- resources/read) is answered by the client's own handlers, the same
--- functions that answer a handshake-era server's requests, and the
--- request goes again, under a new id, with their answers and the
--- server's requestState as it came, up to a bound of rounds.
local task = require "mcp.task"
local errors = require "mcp.errors"

local Client = {}

local MAX_ROUNDS = 10
local MAX_INPUTS = 32       -- input requests in one round (each runs a handler)

-- The requests an input_required result may answer (the MRTR pattern).
local MAY_ASK = { ["tools/call"] = true, ["prompts/get"] = true,
                  ["resources/read"] = true }

-- The answers that may be a task (the io.modelcontextprotocol/tasks
-- extension, which the client declares; mcp.tasks follows them): a
-- tools/call's, and tasks/get's, which some servers label "task" too
-- (T17). A task anywhere else is invalid (T3).
local MAY_BE_TASK = { ["tools/call"] = true, ["tasks/get"] = true }

local function protocol_error(fmt, ...)
  return errors.new("EPROTO", fmt:format(...))
end

-- The answers to one round's inputRequests, run side by side: a map of
-- the same keys to bare results. A declined sampling or roots request
-- (or a handler's failure) abandons the call: the server waits for none.
function Client:_answer_inputs(requests)
  if requests == nil then return {} end
  if type(requests) ~= "table" then
    return nil, protocol_error("inputRequests is not an object")
  end
  local keys, jobs = {}, {}
  for key, req in pairs(requests) do
    if #keys == MAX_INPUTS then
      return nil, protocol_error("inputRequests holds more than %d requests", MAX_INPUTS)
    end
    if type(key) ~= "string" or type(req) ~= "table" or type(req.method) ~= "string" then
      return nil, protocol_error("inputRequests holds an entry that is not { method, params }")
    end
    keys[#keys + 1] = key
    jobs[#jobs + 1] = function() return self:_answer_input(req.method, req.params) end
  end
  local outcomes = task.all(jobs)
  local answers = {}
  for i, key in ipairs(keys) do
    local result, err = outcomes[i][1], outcomes[i][2]
    if result == nil then return nil, err end
    answers[key] = result
  end
  return answers
end

--- syntax: result, err = client:_stateless_result(method, params, res, resend)
--- The final result of a request of the stateless era whose first answer
--- is res: res itself when complete; after input_required, what the
--- request sent again (resend(params) -> result, err) gives.
function Client:_stateless_result(method, params, res, resend)
  for _ = 1, MAX_ROUNDS do
    local kind = res.resultType
    if kind == nil or kind == "complete" then return res end
    if kind == "task" then
      if MAY_BE_TASK[method] then return res end
      return nil, protocol_error("%s: the server answered with a task, which only "
        .. "tools/call may become", method)
    end
    if kind ~= "input_required" then
      return nil, protocol_error("%s: the server's result has an unknown resultType %q",
        method, tostring(kind))
    end
    if not MAY_ASK[method] then
      return nil, protocol_error("%s: the server asked for input, which only tools/call, "
        .. "prompts/get and resources/read may", method)
    end
    local answers, err = self:_answer_inputs(res.inputRequests)
    if not answers then return nil, err end
    local again = {}
    for k, v in pairs(params or {}) do again[k] = v end
    again.inputResponses = next(answers) and answers or nil
    again.requestState = res.requestState
    res, err = resend(again)
    if not res then return nil, err end
    self._answered = self._answered or setmetatable({}, { __mode = "k" })
    self._answered[res] = true
  end
  return nil, protocol_error("%s: the server still asked for input after %d rounds",
    method, MAX_ROUNDS)
end

--- syntax: yes = client:_after_input(result)
--- Whether result answered a request sent again with input (it may not
--- be cached: 2026-07-28 caching C3).
function Client:_after_input(res)
  return self._answered ~= nil and self._answered[res] == true
end

return { methods = Client }
