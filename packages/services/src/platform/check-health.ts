import { CURRENT_VERSION, type Health, LEGACY_VERSION } from "@crs/contract";
import { formatTimestamp } from "@crs/core";
import { sql } from "drizzle-orm";
import type { PublicContext } from "../context";

/** Answers 200 when the database answers, 503 (status degraded) when it does not. */
export async function checkHealth(context: PublicContext): Promise<Health> {
  let storeStatus: "ok" | "unavailable" = "ok";
  try {
    await context.db.execute(sql`select 1`);
  } catch {
    storeStatus = "unavailable";
  }
  return {
    object: "health",
    status: storeStatus === "ok" ? "ok" : "degraded",
    // The version this listener answers: the legacy one answers only 2026-06-11.
    version: context.surface === "legacy" ? LEGACY_VERSION : CURRENT_VERSION,
    environment: context.actor?.environment ?? "sandbox",
    store: { kind: "postgres", status: storeStatus },
    timestamp: formatTimestamp(context.clock()),
  };
}
