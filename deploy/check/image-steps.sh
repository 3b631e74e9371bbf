#!/usr/bin/env bash
# The Dockerfile's steps, run on this machine against a temporary prefix (no container engine
# exists in CI): the same deploy/image/steps.sh the Dockerfile's RUN lines call, in the order the
# image is built, then the installed jumpseat started in both of the image's roles, as a user
# that is not root where this runs as root (the image's USER):
#   1. every RUN of the Dockerfile is a step of steps.sh (so nothing the image does is left out)
#   2. build-packages and runtime-packages (apt; as root only)
#   3. app: npm ci and the build in a copy of the tracked files, installed into PREFIX
#   4. pwsh: PowerShell as a .NET tool (where dotnet exists; required with CI=true)
#   5. user: the image's user and state dirs (a user of this run's own, removed at the end)
#   6. PREFIX/bin/jumpseat serve --local-shells off: /healthz and /readyz answer
#   7. a host token minted with the CLI, PREFIX/bin/jumpseat host --join, one bash call through it
#   8. jumpseat-host.service's mount hardening and NoNewPrivileges, emulated, around a root server
#      with a sandboxed shell (deploy/check/host-unit-hardening.sh; as root only)
# Prints one line per step with its seconds; exits non-zero at the first failure.
# `--prefix DIR` starts from a prefix an earlier run of the app step left (steps 2-4 NOT RUN),
# for working on the steps after it; CI never passes it.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo="$PWD"
steps="$repo/deploy/image/steps.sh"
PWSH_VERSION="${PWSH_VERSION:-7.6.9}"
# A cold start of the installed server on a loaded machine; a host's first join; a first call.
START_TIMEOUT_S=60
CALL_TIMEOUT_S=60

given_prefix=""
if [ "${1:-}" = --prefix ] && [ -n "${2:-}" ]; then given_prefix="$(realpath "$2")"; fi
work="$(mktemp -d /tmp/jumpseat-image-XXXXXX)"
chmod 755 "$work"
pids=()
run_user=""
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ -n "$run_user" ]; then userdel --remove "$run_user" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

