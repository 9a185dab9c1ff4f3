import { OPERATIONS } from "@crs/contract";
import { retrieveMatterDashboard } from "@crs/services";
import type { FastifyInstance } from "fastify";
import { type RestConfig, registerOperation } from "../plumbing/register-operation";

export function registerRetrieveMatterDashboard(app: FastifyInstance, config: RestConfig) {
  registerOperation(app, config, OPERATIONS.retrieveMatterDashboard, async (ctx) => ({
    status: 200,
    body: await retrieveMatterDashboard(ctx.deps, ctx.actor, ctx.params.matter_id ?? ""),
  }));
}
