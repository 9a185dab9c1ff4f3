import type { waterfallOperations } from "@crs/contract";
import type { GroupHandlers } from "../operations/handler-types";
import { calculateWaterfall } from "./calculate-waterfall";
import { retrieveMatterWaterfall } from "./retrieve-matter-waterfall";

export const waterfallHandlers = {
  calculate: calculateWaterfall,
  retrieveForMatter: retrieveMatterWaterfall,
} satisfies GroupHandlers<typeof waterfallOperations>;
