import { OPERATIONS } from "@crs/contract";
import { retrieveEvent } from "@crs/services";
import type { FastifyInstance } from "fastify";
import { type RestConfig, registerOperation } from "../plumbing/register-operation";

export function registerRetrieveEvent(app: FastifyInstance, config: RestConfig) {
  registerOperation(app, config, OPERATIONS.retrieveEvent, async (ctx) => ({
    status: 200,
    body: await retrieveEvent(ctx.deps, ctx.actor, ctx.params.event_id ?? ""),
  }));
}
