import type { Event } from "@crs/contract";
import { type schema, toChainEvent } from "@crs/db";

/** An event exactly as it was signed: anyone can recompute its hash from this JSON. */
export function presentEvent(row: typeof schema.events.$inferSelect): Event {
  return toChainEvent(row) as Event;
}
