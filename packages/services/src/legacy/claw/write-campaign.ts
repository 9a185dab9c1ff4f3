import type { ClawCampaign } from "@crs/contract";
import { schema, tenantRow } from "@crs/db";
import { writeStamp } from "../../audit";
import type { WriteContext } from "../../context";
import type { MatterRow } from "../../matters/present-matter";
import { previousAttributes } from "../../previous-attributes";
import type { CampaignGateFacts } from "./campaign-gates";
import { type CampaignChange, recordCampaignEvent } from "./campaign-rules";
import type { CampaignRow } from "./load-campaign";
import { presentCampaign } from "./present-campaign";

/**
 * The one update of a campaign row: writes the changed columns, presents the campaign as it now
 * stands and appends its `matter.updated` (with the fields that changed, for updates and pressure
 * moves). The caller has locked the matter and passed the gates, whose facts it hands on.
 */
export async function writeCampaign(
  write: WriteContext,
  matter: MatterRow,
  current: CampaignRow,
  facts: CampaignGateFacts,
  changes: Partial<Omit<CampaignRow, "organizationId" | "environment" | "id" | "matterId" | "createdAt">>,
  change: CampaignChange,
  extra: Record<string, unknown> = {},
): Promise<ClawCampaign> {
  const { tx, actor } = write;
  const now = write.clock();
  const [row] = await tx
    .update(schema.clawCampaigns)
    .set({ ...changes, ...writeStamp(actor, now) })
    .where(tenantRow(schema.clawCampaigns, actor, current.id))
    .returning();
  if (!row) throw new Error("campaign update returned nothing");
  const campaign = presentCampaign(row, facts);
  const tracked = change === "updated" || change === "pressure_changed";
  recordCampaignEvent(write, matter, change, campaign, {
    ...(tracked ? { campaign_previous_attributes: previousAttributes(presentCampaign(current, facts), campaign) } : {}),
    ...extra,
  });
  return campaign;
}
