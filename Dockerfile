# syntax=docker/dockerfile:1
# The switchyard gateway image: the production bundle of deploy/bundle.sh on node:20-slim.
#
#   docker build -t switchyard .
#   docker run --rm -p 8787:8787 --env-file deploy/secrets.env \
#     -v "$PWD/deploy/switchyard.yaml:/etc/switchyard/switchyard.yaml:ro" switchyard
#
# The build stage runs deploy/bundle.sh, the script .ci/run's bundle check runs, so CI tests
# exactly what ships (images cannot be pulled on the CI machines).
ARG NODE_IMAGE=node:20-slim

FROM ${NODE_IMAGE} AS build
RUN npm install -g pnpm@10.34.9
WORKDIR /src
# Dependencies first: this layer is rebuilt only when the lockfile changes.
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
RUN pnpm fetch
COPY . .
RUN bash deploy/bundle.sh /opt/switchyard

FROM ${NODE_IMAGE} AS runtime
# tini is PID 1: it forwards SIGTERM and SIGHUP to node and reaps zombies, so `docker stop`,
# `docker kill -s HUP` and a pod's termination reach the gateway's drain and reload handlers
# whether or not the runtime adds --init.
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/* \
  && groupadd --system --gid 10001 switchyard \
  && useradd --system --uid 10001 --gid switchyard --no-create-home --shell /usr/sbin/nologin switchyard
ENV NODE_ENV=production
COPY --from=build /opt/switchyard /opt/switchyard
COPY deploy/healthcheck.mjs /opt/switchyard/healthcheck.mjs
# The config is mounted here (a volume, a ConfigMap); keys arrive as environment variables.
COPY deploy/switchyard.yaml /etc/switchyard/switchyard.yaml
USER 10001:10001
WORKDIR /opt/switchyard
EXPOSE 8787
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 CMD ["node", "/opt/switchyard/healthcheck.mjs"]
ENTRYPOINT ["/usr/bin/tini", "--", "node", "/opt/switchyard/bin.js"]
CMD ["serve", "--config", "/etc/switchyard/switchyard.yaml"]
