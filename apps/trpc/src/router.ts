import { boundOperations } from "@crs/services";
import type { AnyTRPCProcedure } from "@trpc/server";
import { procedureFor, router } from "./trpc";

/**
 * One procedure per operation of the current surface, named `<group>.<name>` (`matters.create`).
 * Its type for clients is derived from the same definitions in @crs/client (AppRouter).
 */
export function buildAppRouter() {
  const groups: Record<string, Record<string, AnyTRPCProcedure>> = {};
  for (const bound of boundOperations()) {
    if (bound.definition.rpc === false) continue;
    const [group, name] = bound.procedure.split(".") as [string, string];
    groups[group] = { ...groups[group], [name]: procedureFor(bound) };
  }
  return router(groups);
}
