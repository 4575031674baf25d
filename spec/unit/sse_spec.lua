-- core.sse_parser: the core's SSE parser, fed from Lua (LLM streams).
local core = require "mcp.core"

describe("core.sse_parser", function()
  it("gives the events each chunk completes, across splits and line endings", function()
    local p = core.sse_parser()
    local text = "event: message_start\ndata: {\"a\":1}\n\n: keep-alive\r\ndata: line1\r\ndata: line2\r\nid: 7\r\n\r\ndata: [DONE]\n\n"
    local all = {}
    for i = 1, #text do                       -- a byte at a time
      for _, ev in ipairs(assert(p:feed(text:sub(i, i)))) do all[#all + 1] = ev end
    end
    assert.equal(3, #all)
    assert.same({ event = "message_start", data = '{"a":1}' }, all[1])
    assert.same({ event = "message", data = "line1\nline2", id = "7" }, all[2])
    assert.equal("[DONE]", all[3].data)
  end)

  it("reports an event over the limit and goes on with the next", function()
    local p = core.sse_parser(64)
    local events, err = p:feed("data: " .. string.rep("x", 100) .. "\n\n")
    assert.is_nil(events)
    assert.equal("ETOOBIG", err.code)
    events = assert(p:feed("data: small\n\n"))
    assert.equal("small", events[1].data)
  end)
end)
