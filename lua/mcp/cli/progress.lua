--- mcp.cli.progress: the progress bar a call shows on a terminal, one
--- line on stderr drawn again at each notifications/progress, with the
--- server's message (or at each status of a task the server runs the call
--- as), and wiped when the call ends. Off a terminal the CLI makes none:
--- its output is then only the result.
local M = {}

local CLEAR = "\r\27[2K"        -- to the line's start, erase the whole line
M.CLEAR = CLEAR
local WIDTH = 24                -- cells of the bar itself

-- The terminal's width, as the shell exports it; 80 otherwise.
local function columns()
  local n = tonumber(os.getenv("COLUMNS") or "")
  return n and n >= 20 and n or 80
end

local function clip(s, n)
  if #s <= n then return s end
  return s:sub(1, math.max(n - 1, 0)) .. "…"
end

--- syntax: line = progress.render(label, params)
--- The bar's text for a notifications/progress's params (progress, total,
--- message): "label [#####.....]  42% message", or without a total
--- "label [ 7 ] message".
function M.render(label, p)
  local done, total = tonumber(p.progress) or 0, tonumber(p.total)
  local bar
  if total and total > 0 then
    local ratio = math.max(0, math.min(1, done / total))
    local full = math.floor(ratio * WIDTH + 0.5)
    bar = ("[%s%s] %3d%%"):format(("#"):rep(full), ("."):rep(WIDTH - full),
      math.floor(ratio * 100 + 0.5))
  else
    bar = ("[ %s ]"):format(math.tointeger(done) or done)
  end
  local line = label .. " " .. bar
  if type(p.message) == "string" and p.message ~= "" then
    line = line .. " " .. p.message:gsub("%s+", " ")
  end
  return clip(line, columns() - 1)
end

--- syntax: line = progress.render_status(label, task)
--- The line for a task's status (a call the server runs as a task):
--- "label [working] Gathering sources...".
function M.render_status(label, task)
  local line = ("%s [%s]"):format(label, tostring(task.status))
  if type(task.statusMessage) == "string" and task.statusMessage ~= "" then
    line = line .. " " .. task.statusMessage:gsub("%s+", " ")
  end
  return clip(line, columns() - 1)
end

-- The bar on screen, if any: other stderr output goes above it.
local active

--- syntax: bar = progress.new(label, out?)
--- bar.on_progress(params) draws (use it as a call's on_progress), and
--- bar.on_status(task) a task's status (its on_status); bar.clear()
--- wipes the line if anything was drawn. out: a file (stderr).
function M.new(label, out)
  out = out or io.stderr
  local bar = { out = out }
  local function draw(line)
    bar.line = line
    out:write(CLEAR, line)
    out:flush()
    active = bar
  end
  function bar.on_progress(p) draw(M.render(label, p)) end
  function bar.on_status(task) draw(M.render_status(label, task)) end
  function bar.clear()
    if bar.line then
      out:write(CLEAR)
      out:flush()
      bar.line = nil
    end
    if active == bar then active = nil end
  end
  return bar
end

--- syntax: progress.write(text) -- text (whole lines) on stderr, above
--- the bar when one is drawn, which is then drawn again below it
function M.write(text)
  local bar = active
  if bar and bar.line then
    bar.out:write(CLEAR, text, bar.line)
    bar.out:flush()
  else
    io.stderr:write(text)
  end
end

return M
