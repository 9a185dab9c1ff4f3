import type { MatterDashboard } from "@crs/contract";
import { deriveRecoveryPhase, formatTimestamp, type MatterStatus } from "@crs/core";
import type { Actor, ServiceDeps } from "../context";
import { loadMatter } from "./load-matter";

/**
 * The dashboard's fields are final. Judgments, traces, packets, ledger and reviews arrive in
 * later issues; until their tables exist, the figures they feed are truly zero for every matter.
 */
export async function retrieveMatterDashboard(
  deps: ServiceDeps,
  actor: Actor,
  matterId: string,
): Promise<MatterDashboard> {
  const matter = await loadMatter(deps.db, actor, matterId);
  const currency = String((matter.economics as { currency?: string }).currency ?? "USD");
  const valuationTime = formatTimestamp(deps.clock());
  const zero = (cur: string) => ({ amount: 0, currency: cur, valuation_time: valuationTime });
  const phase = deriveRecoveryPhase({
    status: matter.status as MatterStatus,
    succeededTraces: 0,
    packets: 0,
    exportedPackets: 0,
    remittances: 0,
    settled: false,
  });
  return {
    object: "matter_dashboard",
    matter_id: matter.id,
    judgment_value: zero(currency),
    known_crypto_exposure: zero("USD"),
    open_actions: 0,
    open_packets: 0,
    alerts: 0,
    recovery_events: 0,
    platform_economics: zero(currency),
    ...phase,
    packets: 0,
    remittances: 0,
  };
}
