import { ListEventsQuery, OPERATIONS, parseQuery } from "@crs/contract";
import { listEvents } from "@crs/services";
import type { FastifyInstance } from "fastify";
import { type RestConfig, registerOperation } from "../plumbing/register-operation";

export function registerListEvents(app: FastifyInstance, config: RestConfig) {
  registerOperation(app, config, OPERATIONS.listEvents, async (ctx) => ({
    status: 200,
    body: await listEvents(ctx.deps, ctx.actor, parseQuery(ListEventsQuery, ctx.query)),
  }));
}
