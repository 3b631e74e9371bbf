#!/usr/bin/env bash
# The steps of the jumpseat image, one function each: the Dockerfile runs them (RUN
# deploy/image/steps.sh STEP …), and deploy/check/image-steps.sh runs the same ones against a
# temporary prefix in CI, where no container engine exists. Nothing here knows which of the two
# runs it; every path comes in as an argument.
#
#   steps.sh build-packages              apt: what node-gyp needs to build node-pty and better-sqlite3
#   steps.sh runtime-packages [--pwsh]   apt: what the engine and its sandbox need at run time
#   steps.sh app SRC PREFIX              npm ci + build in SRC, then the package's files and its
#                                        production node_modules into PREFIX
#   steps.sh pwsh DIR VERSION            PowerShell VERSION as a .NET tool in DIR (needs dotnet)
#   steps.sh user NAME UID STATE_DIR     the non-root user the image runs as, and its state dirs
set -euo pipefail

die() {
  echo "steps.sh: $*" >&2
  exit 1
}

# --no-upgrade: a package already there (a CI machine's) is left as it is; in an image nothing is.
apt_install() {
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends --no-upgrade "$@" >/dev/null
}

# node-pty and better-sqlite3 are compiled by the app step (neither ships a Linux binary that the
# build can rely on): python3, make and a C++ compiler, as the README's Quick start says.
build_packages() {
  apt_install ca-certificates python3 make g++
}

# The engine's run-time needs, as .ci/run installs them for the tests:
#   bubblewrap  every shell's sandbox (--sandbox auto uses it where it works)
#   slirp4netns the sandbox network's egress for --network on (the default)
#   util-linux  setpriv (the sandbox drops to the shell user), unshare (the network namespace of a
#               server that is not root), prlimit (the open-file limit at start)
#   e2fsprogs   mkfs.ext4, for --workspace-quota when the server is root
#   iproute2    ip, which slirp4netns's --configure does not need but an operator debugging the
#               sandbox network does
#   tini        PID 1: reaps what is re-parented to it, forwards SIGTERM
#   libicu72    .NET's globalisation, for pwsh (only with --pwsh)
runtime_packages() {
  local packages=(ca-certificates bubblewrap slirp4netns util-linux e2fsprogs iproute2 tini)
  if [ "${1:-}" = --pwsh ]; then packages+=(libicu72); fi
  apt_install "${packages[@]}"
  rm -rf /var/lib/apt/lists/*
}

# The app as `npm pack` ships it (bin/, dist/, README, docs: no TypeScript sources, so
# bin/jumpseat.js never tries to rebuild) plus the production dependencies, compiled for the
# Node that runs this step.
app() {
  local src="$1" prefix="$2"
  [ -f "$src/package-lock.json" ] || die "app: $src has no package-lock.json"
  [ ! -e "$prefix" ] || [ -z "$(ls -A "$prefix")" ] || die "app: $prefix is not empty"
  mkdir -p "$prefix"
  local pack
  pack="$(mktemp -d)"
  (
    cd "$src"
    # The install scripts that package.json's allowScripts names, and no other, whatever the npm:
    # npm 11 (CI's) runs only those, npm 10 (node:22 images') would run every package's. Both
    # cores for the native builds (node-gyp reads JOBS).
    npm ci --no-audit --no-fund --ignore-scripts
    local allowed
    allowed="$(node -p "Object.keys(require('./package.json').allowScripts ?? {}).join(' ')")"
    # shellcheck disable=SC2086 # a list of package names
    JOBS=max npm rebuild --no-audit --no-fund $allowed
    npm run build
    npm pack --silent --pack-destination "$pack" >/dev/null
    npm prune --omit=dev --no-audit --no-fund >/dev/null
  )
  local tarball
  tarball="$(ls "$pack"/jumpseat-*.tgz)"
  tar -xzf "$tarball" -C "$prefix" --strip-components=1
  cp -a "$src/node_modules" "$prefix/node_modules"
  # `jumpseat` by its own name when PREFIX/bin is on PATH, as an npm install -g would give it.
  ln -s jumpseat.js "$prefix/bin/jumpseat"
  rm -rf "$pack"
  [ ! -e "$prefix/server/src" ] || die "app: $prefix has TypeScript sources; bin/jumpseat.js would try to rebuild them"
  [ -f "$prefix/dist/web/index.html" ] || die "app: the web app was not built (dist/web/index.html)"
  [ -f "$prefix/dist/server/src/cli/bin.js" ] || die "app: the server was not compiled (dist/server/src/cli/bin.js)"
  node -e 'require(process.argv[1])' "$prefix/node_modules/node-pty" ||
    die "app: node-pty does not load from $prefix"
}

# PowerShell as a .NET global tool, the way .ci/run installs it; it needs the .NET runtime of its
# version (10 for 7.6) wherever it runs.
pwsh() {
  local dir="$1" version="$2"
  command -v dotnet >/dev/null 2>&1 || die "pwsh: no dotnet (the .NET SDK) to install PowerShell with"
  dotnet tool install --tool-path "$dir" PowerShell --version "$version" >/dev/null
  [ -x "$dir/pwsh" ] || die "pwsh: $dir/pwsh was not installed"
}

# The image's default user: not root, so a control plane needs no privilege at all, and a host's
# shells are sandboxed in unprivileged user namespaces (see deploy/README.md for what that asks of
# the container runtime). STATE_DIR/data is the data dir (mode 700), STATE_DIR/workspaces the
# workspace root; both are the user's.
user() {
  local name="$1" uid="$2" state="$3"
  getent passwd "$name" >/dev/null ||
    useradd --uid "$uid" --user-group --create-home --home-dir "/home/$name" --shell /usr/sbin/nologin "$name"
  install -d -o "$name" -g "$name" -m 0755 "$state"
  install -d -o "$name" -g "$name" -m 0700 "$state/data"
  install -d -o "$name" -g "$name" -m 0755 "$state/workspaces"
}

step="${1:-}"
[ "$#" -gt 0 ] && shift
case "$step" in
  build-packages) build_packages ;;
  runtime-packages) runtime_packages "$@" ;;
  app) [ "$#" = 2 ] || die "usage: steps.sh app SRC PREFIX"; app "$@" ;;
  pwsh) [ "$#" = 2 ] || die "usage: steps.sh pwsh DIR VERSION"; pwsh "$@" ;;
  user) [ "$#" = 3 ] || die "usage: steps.sh user NAME UID STATE_DIR"; user "$@" ;;
  *) die "unknown step ${step:-(none)}; one of: build-packages, runtime-packages, app, pwsh, user" ;;
esac
