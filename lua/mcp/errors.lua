--- mcp.errors: the mcp.error class. Builds and tests error objects; does
--- not decide what is an error (the core and client.lua do).
local core = require "mcp.core"

local M = {}

M.mt = core.error_mt
M.codes = core.errors   -- code -> fixed description

--- syntax: err = errors.new(code, message?, fields?)
function M.new(code, message, fields)
  return core.error(code, message, fields)
end

--- syntax: yes = errors.is(x, code?)
--- True when x is an mcp.error (with that code, when given).
function M.is(x, code)
  return type(x) == "table" and getmetatable(x) == M.mt
    and (code == nil or x.code == code)
end

return M
