--- mcp.host.config.check: the checks a config file's values go through,
--- and the one way they fail: a Failure raised with a message that names
--- the file, the server and the key, never a value (values may be
--- secrets). load() catches it and returns nil, err.
local core = require "mcp.core"
local errors = require "mcp.errors"

local M = {}

local NULL = core.null
local ARRAY_MT = getmetatable(core.json_decode("[]"))   -- decoded arrays carry it
M.NULL = NULL

local Failure = {}

local function raise(ctx, key, msg, code)
  local parts = { ctx.label or "config" }
  if ctx.server then parts[#parts + 1] = ("server %q"):format(ctx.server) end
  parts[#parts + 1] = key and (key .. " " .. msg) or msg
  local err = errors.new(code or "EINVAL", table.concat(parts, ": "),
    { file = ctx.file, server = ctx.server, key = key })
  error(setmetatable({ err = err }, Failure), 0)
end

-- Runs fn(...) and turns a Failure into nil, err; other errors are bugs
-- and go on up.
local function catching(fn, ...)
  local ok, res = pcall(fn, ...)
  if ok then return res end
  if getmetatable(res) == Failure then return nil, res.err end
  error(res, 0)
end

local function absent(v) return v == nil or v == NULL end

local function is_array(v)
  if type(v) ~= "table" then return false end
  local mt = getmetatable(v)
  if mt ~= nil then return mt == ARRAY_MT end
  local n = 0
  for _ in pairs(v) do n = n + 1 end
  return n == #v
end

local function is_object(v)
  if type(v) ~= "table" then return false end
  if getmetatable(v) ~= nil then return not is_array(v) end
  for k in pairs(v) do
    if type(k) ~= "string" then return false end
  end
  return true
end

local function key_of(ctx, k) return ctx.prefix .. "." .. k end

local function opt_string(ctx, raw, k)
  local v = raw[k]
  if absent(v) then return nil end
  if type(v) ~= "string" then raise(ctx, key_of(ctx, k), "must be a string") end
  return v
end

local function opt_boolean(ctx, raw, k)
  local v = raw[k]
  if absent(v) then return nil end
  if type(v) ~= "boolean" then raise(ctx, key_of(ctx, k), "must be true or false") end
  return v
end

local function string_array(ctx, v, key)
  if absent(v) then return nil end
  local ok = is_array(v)
  if ok then
    for _, s in ipairs(v) do
      if type(s) ~= "string" then ok = false end
    end
  end
  if not ok then raise(ctx, key, "must be an array of strings") end
  local copy = {}
  for i, s in ipairs(v) do copy[i] = s end
  return copy
end

-- An object of strings (numbers are taken as their text: env values).
local function string_map(ctx, v, key, numbers_ok)
  if absent(v) then return nil end
  if not is_object(v) then raise(ctx, key, "must be an object of strings") end
  local copy = {}
  for k, s in pairs(v) do
    if numbers_ok and type(s) == "number" then s = tostring(s) end
    if type(s) ~= "string" then
      raise(ctx, key .. "." .. k, "must be a string")
    end
    copy[k] = s
  end
  return copy
end

local function object(ctx, v, key)
  if absent(v) then return nil end
  if not is_object(v) then raise(ctx, key, "must be an object") end
  return v
end

local function positive_ms(ctx, v, key)
  if absent(v) then return nil end
  if type(v) ~= "number" or v <= 0 or v ~= v then
    raise(ctx, key, "must be a positive number of milliseconds")
  end
  return v / 1000
end

local function http_url(ctx, v, key)
  if type(v) ~= "string" then raise(ctx, key, "must be a string") end
  if not v:match("^[hH][tT][tT][pP][sS]?://.") then
    raise(ctx, key, "must be an http:// or https:// URL")
  end
  return v
end

M.raise, M.catching = raise, catching
M.absent, M.is_array, M.is_object, M.key_of = absent, is_array, is_object, key_of
M.opt_string, M.opt_boolean, M.string_array = opt_string, opt_boolean, string_array
M.string_map, M.object, M.positive_ms, M.http_url = string_map, object, positive_ms, http_url

return M
