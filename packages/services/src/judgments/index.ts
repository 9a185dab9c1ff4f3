import type { judgmentOperations } from "@crs/contract";
import type { GroupHandlers } from "../operations/handler-types";
import { intakeJudgment } from "./intake-judgment";
import { listJudgmentDeadlines } from "./list-judgment-deadlines";
import { retrieveJudgment } from "./retrieve-judgment";
import { setEnforcementPosture } from "./set-enforcement-posture";
import { updateJudgment } from "./update-judgment";
import { validateJudgment } from "./validate-judgment";

export const judgmentHandlers = {
  intake: intakeJudgment,
  get: retrieveJudgment,
  update: updateJudgment,
  validate: validateJudgment,
  deadlines: listJudgmentDeadlines,
  enforcement: setEnforcementPosture,
} satisfies GroupHandlers<typeof judgmentOperations>;
