import { ListEventsQuery } from "@crs/contract";
import { listEvents, retrieveEvent, verifyEventChain } from "@crs/services";
import { z } from "zod";
import { authedProcedure, callService, router } from "../trpc";

export const eventsRouter = router({
  list: authedProcedure
    .meta({ scope: "events:read" })
    .input(ListEventsQuery.partial().optional())
    .query(({ ctx, input }) => callService(() => listEvents(ctx.deps, ctx.actor, ListEventsQuery.parse(input ?? {})))),
  get: authedProcedure
    .meta({ scope: "events:read" })
    .input(z.object({ event_id: z.string().min(1) }))
    .query(({ ctx, input }) => callService(() => retrieveEvent(ctx.deps, ctx.actor, input.event_id))),
  verifyChain: authedProcedure
    .meta({ scope: "events:read" })
    .query(({ ctx }) => callService(() => verifyEventChain(ctx.deps, ctx.actor))),
});
