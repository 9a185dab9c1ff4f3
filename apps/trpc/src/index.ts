export type { AppRouter } from "./router";
export { appRouter } from "./router";
export { createTrpcServer } from "./server";
