import { AppError } from "@crs/contract";
import { checkMatterWritable, type MatterStatus } from "@crs/core";

/** 409 for any write to a closed matter or its children. */
export function assertMatterWritable(matter: { id: string; status: MatterStatus }): void {
  if (checkMatterWritable(matter.status).refused) {
    throw new AppError("conflict", {
      message: `Matter '${matter.id}' is closed and refuses writes.`,
      param: "matter_id",
    });
  }
}
