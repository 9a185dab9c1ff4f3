import type { Action, clawOperations, OperationInput } from "@crs/contract";
import type { WriteContext } from "../../context";
import { createAction } from "../actions/create-action";
import { loadCampaign } from "./load-campaign";

/**
 * Adds an action to the campaign's matter, linked to the campaign: POST /v1/actions with the campaign's
 * matter and id, so the one action write (its lock, the campaign's gates, its event) serves both.
 */
export async function createCampaignAction(
  write: WriteContext,
  { params, body }: OperationInput<typeof clawOperations.createAction>,
): Promise<Action> {
  const campaign = await loadCampaign(write.tx, write.actor, params.campaign_id);
  return createAction(write, {
    params: {},
    body: { ...body, matter_id: campaign.matterId, campaign_id: campaign.id },
  });
}
