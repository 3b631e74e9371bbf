# syntax=docker/dockerfile:1
# One image for both roles of jumpseat:
#   docker run … IMAGE serve --local-shells off …     the control plane
#   docker run … IMAGE host --join URL …               a shell host
# Every RUN is a step of deploy/image/steps.sh, so that CI (no container engine there) runs the
# same steps against a temporary prefix: deploy/check/image-steps.sh. Choices: deploy/README.md.
#
# Build arguments:
#   PWSH=on|off        PowerShell 7 for the pwsh tool (default off: bash alone, a smaller image)
#   PWSH_VERSION       the PowerShell release (a .NET global tool, as .ci/run installs it)

ARG NODE_IMAGE=node:22-bookworm-slim
ARG PWSH=off

# --- the app: npm ci, the build, then only what `npm pack` ships and the production modules ---
FROM ${NODE_IMAGE} AS app
COPY deploy/image/steps.sh /usr/local/lib/jumpseat-steps.sh
RUN /usr/local/lib/jumpseat-steps.sh build-packages
WORKDIR /src
COPY . .
RUN /usr/local/lib/jumpseat-steps.sh app /src /opt/jumpseat

# --- PowerShell, only with --build-arg PWSH=on (BuildKit builds just the stage chosen below) ---
FROM ${NODE_IMAGE} AS pwsh-off
RUN mkdir -p /opt/pwsh /opt/dotnet

FROM mcr.microsoft.com/dotnet/sdk:10.0 AS pwsh-on
ARG PWSH_VERSION=7.6.9
COPY deploy/image/steps.sh /usr/local/lib/jumpseat-steps.sh
RUN /usr/local/lib/jumpseat-steps.sh pwsh /opt/pwsh "$PWSH_VERSION" \
 && mkdir -p /opt/dotnet/shared \
 && cp -a /usr/share/dotnet/dotnet /usr/share/dotnet/host /opt/dotnet/ \
 && cp -a /usr/share/dotnet/shared/Microsoft.NETCore.App /opt/dotnet/shared/

FROM pwsh-${PWSH} AS pwsh

# --- the image ---
FROM ${NODE_IMAGE}
ARG PWSH=off
COPY deploy/image/steps.sh /usr/local/lib/jumpseat-steps.sh
RUN if [ "$PWSH" = on ]; then /usr/local/lib/jumpseat-steps.sh runtime-packages --pwsh; \
    else /usr/local/lib/jumpseat-steps.sh runtime-packages; fi
# The .NET runtime where pwsh's launcher looks without DOTNET_ROOT (shells do not get that
# variable unless --pass-env names it); empty without PWSH=on.
COPY --from=pwsh /opt/dotnet /usr/share/dotnet
COPY --from=pwsh /opt/pwsh /opt/pwsh
COPY --from=app /opt/jumpseat /opt/jumpseat
RUN /usr/local/lib/jumpseat-steps.sh user jumpseat 10001 /var/lib/jumpseat

# Inside a container the server must listen beyond its own loopback; state and workspaces live
# under /var/lib/jumpseat (mount a volume there for a host, whose shells' files are its own).
ENV PATH=/opt/jumpseat/bin:/opt/pwsh:$PATH \
    JUMPSEAT_HOST=0.0.0.0 \
    JUMPSEAT_PORT=7400 \
    JUMPSEAT_DATA_DIR=/var/lib/jumpseat/data \
    JUMPSEAT_WORKSPACE=/var/lib/jumpseat/workspaces \
    NODE_ENV=production
USER 10001:10001
WORKDIR /var/lib/jumpseat
EXPOSE 7400
# /healthz needs no token. A host serves no HTTP: its pods and units check the process instead
# (docker run --no-healthcheck, or the orchestrator's own probes).
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.JUMPSEAT_PORT||7400)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# tini is PID 1: it reaps what is re-parented to it and passes SIGTERM on, so
# the server's graceful shutdown runs.
ENTRYPOINT ["/usr/bin/tini", "--", "/opt/jumpseat/bin/jumpseat.js"]
CMD ["serve"]
