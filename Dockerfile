# syntax=docker/dockerfile:1
# The haptic image: the controller (`haptic run`) and the agent (`haptic agent`), with the same
# HAProxy version the chart's HAProxy pods run, so `haproxy -c` validates with what serves.
#
#   docker build -t haproxy-haptic/haptic:0.1.0 .
#
# Keep HAPROXY_VERSION equal to the chart's haproxy.image.tag (test/e2e/chart checks it).
ARG NODE_VERSION=26
ARG HAPROXY_VERSION=3.2

# ── build: compile TypeScript, then keep production dependencies only ──
FROM node:${NODE_VERSION}-trixie-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# the npm workspaces (examples/*) are part of the lockfile and of `npm run build`
COPY examples ./examples
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY apps ./apps
COPY libs ./libs
RUN npm run build && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

# ── haproxy: the binary of the chart's HAProxy image and the libraries it needs beyond glibc ──
FROM haproxytech/haproxy-debian:${HAPROXY_VERSION} AS haproxy
USER root
RUN set -eu; \
    apt-get update; apt-get install -y --no-install-recommends patchelf; \
    bin="$(command -v haproxy)"; \
    mkdir -p /out/sbin /out/lib/haproxy; \
    cp "$bin" /out/sbin/haproxy; \
    ldd "$bin" | awk '/=> \// { print $3 }' \
      | grep -Ev '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*)\.so' \
      | xargs -r -I{} cp -L {} /out/lib/haproxy/; \
    patchelf --set-rpath /usr/local/lib/haproxy /out/sbin/haproxy

# ── runtime: current Node LTS, non-root, nothing written outside /tmp ──
FROM node:${NODE_VERSION}-trixie-slim AS runtime
ENV NODE_ENV=production \
    HOME=/tmp \
    HAPTIC_HAPROXY_BIN=/usr/local/sbin/haproxy
COPY --from=haproxy /out/sbin/haproxy /usr/local/sbin/haproxy
COPY --from=haproxy /out/lib/haproxy/ /usr/local/lib/haproxy/
# Fails the build when a library is missing or the version is not the chart's.
ARG HAPROXY_VERSION
RUN haproxy -vv | head -1 | grep -q "^HAProxy version ${HAPROXY_VERSION}" \
    && groupadd --system --gid 10001 haptic \
    && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /tmp haptic
WORKDIR /app
COPY --from=build /src/package.json ./package.json
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY bin ./bin
# The chart's pods run with a read-only root filesystem and an emptyDir at /tmp.
USER 10001:10001
EXPOSE 8080 9090 9443 5555
ENTRYPOINT ["node", "/app/bin/haptic.js"]
CMD ["run"]
