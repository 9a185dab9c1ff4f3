import { exportDownload } from "@crs/contract";
import { admitRequest, downloadPacketExport } from "@crs/services";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type RestConfig, toFastifyPath } from "./register-operation";
import { sendError } from "./send-error";

/**
 * `download_url`: GET /v1/exports/<export_id>.<format> answers the artifact's bytes with their
 * Content-Type, admitted like every operation (key, rate limit, version, packets:read); an export of
 * another organization or environment is 404, as is a wrong extension.
 */
export function registerExportDownload(app: FastifyInstance, config: RestConfig): void {
  const { deps } = config;
  const path = exportDownload.path ?? "";
  app.get(toFastifyPath(path), async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      if (config.beforeAdmission) await config.beforeAdmission(exportDownload, request, reply);
      const admission = await admitRequest(
        deps,
        {
          operation: exportDownload,
          surface: config.surface,
          requestId: request.requestId,
          authorization: request.headers.authorization,
          versionHeader: request.headers["svc-version"],
          clientAddress: request.ip,
        },
        (name, value) => reply.header(name, value),
      );
      if (!admission.actor) throw new Error("an export download admitted without a key");
      const { file } = request.params as { file: string };
      const artifact = await downloadPacketExport({ ...deps, actor: admission.actor }, file);
      return reply
        .code(200)
        .header("Content-Type", artifact.contentType)
        .header("Content-Disposition", `attachment; filename="${artifact.fileName}"`)
        .header("Digest", `sha-256=${Buffer.from(artifact.sha256, "hex").toString("base64")}`)
        .header("Cache-Control", "private, no-store")
        .send(Buffer.from(artifact.bytes));
    } catch (error) {
      return sendError(reply, request, error, deps.publicBaseUrl);
    }
  });
}
