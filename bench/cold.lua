--- cold.lua: the luamcp side of the cold-start phase. The driver times the
--- whole program: start luamcp, spawn the server, initialize, one
--- tools/call, close, exit. Exits non-zero if the call fails.
---
--- Usage: build/luamcp run bench/cold.lua SERVER [ARGS...]
local mcp = require "mcp"

local command = { ... }
if not command[1] then error("usage: luamcp run bench/cold.lua SERVER [ARGS...]") end
local client <close> = assert(mcp.connect{ command = command })
local result = assert(client:call_tool("echo", { message = "hello" }))
assert(result.content[1].text == "hello", "unexpected tools/call result")
