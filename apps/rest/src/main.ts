import { LEGACY_DEPRECATED_AT } from "@crs/contract";
import { assertDatabaseReachable, describeStartupError } from "@crs/db/startup-errors";
import { startServiceDeps } from "@crs/services";
import { buildRestApp } from "./app";
import { legacyBaseUrlOf, parseRestEnv } from "./env";

async function main(): Promise<void> {
  const env = parseRestEnv();
  await assertDatabaseReachable(env.DATABASE_URL);
  const deps = await startServiceDeps(env, (message) => console.warn(`[rest] ${message}`));
  const legacyBaseUrl = legacyBaseUrlOf(env);
  const app = await buildRestApp({ deps, logLevel: env.LOG_LEVEL });
  // The 2026-06-11 listener: the same deps, its own routes, keys and compatibility window.
  const legacyWindow = { deprecatedAt: new Date(LEGACY_DEPRECATED_AT), sunset: new Date(env.LEGACY_SUNSET) };
  const legacy = await buildRestApp({
    deps: { ...deps, publicBaseUrl: legacyBaseUrl },
    surface: "legacy",
    legacy: { window: legacyWindow, currentBaseUrl: deps.publicBaseUrl },
    logLevel: env.LOG_LEVEL,
  });
  await app.listen({ host: env.HOST, port: env.REST_PORT });
  // The address it is bound to (LEGACY_PORT 0 takes any free port); its public origin is legacyBaseUrl.
  const legacyBound = await legacy.listen({ host: env.HOST, port: env.LEGACY_PORT });
  console.log(`REST listening on ${deps.publicBaseUrl}`);
  const closes = legacyWindow.sunset.toISOString();
  const where = `${legacyBound} (public: ${legacyBaseUrl})`;
  console.log(
    deps.clock() < legacyWindow.sunset
      ? `Legacy (2026-06-11) listening on ${where}, window open until ${closes}`
      : `Legacy (2026-06-11) listening on ${where}, window closed at ${closes}: its operations answer 410`,
  );

  let stopping = false;
  async function shutdown(signal: string) {
    if (stopping) return;
    stopping = true;
    console.log(`[rest] ${signal}: closing`);
    await Promise.all([app.close(), legacy.close()]);
    await deps.close();
    process.exit(0);
  }
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

// A start that fails (bad environment, database unreachable, port taken) is one line and exit code 1.
main().catch((error: unknown) => {
  console.error(`[rest] not started: ${describeStartupError(error)}`);
  process.exit(1);
});
