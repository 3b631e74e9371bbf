#!/usr/bin/env bash
# What of jumpseat-host.service's hardening can be tried without systemd running: its mount
# options and NoNewPrivileges, built by hand in a mount namespace of this script's own (run it
# under `unshare --mount --propagation private`), around an installed jumpseat run as root with
# a sandboxed shell:
#   ProtectSystem=full   /usr and /etc read-only (and /boot, /efi where they exist)
#   ProtectHome=yes      an empty /home and /root
#   PrivateTmp=yes       a /tmp of its own
#   NoNewPrivileges=yes  setpriv --no-new-privs
# One bash call must then run sandboxed as jumpseat-shell, with no_new_privs, in a workspace
# that is a loop-mounted ext4 (the quota), and the server must stop cleanly on SIGTERM.
# Usage: host-unit-hardening.sh PREFIX NODE_DIR (as root; deploy/check/image-steps.sh runs it).
set -euo pipefail
prefix="$1"
node_dir="$2"
unit="$(dirname "$0")/../systemd/jumpseat-host.service"
# A cold start and a first sandboxed call on a loaded machine.
START_TIMEOUT_S=120
CALL_TIMEOUT_S=120

fail() {
  echo "host unit hardening: FAILED: $*" >&2
  [ -f "${state:-}/serve.log" ] && tail -n 20 "$state/serve.log" >&2
  true
  exit 1
}
[ "$(id -u)" = 0 ] || fail "needs root"
for setting in NoNewPrivileges=yes ProtectSystem=full ProtectHome=yes PrivateTmp=yes; do
  grep -qx "$setting" "$unit" || fail "the unit no longer says $setting; update this emulation"
done
[ "$(readlink /proc/self/ns/mnt)" != "$(readlink /proc/1/ns/mnt)" ] ||
  fail "not in a mount namespace of its own (run it under unshare --mount --propagation private)"

# The install's state dir (StateDirectory=) and the binaries, bound where the hiding below
# does not reach.
state="/var/lib/jumpseat-unit-check-$$"
run="/run/jumpseat-unit-check-$$"
mkdir -p "$state/data" "$state/workspaces" "$run/prefix" "$run/node"
# Not rm -r on $run: were a bind still mounted, that would delete the prefix it shows.
trap 'umount -l "$run/node/node" "$run/prefix" 2>/dev/null; rm -rf "$state"
  rm -f "$run/node/node"; rmdir "$run/node" "$run/prefix" "$run"' EXIT
mount --bind "$prefix" "$run/prefix"
# node alone: its directory may be /usr/bin, whose tools under /run would hide the sandbox's own.
touch "$run/node/node"
mount --bind "$node_dir/node" "$run/node/node"
for dir in /usr /etc /boot /efi; do
  [ -d "$dir" ] || continue
  mount --bind "$dir" "$dir"
  mount -o remount,bind,ro "$dir"
done
for dir in /home /root /tmp; do mount -t tmpfs -o mode=0755 tmpfs "$dir"; done
chmod 1777 /tmp
if touch /etc/.jumpseat-unit-check 2>/dev/null; then fail "/etc is still writable"; fi

token="js_unit_check_$$"
# Made here, not by the background job's redirection: under load the loop below reads it before
# that job has opened it (sed then failed, and set -e ended this script with no word of why).
: >"$state/serve.log"
setpriv --no-new-privs -- env -i PATH="$run/prefix/bin:$run/node:/usr/local/bin:/usr/bin:/bin" \
  HOME=/root LANG=C.UTF-8 JUMPSEAT_TOKEN="$token" JUMPSEAT_DATA_DIR="$state/data" \
  JUMPSEAT_WORKSPACE="$state/workspaces" JUMPSEAT_SANDBOX=bwrap \
  jumpseat serve --host 127.0.0.1 --port 0 --workspace-quota 64M >"$state/serve.log" 2>&1 &
pid=$!
url=""
for _ in $(seq 1 $((START_TIMEOUT_S * 5))); do
  url="$(sed -n 's/^jumpseat listening on //p' "$state/serve.log" 2>/dev/null || true)"
  [ -n "$url" ] && break
  kill -0 "$pid" 2>/dev/null || fail "the server exited before listening"
  sleep 0.2
done
[ -n "$url" ] || fail "no 'listening' line in $START_TIMEOUT_S s"
grep -q '^shells: sandboxed (bubblewrap), network on' "$state/serve.log" ||
  fail "the banner does not say sandboxed with network on: $(grep '^shells:' "$state/serve.log")"
output="$(curl -sS --max-time "$CALL_TIMEOUT_S" -X POST "${url}api/agents/unit-check/bash" \
  -H "authorization: Bearer $token" -H 'content-type: application/json' \
  -d '{"command":"id -un; grep NoNewPrivs /proc/self/status; df --output=source . | tail -1"}')" ||
  fail "the call failed"
expected='{"output":"jumpseat-shell\nNoNewPrivs:\t1\n/dev/loop'
[[ "$output" == "$expected"* ]] || fail "the call answered $output"
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
[ "$status" = 0 ] || fail "the server stopped with status $status on SIGTERM"
echo "host unit hardening: a sandboxed call ran as jumpseat-shell with no_new_privs on a quota workspace, under ProtectSystem=full, ProtectHome, PrivateTmp (emulated)"
