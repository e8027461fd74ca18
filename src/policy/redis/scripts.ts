/**
 * The Lua scripts of the Redis policy store: each decision is one script, which Redis runs
 * alone (no other command of any client interleaves), so concurrent requests of any number
 * of processes can never be over-admitted. Times are the application's clock (milliseconds,
 * passed in), never Redis's, so the injected clock of tests rules here too.
 *
 * Keys: burst `…:burst:{account}:{class}:{pool}` (sorted set of slot ids by time), pool
 * `…:pool:{account}:{pool}` (hash start, end, used), cooldown `…:cooldown:{account}:{name}`
 * (last time), in-flight `…:inflight` (hash slot id → reservation JSON with its owner).
 */

/**
 * KEYS: cooldown, burst, pool, inflight, seq.
 * ARGV: now, windowMs, burstSize, cost, allowPartial (1/0), poolLimit, period, monthStart,
 * monthEnd, cooldownName ('' for none), cooldownMs, reservation JSON (without ids), owner.
 * Returns {0, 'cooldown'|'burst', retryAfter} | {0, 'credit'} | {1, slotId, reserved, startedPeriod, previousCooldown|''}.
 */
export const ADMIT = `
local now = tonumber(ARGV[1])
local previous = ''
if ARGV[10] ~= '' then
  local last = redis.call('GET', KEYS[1])
  if last then
    last = tonumber(last)
    local ms = tonumber(ARGV[11])
    if now - last <= ms then
      return {0, 'cooldown', math.max(1, math.ceil((last + ms - now) / 1000))}
    end
    previous = tostring(last)
  end
end
local windowMs = tonumber(ARGV[2])
local windowStart = now - windowMs
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. tostring(windowStart - 1))
if redis.call('ZCOUNT', KEYS[2], windowStart, '+inf') >= tonumber(ARGV[3]) then
  return {0, 'burst', math.ceil(windowMs / 1000)}
end
local usage = redis.call('HMGET', KEYS[3], 'start', 'end', 'used')
local running = usage[2] and now < tonumber(usage[2])
local used = 0
if running then used = tonumber(usage[3]) end
local remaining = math.max(0, tonumber(ARGV[6]) - used)
local cost = tonumber(ARGV[4])
local reserve = cost
if ARGV[5] == '1' and cost > 0 then
  if remaining < 1 then return {0, 'credit'} end
  reserve = math.min(cost, remaining)
elseif remaining < cost then
  return {0, 'credit'}
end
local id = redis.call('INCR', KEYS[5])
redis.call('ZADD', KEYS[2], now, id)
redis.call('PEXPIRE', KEYS[2], 600000)
local started = 0
if reserve > 0 then
  if running then
    redis.call('HINCRBY', KEYS[3], 'used', reserve)
  else
    local s = now
    local e = now + 86400000
    if ARGV[7] == 'monthly' then
      s = tonumber(ARGV[8])
      e = tonumber(ARGV[9])
    end
    redis.call('HSET', KEYS[3], 'start', s, 'end', e, 'used', reserve)
    started = 1
  end
end
if ARGV[10] ~= '' then redis.call('SET', KEYS[1], now) end
local r = cjson.decode(ARGV[12])
r.inflightId = id
r.burstEventId = id
r.reserved = reserve
r.startedPeriod = (started == 1)
if ARGV[10] ~= '' then
  local p = cjson.null
  if previous ~= '' then p = tonumber(previous) end
  r.cooldown = {name = ARGV[10], previousMs = p}
end
redis.call('HSET', KEYS[4], id, cjson.encode({owner = ARGV[13], reservation = r}))
return {1, id, reserve, started, previous}
`;

/**
 * KEYS: inflight, pool. ARGV: slot id, charged − reserved.
 * Settles a reservation: once only (the in-flight entry is the proof it is still open).
 */
export const COMMIT = `
if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return 0 end
local delta = tonumber(ARGV[2])
if delta ~= 0 and redis.call('EXISTS', KEYS[2]) == 1 then
  local used = tonumber(redis.call('HGET', KEYS[2], 'used')) + delta
  if used < 0 then used = 0 end
  redis.call('HSET', KEYS[2], 'used', used)
end
return 1
`;

/**
 * KEYS: inflight, burst, pool, cooldown. ARGV: slot id, reserved, startedPeriod (1/0),
 * cooldown previous ('' none, '-' no cooldown). Undoes an admission, once only.
 */
