import type { ClawCampaign, clawOperations, OperationInput } from "@crs/contract";
import type { WriteContext } from "../../context";
import { assertCampaignGates } from "./campaign-gates";
import { pressureChangeOf } from "./campaign-rules";
import { lockCampaignForWrite } from "./load-campaign";
import { presentCampaign } from "./present-campaign";
import { writeCampaign } from "./write-campaign";

/**
 * Moves a campaign's pressure level with the reason, under its matter's row lock: concurrent moves of
 * one campaign run one after another, each checked against the level the previous one committed.
 * Asking for the current level is no move: nothing is written.
 */
export async function changePressure(
  write: WriteContext,
  { params, body }: OperationInput<typeof clawOperations.pressure>,
): Promise<ClawCampaign> {
  const { tx, actor } = write;
  const { matter, campaign: current } = await lockCampaignForWrite(tx, actor, params.campaign_id);
  const facts = await assertCampaignGates(write, matter, current.judgmentId);
  const pressure = pressureChangeOf(current, {
    to: body.pressure_level,
    mode: current.mode,
    counsel_approval_id: body.counsel_approval_id ?? null,
    reason: body.reason,
  });
  if (!pressure) return presentCampaign(current, facts);
  return writeCampaign(write, matter, current, facts, pressure, "pressure_changed", { pressure_reason: body.reason });
}
