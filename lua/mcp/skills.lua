--- mcp.skills: the skills extension (SEP-2640, io.modelcontextprotocol/skills)
--- as a part of the Client. A skill is a directory of files a server
--- exposes as resources; skills/list and skills/get give, per skill, the
--- URI of its SKILL.md, its front matter and the manifest of its files
--- (uri, digest, size). Listing fetches no file: a SKILL.md is read when
--- the skill is loaded (get_skill), a supporting file when it is read
--- (read_skill_file), and every file is verified against the entry held
--- (size, then sha256 digest, then for SKILL.md the front matter, field
--- by field) before any of it is returned. A mismatch is EVERIFY, and the
--- content is not returned. Digests come from the same server: they prove
--- consistency, not trust, so skill text is still untrusted model input
--- (see mcp.host and mcp.agent for how it is presented).
local core = require "mcp.core"
local errors = require "mcp.errors"
local frontmatter = require "mcp.frontmatter"

local Client = {}

local M = { methods = Client }

M.EXTENSION = "io.modelcontextprotocol/skills"
-- What a host MUST support per skill (SEP-2640 "Limits"); more is declined.
M.MAX_FILES = 512
M.MAX_BYTES = 16 * 1024 * 1024
local MAX_URI = 2048
local CACHE_BYTES = 32 * 1024 * 1024   -- verified files kept, per client

local array_mt = core.array_mt

local function verify_error(check, uri, message, fields)
  fields = fields or {}
  fields.check, fields.uri = check, uri
  return errors.new("EVERIFY", message, fields)
end

-- A value from a server, short enough for an error message.
local function brief(v)
  local s = type(v) == "string" and ("%q"):format(v) or core.json_encode(v) or tostring(v)
  if #s > 80 then s = s:sub(1, 77) .. "..." end
  return s
end

-- ---- entries ------------------------------------------------------------------------

-- The skill's root: its SKILL.md URI without "/SKILL.md".
local function root_of(uri)
  return uri:match("^(.+)/SKILL%.md$")
end

