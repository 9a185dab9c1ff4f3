import { CloseMatterBody, CreateMatterBody, ListQuery, UpdateMatterBody } from "@crs/contract";
import {
  closeMatter,
  createMatter,
  listMatters,
  retrieveMatter,
  retrieveMatterDashboard,
  updateMatter,
} from "@crs/services";
import { z } from "zod";
import { authedProcedure, callService, router } from "../trpc";

const MatterId = z.object({ matter_id: z.string().min(1) });

/** matters.* procedures: the same service functions as the REST routes. */
export const mattersRouter = router({
  create: authedProcedure
    .meta({ scope: "matters:write" })
    .input(CreateMatterBody)
    .mutation(({ ctx, input }) =>
      callService(() => ctx.deps.db.transaction((tx) => createMatter(tx, ctx.deps, ctx.actor, input))),
    ),
  list: authedProcedure
    .meta({ scope: "matters:read" })
    .input(ListQuery.partial().optional())
    .query(({ ctx, input }) => callService(() => listMatters(ctx.deps, ctx.actor, ListQuery.parse(input ?? {})))),
  get: authedProcedure
    .meta({ scope: "matters:read" })
    .input(MatterId)
    .query(({ ctx, input }) => callService(() => retrieveMatter(ctx.deps, ctx.actor, input.matter_id))),
  update: authedProcedure
    .meta({ scope: "matters:write" })
    .input(MatterId.extend({ changes: UpdateMatterBody }))
    .mutation(({ ctx, input }) =>
      callService(() =>
        ctx.deps.db.transaction((tx) => updateMatter(tx, ctx.deps, ctx.actor, input.matter_id, input.changes)),
      ),
    ),
  dashboard: authedProcedure
    .meta({ scope: "matters:read" })
    .input(MatterId)
    .query(({ ctx, input }) => callService(() => retrieveMatterDashboard(ctx.deps, ctx.actor, input.matter_id))),
  close: authedProcedure
    .meta({ scope: "matters:write" })
    .input(MatterId.extend({ close: CloseMatterBody }))
    .mutation(({ ctx, input }) =>
      callService(() =>
        ctx.deps.db.transaction((tx) => closeMatter(tx, ctx.deps, ctx.actor, input.matter_id, input.close)),
      ),
    ),
});
