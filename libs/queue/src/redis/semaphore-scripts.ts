/**
 * Lua for the distributed fair semaphore. One semaphore = three keys sharing a hash tag:
 *   tickets  ZSET ticket -> arrival sequence (waiting and holding tickets together, oldest first)
 *   leases   ZSET ticket -> expiry in ms (Redis clock), pushed forward by the owner's heartbeat
 *   seq      counter giving arrival order, deleted whenever the queue empties so idle groups leave no keys
 * A ticket holds a slot exactly when its rank in `tickets` is below the limit: admission is in arrival order, so
 * the holders are always the oldest tickets, and a release or expiry lets the next oldest in.
 * Time comes from Redis TIME so gateways with skewed clocks agree on when a lease is over.
 */
const PRELUDE = `
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function forget_if_empty(tickets, seq)
  if redis.call('ZCARD', tickets) == 0 then redis.call('DEL', seq) end
end
local function purge_expired(tickets, leases, seq, now)
  local expired = redis.call('ZRANGEBYSCORE', leases, '-inf', now)
  for _, ticket in ipairs(expired) do
    redis.call('ZREM', tickets, ticket)
    redis.call('ZREM', leases, ticket)
  end
  forget_if_empty(tickets, seq)
  return #expired
end
`;

/** KEYS tickets leases seq; ARGV ticket leaseMs limit channel semaphoreId → 1 admitted, 0 waiting. */
export const ENQUEUE = `${PRELUDE}
local now = now_ms()
if purge_expired(KEYS[1], KEYS[2], KEYS[3], now) > 0 then redis.call('PUBLISH', ARGV[4], ARGV[5]) end
local seq = redis.call('INCR', KEYS[3])
redis.call('ZADD', KEYS[1], seq, ARGV[1])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[2]), ARGV[1])
if redis.call('ZRANK', KEYS[1], ARGV[1]) < tonumber(ARGV[3]) then return 1 end
return 0
`;

/** KEYS tickets leases seq; ARGV ticket limit channel semaphoreId → 1 admitted, 0 waiting, -1 ticket gone (lease expired). */
export const TRY_ADMIT = `${PRELUDE}
if purge_expired(KEYS[1], KEYS[2], KEYS[3], now_ms()) > 0 then redis.call('PUBLISH', ARGV[3], ARGV[4]) end
local rank = redis.call('ZRANK', KEYS[1], ARGV[1])
if not rank then return -1 end
if rank < tonumber(ARGV[2]) then return 1 end
return 0
`;

/** KEYS tickets leases seq; ARGV ticket channel semaphoreId → 1 if the ticket was still there. */
export const RELEASE = `${PRELUDE}
local removed = redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
forget_if_empty(KEYS[1], KEYS[3])
if removed > 0 then redis.call('PUBLISH', ARGV[2], ARGV[3]) end
return removed
`;

/** KEYS tickets leases seq; ARGV leaseMs channel semaphoreId ticket... → the tickets that were no longer there. */
export const HEARTBEAT = `${PRELUDE}
local now = now_ms()
if purge_expired(KEYS[1], KEYS[2], KEYS[3], now) > 0 then redis.call('PUBLISH', ARGV[2], ARGV[3]) end
local lost = {}
for i = 4, #ARGV do
  if redis.call('ZSCORE', KEYS[1], ARGV[i]) then
    redis.call('ZADD', KEYS[2], now + tonumber(ARGV[1]), ARGV[i])
  else
    table.insert(lost, ARGV[i])
  end
end
return lost
`;
