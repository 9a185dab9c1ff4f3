export { buildAppRouter } from "./router";
export { createTrpcServer } from "./server";
