# syntax=docker/dockerfile:1

# Build: compile the service and the client (TypeScript) to dist/.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY client/src ./client/src
RUN npm run build
# The web console's files, served as they are (no build step).
COPY ui ./ui

# Fixtures: the demo web app of test/fixtures, for docker-compose.yml (target: fixtures).
FROM build AS fixtures
COPY test/fixtures ./test/fixtures
ENV FIXTURE_HOST=0.0.0.0 \
    FIXTURE_PORT=8080
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--import", "tsx", "test/fixtures/serve.ts"]

# Runtime: the official Playwright image of the installed playwright-core version, so the Chromium
# it ships (PLAYWRIGHT_BROWSERS_PATH=/ms-playwright) is the one playwright-core expects.
FROM mcr.microsoft.com/playwright:v1.65.1-noble AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3337 \
    LOG_DIR=/app/logs
COPY package.json package-lock.json ./
# The code stays root-owned and read-only for the service; only its log directory is writable.
# ffmpeg encodes replay.video (without it that method answers -32005 and the rest works).
RUN apt-get update \
  && apt-get install -y --no-install-recommends ffmpeg \
  && rm -rf /var/lib/apt/lists/*
RUN npm ci --omit=dev --no-audit --no-fund \
  && npm cache clean --force \
  && mkdir -p /app/logs \
  && chown pwuser:pwuser /app/logs
COPY --from=build /app/dist ./dist
COPY --from=build /app/ui ./ui
# Non-root, so the service keeps Chromium's sandbox on (it adds --no-sandbox only as root). That
# sandbox needs user namespaces (clone, unshare, setns), which Docker's default seccomp profile allows
# only with CAP_SYS_ADMIN: run the image with --security-opt seccomp=seccomp_profile.json, Playwright's
# documented profile (docs/operations.md, Container), as docker-compose.yml does.
USER pwuser
EXPOSE 3337
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3337) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/src/main.js"]
