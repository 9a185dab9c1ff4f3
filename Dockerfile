# syntax=docker/dockerfile:1
# One production image for the three apps; the command picks the app (docker-compose.yml sets it):
#   node --import tsx apps/rest/src/main.ts      (the default: REST on 3000, /docs, /v1/openapi.json;
#                                                 the legacy 2026-06-11 listener on 3002)
#   node --import tsx apps/trpc/src/main.ts      (tRPC on 3001, /trpc)
#   node --import tsx apps/worker/src/main.ts    (jobs; no port)
#   node --import tsx scripts/keys.ts issue …    (operator key commands, see docs/operating.md)
#
# The apps run their TypeScript through tsx, a production dependency of the root package: no build
# step, the same code path as development and tests, and stack traces that name the source files.
# Only production dependencies are installed (no vitest, drizzle-kit, Biome, or the embedded
# PostgreSQL binaries, which are development-only); pnpm and its store stay in the first stage.

FROM node:20.20.2-bookworm-slim AS dependencies
WORKDIR /app
RUN npm install --global pnpm@10.34.9 && npm cache clean --force
# Manifests first: the install layer is rebuilt only when a dependency changes.
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
COPY packages/core/package.json packages/core/
COPY packages/contract/package.json packages/contract/
COPY packages/db/package.json packages/db/
COPY packages/services/package.json packages/services/
COPY packages/client/package.json packages/client/
COPY packages/documents/package.json packages/documents/
COPY packages/chain/package.json packages/chain/
COPY apps/rest/package.json apps/rest/
COPY apps/trpc/package.json apps/trpc/
COPY apps/worker/package.json apps/worker/
COPY api-tests/package.json api-tests/
COPY e2e/package.json e2e/
COPY tooling/lint/package.json tooling/lint/
RUN pnpm install --frozen-lockfile --prod

FROM node:20.20.2-bookworm-slim AS runtime
ENV NODE_ENV=production \
    APP_ENV=production \
    HOST=0.0.0.0 \
    REST_PORT=3000 \
    TRPC_PORT=3001 \
    LEGACY_PORT=3002 \
    DATA_DIR=/app/.data
WORKDIR /app
COPY --from=dependencies --chown=node:node /app ./
COPY --chown=node:node packages ./packages
COPY --chown=node:node apps ./apps
COPY --chown=node:node scripts/keys.ts ./scripts/keys.ts
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node
EXPOSE 3000 3001 3002
CMD ["node", "--import", "tsx", "apps/rest/src/main.ts"]
