# Tidings: the production image (docs/containers.md).
#   docker build -t tidings .
#   docker run -d -p 3000:3000 -v tidings-data:/data tidings
# Three stages: `build` compiles dist/ and the calendar app (web/dist) with the dev dependencies,
# `deps` installs the production dependencies alone, and the final stage takes only what
# `tidings serve` reads at run time: no dev dependency, no sources but the SQL migrations, no tests.
#
# Behind a proxy that re-signs TLS, npm must trust its CA: pass it as a build secret, e.g.
#   docker build --secret id=npm_ca,src=/etc/ssl/certs/ca-certificates.crt -t tidings .
# It is mounted for the `npm ci` runs only and is kept in no layer (nor is npm's download cache).

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm --mount=type=secret,id=npm_ca \
    if [ -s /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi; \
    npm ci --no-audit --no-fund --loglevel=warn
COPY . .
# tsc -p tsconfig.build.json (dist/), then Vite (web/dist); then check that dist/ imports no dev dependency
RUN npm run build && node scripts/build-imports.js

FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# typescript, @types/node, @types/pg and undici-types are dev dependencies that --omit=dev keeps
# because production packages name them as optional peers (for their type declarations; nostr-tools
# names typescript): nothing runs them, so they go
RUN --mount=type=cache,target=/root/.npm --mount=type=secret,id=npm_ca \
    if [ -s /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi; \
    npm ci --omit=dev --no-audit --no-fund --loglevel=warn \
 && rm -rf node_modules/typescript node_modules/@types node_modules/undici-types

FROM node:20-bookworm-slim
# tini as PID 1: forwards signals to node and reaps orphaned children (ffmpeg), with or without --init
RUN apt-get update -qq \
 && apt-get install -y -qq --no-install-recommends tini >/dev/null \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data && chown node:node /data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY scripts/build-state.js scripts/start.js ./scripts/
COPY src/db/migrations ./src/db/migrations
COPY web/public ./web/public
COPY --from=build /app/dist ./dist
COPY --from=build /app/web/dist ./web/dist
RUN ln -s /app/bin/tidings.js /usr/local/bin/tidings

# HOST: listen on every interface of the container (the default, 127.0.0.1, is unreachable from outside it).
# DATA_DIR: the embedded database, media and generated secrets (embedded mode); keep it in a volume.
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data
VOLUME /data
EXPOSE 3000
USER node
# /readyz: 200 when this process can do its job now (an api process: the database answers and is
# migrated). A worker-only process (`serve --role worker`) listens on no port: disable it there.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 3000}/readyz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "-s", "--", "node", "/app/bin/tidings.js"]
CMD ["serve"]
