import type { NetworkAttribution, networkAttributionOperations, OperationInput } from "@crs/contract";
import type { ReadContext } from "../../context";
import { loadMatterSignals, loadNetworkSignal } from "./load-network-signals";
import { presentNetworkAttribution } from "./present-network-attribution";

export async function retrieveNetworkAttribution(
  read: ReadContext,
  { params }: OperationInput<typeof networkAttributionOperations.get>,
): Promise<NetworkAttribution> {
  const row = await loadNetworkSignal(read.db, read.actor, params.network_attribution_id);
  return presentNetworkAttribution(row, await loadMatterSignals(read.db, read.actor, row.matterId));
}
