import { randomFillSync } from "node:crypto";
import { formatId, ID_PREFIXES, type IdKind, RANDOM_BYTES_PER_ID } from "@crs/core";

/**
 * Random bytes for ids come from a pool refilled from the system RNG 4 KiB at a time (as Node's
 * randomUUID does): one getrandom call per ~400 ids instead of one per id, the same bytes' quality.
 * Every id takes bytes no other id took; a refill writes a new buffer, so nothing handed out changes.
 */
const POOL_IDS = 409;
let pool = new Uint8Array(0);
let offset = 0;

function randomIdBytes(): Uint8Array {
  if (offset + RANDOM_BYTES_PER_ID > pool.length) {
    pool = randomFillSync(new Uint8Array(POOL_IDS * RANDOM_BYTES_PER_ID));
    offset = 0;
  }
  const bytes = pool.subarray(offset, offset + RANDOM_BYTES_PER_ID);
  offset += RANDOM_BYTES_PER_ID;
  return bytes;
}

/** Ids from the wall clock and the system RNG: the I/O half of core's pure `formatId`. */
export function newId(kind: IdKind, now: number = Date.now()): string {
  return formatId(ID_PREFIXES[kind], now, randomIdBytes());
}
