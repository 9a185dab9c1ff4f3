import { OPERATIONS } from "@crs/contract";
import { describeCapabilities } from "@crs/services";
import type { FastifyInstance } from "fastify";
import { type RestConfig, registerOperation } from "../plumbing/register-operation";

export function registerCapabilities(app: FastifyInstance, config: RestConfig) {
  registerOperation(app, config, OPERATIONS.getCapabilities, async (ctx) => ({
    status: 200,
    body: describeCapabilities(ctx.deps),
  }));
}
