# syntax=docker/dockerfile:1
# The haptic image: the controller (`haptic run`) and the agent (`haptic agent`), with the HAProxy
# the tests run, so `haproxy -c` validates with what the chart's HAProxy pods serve.
#
# Built by `npm run image` (scripts/image.mjs), which assembles the two bases named below from
# Debian trixie (mmdebstrap) and Node's linux binary (npm package node-linux-<arch>), stages the
# compiled app as the build context, and passes the bases as build arguments:
#
#   buildah build -f Dockerfile --build-arg BASE_IMAGE=… --build-arg NODE_IMAGE=… <staged context>
#
# The versions here are the ones the bases must carry; the build fails when they do not.
ARG NODE_VERSION=26.12.1
ARG HAPROXY_VERSION=3.0.11
# Debian trixie with HAProxy (Debian's package), tini, CA certificates, libstdc++ and libatomic.
ARG BASE_IMAGE=localhost/haptic-base/trixie-haproxy:${HAPROXY_VERSION}
# Node's official linux binary at /usr/local/bin/node (nothing else).
ARG NODE_IMAGE=localhost/haptic-base/node:${NODE_VERSION}

FROM ${NODE_IMAGE} AS node

# ── runtime: Node + HAProxy on Debian trixie, non-root, nothing written outside /tmp ──
FROM ${BASE_IMAGE} AS runtime
ARG NODE_VERSION
ARG HAPROXY_VERSION
ENV NODE_ENV=production \
    HOME=/tmp \
    HAPTIC_HAPROXY_BIN=/usr/sbin/haproxy
COPY --from=node /usr/local/bin/node /usr/local/bin/node
# Fails the build when a base is not the version named above.
RUN node --version | grep -qx "v${NODE_VERSION}" \
    && haproxy -v | head -1 | grep -q "^HAProxy version ${HAPROXY_VERSION}" \
    && groupadd --system --gid 10001 haptic \
    && useradd --system --uid 10001 --gid 10001 --no-create-home --home-dir /tmp haptic
# The staged app: package.json, bin/, dist/ and production node_modules, without the test bed
# (kube-sim, node-sim, bench, conformance, echo) and without source maps.
COPY app /app
RUN ln -s /app/bin/haptic.js /usr/local/bin/haptic
# The chart's pods run with a read-only root filesystem and an emptyDir at /tmp.
USER 10001:10001
EXPOSE 8080 9090 9443 5555
# tini is PID 1: it forwards signals to Node and reaps the HAProxy processes the agent leaves.
ENTRYPOINT ["/usr/bin/tini", "--", "haptic"]
CMD ["run"]
