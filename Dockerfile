# The self-hosted gateway on Node 22 (`npm start`), which is also the egress a Cloudflare Worker
# uses for certificate logins and proxies (POST /egress/v1/fetch, on when EGRESS_SECRET is set).
# State in a SQLite file under /app/.data: mount a volume there to keep it.
#   docker build -t sii-gateway .
#   docker run -p 8788:8788 -v sii-data:/app/.data -e SII_UPSTREAM=live -e SECRET_KEY=... sii-gateway
FROM node:22-bookworm-slim

# Live by default, as wrangler.toml: it then refuses to start without a SECRET_KEY of its own
# (the sandbox's is published). `-e SII_UPSTREAM=sandbox` runs the simulator.
ENV NODE_ENV=production \
    SII_UPSTREAM=live \
    HOST=0.0.0.0 \
    PORT=8788 \
    DATABASE_PATH=/app/.data/gateway.sqlite

WORKDIR /app

# Dependencies first, so a source change does not reinstall them. `prepare` copies the API
# reference page's scripts into public/docs/vendor, so both must be here before npm ci.
COPY package.json package-lock.json ./
COPY scripts/docs-assets.mjs scripts/
COPY public/ public/
RUN npm ci --omit=dev && npm cache clean --force

COPY src/ src/

# The image's own unprivileged user (uid 1000) owns only the data directory.
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node
VOLUME ["/app/.data"]
EXPOSE 8788

# The slim image has no curl: Node's own fetch asks /healthz (no token, no quota).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8788) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

# package.json's `start`, run directly (npm would stand between the signals and the server).
CMD ["node", "--experimental-strip-types", "--experimental-async-context-frame", "--no-warnings=ExperimentalWarning", "src/entry/node.ts"]
