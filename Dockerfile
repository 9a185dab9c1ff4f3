# One image for the three apps; docker-compose.yml picks the entry point.
FROM node:20-bookworm-slim
WORKDIR /app
RUN npm i -g pnpm@10.34.9
COPY . .
RUN pnpm install --frozen-lockfile
ENV HOST=0.0.0.0
