-- The one-pass JSON decoder against the cJSON path it replaces: the same
-- Lua values for every JSON file of the schema test suite and for edge
-- cases, and the same verdict on malformed text.
local core = require "mcp.core"
local mcp = require "mcp"

-- Values, integer/float subtypes and array marks must all agree.
local same = require "spec.support.same"

local function check(text)
  -- cJSON's C strings stop at NUL: where the text escapes one, only the
  -- decoder (which keeps it) can be right; it is checked on its own below.
  if text:find("\\u0000") then return end
  local fast, ferr = core.json_decode(text)
  local tree, terr = core.json_decode_tree(text)
  if tree == nil then
    assert.is_nil(fast, "decoder accepted what cJSON refused: " .. text:sub(1, 80))
    assert.equal(terr.code, ferr.code)
    return
  end
  assert(fast ~= nil, "decoder refused valid JSON (" .. tostring(ferr) .. "): " .. text:sub(1, 80))
  local ok, why = same(fast, tree)
  assert(ok, why)
end

describe("the one-pass JSON decoder", function()
  it("matches the cJSON path on every file of the JSON-Schema-Test-Suite", function()
    local p = assert(io.popen("find test/data/json-schema-test-suite -name '*.json' | sort"))
    local n = 0
    for path in p:lines() do
      local f = assert(io.open(path, "rb"))
      check(f:read("a"))
      f:close()
      n = n + 1
    end
    p:close()
    assert.is_true(n > 100, "only " .. n .. " files")
  end)

  it("matches it on strings, escapes and numbers", function()
    for _, text in ipairs{
      '"plain"', '""', '"a\\"b\\\\c\\/d\\b\\f\\n\\r\\t"', '"\\u00e9\\u4e2d\\ud83d\\ude00"',
      '"é中😀"', '0', '-0', '42', '-7', '9007199254740992',
      '12345678901234567890', '1.5', '-1e3', '1E-2', '2.0', '1e308', '0.1',
      '[]', '{}', '[[],[{}]]', '{"a":[1,2,{"b":null}],"c":true,"d":false}',
      ' \n\t{"x" : 1 } \r\n', '{"dup":1,"dup":2}',
    } do check(text) end
  end)

  it("keeps integers exact where a double would round them", function()
    assert.equal(9007199254740993, core.json_decode("9007199254740993"))
    assert.equal("integer", math.type(core.json_decode("-9007199254740993")))
    -- Every digit, negative ones too (issue 12: the last one was lost).
    assert.equal(-9007199254740993, core.json_decode("-9007199254740993"))
    assert.equal(math.maxinteger, core.json_decode("9223372036854775807"))
    assert.equal(math.mininteger, core.json_decode("-9223372036854775808"))
    -- Past 64 bits: a float, as near as a double gets.
    assert.equal("float", math.type(core.json_decode("9223372036854775808")))
    assert.equal(-1e19, core.json_decode("-10000000000000000000"))
  end)

  it("keeps an escaped NUL inside a string", function()
    assert.equal("a\0b", core.json_decode('"a\\u0000b"'))
  end)

  it("refuses what is not one JSON value", function()
    for _, text in ipairs{ '', ' ', '{', '[1,]', '{"a":}', '{"a" 1}', '[1 2]', '"unterminated',
                           '"bad \\x escape"', '"\\u12"', 'tru', 'nul', '01', '1.', '1.e5', '1e', '1e+', '.5', '-', '+1',
                           '{"a":1}x', '[1]]', '"ctl \1 char"', "{'a':1}", 'NaN', 'Infinity' } do
      local v, err = core.json_decode(text)
      assert.is_nil(v, text)
      assert.equal("EJSON", err.code, text)
    end
  end)

  -- Found by fuzzing (issue 11): the two paths must agree on these too.
  it("refuses, on both paths, a lone backslash, lone surrogates and numbers past a double", function()
    for _, text in ipairs{ '"abc\\', '["x\\', '"\\ud800"', '"\\udc00"', '"\\ud800\\u0041"',
                           '"\\ud800\\ud800"', '{"\\udfff":1}', '64e464464', '-1e309',
                           '[' .. string.rep("9", 70) .. ']' } do
      for _, decode in ipairs{ core.json_decode, core.json_decode_tree } do
        local v, err = decode(text)
        assert.is_nil(v, text)
        assert.equal("EJSON", err.code, text)
      end
    end
    assert.equal("\u{1F600}", core.json_decode('"\\ud83d\\ude00"'))
    assert.equal(1e308, core.json_decode("1e308"))
  end)

  it("stops at the nesting limit with ETOOBIG", function()
    local v, err = core.json_decode(string.rep("[", 129) .. string.rep("]", 129))
    assert.is_nil(v)
    assert.equal("ETOOBIG", err.code)
    assert(core.json_decode(string.rep("[", 128) .. string.rep("]", 128)))
  end)

  -- A string with escapes holds a luaL_Buffer (its box and the box's
  -- metatable) on the stack. Under a Lua built with LUA_USE_APICHECK, a
  -- decoder that reserves too few slots aborts here ("stack overflow"):
  -- at the top of a long text, after the key slots, and at every depth.
  it("reserves the stack a buffered string needs, at the top and at depth", function()
    local top = core.json_decode('"' .. string.rep("a\\n", 3000) .. '"')
    assert.equal(string.rep("a\n", 3000), top)
    local depth = 100
    local text = string.rep('{"k\\u0041":"v\\n' .. string.rep("x", 100) .. '","n":', depth)
      .. "1" .. string.rep("}", depth)
    local v = assert(core.json_decode(text))
    for _ = 1, depth - 1 do v = v.n end
    assert.equal("v\n" .. string.rep("x", 100), v["kA"])
    assert.equal(1, v.n)
  end)
end)

