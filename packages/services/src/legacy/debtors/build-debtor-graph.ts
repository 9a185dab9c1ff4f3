import type { DebtorGraph, debtorOperations, OperationInput } from "@crs/contract";
import { buildDebtorGraph as buildGraph, DEBTOR_GRAPH_SOURCES, formatTimestamp } from "@crs/core";
import type { WriteContext } from "../../context";
import { loadDebtor } from "./load-debtor";
import { loadDebtorFacts } from "./load-debtor-facts";

/**
 * The debtor's graph, computed from its recorded facts. It records nothing and appends no events:
 * it runs on the write path only so that an Idempotency-Key keeps its answer (and its graph_id).
 */
export async function buildDebtorGraph(
  write: WriteContext,
  { params, body }: OperationInput<typeof debtorOperations.graph>,
): Promise<DebtorGraph> {
  const debtor = await loadDebtor(write.tx, write.actor, params.debtor_id);
  const include = DEBTOR_GRAPH_SOURCES.filter((source) => body.include_sources?.includes(source) ?? true);
  const facts = await loadDebtorFacts(write.tx, write.actor, debtor, {
    judgments: include.includes("judgments"),
    assetMaps: include.includes("asset_maps"),
  });
  const graph = buildGraph(facts, include);
  const graphId = write.newId("debtorGraph");
  return {
    object: "debtor_graph",
    id: graphId,
    graph_id: graphId,
    debtor_id: debtor.id,
    matter_id: debtor.matterId,
    include_sources: include,
    ...graph,
    source_refs: body.source_refs ?? [],
    asset_maps_read: facts.assetMapsRead,
    generated_at: formatTimestamp(write.clock()),
  };
}
