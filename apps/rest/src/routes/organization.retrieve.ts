import { OPERATIONS } from "@crs/contract";
import { retrieveOrganization } from "@crs/services";
import type { FastifyInstance } from "fastify";
import { type RestConfig, registerOperation } from "../plumbing/register-operation";

export function registerRetrieveOrganization(app: FastifyInstance, config: RestConfig) {
  registerOperation(app, config, OPERATIONS.getOrganization, async (ctx) => ({
    status: 200,
    body: await retrieveOrganization(ctx.deps, ctx.actor),
  }));
}
