# svc, STANDALONE edition: one container running `svc standalone` (control services, built-in storage node
# and built-in play-agent under one supervisor). compose.yaml adds PostgreSQL and Redis beside it.
#
#   docker build -t svc-media:standalone .
#   docker run -d -p 18080:18080 -p 19090:19090 -v svc-data:/data svc-media:standalone   # bundled database

# ---- build: full dependency tree, produces packages/server/dist and packages/web/dist ----
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/contracts/package.json packages/contracts/
COPY packages/server/package.json packages/server/
COPY packages/web/package.json packages/web/
RUN npm ci --no-audit --no-fund
COPY . .
# The worker-node binary (dist/node-binary/) is built from this image's Node.js 24 and served by the config
# service, so worker nodes install out of the box (docs/node-install.md).
RUN npm run build \
 && node scripts/build-node-binary.mjs

# ---- deps: production dependencies only (the server bundle keeps node_modules external) ----
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/contracts/package.json packages/contracts/
COPY packages/server/package.json packages/server/
COPY packages/web/package.json packages/web/
RUN npm ci --omit=dev --no-audit --no-fund \
 && npm cache clean --force

# ---- runtime ----
FROM node:24-bookworm-slim AS runtime

# ffprobe (from ffmpeg) is used by the play-agent and by media scans; tini reaps orphans and forwards signals.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ffmpeg tini \
 && rm -rf /var/lib/apt/lists/*

# Fixed ids so that bind-mounted data folders can be prepared with `chown 10001:10001`.
RUN groupadd --system --gid 10001 svc \
 && useradd --system --uid 10001 --gid svc --home-dir /data --no-create-home --shell /usr/sbin/nologin svc \
 && mkdir -p /data/play-agent/vfs-cache /data/play-agent/image-cache \
 && chown -R svc:svc /data

WORKDIR /app
# Application files stay owned by root (read-only for the service user); only /data is writable.
COPY --from=deps /app ./
COPY --from=build /app/packages/server/dist packages/server/dist
COPY --from=build /app/packages/web/dist packages/web/dist

ENV NODE_ENV=production \
    SVC_DATA_DIR=/data

USER svc
VOLUME ["/data"]
# 18080: console and portal entrance; 19090: built-in play-agent (playback endpoint). All else stays inside.
EXPOSE 18080 19090

# Healthy once the console entrance answers the licence status (any non-5xx answer: before activation it
# still returns a status JSON) and the play-agent answers /health. Node is used because slim has no curl.
HEALTHCHECK --interval=30s --timeout=10s --start-period=120s --retries=3 \
  CMD ["node", "-e", "const get = (port, path) => fetch('http://127.0.0.1:' + port + path, { signal: AbortSignal.timeout(5000) }); const frontend = process.env.SVC_FRONTEND_PORT || '18080'; const agent = (process.env.PLAY_AGENT_LISTEN || '19090').split(':').pop(); Promise.all([get(frontend, '/api/license/status'), get(agent, '/health')]).then(([status, health]) => process.exit(status.status < 500 && health.ok ? 0 : 1), () => process.exit(1));"]

# The supervisor stops its three child processes on SIGTERM (compose allows 30 s).
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "packages/server/dist/svc.mjs", "standalone"]
