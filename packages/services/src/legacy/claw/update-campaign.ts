import type { ClawCampaign, clawOperations, OperationInput } from "@crs/contract";
import type { WriteContext } from "../../context";
import { assertCampaignGates } from "./campaign-gates";
import { pressureChangeOf } from "./campaign-rules";
import { type CampaignRow, lockCampaignForWrite } from "./load-campaign";
import { presentCampaign } from "./present-campaign";
import { assertTargetSet } from "./pursued-parties";
import { writeCampaign } from "./write-campaign";

/**
 * Changes a campaign's mode, target set or pressure level under its matter's row lock. A pressure move
 * follows the pressure rules under the mode the campaign has once the PATCH applies; a new target set
 * clears the latest focus and expand (they ranked the old one). Only what really changes is written: a
 * PATCH that changes nothing writes nothing and appends no event.
 */
export async function updateCampaign(
  write: WriteContext,
  { params, body }: OperationInput<typeof clawOperations.update>,
): Promise<ClawCampaign> {
  const { tx, actor } = write;
  const { matter, campaign: current } = await lockCampaignForWrite(tx, actor, params.campaign_id);
  const facts = await assertCampaignGates(write, matter, current.judgmentId);

  const changes: Partial<CampaignRow> = {};
  const mode = body.mode ?? current.mode;
  if (mode !== current.mode) changes.mode = mode;
  if (body.pressure_level !== undefined) {
    const pressure = pressureChangeOf(current, {
      to: body.pressure_level,
      mode,
      counsel_approval_id: body.counsel_approval_id ?? null,
      reason: body.reason ?? null,
    });
    if (pressure) Object.assign(changes, pressure);
  }
  if (body.target_set !== undefined) {
    await assertTargetSet(tx, actor, matter.id, body.target_set.party_ids);
    if (JSON.stringify(body.target_set.party_ids) !== JSON.stringify(current.targetSet.party_ids)) {
      Object.assign(changes, { targetSet: { party_ids: body.target_set.party_ids }, focus: null, expansion: null });
    }
  }
  if (Object.keys(changes).length === 0) {
    return presentCampaign(current, facts);
  }
  return writeCampaign(write, matter, current, facts, changes, "updated");
}
