import { CURRENT_VERSION, type Health } from "@crs/contract";
import { formatTimestamp } from "@crs/core";
import { sql } from "drizzle-orm";
import type { ServiceDeps } from "../context";

export async function checkHealth(deps: ServiceDeps, environment: "sandbox" | "live"): Promise<Health> {
  let storeStatus: "ok" | "unavailable" = "ok";
  try {
    await deps.db.execute(sql`select 1`);
  } catch {
    storeStatus = "unavailable";
  }
  return {
    object: "health",
    status: storeStatus === "ok" ? "ok" : "degraded",
    version: CURRENT_VERSION,
    environment,
    store: { kind: "postgres", status: storeStatus },
    timestamp: formatTimestamp(deps.clock()),
  };
}
