--- mcp.host.skills: the host's methods for skills (SEP-2640), composed
--- into mcp.Host by mcp.host. Skills are listed per server and always
--- named with the server they come from (the host's name for it, never
--- the server's own serverInfo.name), so that a skill of one server never
--- stands in for another's; a skill is loaded, and its files read, only
--- when asked, and only from the server it came from. Fetching and
--- verifying are the client's (mcp.skills).
local task = require "mcp.task"
local skills = require "mcp.skills"

local Host = {}

-- The connected servers that declared the skills extension.
local function declaring(self)
  local list = {}
  for _, rec in ipairs(self:_connected()) do
    if rec.client:has_skills() then list[#list + 1] = rec end
  end
  return list
end

--- syntax: list, failures = host:skills()
--- Every skill of every connected server that declared the extension, in
--- config order, each as client:list_skills gives it (server: the host's
--- name of its server; id: what load_skill takes). failures: { [server]
--- = err } for the servers whose listing failed. Fetches no skill file.
function Host:skills()
  self:_check()
  local recs = declaring(self)
  local lists, failures = {}, {}
  local jobs = {}
  for i, rec in ipairs(recs) do
    jobs[i] = function()
      local list, err = rec.client:list_skills()
      if list then lists[i] = list else failures[rec.name] = err end
    end
  end
  task.all(jobs)
  local out = {}
  for i in ipairs(recs) do
    for _, s in ipairs(lists[i] or {}) do out[#out + 1] = s end
  end
  return out, failures
end

--- syntax: skill, err = host:load_skill(server, name, opts?)
--- Loads the skill `name` (its id, or its SKILL.md URI) of `server`: see
--- client:get_skill, whose verified skill it returns.
function Host:load_skill(server, name, opts)
  self:_check()
  if type(server) ~= "string" or type(name) ~= "string" then
    error("bad arguments to 'load_skill' (server and skill names expected)", 2)
  end
  local c, err = self:client(server)
  if not c then return nil, err end
  return c:get_skill(name, opts)
end

--- syntax: bytes, err = host:read_skill_file(skill, path, opts?)
--- A file of a loaded skill, read from the skill's own server only (see
--- client:read_skill_file: listed files, verified).
function Host:read_skill_file(skill, path, opts)
  self:_check()
  if type(skill) ~= "table" or type(skill.server) ~= "string" then
    error("bad argument #1 to 'read_skill_file' (a skill from load_skill expected)", 2)
  end
  local c, err = self:client(skill.server)
  if not c then return nil, err end
  return c:read_skill_file(skill, path, opts)
end

return { methods = Host, EXTENSION = skills.EXTENSION }
