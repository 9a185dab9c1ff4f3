import { OPERATIONS, parseBody, SandboxKeyBody } from "@crs/contract";
import { mintSandboxKey } from "@crs/services";
import type { FastifyInstance } from "fastify";
import { type RestConfig, registerOperation } from "../plumbing/register-operation";

export function registerMintSandboxKey(app: FastifyInstance, config: RestConfig) {
  registerOperation<false>(app, config, OPERATIONS.mintSandboxKey, async (ctx) => {
    parseBody(SandboxKeyBody, ctx.body);
    const key = await mintSandboxKey(
      ctx.deps,
      { baseUrl: ctx.baseUrl, docsUrl: `${ctx.baseUrl}/docs` },
      config.surface === "legacy" ? "legacy_sandbox" : "sandbox",
    );
    return { status: 201, body: key };
  });
}
