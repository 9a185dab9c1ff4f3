import type { cryptoOperations } from "@crs/contract";
import type { GroupHandlers } from "../operations/handler-types";
import { createAssetMap } from "./create-asset-map";
import { retrieveAssetMap } from "./retrieve-asset-map";

export const cryptoHandlers = {
  createAssetMap,
  getAssetMap: retrieveAssetMap,
} satisfies GroupHandlers<typeof cryptoOperations>;
