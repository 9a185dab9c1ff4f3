import { randomBytes } from "node:crypto";
import { formatId, ID_PREFIXES, type IdKind, RANDOM_BYTES_PER_ID } from "@crs/core";

/** Ids from the wall clock and the system RNG: the I/O half of core's pure `formatId`. */
export function newId(kind: IdKind, now: number = Date.now()): string {
  return formatId(ID_PREFIXES[kind], now, randomBytes(RANDOM_BYTES_PER_ID));
}
