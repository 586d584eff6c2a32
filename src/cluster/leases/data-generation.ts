/**
 * The Lua function the scripts that count the data generation share: whether Redis lost data less than a lease ago,
 * and the generation now (docs/cluster.md#inv-lease-6). The caller names the keys and passes the generation it last saw.
 */
export const DATA_GENERATION_LUA = `
local function emptied(generation, marker, seen, ttl)
  local now = redis.call('INCR', generation)
  if now == 1 or now <= tonumber(seen) then
    redis.call('SET', marker, '1', 'PX', ttl)
    return 1, now
  end
  return redis.call('EXISTS', marker), now
end
`;