-- Issue 11, defect 1: a long string with escapes that turns out bad late
-- (here an invalid escape after 3,000 good ones) used to leave its
-- luaL_Buffer on the stack; Lua 5.4.4's lua_settop then closed it and
-- wrote through a pointer into the moved stack. Silent in a release Lua:
-- valgrind (make check-asan runs this file under it) reports the writes.
describe("the decoder on a long escaped string that fails late", function()
  local escapes = string.rep("\\n", 3000)
  local function nest(depth, inner)
    return string.rep('{"a":', depth) .. inner .. string.rep("}", depth)
  end

  -- Each text is decoded on the small stack of a new coroutine, where
  -- closing the buffer has to grow (and so move) the stack.
  local function decode(text)
    return coroutine.wrap(core.json_decode)(text)
  end

  it("fails cleanly and keeps working, at every depth", function()
    for depth = 0, 40 do
      for _, bad in ipairs{ '\\uZZZZ"', '\\q"', '\1"', "" } do
        local v, err = decode(nest(depth, '"' .. escapes .. bad))
        assert.is_nil(v)
        assert.equal("EJSON", err.code)
      end
      -- The same text as a key, through the key cache of a long text.
      local v, err = decode('{"' .. escapes .. '\\uZZZZ":1}')
      assert.is_nil(v)
      assert.equal("EJSON", err.code)
      local good = assert(core.json_decode(nest(depth, '"' .. escapes .. '"')))
      for _ = 1, depth do good = good.a end
      assert.equal(string.rep("\n", 3000), good)
    end
  end)

  it("reports the byte of the bad escape", function()
    for _, bad in ipairs{ '\\uZZZZ"', '\\q"', '\1"' } do
      local _, err = core.json_decode(nest(3, '"' .. escapes .. bad))
      assert.matches("at byte " .. (3 * 5 + 1 + #escapes) .. ":", tostring(err), 1, true)
    end
    local _, err = core.json_decode(nest(3, '"' .. escapes))
    assert.matches("unterminated string", tostring(err), 1, true)
  end)
end)
