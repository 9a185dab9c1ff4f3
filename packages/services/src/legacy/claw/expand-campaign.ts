import type { ClawExpansion, clawOperations, OperationInput } from "@crs/contract";
import {
  buildDebtorGraph,
  DEBTOR_GRAPH_SOURCES,
  DEFAULT_MAX_LEADS,
  EXPANSION_TYPES,
  formatTimestamp,
  proposeLeads,
  type ClawExpansion as StoredExpansion,
} from "@crs/core";
import type { WriteContext } from "../../context";
import { assertCampaignGates } from "./campaign-gates";
import { lockCampaignForWrite } from "./load-campaign";
import { loadPursuedFacts } from "./pursued-parties";
import { writeCampaign } from "./write-campaign";

/**
 * Proposes leads from each pursued party's debtor graph (built from the record: parties, judgments,
 * asset maps traced from its wallets) and keeps them as the campaign's expand queue (replacing the
 * previous one) in the same transaction as its event.
 */
export async function expandCampaign(
  write: WriteContext,
  { params, body }: OperationInput<typeof clawOperations.expand>,
): Promise<ClawExpansion> {
  const { tx, actor } = write;
  const { matter, campaign: current } = await lockCampaignForWrite(tx, actor, params.campaign_id);
  const gateFacts = await assertCampaignGates(write, matter, current.judgmentId);

  const facts = await loadPursuedFacts(tx, actor, current, { judgments: true });
  const types = EXPANSION_TYPES.filter((type) => body.expansion_types?.includes(type) ?? true);
  const maxLeads = body.max_leads ?? DEFAULT_MAX_LEADS;
  const { leads, total } = proposeLeads(
    facts.map((entry) => ({ party: entry.debtor, graph: buildDebtorGraph(entry, DEBTOR_GRAPH_SOURCES) })),
    types,
    maxLeads,
  );
  const expansion: StoredExpansion = {
    expansion_types: types,
    max_leads: maxLeads,
    leads,
    total_leads: total,
    expanded_at: formatTimestamp(write.clock()),
  };
  await writeCampaign(write, matter, current, gateFacts, { expansion }, "expanded", { expansion });
  return { object: "claw_expansion", campaign_id: current.id, ...expansion, truncated: total > leads.length };
}
