import { type ClawCampaign, type clawOperations, notFound, type OperationInput } from "@crs/contract";
import { DEFAULT_CLAW_MODE } from "@crs/core";
import { schema } from "@crs/db";
import { writeStamp } from "../../audit";
import type { WriteContext } from "../../context";
import { loadJudgment } from "../../judgments/load-judgment";
import { assertMatterWritable } from "../../matters/assert-matter-writable";
import { lockMatter } from "../../matters/load-matter";
import { assertCampaignGates } from "./campaign-gates";
import { recordCampaignEvent } from "./campaign-rules";
import { presentCampaign } from "./present-campaign";
import { assertTargetSet } from "./pursued-parties";

/**
 * Starts a campaign against one of the matter's judgments at pressure level 0 (observe), under the
 * matter row lock: the matter must be writable, the judgment and the targeted parties its own, and the
 * gates (sanctions, the judgment's stay, authority) must pass.
 */
export async function createCampaign(
  write: WriteContext,
  { body }: OperationInput<typeof clawOperations.create>,
): Promise<ClawCampaign> {
  const { tx, actor } = write;
  const matter = await lockMatter(tx, actor, body.matter_id, "matter_id");
  assertMatterWritable(matter);
  const judgment = await loadJudgment(tx, actor, body.judgment_id, "judgment_id");
  if (judgment.matterId !== matter.id) throw notFound("judgment on this matter", judgment.id, "judgment_id");
  const partyIds = body.target_set?.party_ids ?? [];
  await assertTargetSet(tx, actor, matter.id, partyIds);
  const facts = await assertCampaignGates(write, matter, judgment.id);

  const now = write.clock();
  const [row] = await tx
    .insert(schema.clawCampaigns)
    .values({
      organizationId: actor.organizationId,
      environment: actor.environment,
      id: write.newId("clawCampaign"),
      matterId: matter.id,
      judgmentId: judgment.id,
      mode: body.mode ?? DEFAULT_CLAW_MODE,
      pressureLevel: 0,
      pressureReason: null,
      counselApprovalId: null,
      targetSet: { party_ids: partyIds },
      focus: null,
      expansion: null,
      createdAt: now,
      ...writeStamp(actor, now),
    })
    .returning();
  if (!row) throw new Error("campaign insert returned nothing");
  const campaign = presentCampaign(row, facts);
  recordCampaignEvent(write, matter, "created", campaign);
  return campaign;
}
