import { OPERATIONS } from "@crs/contract";
import { checkHealth } from "@crs/services";
import type { FastifyInstance } from "fastify";
import { type RestConfig, registerOperation } from "../plumbing/register-operation";

export function registerHealth(app: FastifyInstance, config: RestConfig) {
  registerOperation<false>(app, config, OPERATIONS.getHealth, async (ctx) => {
    const health = await checkHealth(ctx.deps, ctx.actor?.environment ?? "sandbox");
    return { status: health.status === "ok" ? 200 : 503, body: health };
  });
}
