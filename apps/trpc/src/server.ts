import { newId } from "@crs/db";
import type { ServiceDeps } from "@crs/services";
import { createHTTPServer } from "@trpc/server/adapters/standalone";
import { appRouter } from "./router";

/** The internal tRPC server: same keys, scopes and services as REST; every answer has Svc-Request-Id. */
export function createTrpcServer(deps: ServiceDeps) {
  return createHTTPServer({
    router: appRouter,
    basePath: "/trpc/",
    maxBodySize: 1024 * 1024,
    createContext: ({ req, res }) => {
      const requestId = newId("request");
      res.setHeader("Svc-Request-Id", requestId);
      const authorization = req.headers.authorization;
      const setHeader = (name: string, value: string) => {
        if (!res.headersSent) res.setHeader(name, value);
      };
      return { deps, requestId, authorization, setHeader };
    },
  });
}
