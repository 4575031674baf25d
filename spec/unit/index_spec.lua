-- core.index: the by-name table of a tool list (client.tools_by_name).
local core = require "mcp.core"

describe("core.index", function()
  it("indexes tables by a string field", function()
    local a, b = { name = "a" }, { name = "b", x = 1 }
    local by = core.index({ a, b }, "name")
    assert.equal(a, by.a)
    assert.equal(b, by.b)
    local n = 0
    for _ in pairs(by) do n = n + 1 end
    assert.equal(2, n)
  end)

  it("lets a later item win, and skips what has no string key", function()
    local first, later = { name = "dup" }, { name = "dup" }
    local by = core.index({ first, "text", { name = 7 }, {}, later }, "name")
    assert.equal(later, by.dup)
    assert.is_nil(by[7])
    assert.is_nil(next(by, next(by)))   -- one entry only
  end)

  it("stops at the list's length and handles an empty list", function()
    assert.is_nil(next(core.index({}, "name")))
    local t = { { name = "a" } }
    t[3] = { name = "c" }               -- past a hole: # may stop at 1
    local by = core.index(t, "name")
    assert.is_not_nil(by.a)
  end)

  it("refuses what is not a list and a field", function()
    assert.has_error(function() core.index(nil, "name") end)
    assert.has_error(function() core.index({}, 1) end)
  end)
end)
