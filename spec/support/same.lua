--- spec/support/same.lua - deep equality of JSON values decoded into Lua,
--- with the path of the first difference.
---
--- syntax: ok, why = same(a, b, numbers?)
--- numbers: how numbers compare: "subtype" (the default: equal values of
--- the same integer/float subtype), "value" (equal values), or "approx"
--- (within two units in the last place). Array marks must agree.
local mcp = require "mcp"

local function numbers_equal(a, b, numbers)
  if numbers == "approx" then return a == b or math.abs(a - b) <= math.abs(b) * 4.5e-16 end
  if numbers == "value" then return a == b end
  return a == b and math.type(a) == math.type(b)
end

local function same(a, b, numbers, path)
  path = path or "$"
  if type(a) ~= type(b) then return false, path .. ": type " .. type(a) .. " vs " .. type(b) end
  if type(a) == "number" then
    return numbers_equal(a, b, numbers), path .. ": " .. tostring(a) .. " vs " .. tostring(b)
  end
  if type(a) ~= "table" then return a == b, path .. ": " .. tostring(a) .. " vs " .. tostring(b) end
  if mcp.is_array(a) ~= mcp.is_array(b) then return false, path .. ": array mark" end
  for k, v in pairs(a) do
    local ok, why = same(v, b[k], numbers, path .. "." .. tostring(k))
    if not ok then return false, why end
  end
  for k in pairs(b) do
    if a[k] == nil then return false, path .. "." .. tostring(k) .. ": missing" end
  end
  return true
end

return same
