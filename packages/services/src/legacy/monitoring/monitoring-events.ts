import type { WriteContext } from "../../context";
import type { MatterRow } from "../../matters/present-matter";
import { recordMatterNote } from "../../matters/record-matter-note";

/** What changed, as `data.monitoring_change` of the `matter.updated` event that records it. */
export type MonitoringChange = "watchlist.created" | "watchlist.addresses_added" | "alert.raised" | "alert.triaged";

/**
 * The catalog has no watchlist or alert event: each monitoring change appends `matter.updated` on the
 * watchlist's or alert's matter, with `monitoring_change` naming the change and the changed resource
 * beside the matter (as the operator procedures record their decisions).
 */
export function recordMonitoringChange(
  write: WriteContext,
  matter: MatterRow,
  change: MonitoringChange,
  details: Record<string, unknown>,
): void {
  recordMatterNote(write, matter, { monitoring_change: change, ...details });
}
