import type { clawOperations } from "@crs/contract";
import type { GroupHandlers } from "../../operations/handler-types";
import { changePressure } from "./change-pressure";
import { createCampaign } from "./create-campaign";
import { createCampaignAction } from "./create-campaign-action";
import { expandCampaign } from "./expand-campaign";
import { focusCampaign } from "./focus-campaign";
import { listCampaigns } from "./list-campaigns";
import { retrieveBoard } from "./retrieve-board";
import { retrieveCampaign } from "./retrieve-campaign";
import { updateCampaign } from "./update-campaign";

export const clawHandlers = {
  create: createCampaign,
  list: listCampaigns,
  get: retrieveCampaign,
  update: updateCampaign,
  focus: focusCampaign,
  expand: expandCampaign,
  pressure: changePressure,
  createAction: createCampaignAction,
  board: retrieveBoard,
} satisfies GroupHandlers<typeof clawOperations>;
