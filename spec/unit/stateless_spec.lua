-- mcp.stateless: what a 2026-07-28 result may ask, and the bounds on what
-- a hostile server can make the client do (rounds, input requests).
local mcp = require "mcp"
local stateless = require("mcp.stateless").methods

-- A client whose handlers answer every input request at once.
local function fake()
  local self = { answered = 0 }
  function self:_answer_input(method) self.answered = self.answered + 1 return { method = method } end
  self._answer_inputs = stateless._answer_inputs
  self._stateless_result = stateless._stateless_result
  return self
end

local function asking(n)
  local requests = {}
  for i = 1, n do requests["k" .. i] = { method = "roots/list" } end
  return { resultType = "input_required", inputRequests = requests, requestState = "s" }
end

describe("a 2026-07-28 result", function()
  it("is complete without a resultType, and an unknown one is refused", function()
    mcp.run(function()
      local c = fake()
      local r = { content = {} }
      assert.equal(r, c:_stateless_result("tools/call", {}, r))
      local res, err = c:_stateless_result("tools/call", {}, { resultType = "bogus" })
      assert.is_nil(res)
      assert.equal("EPROTO", err.code)
    end)
  end)

  it("may ask for input only on tools/call, prompts/get and resources/read", function()
    mcp.run(function()
      local c = fake()
      local res, err = c:_stateless_result("tools/list", {}, asking(1))
      assert.is_nil(res)
      assert.matches("only tools/call", err.message)
      assert.equal(0, c.answered)
    end)
  end)

  it("is sent again with the answers and the state as it came, under the same params", function()
    mcp.run(function()
      local c, sent = fake(), nil
      local res = assert(c:_stateless_result("tools/call", { name = "t" }, asking(2), function(p)
        sent = p
        return { content = {} }
      end))
      assert.same({ content = {} }, res)
      assert.equal("t", sent.name)
      assert.equal("s", sent.requestState)
      assert.same({ method = "roots/list" }, sent.inputResponses.k1)
      assert.same({ method = "roots/list" }, sent.inputResponses.k2)
    end)
  end)

  it("bounds the rounds and the input requests of a round", function()
    mcp.run(function()
      local c = fake()
      local rounds = 0
      local res, err = c:_stateless_result("tools/call", {}, asking(1), function()
        rounds = rounds + 1
        return asking(1)
      end)
      assert.is_nil(res)
      assert.matches("after 10 rounds", err.message)
      assert.equal(10, rounds)
      c = fake()
      res, err = c:_stateless_result("tools/call", {}, asking(33), function() error("not sent") end)
      assert.is_nil(res)
      assert.matches("more than 32", err.message)
      assert.equal(0, c.answered)
    end)
  end)
end)
