import { checkHealth, retrieveOrganization } from "@crs/services";
import { authedProcedure, callService, publicProcedure, router } from "../trpc";

export const platformRouter = router({
  health: publicProcedure.query(({ ctx }) => checkHealth(ctx.deps, "sandbox")),
  organization: authedProcedure
    .meta({ scope: "any" })
    .query(({ ctx }) => callService(() => retrieveOrganization(ctx.deps, ctx.actor))),
});
