-- tool_filter.lua - policy on mcp.host, in Lua: which tools a model may
-- see, and what their results look like before anyone reads them.
--
--   filter     leaves out every tool that says it is destructive
--              (annotations.destructiveHint): server-filesystem's
--              write_file, edit_file and move_file here.
--   on_result  cuts long text (a long echo from server-everything) and
--              turns resource links into plain text a model can read
--              (get-resource-links).
--
-- An agent built on this host (mcp.agent{ host = host, ... }) gets the
-- same view: it offers host:tools() and calls through host:call.
--
-- Usage: luamcp run examples/tool_filter.lua
--   (server-everything and server-filesystem from `make deps`;
--    LUAMCP_NODE_MODULES says where else they are)
local mcp = require "mcp"
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "examples"
package.path = here .. "/lib/?.lua;" .. package.path
local root = require("llm_fixture").root()

local MAX_TEXT = 300       -- characters of text a result may keep

local modules = os.getenv("LUAMCP_NODE_MODULES") or root .. "/.deps/npm/node_modules"
local dir = assert(io.popen("mktemp -d /tmp/luamcp-filter-XXXXXX")):read("l")
local _ <close> = setmetatable({}, { __close = function() os.execute("rm -rf '" .. dir .. "'") end })

-- A tool is shown unless it declares itself destructive. (Annotations
-- are hints from the server, not guarantees: a filter for servers you do
-- not trust would name the tools it allows instead.)
local function safe(tool)
  local a = tool.annotations
  return not (a and a.destructiveHint == true)
end

-- Long text cut, resource links made text: a new result, the server's
-- own left as it was.
local function post_process(result)
  local content = {}
  for i, block in ipairs(result.content or {}) do
    if block.type == "text" and #block.text > MAX_TEXT then
      content[i] = { type = "text", text = block.text:sub(1, MAX_TEXT)
        .. ("... [%d characters cut]"):format(#block.text - MAX_TEXT) }
    elseif block.type == "resource_link" then
      content[i] = { type = "text", text = ("Resource %q at %s%s"):format(
        block.name or "", block.uri, block.mimeType and (" (" .. block.mimeType .. ")") or "") }
    else
      content[i] = block
    end
  end
  local copy = {}
  for k, v in pairs(result) do copy[k] = v end
  copy.content = content
  return copy
end

local host <close> = assert(mcp.host{
  servers = {
    everything = { command = { "node", modules
      .. "/@modelcontextprotocol/server-everything/dist/index.js", "stdio" } },
    filesystem = { command = { "node", modules
      .. "/@modelcontextprotocol/server-filesystem/dist/index.js", dir } },
  },
  filter = function(tool) return safe(tool) end,
  on_result = function(result) return post_process(result) end,
  on_stderr = function() end,
})

-- What the servers have, and what the host shows.
local all, shown = 0, {}
for _, name in ipairs(host:names()) do
  local client = assert(host:client(name))
  for _, tool in ipairs(client.tools or {}) do
    all = all + 1
    if not safe(tool) then print(("left out: %s_%s (destructiveHint)"):format(name, tool.name)) end
  end
end
for _, tool in ipairs(host:tools()) do shown[tool.name] = true end
local n = 0
for _ in pairs(shown) do n = n + 1 end
print(("%d tools on the servers, %d shown"):format(all, n))
assert(not shown.filesystem_write_file and shown.filesystem_read_text_file)

-- A call of a tool the filter left out fails without reaching the server.
local _, err = host:call("filesystem_write_file", { path = dir .. "/x", content = "x" })
print("filesystem_write_file: " .. tostring(err and err.code) .. ": " .. tostring(err))

local function show(name, result)
  print(("\n%s ->"):format(name))
  for _, block in ipairs(result.content) do print("  " .. (block.text or ("[" .. block.type .. "]"))) end
end
show("everything_echo", assert(host:call("everything_echo",
  { message = ("All work and no play. "):rep(40) })))
show("everything_get-resource-links",
  assert(host:call("everything_get-resource-links", { count = 3 })))
