import type { ClawCampaign, clawOperations, OperationInput } from "@crs/contract";
import type { ReadContext } from "../../context";
import { loadMatter } from "../../matters/load-matter";
import { readGateFacts } from "./campaign-gates";
import { loadCampaign } from "./load-campaign";
import { presentCampaign } from "./present-campaign";

export async function retrieveCampaign(
  read: ReadContext,
  { params }: OperationInput<typeof clawOperations.get>,
): Promise<ClawCampaign> {
  const row = await loadCampaign(read.db, read.actor, params.campaign_id);
  const matter = await loadMatter(read.db, read.actor, row.matterId);
  return presentCampaign(row, await readGateFacts(read.db, read.actor, matter, row.judgmentId));
}