started=$(date +%s)
last=$started
say() {
  local now
  now=$(date +%s)
  echo "== image steps: $* ($((now - last)) s)"
  last=$now
}
fail() {
  echo "== image steps: FAILED: $*" >&2
  for log in "$work"/*.log; do
    [ -f "$log" ] && { echo "--- $(basename "$log")" >&2; tail -n 20 "$log" >&2; }
  done
  exit 1
}

# 1. The Dockerfile's RUN lines (continuations joined) must each call steps.sh, or be one of the
# two plain commands its PowerShell stages add around it.
mapfile -t runs < <(sed -e ':a' -e '/\\$/N; s/\\\n//; ta' Dockerfile | grep -E '^RUN ' | sed -E 's/^RUN +//')
[ "${#runs[@]}" -gt 0 ] || fail "the Dockerfile has no RUN line"
for run in "${runs[@]}"; do
  case "$run" in
    *jumpseat-steps.sh*) ;;
    'mkdir -p /opt/pwsh /opt/dotnet') ;;
    *) fail "a RUN of the Dockerfile is not a step of deploy/image/steps.sh, so CI would not run it: $run" ;;
  esac
done
for step in build-packages runtime-packages app pwsh user; do
  grep -qE "jumpseat-steps.sh $step( |$)" Dockerfile || fail "the Dockerfile does not run the step $step"
done
say "the Dockerfile's ${#runs[@]} RUN lines are steps of steps.sh"

if [ -n "$given_prefix" ]; then
  prefix="$given_prefix"
  pwsh_line=""
  say "build-packages, runtime-packages, app, pwsh: NOT RUN (--prefix $prefix)"
else
# 2. The system packages, as root (what apt installs is already there on a CI machine, so this
# costs an apt-get update).
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  "$steps" build-packages
  "$steps" runtime-packages
  for command in bwrap slirp4netns setpriv unshare prlimit mkfs.ext4 tini; do
    command -v "$command" >/dev/null 2>&1 || fail "runtime-packages left no $command"
  done
  say "build-packages, runtime-packages: installed"
else
  say "build-packages, runtime-packages: NOT RUN (needs root and apt-get)"
fi

# 3. The app, from a copy of the tracked files (what the image's COPY . takes, less .dockerignore).
src="$work/src"
prefix="$work/opt/jumpseat"
mkdir -p "$src"
git ls-files -z | xargs -0 cp --parents -t "$src"
"$steps" app "$src" "$prefix" >"$work/app.log" 2>&1 || fail "steps.sh app (its log follows)"
rm -rf "$src"
say "app: installed in $prefix ($(du -sm "$prefix" | cut -f1) MiB)"

# 4. PowerShell, as the image's PWSH=on stage installs it.
pwsh_line=""
if command -v dotnet >/dev/null 2>&1; then
  "$steps" pwsh "$work/opt/pwsh" "$PWSH_VERSION" >"$work/pwsh.log" 2>&1 || fail "steps.sh pwsh"
  version="$("$work/opt/pwsh/pwsh" -NoLogo -NoProfile -Command '$PSVersionTable.PSVersion.ToString()')"
  [ "$version" = "$PWSH_VERSION" ] || fail "the installed pwsh says $version, not $PWSH_VERSION"
  chmod -R a+rX "$work/opt/pwsh"
  pwsh_line="$work/opt/pwsh/pwsh"
  say "pwsh: PowerShell $version in $work/opt/pwsh"
elif [ "${CI:-}" = true ]; then
  fail "pwsh: no dotnet to install PowerShell with (CI=true)"
else
  say "pwsh: NOT RUN (no dotnet here)"
fi
fi

# 5. The image's user: as root, one of this run's own (removed at the end), and the servers
# below run as it; otherwise they run as whoever runs this.
state="$work/state"
as_user=()
if [ "$(id -u)" = 0 ]; then
  run_user="jumpseat-check-$$"
  uid=10001
  while getent passwd "$uid" >/dev/null || getent group "$uid" >/dev/null; do uid=$((uid + 1)); done
  "$steps" user "$run_user" "$uid" "$state"
  [ "$(stat -c '%U %a' "$state/data")" = "$run_user 700" ] || fail "user: $state/data is not the user's, mode 700"
  as_user=(setpriv --reuid="$run_user" --regid="$run_user" --clear-groups --)
  home="/home/$run_user"
  say "user: $run_user (uid $uid) owns $state"
else
  mkdir -p "$state/data" "$state/workspaces"
  chmod 700 "$state/data"
  home="$HOME"
  say "user: NOT RUN (needs root); the servers run as $(id -un)"
fi
node_dir="$(dirname "$(command -v node)")"
# The image's environment (Dockerfile ENV), less what each role sets below. exec: started in the
# background, the pid kept is jumpseat's own, which the SIGTERM at the end must reach.
run() {
  exec "${as_user[@]}" env -i HOME="$home" LANG=C.UTF-8 TERM=xterm \
    PATH="$prefix/bin:$node_dir:/usr/local/bin:/usr/bin:/bin" \
    JUMPSEAT_DATA_DIR="$state/data" JUMPSEAT_WORKSPACE="$state/workspaces" NODE_ENV=production \
    ${pwsh_line:+JUMPSEAT_PWSH="$pwsh_line"} "$@"
}
# start LOG ARGS…: run in the background, its pid kept for the end.
start() {
  local log="$1"
  shift
  (run "$@") >"$log" 2>&1 &
  pids+=("$!")
}
# wait_for FILE PATTERN SECONDS: the first line of FILE that matches PATTERN.
wait_for() {
  local deadline=$(($(date +%s) + $3))
  while [ "$(date +%s)" -lt "$deadline" ]; do
    if grep -m1 -E "$2" "$1" 2>/dev/null; then return 0; fi
    sleep 0.2
  done
  return 1
}

# 6. The control plane, as the image's default command runs it (no shells of its own).
admin_token="js_image_check_$$_$(date +%s)"
start "$work/serve.log" JUMPSEAT_TOKEN="$admin_token" JUMPSEAT_HOST=127.0.0.1 JUMPSEAT_PORT=0 \
  jumpseat serve --local-shells off
line="$(wait_for "$work/serve.log" '^jumpseat listening on ' "$START_TIMEOUT_S")" ||
  fail "jumpseat serve printed no 'listening' line in $START_TIMEOUT_S s"
url="${line#jumpseat listening on }"
health="$(curl -fsS --max-time 10 "${url}healthz")" || fail "GET ${url}healthz failed"
[[ "$health" == '{"ok":true,"storage":"ok"'* ]] || fail "/healthz answered $health"
ready="$(curl -fsS --max-time 10 "${url}readyz")" || fail "GET ${url}readyz failed"
[ "$ready" = '{"ready":true}' ] || fail "/readyz answered $ready"
say "serve: $url, /healthz $health, /readyz $ready"

# 7. A host, as the image's other role: a host token from the CLI, the host joining, one call.
host_token="$( (run JUMPSEAT_URL="$url" JUMPSEAT_TOKEN="$admin_token" \
  jumpseat token create --role host --name image-check))" || fail "jumpseat token create --role host"
mkdir -p "$work/host-data"
[ -z "$run_user" ] || chown "$run_user:$run_user" "$work/host-data"
start "$work/host.log" JUMPSEAT_TOKEN="$host_token" JUMPSEAT_DATA_DIR="$work/host-data" \
  jumpseat host --join "$url"
wait_for "$work/host.log" 'joined ' "$START_TIMEOUT_S" >/dev/null ||
  fail "jumpseat host did not join in $START_TIMEOUT_S s"
agent_token="$( (run JUMPSEAT_URL="$url" JUMPSEAT_TOKEN="$admin_token" \
  jumpseat token create --role agent --agent image-check))" || fail "jumpseat token create --role agent"
output="$(timeout "$CALL_TIMEOUT_S" env JUMPSEAT_URL="$url" JUMPSEAT_TOKEN="$agent_token" \
  "$prefix/bin/jumpseat" exec --agent image-check -- 'echo image-$((6*7)) as $(id -un)')" ||
  fail "jumpseat exec through the host failed: $output"
[[ "$output" == "image-42 as "* ]] || fail "the call through the host answered: $output"
shells="$(grep -m1 '^shells: ' "$work/host.log" || true)"
say "host: joined, a bash call answered '$output'${shells:+ ($shells)}"

for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
for pid in "${pids[@]}"; do
  status=0
  wait "$pid" || status=$?
  [ "$status" = 0 ] || fail "a server (pid $pid) stopped with status $status on SIGTERM"
done
pids=()
say "serve and host: stopped with status 0 on SIGTERM"

# 8. jumpseat-host.service's mount hardening and NoNewPrivileges, built by hand (no systemd
# runs here) around the installed jumpseat as root with a sandboxed shell. The unit expects the
# shell user made at install (ProtectSystem=full leaves /etc read-only to the server's useradd).
if [ "$(id -u)" = 0 ]; then
  getent passwd jumpseat-shell >/dev/null ||
    useradd --system --user-group --no-create-home --shell /usr/sbin/nologin jumpseat-shell
  unshare --mount --propagation private "$repo/deploy/check/host-unit-hardening.sh" \
    "$prefix" "$node_dir" >"$work/unit.log" 2>&1 || fail "deploy/check/host-unit-hardening.sh"
  say "$(tail -n 1 "$work/unit.log")"
else
  say "host unit hardening: NOT RUN (needs root)"
fi
echo "== image steps: passed in $(($(date +%s) - started)) s"
