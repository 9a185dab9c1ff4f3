import type { partyOperations } from "@crs/contract";
import type { GroupHandlers } from "../operations/handler-types";
import { createParty } from "./create-party";
import { listMatterParties } from "./list-matter-parties";
import { listParties } from "./list-parties";
import { retrieveParty } from "./retrieve-party";
import { updateParty } from "./update-party";

export const partyHandlers = {
  create: createParty,
  list: listParties,
  get: retrieveParty,
  update: updateParty,
  listByMatter: listMatterParties,
} satisfies GroupHandlers<typeof partyOperations>;
