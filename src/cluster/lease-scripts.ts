// The directory's Lua scripts. Each reads and writes in one step, so two nodes never both win.
// A lease is a hash {node, url, fence} with a TTL.

/**
 * Whether Redis lost data less than a lease ago, as a script sees it, and the
 * data's generation now; the caller names the keys. Every script of a node
 * counts the generation up (a key without expiry) and passes the value it last
 * got: a count that starts over (FLUSHALL, a restart without persistence) or
 * goes back below what the node saw (a restart from an older snapshot, a
 * replica promoted behind its primary) means writes were lost, and starts a
 * marker that lasts one lease. Every node heartbeats every third of a lease,
 * so the marker starts at most that long after the loss: meanwhile a heartbeat
 * or lease that is missing says nothing of whether its node is alive.
 */
const EMPTIED = `
local function emptied(generation, marker, seen, ttl)
  local now = redis.call('INCR', generation)
  if now == 1 or now <= tonumber(seen) then
    redis.call('SET', marker, '1', 'PX', ttl)
    return 1, now
  end
  return redis.call('EXISTS', marker), now
end
`;

/**
 * KEYS: lease, fence counter, the previous owner's heartbeat, this node's,
 * the data generation, the emptied marker.
 * ARGV: node, url, ttl, floor, whether to look at the previous owner's
 * heartbeat ('1'), the generation this node last saw. Wins when absent or already this node's; the fence is
 * above `floor` (the highest one recorded outside Redis) even when Redis lost
 * its counter — which it reports as a reset — whether Redis lost its data
 * less than a lease ago, and whether each heartbeat is there.
 */
export const CLAIM = `${EMPTIED}
local lost, generation = emptied(KEYS[5], KEYS[6], ARGV[6], ARGV[3])
local node = redis.call('HGET', KEYS[1], 'node')
if node and node ~= ARGV[1] then
  return {0, node, redis.call('HGET', KEYS[1], 'url'), redis.call('HGET', KEYS[1], 'fence'), 0, 0, 0, lost, generation}
end
local fence = redis.call('INCR', KEYS[2])
local reset = 0
if fence <= tonumber(ARGV[4]) then
  fence = tonumber(ARGV[4]) + 1
  reset = 1
  redis.call('SET', KEYS[2], fence)
end
redis.call('HSET', KEYS[1], 'node', ARGV[1], 'url', ARGV[2], 'fence', fence)
redis.call('PEXPIRE', KEYS[1], ARGV[3])
local alive = 0
if ARGV[5] == '1' then alive = redis.call('EXISTS', KEYS[3]) end
return {1, ARGV[1], ARGV[2], tostring(fence), reset, alive, redis.call('EXISTS', KEYS[4]), lost, generation}
`;

/**
 * KEYS: the node's heartbeat, the data generation, the emptied marker. ARGV:
 * the node's record, ttl, whether to refresh only ('1': the record of a
 * heartbeat that is there, keeping its expiry), the generation this node last
 * saw. Answers the generation now.
 */
export const HEARTBEAT = `${EMPTIED}
local _, generation = emptied(KEYS[2], KEYS[3], ARGV[4], ARGV[2])
if ARGV[3] == '1' then redis.call('SET', KEYS[1], ARGV[1], 'XX', 'KEEPTTL')
else redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
return generation
`;

/**
 * KEYS: the outbox's claim, the data generation, the emptied marker. ARGV:
 * this node, the claim's ttl, the lease's, the generation this node last saw.
 * Answers whether the claim was taken, and the generation now. Refused while
 * Redis lost data less than a lease ago: live nodes may have no heartbeat
 * until their next tick, and must not look dead.
 */
export const CLAIM_OUTBOX = `${EMPTIED}
local lost, generation = emptied(KEYS[2], KEYS[3], ARGV[4], ARGV[3])
if lost == 0 and redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return {1, generation} end
return {0, generation}
`;

/**
 * KEYS: fence counter, lease 1..n. ARGV: node, url, ttl, fence 1..n.
 * Extends each lease still carrying this node's name and fence (1); re-creates one that is
 * gone (expired while nobody claimed it, or Redis lost its data) and keeps
 * the counter at least that high (2); reports 0 for a lease another claim took.
 * A fence written `x<fence>` is only extended, never re-created: a lease
 * that went stale while Redis was unreachable may have been claimed by
 * another node just before, and that claim lost with Redis's data.
 */
export const RENEW = `
local out = {}
for i = 2, #KEYS do
  local fence = ARGV[i + 2]
  local extendOnly = string.sub(fence, 1, 1) == 'x'
  if extendOnly then fence = string.sub(fence, 2) end
  local current = redis.call('HMGET', KEYS[i], 'node', 'fence')
  if current[1] == ARGV[1] and current[2] == fence then
    redis.call('PEXPIRE', KEYS[i], ARGV[3])
    out[i - 1] = 1
  elseif not current[2] and not extendOnly then
    redis.call('HSET', KEYS[i], 'node', ARGV[1], 'url', ARGV[2], 'fence', fence)
    redis.call('PEXPIRE', KEYS[i], ARGV[3])
    if tonumber(redis.call('GET', KEYS[1]) or '0') < tonumber(fence) then redis.call('SET', KEYS[1], fence) end
    out[i - 1] = 2
  else
    out[i - 1] = 0
  end
end
return out
`;

/** KEYS: lease. ARGV: fence. Deletes the lease only while it carries this fence. */
export const RELEASE = `
if redis.call('HGET', KEYS[1], 'fence') == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;