--- syntax: problem = skills.entry_problem(entry)
--- Why an entry cannot be loaded (SEP-2640 "Resources", "Limits", "Skill
--- URIs"), or nil when it can. Untrusted: every field is checked.
local function entry_problem(e)
  if type(e) ~= "table" then return "the entry is not an object" end
  local uri = e.uri
  if type(uri) ~= "string" or #uri > MAX_URI or not root_of(uri) then
    return "its uri is not the URI of a SKILL.md"
  end
  local fm = e.frontmatter
  if type(fm) ~= "table" or getmetatable(fm) == array_mt then
    return "its frontmatter is not an object"
  end
  if type(fm.name) ~= "string" or fm.name == "" then return "its frontmatter has no name" end
  if root_of(uri):match("[^/]*$") ~= fm.name then
    return ("its name %s is not the last segment of its URI"):format(brief(fm.name))
  end
  local res = e.resources
  if res == "dynamic" then return nil end
  if type(res) ~= "table" or getmetatable(res) ~= array_mt and next(res) ~= nil then
    return "its resources are neither a list nor \"dynamic\""
  end
  if #res > M.MAX_FILES then
    return ("it has %d files, more than the %d a skill may have"):format(#res, M.MAX_FILES)
  end
  local total, seen = 0, {}
  for i, f in ipairs(res) do
    if type(f) ~= "table" or type(f.uri) ~= "string" or #f.uri > MAX_URI then
      return ("resources[%d] has no uri"):format(i)
    end
    if type(f.digest) ~= "string" or not f.digest:match("^sha256:" .. ("[0-9a-f]"):rep(64) .. "$") then
      return ("resources[%d] has no digest of the form sha256:<64 lower-case hex>"):format(i)
    end
    if math.type(f.size) ~= "integer" or f.size < 0 then
      return ("resources[%d] has no size"):format(i)
    end
    if f.size > M.MAX_BYTES then       -- (and the sum cannot wrap around)
      return ("resources[%d] is %d bytes, more than the %d a skill may have")
        :format(i, f.size, M.MAX_BYTES)
    end
    if seen[f.uri] then return ("%s is listed twice"):format(brief(f.uri)) end
    seen[f.uri] = f
    total = total + f.size
  end
  if total > M.MAX_BYTES then
    return ("its files add up to %d bytes, more than the %d a skill may have")
      :format(total, M.MAX_BYTES)
  end
  if not seen[uri] then return "its resources do not list its SKILL.md" end
  return nil
end

M.entry_problem = entry_problem

-- The skill as list_skills shows it: the entry as the server sent it, and
-- what a host needs to present it. server is the client's name, the label
-- the host gave the server (never the server's own serverInfo.name).
local function describe(self, e)
  local problem = entry_problem(e)
  local fm = type(e) == "table" and type(e.frontmatter) == "table" and e.frontmatter or {}
  local uri = type(e) == "table" and type(e.uri) == "string" and e.uri or nil
  return {
    name = type(fm.name) == "string" and fm.name or nil,
    description = type(fm.description) == "string" and fm.description or nil,
    uri = uri,
    server = self.name,
    frontmatter = fm,
    resources = type(e) == "table" and e.resources or nil,
    dynamic = type(e) == "table" and e.resources == "dynamic",
    entry = e,
    problem = problem,
  }
end

-- Names are not unique (SEP-2640 "Names"): within one listing, a name
-- shared by several skills is given to none of them; each is known by
-- its path instead (the URI without scheme and "/SKILL.md"), numbered if
-- even that repeats.
local function assign_ids(skills)
  local count = {}
  for _, s in ipairs(skills) do
    if s.name then count[s.name] = (count[s.name] or 0) + 1 end
  end
  local by_id = {}
  for i, s in ipairs(skills) do
    local id = s.name
    if not id or count[id] > 1 then
      id = s.uri and (root_of(s.uri) or s.uri):gsub("^[%a][%w+.-]*://", "") or ("skill" .. i)
    end
    local base, k = id, 1
    while by_id[id] do
      k = k + 1
      id = ("%s#%d"):format(base, k)
    end
    s.id = id
    by_id[id] = s
  end
  return by_id
end

function Client:_skills_declared(method)
  if self._skills_off then
    return errors.new("ENOTSUP", ("%s: skills are off for this client (skills = false)")
      :format(method))
  end
  local caps = self.capabilities
  local ext = type(caps) == "table" and type(caps.extensions) == "table"
    and caps.extensions[M.EXTENSION]
  if ext ~= nil and ext ~= false and ext ~= core.null then return nil end
  return errors.new("ENOTSUP", ("%s: the server did not declare the extension %s")
    :format(method, M.EXTENSION))
end

--- syntax: yes = client:has_skills()
--- True when the server declared the skills extension.
function Client:has_skills()
  return self:_skills_declared("skills/list") == nil
end

--- syntax: skills, err = client:list_skills(opts?)
--- Every skill the server lists (skills/list, all pages), each a table:
--- id (the name, or the skill's path where names collide), name,
--- description, uri (of its SKILL.md), server (this client's name),
--- frontmatter and resources as listed, dynamic, entry (as sent), and
--- problem: why it cannot be loaded, or nil. Fetches no file. Kept in
--- client.skills until the next listing. An empty listing does not prove
--- a server has no skills: get_skill also takes a SKILL.md URI.
function Client:list_skills(opts)
  self:_check()
  local err = self:_skills_declared("skills/list")
  if err then return nil, err end
  local entries
  entries, err = self:_paginate("skills/list", "skills", opts)
  if not entries then return nil, err end
  local skills = setmetatable({}, array_mt)
  for i, e in ipairs(entries) do skills[i] = describe(self, e) end
  self.skills_by_id = assign_ids(skills)
  self.skills = skills
  return skills
end

-- get_skill takes several steps (list, read, skills/get, read again): its
-- timeout covers them all, each step getting what is left of it.
local function deadline_of(self, opts)
  return core.now() + (opts and opts.timeout and opts.timeout * 1000 or self._timeout)
end

local function left(opts, deadline)
  local o = {}
  for k, v in pairs(opts or {}) do o[k] = v end
  o.timeout = math.max(deadline - core.now(), 1) / 1000
  return o
end

-- The entry skills/get gives for a SKILL.md URI (SEP-2640 "Retrieval").
function Client:_get_skill_entry(uri, opts)
  local err = self:_skills_declared("skills/get")
  if err then return nil, err end
  local res
  res, err = self:request("skills/get", { uri = uri }, opts)
  if not res then
    if errors.is(err, "ERPC") and err.rpc_code == -32602 then
      err = errors.new("ENOENT", ("%s is not a skill of %s (%s)")
        :format(brief(uri), self.name, err.message), { rpc_code = err.rpc_code })
    end
    return nil, err
  end
  if type(res.skill) ~= "table" then
    return nil, errors.new("EPROTO", ("skills/get %s: the result holds no skill"):format(brief(uri)))
  end
  if res.skill.uri ~= uri then
    return nil, errors.new("EPROTO", ("skills/get %s: the result is the skill %s")
      :format(brief(uri), brief(res.skill.uri)))
  end
  return describe(self, res.skill)
end

-- The listed skill that name (an id, or a SKILL.md URI) names, looked up
-- in the last listing, then in a new one (a skill may have been added
-- since); a URI not listed is asked for with skills/get.
function Client:_find_skill(name, opts, deadline)
  local listed_now = false
  if not self.skills then
    local listed, err = self:list_skills(left(opts, deadline))
    if not listed then return nil, err end
    listed_now = true
  end
  local is_uri = name:match("^[%a][%w+.-]*://") ~= nil
  local function lookup()
    if not is_uri then return self.skills_by_id[name] end
    for _, skill in ipairs(self.skills) do
      if skill.uri == name then return skill end
    end
  end
  local s = lookup()
  if s then return s end
  if not listed_now then
    local listed, err = self:list_skills(left(opts, deadline))
    if not listed then return nil, err end
    s = lookup()
    if s then return s end
  end
  if is_uri then
    if not root_of(name) then
      return nil, errors.new("ENOENT", ("%s is not the URI of a SKILL.md"):format(brief(name)))
    end
    return self:_get_skill_entry(name, left(opts, deadline))
  end
  local ids = {}
  for _, skill in ipairs(self.skills) do
    if skill.name == name then ids[#ids + 1] = skill.id end
  end
  if #ids > 0 then
    return nil, errors.new("ENOENT", ("%s names several skills of %s: load one of %s")
      :format(brief(name), self.name, table.concat(ids, ", ")))
  end
  return nil, errors.new("ENOENT", ("%s has no skill %s"):format(self.name, brief(name)))
end

-- ---- fetching and verifying ---------------------------------------------------

-- The bytes of uri in a ReadResourceResult: its text, or its blob decoded.
-- want: the size the entry gives, checked before a blob is decoded.
local function content_bytes(res, uri, want)
  local contents = type(res) == "table" and res.contents
  if type(contents) ~= "table" then
    return nil, verify_error("content", uri, ("reading %s: the result has no contents"):format(uri))
  end
  local item
  for _, c in ipairs(contents) do
    if type(c) == "table" and c.uri == uri then
      if item then
        return nil, verify_error("content", uri, ("reading %s: the result holds it twice"):format(uri))
      end
      item = c
    end
  end
  if not item then
    return nil, verify_error("content", uri, ("reading %s: the result holds no content of that URI")
      :format(uri))
  end
  if type(item.text) == "string" then return item.text end
  if type(item.blob) == "string" then
    -- Base64 of n bytes is 4 * ceil(n / 3) characters: a blob too long for
    -- the size is a mismatch found without decoding it.
    if want and #item.blob > 4 * ((want + 2) // 3) + 4 then
      return nil, verify_error("size", uri, ("%s: the server sent more than the %d bytes listed")
        :format(uri, want), { expected = want })
    end
    local bytes, err = core.base64_decode(item.blob)
    if not bytes then
      return nil, verify_error("content", uri, ("%s: the blob is not base64 (%s)")
        :format(uri, err.message))
    end
    return bytes
  end
  return nil, verify_error("content", uri, ("reading %s: the content has neither text nor blob")
    :format(uri))
end

-- Size first (cheaper, and a mismatch whether or not the digest is
-- computed: SEP-2640 "Resources"), then the SHA-256 of the raw bytes.
local function check_file(bytes, f)
  if #bytes ~= f.size then
    return verify_error("size", f.uri, ("%s is %d bytes, but its server listed %d")
      :format(f.uri, #bytes, f.size), { expected = f.size, actual = #bytes })
  end
  local hex, err = core.sha256(bytes)
  if not hex then return err end
  local digest = "sha256:" .. hex
  if digest ~= f.digest then
    return verify_error("digest", f.uri, ("%s has the digest %s, but its server listed %s")
      :format(f.uri, digest, f.digest), { expected = f.digest, actual = digest })
  end
  return nil
end

-- Verified files kept by (uri, digest): a file whose digest is still the
-- listed one is not fetched again (SEP-2640 "Integrity and verification").
-- In memory only, and bounded: past the bound it starts over.
local function cache_get(self, f)
  local hit = self._skill_files and self._skill_files[f.uri]
  if hit and hit.digest == f.digest then return hit.bytes end
  return nil
end

local function cache_put(self, f, bytes)
  local kept = self._skill_files_bytes or 0
  if not self._skill_files or kept + #bytes > CACHE_BYTES then
    self._skill_files, kept = {}, 0
  end
  self._skill_files[f.uri] = { digest = f.digest, bytes = bytes }
  self._skill_files_bytes = kept + #bytes
end

-- The bytes of one file of a skill, verified against its manifest entry f
-- (nil for a "dynamic" skill, which has none: then only the size cap of
-- the skill applies, counted in budget.left).
function Client:_fetch_skill_file(uri, f, budget, opts)
  if f then
    local hit = cache_get(self, f)
    if hit then return hit end
  end
  local res, err = self:read_resource(uri, opts)
  if not res then return nil, err end
  local bytes
  bytes, err = content_bytes(res, uri, f and f.size)
  if not bytes then return nil, err end
  if f then
    err = check_file(bytes, f)
    if err then return nil, err end
    cache_put(self, f, bytes)
  else
    if #bytes > budget.left then
      return nil, errors.new("EREFUSED", ("%s: the dynamic skill's files pass %d bytes, "
        .. "the most a skill may have"):format(uri, M.MAX_BYTES))
    end
    budget.left = budget.left - #bytes
  end
  return bytes
end

-- JSON values equal: key order aside, types count (a string is not a
-- number, a list is not an object).
local function same_value(a, b)
  if type(a) ~= type(b) then return false end
  if type(a) ~= "table" then return a == b end
  if (getmetatable(a) == array_mt) ~= (getmetatable(b) == array_mt) then
    if next(a) ~= nil or next(b) ~= nil then return false end
  end
  for k, v in pairs(a) do
    if not same_value(v, b[k]) then return false end
  end
  for k in pairs(b) do
    if a[k] == nil then return false end
  end
  return true
end

-- The front matter of a fetched SKILL.md, compared field by field with
-- the one listed (SEP-2640 "Integrity and verification"): nil and the
-- parsed front matter and body when they agree.
local function check_frontmatter(text, listed, uri)
  local yaml, body = frontmatter.split(text)
  if not yaml then
    return nil, verify_error("frontmatter", uri, ("%s: %s"):format(uri, body))
  end
  local parsed, why = frontmatter.parse(yaml)
  if not parsed then
    return nil, verify_error("frontmatter", uri, ("%s: %s"):format(uri, why))
  end
  local fields = {}
  for k in pairs(listed) do fields[#fields + 1] = k end
  for k in pairs(parsed) do
    if listed[k] == nil then fields[#fields + 1] = k end
  end
  table.sort(fields, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(fields) do
    if not same_value(parsed[k], listed[k]) then
      return nil, verify_error("frontmatter", uri,
        ("%s: its front matter says %s: %s, but its server listed %s"):format(
          uri, tostring(k), parsed[k] == nil and "nothing" or brief(parsed[k]),
          listed[k] == nil and "nothing" or brief(listed[k])), { field = k })
    end
  end
  return parsed, (body:gsub("^[ \t]*\r?\n", ""))   -- the blank line after "---"
end

-- Loads the skill s: its SKILL.md fetched and verified.
function Client:_load_skill(s, opts, deadline)
  if s.problem then
    return nil, errors.new("EREFUSED", ("the skill %s of %s cannot be loaded: %s")
      :format(brief(s.id or s.uri), self.name, s.problem), { uri = s.uri })
  end
  if s.dynamic and not (opts and opts.allow_dynamic) then
    return nil, errors.new("EREFUSED", ("the skill %s of %s lists its files as \"dynamic\": "
      .. "nothing to verify them against (allow_dynamic loads it anyway)")
      :format(brief(s.id), self.name), { uri = s.uri })
  end
  local manifest = {}
  if not s.dynamic then
    for _, f in ipairs(s.resources) do manifest[f.uri] = f end
  end
  local budget = { left = M.MAX_BYTES }
  local text, err = self:_fetch_skill_file(s.uri, manifest[s.uri], budget, left(opts, deadline))
  if not text then return nil, err end
  local parsed, body = check_frontmatter(text, s.frontmatter, s.uri)
  if not parsed then return nil, body end
  return {
    id = s.id, name = s.name, description = s.description, uri = s.uri,
    server = self.name, root = root_of(s.uri), dynamic = s.dynamic,
    frontmatter = parsed, text = text, body = body,
    entry = s.entry,                  -- the entry held while acting on it
    _manifest = manifest, _budget = budget,
  }
end

-- Two entries with the same files and digests.
local function same_manifest(a, b)
  return same_value(a.resources, b.resources)
end

--- syntax: skill, err = client:get_skill(name, opts?)
--- Loads a skill: name is its id in list_skills (lists first when the
--- client has not), or the URI of its SKILL.md (asked for with skills/get
--- when not listed). Fetches its SKILL.md and verifies it: size and digest
--- against the entry, front matter field by field against the listed
--- one. After a mismatch the entry is asked for again (skills/get) and,
--- if the server now lists other files, the skill fetched once more.
--- Returns { id, name, description, uri, server, root, text (the whole
--- SKILL.md), body (after the front matter), frontmatter, entry }, or
--- nil and an mcp.error: EVERIFY (err.check: "size", "digest",
--- "frontmatter" or "content"; err.uri), EREFUSED (an entry that cannot
--- be loaded: invalid, over the limits of 512 files and 16 MiB, or
--- "dynamic" without opts.allow_dynamic), ENOENT, ENOTSUP, or a request's
--- error. opts: timeout (seconds, for all of its steps), allow_dynamic.
function Client:get_skill(name, opts)
  self:_check()
  if type(name) ~= "string" then
    error("bad argument #1 to 'get_skill' (string expected)", 2)
  end
  if opts ~= nil and type(opts) ~= "table" then
    error("bad argument #2 to 'get_skill' (table expected)", 2)
  end
  local deadline = deadline_of(self, opts)
  local s, err = self:_find_skill(name, opts, deadline)
  if not s then return nil, err end
  local skill
  skill, err = self:_load_skill(s, opts, deadline)
  if skill or not errors.is(err, "EVERIFY") then return skill, err end
  -- The recovery SEP-2640 describes: the entry again, and the files under
  -- it if it changed. Once: a server that keeps changing is not chased.
  local fresh, ferr = self:_get_skill_entry(s.uri, left(opts, deadline))
  if fresh and not same_manifest(fresh, s) then
    fresh.id = s.id
    return self:_load_skill(fresh, opts, deadline)
  end
  err.refresh = ferr and tostring(ferr) or "skills/get gave the same entry"
  return nil, err
end

-- A path relative to a skill's root resolved like a file path: nil when
-- it leaves the root or is not a plain relative path.
local function resolve_in(root, path)
  if path:match("^[%a][%w+.-]*:") or path:sub(1, 1) == "/" or path:find("[?#\\%z]") then
    return nil
  end
  local parts = {}
  for seg in path:gmatch("[^/]+") do
    if seg == ".." then
      if #parts == 0 then return nil end
      parts[#parts] = nil
    elseif seg ~= "." then
      parts[#parts + 1] = seg
    end
  end
  if #parts == 0 then return nil end
  return root .. "/" .. table.concat(parts, "/")
end

--- syntax: bytes, err = client:read_skill_file(skill, path, opts?)
--- A supporting file of a loaded skill (get_skill's result), fetched now:
--- path is relative to the skill's root (as SKILL.md refers to it, e.g.
--- "references/GUIDE.md") or a URI under it. Only a file the held entry
--- lists is read, and it is verified as SKILL.md was; anything else is
--- EVERIFY (check "unlisted") without a request. The file is plain
--- content: a nested SKILL.md read this way is not a loaded skill.
function Client:read_skill_file(skill, path, opts)
  self:_check()
  if type(skill) ~= "table" or type(skill._manifest) ~= "table" then
    error("bad argument #1 to 'read_skill_file' (a skill from get_skill expected)", 2)
  end
  if type(path) ~= "string" then
    error("bad argument #2 to 'read_skill_file' (string expected)", 2)
  end
  if skill.server ~= self.name then
    error("bad argument #1 to 'read_skill_file' (a skill of another server)", 2)
  end
  local uri
  if path:sub(1, #skill.root + 1) == skill.root .. "/" then
    uri = resolve_in(skill.root, path:sub(#skill.root + 2))
  else
    uri = resolve_in(skill.root, path)
  end
  if not uri then
    return nil, verify_error("unlisted", path, ("%s is not a path inside the skill %s")
      :format(brief(path), skill.root))
  end
  local f = skill._manifest[uri]
  if not skill.dynamic and not f then
    return nil, verify_error("unlisted", uri, ("%s is not among the files the skill's entry lists")
      :format(uri))
  end
  return self:_fetch_skill_file(uri, f, skill._budget, opts)
end

--- mcp.connect's option skills = false: the client neither declares the
--- extension nor lists or loads skills.
function M.on_connect(self, opts)
  self._skills_off = opts.skills == false
end

--- The extension declared in the client's capabilities: the client reads
--- skills (SEP-2133's generic rule; SEP-2640 defines no settings).
function M.capabilities(self, caps)
  if self._skills_off then return end
  caps.extensions = caps.extensions or {}
  caps.extensions[M.EXTENSION] = {}
end

return M
