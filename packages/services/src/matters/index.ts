import type { matterOperations } from "@crs/contract";
import type { GroupHandlers } from "../operations/handler-types";
import { closeMatter } from "./close-matter";
import { createMatter } from "./create-matter";
import { listMatters } from "./list-matters";
import { retrieveMatter } from "./retrieve-matter";
import { retrieveMatterDashboard } from "./retrieve-matter-dashboard";
import { updateMatter } from "./update-matter";

export const matterHandlers = {
  create: createMatter,
  list: listMatters,
  get: retrieveMatter,
  update: updateMatter,
  dashboard: retrieveMatterDashboard,
  close: closeMatter,
} satisfies GroupHandlers<typeof matterOperations>;
