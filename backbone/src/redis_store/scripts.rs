//! The Lua scripts behind every multi-key write. Redis runs a script without
//! interleaving any other command, which is what makes "store if absent and
//! count only then" atomic across workers.
//!
//! Counter names and increments are always computed in Rust (`Tally`) and
//! passed as `field, increment` pairs, so the scripts never know a name.
//!
//! Every write for a sweep carries the sweep's epoch (last KEY: the epoch
//! key, last ARGV: the epoch the writer registered with) and returns -1,
//! writing nothing, when the store holds another one or none: a Redis that
//! came back empty is never written into as if it still held the sweep.

use redis::Script;
use std::sync::LazyLock;

/// Stores a result if absent; only then clears a failure of the same job
/// (undoing its counters) and adds the result's counters.
///
/// KEYS: results, failures, failure undo, counters, epoch.
/// ARGV: job id, result JSON, then `field, increment` pairs, then the epoch.
/// Returns 1 when new, 0 when the job already had a result.
pub(crate) static RECORD: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
if redis.call('GET', KEYS[5]) ~= ARGV[#ARGV] then
  return -1
end
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then
  return 0
end
if redis.call('HDEL', KEYS[2], ARGV[1]) == 1 then
  local undo = redis.call('HGET', KEYS[3], ARGV[1])
  redis.call('HDEL', KEYS[3], ARGV[1])
  if undo then
    -- A flat JSON array of strings: field, negated increment, ...
    local negated = cjson.decode(undo)
    for i = 1, #negated, 2 do
      redis.call('HINCRBY', KEYS[4], negated[i], negated[i + 1])
    end
  end
end
for i = 3, #ARGV - 1, 2 do
  redis.call('HINCRBY', KEYS[4], ARGV[i], ARGV[i + 1])
end
return 1
"#,
    )
});

/// Records a dead letter if the job has neither a result nor a failure, with
/// the negated counters `RECORD` applies should a result arrive later.
///
/// KEYS: results, failures, failure undo, counters, epoch.
/// ARGV: job id, failure JSON, undo JSON, `field, increment` pairs, epoch.
/// Returns 1 when new, 0 otherwise.
pub(crate) static FAIL: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
if redis.call('GET', KEYS[5]) ~= ARGV[#ARGV] then
  return -1
end
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  return 0
end
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2]) == 0 then
  return 0
end
redis.call('HSET', KEYS[3], ARGV[1], ARGV[3])
for i = 4, #ARGV - 1, 2 do
  redis.call('HINCRBY', KEYS[4], ARGV[i], ARGV[i + 1])
end
return 1
"#,
    )
});

/// Adds counter increments (the provider's bill of requests sent).
///
/// KEYS: the sweep's counters, its epoch.
/// ARGV: `field, increment` pairs, then the epoch.
/// Returns 1, or -1 when the epoch is not the store's.
pub(crate) static COUNT: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
if redis.call('GET', KEYS[2]) ~= ARGV[#ARGV] then
  return -1
end
for i = 1, #ARGV - 1, 2 do
  redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1])
end
return 1
"#,
    )
});

/// Bills a call and charges it to a sweep once. The cache entry is written
/// apart (after this), so every key here is the sweep's.
///
/// KEYS: the sweep's charged calls (a set), its counters, its epoch.
/// ARGV: call, n, then n `field, increment` pairs added every time (the
/// provider's bill; n = 0 for a cache hit), then the pairs added only the
/// first time the sweep is charged for this call, then the epoch.
/// Returns 1 when the charge is new, 0 otherwise.
pub(crate) static CHARGE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
if redis.call('GET', KEYS[3]) ~= ARGV[#ARGV] then
  return -1
end
local billed = tonumber(ARGV[2])
local once = 3 + 2 * billed
for i = 3, once - 1, 2 do
  redis.call('HINCRBY', KEYS[2], ARGV[i], ARGV[i + 1])
end
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then
  return 0
end
for i = once, #ARGV - 1, 2 do
  redis.call('HINCRBY', KEYS[2], ARGV[i], ARGV[i + 1])
end
return 1
"#,
    )
});

/// One GCRA step, the arithmetic of `limiter::gcra`, on the server's clock.
///
/// KEYS: the bucket (its TAT in seconds, as a decimal string).
/// ARGV: seconds per unit, burst, cost.
/// Returns 0 when admitted, else the wait in whole microseconds (rounded
/// up, so a caller that sleeps it is never early).
pub(crate) static TAKE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
local interval = tonumber(ARGV[1])
local burst = math.max(tonumber(ARGV[2]), 1)
local cost = tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
local new_tat = math.max(tat, now) + cost * interval
local allow_at = new_tat - burst * interval
if tat <= now or allow_at <= now then
  -- Once now passes the TAT the bucket is full again, which is exactly
  -- what a missing key means: let it expire then.
  local ttl = math.max(math.ceil((new_tat - now) * 1000), 1)
  redis.call('SET', KEYS[1], string.format('%.6f', new_tat), 'PX', ttl)
  return 0
end
return math.max(math.ceil((allow_at - now) * 1000000), 1)
"#,
    )
});

/// Shifts a bucket's TAT by `delta` units, never below now.
///
/// KEYS: the bucket. ARGV: seconds per unit, delta (units, signed).
pub(crate) static ADJUST: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        r#"
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
local interval = tonumber(ARGV[1])
local delta = tonumber(ARGV[2])
local tat = math.max(tonumber(redis.call('GET', KEYS[1]) or '0') or 0, now)
local new_tat = math.max(tat + delta * interval, now)
local ttl = math.ceil((new_tat - now) * 1000)
if ttl <= 0 then
  -- A TAT at now is a full bucket: the same as no key at all.
  redis.call('DEL', KEYS[1])
else
  redis.call('SET', KEYS[1], string.format('%.6f', new_tat), 'PX', ttl)
end
return 0
"#,
    )
});