export const RELEASE = `
if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
local reserved = tonumber(ARGV[2])
if reserved > 0 and redis.call('EXISTS', KEYS[3]) == 1 then
  local used = tonumber(redis.call('HGET', KEYS[3], 'used'))
  if ARGV[3] == '1' and used <= reserved then
    redis.call('DEL', KEYS[3])
  else
    used = used - reserved
    if used < 0 then used = 0 end
    redis.call('HSET', KEYS[3], 'used', used)
  end
end
if ARGV[4] == '' then
  redis.call('DEL', KEYS[4])
elseif ARGV[4] ~= '-' then
  redis.call('SET', KEYS[4], ARGV[4])
end
return 1
`;

/** KEYS: pool. ARGV: units, chargedAtMs, now. Gives units back to the period that holds the charge, if it still runs. */
export const REFUND = `
local usage = redis.call('HMGET', KEYS[1], 'start', 'end', 'used')
if not usage[2] then return 0 end
local now = tonumber(ARGV[3])
if now >= tonumber(usage[2]) or tonumber(usage[1]) > tonumber(ARGV[2]) then return 0 end
local used = tonumber(usage[3]) - tonumber(ARGV[1])
if used < 0 then used = 0 end
redis.call('HSET', KEYS[1], 'used', used)
return 1
`;

/**
 * KEYS: the address's window. ARGV: now, rps, unique member. The gateway's sliding second,
 * inclusive like the burst windows; a refused request is not recorded.
 */
export const GATEWAY = `
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. tostring(now - 1000))
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('PEXPIRE', KEYS[1], 5000)
return 1
`;

/** KEYS: the flight. ARGV: its owner token. Deletes the claim only if it is still this owner's. */
export const UNCLAIM = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/**
 * KEYS: the account's free-write bucket (hash units, at). ARGV: now, perMinute, units.
 * The token bucket of policy/fairUse.ts: refilled continuously by the application's clock,
 * a write larger than the bucket waits for a full one. Returns {1} or {0, retryAfter}.
 */
export const FREE_WRITE = `
local now = tonumber(ARGV[1])
local per = tonumber(ARGV[2])
local needed = math.min(tonumber(ARGV[3]), per)
local rate = per / 60000
local b = redis.call('HMGET', KEYS[1], 'units', 'at')
local units = per
if b[1] then units = math.min(per, tonumber(b[1]) + math.max(0, now - tonumber(b[2])) * rate) end
local ok = units >= needed
if ok then units = units - needed end
redis.call('HSET', KEYS[1], 'units', tostring(units), 'at', tostring(now))
-- A bucket untouched for a minute is full again: forgetting it is the same.
redis.call('PEXPIRE', KEYS[1], 600000)
if ok then return {1} end
return {0, math.max(1, math.ceil((needed - units) / rate / 1000))}
`;

/**
 * KEYS: the account's holders (hash token → owner process). ARGV: limit, token, owner,
 * prefix of the owners' liveness keys. Drops the holders of processes whose liveness lease
 * ran out (they died holding), then takes a slot if fewer than `limit` are held. Returns 1 or 0.
 */
export const TAKE_SLOT = `
local all = redis.call('HGETALL', KEYS[1])
local n = 0
for i = 1, #all, 2 do
  if redis.call('EXISTS', ARGV[4] .. all[i + 1]) == 1 then n = n + 1 else redis.call('HDEL', KEYS[1], all[i]) end
end
if n >= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
return 1
`;

/**
 * KEYS: the account's export places (hash job id → owner process). ARGV: limit, job id,
 * owner, prefix of the liveness keys, JSON ids of the account's live jobs (read just before),
 * JSON ids of places whose jobs are stored and finished. Drops the finished and the dead
 * owners' places; the account's exports are the union of live jobs and places (a job stored
 * after the caller read the queue still has its place), and a place is taken if that union
 * is under `limit`. Returns 1 or 0.
 */
export const TAKE_EXPORT = `
for _, id in ipairs(cjson.decode(ARGV[6])) do redis.call('HDEL', KEYS[1], id) end
local seen = {}
local n = 0
for _, id in ipairs(cjson.decode(ARGV[5])) do
  if not seen[id] then seen[id] = true; n = n + 1 end
end
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local id = all[i]
  if redis.call('EXISTS', ARGV[4] .. all[i + 1]) == 0 then
    redis.call('HDEL', KEYS[1], id)
  elseif not seen[id] then
    seen[id] = true
    n = n + 1
  end
end
if n >= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
return 1
`;
