-- The one-pass JSON encoder (core.json_encode, the params of every
-- request) against the cJSON path it replaces (core.json_encode_tree):
-- the same text for every value of the schema test suite and for edge
-- cases, the same refusals, and the two places where it is better.
local core = require "mcp.core"
local mcp = require "mcp"

local same = require "spec.support.same"

-- Both walk the same table with lua_next, so key order agrees and the
-- texts can be compared byte for byte. Only a float may be written
-- differently: cJSON keeps 15 digits when they read back within an
-- epsilon, the encoder only when they read back exactly.
local function check(value)
  local ok_fast, fast = pcall(core.json_encode, value)
  local ok_tree, tree = pcall(core.json_encode_tree, value)
  assert(ok_fast == ok_tree, ("one refused, one did not: %s / %s"):format(fast, tree))
  if fast ~= tree then
    local ok, why = same(core.json_decode(fast), core.json_decode(tree), "approx")
    assert(ok, why)
  end
  return fast
end

describe("the one-pass JSON encoder", function()
  it("matches the cJSON path on every file of the JSON-Schema-Test-Suite", function()
    local p = assert(io.popen("find test/data/json-schema-test-suite -name '*.json' | sort"))
    local n = 0
    for path in p:lines() do
      local f = assert(io.open(path, "rb"))
      local text = f:read("a")
      f:close()
      -- cJSON's strings stop at NUL; those files are checked below.
      if not text:find("\\u0000") then
        local value = assert(core.json_decode(text))
        -- And what it wrote reads back exactly.
        local ok, why = same(assert(core.json_decode(check(value))), value, "value")
        assert(ok, why)
        n = n + 1
      end
    end
    p:close()
    assert.is_true(n > 100, "only " .. n .. " files")
  end)

  it("matches it on scalars, escapes, arrays and objects", function()
    for _, v in ipairs{
      "plain", "", 'a"b\\c/d\b\f\n\r\t', "\1\31\127", "é中😀",
      0, -7, 42, 2^31, -2^31 - 1, 1.5, -1e3, 0.1, 1e308, 5e-324, 2.0, -0.5,
      1/3, 123456789.125, true, false, mcp.null,
      {}, setmetatable({}, core.array_mt), { 1, 2, 3 }, { "a", { b = mcp.null } },
      { [1] = "x", [3] = "y" }, { [2] = "only" }, { 1, 2, x = 3 },
      { a = { b = { c = { 1, { d = true } } } } },
    } do
      check(v)
    end
  end)

  it("refuses what JSON lacks, as the cJSON path does", function()
    local cycle = {}
    cycle.self = cycle
    for _, v in ipairs{
      { f = print }, { 0/0 }, { math.huge }, { -math.huge }, cycle,
      { [1.5] = "x" }, { [true] = 1 }, { co = coroutine.create(print) },
      { u = io.stdout },
    } do
      local ok_fast, fast = pcall(core.json_encode, v)
      local ok_tree, tree = pcall(core.json_encode_tree, v)
      assert.is_false(ok_fast)
      assert.is_false(ok_tree)
      assert.equal(tree, fast)
    end
  end)

  it("prints every integer exactly, where cJSON goes through a double", function()
    assert.equal("9223372036854775807", core.json_encode(math.maxinteger))
    assert.equal("-9223372036854775808", core.json_encode(math.mininteger))
    assert.equal("[9007199254740993]", core.json_encode({ 9007199254740993 }))
    assert.are_not.equal("[9007199254740993]", core.json_encode_tree({ 9007199254740993 }))
  end)

  it("keeps a string's embedded NUL, where cJSON stops at it", function()
    assert.equal('"a\\u0000b"', core.json_encode("a\0b"))
    assert.equal("a\0b", core.json_decode(core.json_encode("a\0b")))
  end)
end)
