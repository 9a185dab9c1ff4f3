import { AppError } from "@crs/contract";
import { type ClawGateFacts, type ClawGateRefusal, findClawGateRefusal, isStayInEffect } from "@crs/core";
import { type Queryable, schema, type Tenant, tenantRow } from "@crs/db";
import type { WriteContext } from "../../context";
import { deriveAuthorityOfMatter } from "../../judgments/matter-authority";
import type { MatterRow } from "../../matters/present-matter";

const GATE_MESSAGES: Record<ClawGateRefusal, (matterId: string, judgmentId: string) => string> = {
  sanctions_gate: (matterId) =>
    `Matter '${matterId}' has a sanctions hit awaiting review: the campaign cannot act until a reviewer clears it.`,
  stay_in_effect: (_, judgmentId) =>
    `Judgment '${judgmentId}' is stayed (appeal stay or automatic bankruptcy stay): the campaign enforcing it cannot act.`,
  authority_required: (matterId) =>
    `Matter '${matterId}' has no granted authority (a ready validation of one of its judgments with no stay, or an operator's grant): the campaign cannot act.`,
};
const GATE_PARAMS: Record<ClawGateRefusal, string> = {
  sanctions_gate: "matter_id",
  stay_in_effect: "judgment_id",
  authority_required: "matter_id",
};

/** What a campaign's gates read: the matter's sanctions hold and authority, and its judgment's stay. */
export type CampaignGateFacts = Pick<ClawGateFacts, "sanctions_hold" | "judgment_stay_in_effect" | "authority_granted">;

export async function readGateFacts(
  db: Queryable,
  tenant: Tenant,
  matter: Pick<MatterRow, "id" | "sanctionsHold">,
  judgmentId: string,
): Promise<CampaignGateFacts> {
  const j = schema.judgments;
  const [authority, [judgment]] = await Promise.all([
    deriveAuthorityOfMatter(db, tenant, matter.id),
    db
      .select({ appeal_stay_status: j.appealStayStatus, bankruptcy_status: j.bankruptcyStatus })
      .from(j)
      .where(tenantRow(j, tenant, judgmentId)),
  ]);
  return {
    sanctions_hold: matter.sanctionsHold,
    judgment_stay_in_effect: judgment ? isStayInEffect(judgment) : false,
    authority_granted: authority.granted,
  };
}

/**
 * The gates of every campaign write and of every action of a campaign, under the matter row lock, in
 * core's order (sanctions, stay on the campaign's judgment, authority). Never soft-passes. Returns the
 * facts it read: a campaign write presents the campaign with them rather than reading them again (the
 * write holds the matter's lock and changes none of them).
 */
export async function assertCampaignGates(
  write: WriteContext,
  matter: MatterRow,
  judgmentId: string,
): Promise<CampaignGateFacts> {
  const facts = await readGateFacts(write.tx, write.actor, matter, judgmentId);
  const refusal = findClawGateRefusal(facts);
  if (refusal) {
    throw new AppError(refusal, {
      message: GATE_MESSAGES[refusal](matter.id, judgmentId),
      param: GATE_PARAMS[refusal],
    });
  }
  return facts;
}
