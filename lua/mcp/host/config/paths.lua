--- mcp.host.config.paths: the paths and files a config file names: made
--- absolute against the file's directory, ~ expanded, read whole.
local M = {}

local function getenv_of(env)
  if type(env) == "table" then return function(k) return env[k] end end
  if type(env) == "function" then return env end
  return os.getenv
end

local function dirname(path)
  return path:match("^(.*)/[^/]*$") or "."
end

local function basename(path)
  return path:match("([^/]+)/*$") or path
end

-- A path made absolute against base, with ~ expanded and ./ steps gone.
local function resolve(path, base, home)
  if path == "~" or path:sub(1, 2) == "~/" then
    path = (home or "") .. path:sub(2)
  elseif path:sub(1, 1) ~= "/" then
    path = base .. "/" .. path
  end
  path = path:gsub("/%./", "/"):gsub("/%./", "/"):gsub("/%.$", ""):gsub("//+", "/")
  return path
end

-- The contents of a file, or nil and the reason.
local function slurp(path)
  local f, why = io.open(path, "rb")
  if not f then   -- io.open's reason begins with the path: said already
    if why:sub(1, #path + 2) == path .. ": " then why = why:sub(#path + 3) end
    return nil, why
  end
  local text, rerr = f:read("a")
  f:close()
  if not text then return nil, rerr end
  return text
end

-- Whether path is a file that can be read (a directory is not).
local function readable(path)
  local f = io.open(path, "rb")
  if not f then return false end
  local data, err = f:read(0)
  f:close()
  return data ~= nil or err == nil
end

M.getenv_of, M.dirname, M.basename = getenv_of, dirname, basename
M.resolve, M.slurp, M.readable = resolve, slurp, readable

return M
