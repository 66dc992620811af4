#!/usr/bin/env bash
# Container image test: builds docker/Dockerfile around a prebuilt binary (--target prebuilt,
# no compiling) with Debian's podman or buildah, and checks the running image from the host.
#
#   tests/container/image_test.sh /path/to/sagemaker-emulator
#
# No registry is needed: the base image localhost/debian:bookworm-slim is made once with
# docker/base-image.sh (debootstrap) and stays in this test's own container storage (vfs driver,
# chroot isolation; as root /var/lib/containers/sagemaker-emulator, SMEMU_CONTAINER_STORE to
# change), so later runs skip it. Engine settings are this test's own (CONTAINERS_CONF): runc
# where installed (crun 1.8 refuses hybrid cgroup hierarchies) and ulimits within the caller's
# (podman's default of 1048576 open files needs CAP_SYS_RESOURCE).
#
# Where podman can run the image, each check runs in a real container with a published port.
# Where it cannot (or with SMEMU_CONTAINER_MODE=chroot, or with buildah alone), the image's
# filesystem runs under unshare + chroot in the host's network: the entrypoint, the environment
# defaults, /data ownership, health check and SIGTERM are checked the same way, port publishing
# and the engine's own health state are not; the output says which mode ran.
# Exits 77 (skipped) when neither podman nor buildah is installed. Ends with "N passed, M failed".
set -uo pipefail

[[ $# -eq 1 && -x "$1" ]] || { echo "usage: $0 /path/to/sagemaker-emulator" >&2; exit 2; }
binary="$(realpath "$1")"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
T0=$SECONDS
passed=0
failed=0
ok() { echo "ok - $1"; passed=$((passed + 1)); }
not_ok() {
  echo "not ok - $1"
  shift
  local line
  for line in "$@"; do echo "#   $line"; done
  failed=$((failed + 1))
}
note() { echo "# [$((SECONDS - T0))s] $*"; }
# COMMAND; verdict $? NAME [DETAIL...]: ok when the command succeeded. ($? goes first: a command
# substitution in the details would change it before the function could read it.)
verdict() {
  local rc=$1
  shift
  if [[ $rc -eq 0 ]]; then ok "$1"; else not_ok "$@"; fi
}
finish() {
  note "total $((SECONDS - T0)) s"
  echo "$passed passed, $failed failed"
  [[ $failed -eq 0 ]]
  exit
}

if [[ -n "${SMEMU_CONTAINER_TOOL:-}" ]]; then
  tool="$SMEMU_CONTAINER_TOOL"  # podman or buildah, to try the other path
elif command -v podman >/dev/null; then
  tool=podman
elif command -v buildah >/dev/null; then
  tool=buildah
else
  echo "# skipped: neither podman nor buildah is installed (scripts/deps installs them)"
  exit 77
fi
for command in curl debootstrap; do
  if ! command -v "$command" >/dev/null; then
    echo "# $command is missing (scripts/deps installs it)"
    exit 1
  fi
done

# ---------------------------------------------------------------- storage and engine settings
work="$(mktemp -d "${TMPDIR:-/tmp}/smemu-image-test.XXXXXX")"
if [[ $(id -u) -eq 0 ]]; then
  store="${SMEMU_CONTAINER_STORE:-/var/lib/containers/sagemaker-emulator}"
  runroot=/run/containers/sagemaker-emulator
else
  data_home="${XDG_DATA_HOME:-$HOME/.local/share}"
  store="${SMEMU_CONTAINER_STORE:-$data_home/containers/sagemaker-emulator}"
  runroot="${XDG_RUNTIME_DIR:-/tmp/containers-$(id -u)}/containers-sagemaker-emulator"
fi
cat >"$work/storage.conf" <<EOF
[storage]
driver = "vfs"
graphroot = "$store/storage"
runroot = "$runroot/storage"
EOF
nofile=$(ulimit -Hn)
[[ "$nofile" == unlimited || "$nofile" -gt 1048576 ]] && nofile=1048576
nproc=$(ulimit -Hu)
# podman lowers its own limit of processes to 32768, and a container cannot have more than it.
[[ "$nproc" == unlimited || "$nproc" -gt 32768 ]] && nproc=32768
{
  echo "[containers]"
  echo "default_ulimits = [\"nofile=$nofile:$nofile\", \"nproc=$nproc:$nproc\"]"
  echo "[engine]"
  echo "cgroup_manager = \"cgroupfs\""
  echo "events_logger = \"file\""
  echo "tmp_dir = \"$runroot/libpod\""
  if command -v runc >/dev/null; then echo "runtime = \"runc\""; fi
} >"$work/containers.conf"
export CONTAINERS_STORAGE_CONF="$work/storage.conf" CONTAINERS_CONF="$work/containers.conf"
export BUILDAH_ISOLATION=chroot BUILDAH_FORMAT=docker

image=localhost/sagemaker-emulator:image-test
base=localhost/debian:bookworm-slim
containers=()
chroot_pids=()
cleanup() {
  local pid name
  # The namespaces' PID 1 and their unshare, in chroot mode.
  for pid in "${chroot_pids[@]}"; do kill -KILL "$pid" 2>/dev/null; done
  for name in "${containers[@]}"; do
    if [[ $tool == podman ]]; then podman rm -f -t 0 "$name" >/dev/null 2>&1; else
      buildah rm "$name" >/dev/null 2>&1; fi
  done
  if [[ $tool == podman ]]; then podman rmi -f "$image" >/dev/null 2>&1; else
    buildah rmi -f "$image" >/dev/null 2>&1; fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP PIPE

echo "# binary: $binary"
runtime=default
command -v runc >/dev/null && runtime=runc
echo "# $($tool --version); storage: $store (vfs); runtime: $runtime"

# ---------------------------------------------------------------- base image and build
t=$SECONDS
if ! CONTAINER_TOOL=$tool "$repo/docker/base-image.sh" "$base" >"$work/base.log" 2>&1; then
  not_ok "base image $base is made" "$(tail -n 20 "$work/base.log")"
  finish
fi
note "$(tail -n 1 "$work/base.log") ($((SECONDS - t)) s)"

context="$repo"
if [[ "$binary" != "$repo/build/sagemaker-emulator" ]]; then
  # The Dockerfile's prebuilt stage copies build/sagemaker-emulator from the context.
  context="$work/context"
  mkdir -p "$context/build" "$context/docker" "$context/examples"
  cp -r "$repo/LICENSE" "$repo/README.md" "$context/"
  cp -r "$repo/docker/." "$context/docker/"
  cp -r "$repo/examples/scenarios" "$repo/examples/capacity" "$context/examples/"
  cp "$binary" "$context/build/sagemaker-emulator"
fi
version="$("$binary" --version | awk '{print $NF}')"
build_args=(--pull=never --format docker --isolation chroot --layers=false
  --build-arg BASE_IMAGE="$base" --build-arg BUILD_IMAGE="$base" --target prebuilt
  --build-arg VERSION="$version" -f "$repo/docker/Dockerfile" -t "$image" "$context")
t=$SECONDS
if [[ $tool == podman ]]; then
  podman build "${build_args[@]}" >"$work/build.log" 2>&1
else
  buildah bud "${build_args[@]}" >"$work/build.log" 2>&1
fi
rc=$?
if [[ $rc -ne 0 ]]; then
  not_ok "image builds with --target prebuilt" "$(tail -n 20 "$work/build.log")"
  finish
fi
ok "image builds with --target prebuilt ($((SECONDS - t)) s)"
if grep -q 'AS build' "$work/build.log"; then
  not_ok "the unused build stage is skipped" "$(grep -n 'AS build' "$work/build.log")"
else
  ok "the unused build stage is skipped"
fi

inspect_image() {  # inspect_image GO-TEMPLATE (podman's field names)
  if [[ $tool == podman ]]; then
    podman image inspect --format "$1" "$image"
  else
    local template="${1//.Config./.OCIv1.Config.}"
    template="${template//.Labels/.OCIv1.Config.Labels}"
    template="${template//.HealthCheck/.Docker.Config.Healthcheck}"
    buildah inspect --type image --format "$template" "$image"
  fi
}
missing_labels=()
for label in title description source licenses version documentation; do
  value="$(inspect_image "{{index .Labels \"org.opencontainers.image.$label\"}}" 2>/dev/null)"
  [[ -n "$value" && "$value" != "<no value>" ]] || missing_labels+=("$label")
done
# source is empty unless the build passes SOURCE_URL (the repository's address is nowhere in it).
if [[ "${missing_labels[*]}" == "" || "${missing_labels[*]}" == source ]]; then
  ok "OCI labels present (version $(inspect_image \
    '{{index .Labels "org.opencontainers.image.version"}}'))"
else
  not_ok "OCI labels present" "missing: ${missing_labels[*]}"
fi
license="$(inspect_image '{{index .Labels "org.opencontainers.image.licenses"}}')"
[[ "$license" == Apache-2.0 ]] && grep -q "Apache License" "$repo/LICENSE"
verdict $? "license label matches LICENSE (Apache-2.0)" "label: $license"
health_config="$(inspect_image '{{.HealthCheck.Test}} interval {{.HealthCheck.Interval}}')"
[[ "$health_config" == *sagemaker-emulator-healthcheck*" interval 2s" ]]
verdict $? "image has the HEALTHCHECK (docker format)" "$health_config"
image_env="$(inspect_image '{{range .Config.Env}}{{println .}}{{end}}')"
missing_env=()
for setting in SAGEMAKER_EMULATOR_HOST=0.0.0.0 SAGEMAKER_EMULATOR_PORT=4577 \
  SAGEMAKER_EMULATOR_DB=:memory: SAGEMAKER_EMULATOR_ADMIN_FROM=local; do
  grep -qx "$setting" <<<"$image_env" || missing_env+=("$setting")
done
[[ ${#missing_env[@]} -eq 0 ]]
verdict $? "image environment defaults (host, port, in-memory db, admin from local)" \
  "missing: ${missing_env[*]}" "$image_env"
if [[ $tool == podman ]]; then
  note "image size $(podman image inspect --format '{{.Size}}' "$image") bytes"
fi

# ---------------------------------------------------------------- how the image runs
mode=podman
[[ $tool == buildah ]] && mode=chroot
[[ "${SMEMU_CONTAINER_MODE:-}" == chroot ]] && mode=chroot
if [[ $mode == podman ]]; then
  # Containers a killed run (ctest's timeout) left behind.
  podman ps -aq --filter label=sagemaker-emulator-image-test=1 |
    xargs -r podman rm -f -t 0 >/dev/null 2>&1
  t=$SECONDS
  # Also the entrypoint's path for a non-root --user: it runs the server as it is.
  if out="$(podman run --rm --label sagemaker-emulator-image-test=1 --user 4321:4321 "$image" \
    --version 2>&1)" && [[ "$out" == *"$version"* ]]; then
    ok "podman run works here; --user 4321 runs the server directly ($((SECONDS - t)) s)"
  else
    note "podman run fails here, so the image runs under unshare + chroot instead:"
    while IFS= read -r line; do echo "#   $line"; done <<<"$out"
    mode=chroot
  fi
fi
echo "# mode: $mode"

elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b-a}'; }
# A port below the kernel's ephemeral range (32768 and up by default), so that no outgoing
# connection of a test running beside this one takes it between here and podman's bind, and one
# that nothing holds now: a bind, not a connect, since a port can be held without a listener.
free_port() {
  local port low
  low="$(awk '{print $1}' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)"
  ((low > 21000)) || low=32768
  while :; do
    port=$((20000 + RANDOM % (low - 20000)))
    /usr/bin/python3 -c 'import socket,sys; socket.socket().bind(("127.0.0.1", int(sys.argv[1])))' \
      "$port" 2>/dev/null && { echo "$port"; return; }
  done
}

# start NAME PORT DATA-DIR|- [-e NAME=VALUE]... [-- SERVER-ARGS...]: runs the image
# stop NAME: SIGTERM, as docker stop; sets stop_seconds and stop_code (the server's exit code)
# run_in NAME COMMAND...: runs a command in the running image; server_uid NAME
if [[ $mode == podman ]]; then
  start() {
    local name="$1" port="$2" data="$3" envs=() args=()
    shift 3
    while [[ $# -gt 0 && "$1" != -- ]]; do envs+=("$1" "$2"); shift 2; done
    [[ "${1:-}" == -- ]] && shift
    args=("$@")
    local mount=()
    [[ "$data" != - ]] && mount=(-v "$data:/data")
    containers+=("$name")
    # No health check timer: podman 4.3 makes it a systemd unit, and needs systemd for that.
    podman run -d --name "$name" --label sagemaker-emulator-image-test=1 --health-interval=disable \
      -p "127.0.0.1:$port:4577" "${mount[@]}" "${envs[@]}" "$image" "${args[@]}" \
      >"$work/$name.run" 2>&1
  }
  restart() { podman start "$1" >"$work/$1.start" 2>&1; }
  stop() {  # podman stop: SIGTERM, then SIGKILL after 10 s (exit code 137)
    local t0=$EPOCHREALTIME finished
    podman stop -t 10 "$1" >/dev/null 2>&1
    stop_seconds="$(elapsed "$t0")"
    stop_code="$(podman inspect --format '{{.State.ExitCode}}' "$1")"
    finished="$(podman inspect --format '{{.State.FinishedAt.UnixNano}}' "$1")"
    stop_server_seconds="$(awk -v a="$t0" -v f="$finished" 'BEGIN{printf "%.2f", f/1e9-a}')"
  }
  run_in() { local name="$1"; shift; podman exec "$name" "$@"; }
  server_uid() { podman exec "$1" awk '/^Uid:/{print $2}' /proc/1/status; }
  logs() { podman logs "$1" 2>&1 | tail -n 20; }
  remove() { podman rm -f -t 0 "$1" >/dev/null 2>&1; }
  engine_health() {
    podman healthcheck run "$1" >/dev/null 2>&1 || return 1
    [[ "$(podman inspect --format '{{.State.Health.Status}}' "$1" 2>/dev/null ||
      podman inspect --format '{{.State.Healthcheck.Status}}' "$1")" == healthy ]]
  }
else
  # The image's filesystem (a container's copy) under chroot, in new PID and mount namespaces.
  if [[ $tool == podman ]]; then
    cid="$(podman create "$image")" && containers+=("$cid") && rootfs="$(podman mount "$cid")"
  else
    cid="$(buildah from --pull=never "$image")" && containers+=("$cid") &&
      rootfs="$(buildah mount "$cid")"
  fi
  [[ -n "${rootfs:-}" && -x "$rootfs/usr/local/bin/sagemaker-emulator-entrypoint" ]] || {
    not_ok "image filesystem is mounted for chroot"
    finish
  }
  mapfile -t base_env < <(grep . <<<"$image_env")
  entrypoint="$(inspect_image '{{range .Config.Entrypoint}}{{println .}}{{end}}' | head -n 1)"
  declare -A run_data run_envs run_args run_pid run_outer
  start() {
    local name="$1" port="$2" data="$3" envs=()
    shift 3
    while [[ $# -gt 0 && "$1" != -- ]]; do envs+=("${2}"); shift 2; done
    [[ "${1:-}" == -- ]] && shift
    # The image's /data, unless a host directory is bound over it: a fresh copy per container.
    if [[ "$data" == - ]]; then
      data="$work/$name.volume"
      mkdir -p "$data" && chown 10001:10001 "$data"
    fi
    run_data[$name]=$data
    run_envs[$name]="$(printf '%s\n' "${base_env[@]}" "SAGEMAKER_EMULATOR_PORT=$port" "${envs[@]}")"
    run_args[$name]="$(printf '%s\n' "$@")"
    restart "$name"
  }
  restart() {
    local name="$1" envs args
    mapfile -t envs <<<"${run_envs[$name]}"
    mapfile -t args < <(grep . <<<"${run_args[$name]}")
    unshare --pid --fork --mount --propagation private -- /bin/sh -c '
      root="$1" data="$2"; shift 2
      mount --bind "$data" "$root/data" && mount -t proc proc "$root/proc" &&
        mount --rbind /dev "$root/dev" || exit 125
      exec chroot "$root" "$@"' sh "$rootfs" "${run_data[$name]}" \
      env -i "${envs[@]}" "$entrypoint" "${args[@]}" >"$work/$name.log" 2>&1 &
    local outer=$! pid=""
    for _ in $(seq 50); do
      pid="$(pgrep -P "$outer" | head -n 1)" && [[ -n "$pid" ]] && break
      sleep 0.1
    done
    chroot_pids+=("$pid" "$outer")
    run_pid[$name]="$pid" run_outer[$name]="$outer"
  }
  stop() {  # SIGTERM to the namespace's PID 1, the server; unshare exits with its code
    local t0=$EPOCHREALTIME
    kill -TERM "${run_pid[$1]}" 2>/dev/null
    wait "${run_outer[$1]}" 2>/dev/null
    stop_code=$?
    stop_seconds="$(elapsed "$t0")"
    stop_server_seconds=$stop_seconds
  }
  run_in() {
    local name="$1" envs
    shift
    mapfile -t envs <<<"${run_envs[$name]}"
    chroot "$rootfs" env -i "${envs[@]}" "$@"
  }
  server_uid() { awk '/^Uid:/{print $2}' "/proc/${run_pid[$1]}/status"; }
  logs() { tail -n 20 "$work/$1.log"; }
  remove() { local pid="${run_pid[$1]}"; kill -KILL "$pid" 2>/dev/null; sleep 0.2; }
  engine_health() { run_in "$1" /usr/local/bin/sagemaker-emulator-healthcheck; }
fi

# The server's address from the host: the published port, or in chroot mode the port itself.
url() { echo "http://127.0.0.1:$1"; }
wait_healthy() {  # wait_healthy PORT: up to 20 s
  local _
  for _ in $(seq 200); do
    curl -fsS -m 2 "$(url "$1")/_emulator/health" 2>/dev/null | grep -q '"ok"' && return 0
    sleep 0.1
  done
  return 1
}
sagemaker() {  # sagemaker PORT REGION OPERATION JSON (the region from a SigV4 scope)
  local scope="AKIDIMAGETEST/20270115/$2/sagemaker/aws4_request"
  curl -sS -m 5 -X POST "$(url "$1")/" -H "X-Amz-Target: SageMaker.$3" \
    -H 'Content-Type: application/x-amz-json-1.1' \
    -H "Authorization: AWS4-HMAC-SHA256 Credential=$scope, SignedHeaders=host, Signature=00" \
    -d "$4"
}
create_model() {  # create_model PORT REGION NAME
  sagemaker "$1" "$2" CreateModel "{\"ModelName\":\"$3\",
    \"ExecutionRoleArn\":\"arn:aws:iam::000000000000:role/r\",
    \"PrimaryContainer\":{\"Image\":\"000000000000.dkr.ecr.us-east-1.amazonaws.com/m:1\"}}"
}
status_of() { curl -s -o /dev/null -m 5 -w '%{http_code}' "$@"; }
scenarios_dir=/usr/share/sagemaker-emulator/scenarios

# ---------------------------------------------------------------- 1: defaults, in-memory state
port=$(free_port)
t=$SECONDS
start smemu-defaults "$port" -
where="port $port"
[[ $mode == podman ]] && where="published port 127.0.0.1:$port"
if ! wait_healthy "$port"; then
  not_ok "health 200 from the host ($where)" "$(logs smemu-defaults)" \
    "$(cat "$work/smemu-defaults.run" 2>/dev/null)"
  finish
fi
ok "health 200 from the host ($where) $((SECONDS - t)) s after the start"
health_check="the image's health check script succeeds"
[[ $mode == podman ]] && health_check="engine health check: healthy (podman healthcheck run)"
engine_health smemu-defaults
verdict $? "$health_check"
# A --port after the image name moves the server; the health check follows it.
start smemu-otherport "$(free_port)" - -- --port 4600
healthy=1
for _ in $(seq 50); do engine_health smemu-otherport && healthy=0 && break; sleep 0.1; done
verdict $healthy "the health check follows --port given after the image name (4600)" \
  "$(logs smemu-otherport)"
remove smemu-otherport
uid="$(server_uid smemu-defaults)"
[[ "$uid" == 10001 ]]
verdict $? "server runs as emulator (uid 10001) with the image's /data" "uid $uid"
clock="$(status_of "$(url "$port")/_emulator/clock")"
reset="$(status_of -X POST "$(url "$port")/_emulator/reset")"
[[ "$clock $reset" == "200 200" ]]
verdict $? "admin API from the host, no token: GET /_emulator/clock 200, POST /_emulator/reset 200" \
  "clock $clock, reset $reset" "$(logs smemu-defaults)"
if [[ $mode == podman ]]; then
  # A sibling container on the same network (bash's /dev/tcp: the image has no curl).
  address="$(podman inspect --format '{{.NetworkSettings.IPAddress}}' smemu-defaults)"
  request="exec 3<>/dev/tcp/$address/4577 && printf 'GET /_emulator/clock HTTP/1.0\r\n\r\n' >&3"
  sibling="$(podman run --rm --label sagemaker-emulator-image-test=1 --health-interval=disable \
    --entrypoint bash "$image" -c "$request && head -n 1 <&3" 2>&1)"
  [[ "$sibling" == *" 200 "* ]]
  verdict $? "admin API from a sibling container ($address): 200" "$sibling"
fi
shipped="$(run_in smemu-defaults ls "$scenarios_dir" /usr/share/sagemaker-emulator/capacity 2>&1)"
[[ "$shipped" == *walkthrough.json* && "$shipped" == *jobs.json* ]]
verdict $? "scenarios and capacity files shipped under /usr/share/sagemaker-emulator/" "$shipped"
create_model "$port" us-east-1 in-memory-model >/dev/null
[[ "$(sagemaker "$port" us-east-1 ListModels '{}')" == *in-memory-model* ]] ||
  not_ok "CreateModel in the container"
stop smemu-defaults
# Exit code 0 within the engine's 10 s: the server (PID 1) handled SIGTERM, it was not killed.
[[ "$stop_code" == 0 ]] && awk -v s="$stop_seconds" 'BEGIN{exit !(s < 10)}'
verdict $? "SIGTERM stops the server (PID 1): exit code 0, exited $stop_server_seconds s after the \
stop began ($stop_seconds s with the engine's clean-up)" "exit code $stop_code" \
  "$(logs smemu-defaults)"
restart smemu-defaults
wait_healthy "$port" && models="$(sagemaker "$port" us-east-1 ListModels '{}')" &&
  [[ "$models" == '{"Models":[]}' ]]
verdict $? "state is in memory by default: empty after a restart" "${models:-}"
remove smemu-defaults

# ---------------------------------------------------------------- 2: a host directory of uid 1234
port=$(free_port)
data="$work/data-1234"
mkdir -p "$data" && chown 1234:1234 "$data" && chmod 755 "$data"
start smemu-persist "$port" "$data" -e SAGEMAKER_EMULATOR_DB=/data/state.db -- \
  --init "$scenarios_dir"
wait_healthy "$port" && [[ "$(sagemaker "$port" us-west-2 ListModels '{}')" == *model-v1* ]] &&
  [[ "$(sagemaker "$port" us-west-2 ListClusters '{}')" == *llm-cluster* ]] &&
  [[ "$(sagemaker "$port" us-east-1 ListTrainingJobs '{}')" == *llm-pretrain* ]]
verdict $? "--init $scenarios_dir applies the shipped scenarios together" "$(logs smemu-persist)"
uid="$(server_uid smemu-persist)"
[[ "$uid" == 1234 ]]
verdict $? "with /data owned by uid 1234 the server runs as 1234" "uid $uid"
create_model "$port" us-east-1 persisted-model >/dev/null
stop smemu-persist
remove smemu-persist
owner="$(stat -c %u:%g "$data/state.db" 2>&1)"
[[ "$owner" == 1234:1234 ]]
verdict $? "state.db in the bind mount belongs to 1234:1234" "$owner"
start smemu-persist2 "$port" "$data" -e SAGEMAKER_EMULATOR_DB=/data/state.db
wait_healthy "$port" && models="$(sagemaker "$port" us-east-1 ListModels '{}')" &&
  [[ "$models" == *persisted-model* ]]
verdict $? "SAGEMAKER_EMULATOR_DB=/data/state.db persists across containers" "${models:-}" \
  "$(logs smemu-persist2)"
remove smemu-persist2

# ---------------------------------------------------------------- 3: a host directory of root
port=$(free_port)
data="$work/data-root"
mkdir -p "$data" && chmod 755 "$data"
start smemu-rootdir "$port" "$data" -e SAGEMAKER_EMULATOR_DB=/data/state.db \
  -e SAGEMAKER_EMULATOR_ADMIN_TOKEN=image-test-token -- \
  --frozen-clock --clock-start 2027-01-15T00:00:00Z
wait_healthy "$port" && uid="$(server_uid smemu-rootdir)" && [[ "$uid" == 10001 &&
  "$(stat -c %u "$data")" == 10001 && "$(stat -c %u "$data/state.db")" == 10001 ]]
verdict $? "a root-owned /data is given to emulator (10001), which runs the server" \
  "directory owner $(stat -c %u "$data"), server uid ${uid:-}" "$(logs smemu-rootdir)"
without="$(status_of "$(url "$port")/_emulator/clock")"
with="$(curl -sS -m 5 -H 'X-Emulator-Admin-Token: image-test-token' \
  "$(url "$port")/_emulator/clock")"
[[ "$without" == 40[13] && "$with" == *'"now":"2027-01-15T00:00:00Z"'* ]]
verdict $? "SAGEMAKER_EMULATOR_ADMIN_TOKEN requires the token ($without without it); \
flags after the image name apply" "with the token: $with"
remove smemu-rootdir

# ---------------------------------------------------------------- 4: the test helpers, URL mode
# clients/python's pytest plugin and clients/js's useEmulator run their expiry examples against a
# container given only its published port's URL (their run-tests.sh --url): the image's
# defaults, no token, no fixed clock start (each test starts after a reset, when the clock may be
# set to any date). ctest: RESOURCE_LOCK with the helpers' own suites, which build in the same
# folders.
if [[ $mode == podman ]]; then
  port=$(free_port)
  start smemu-helpers "$port" - -- --check-responses
  helper_url="$(url "$port")"
  if ! wait_healthy "$port"; then
    not_ok "container for the test helpers is healthy (published port 127.0.0.1:$port)" \
      "$(logs smemu-helpers)" "$(cat "$work/smemu-helpers.run" 2>/dev/null)"
  else
    t=$SECONDS
    "$repo/clients/python/run-tests.sh" --url "$helper_url" -q >"$work/python-helper.log" 2>&1
    rc=$?
    [[ $rc -eq 0 ]] && grep -q '\b1 passed\b' "$work/python-helper.log"
    verdict $? "clients/python: examples/test_expiry.py passes with SAGEMAKER_EMULATOR_URL=\
$helper_url ($((SECONDS - t)) s)" "exit code $rc" "$(tail -n 25 "$work/python-helper.log")"
    t=$SECONDS
    "$repo/clients/js/run-tests.sh" --url "$helper_url" >"$work/js-helper.log" 2>&1
    rc=$?
    [[ $rc -eq 0 ]] && grep -q '^ℹ pass 1$' "$work/js-helper.log" &&
      grep -q '^ℹ fail 0$' "$work/js-helper.log"
    verdict $? "clients/js: examples/expiry.test.mjs passes with SAGEMAKER_EMULATOR_URL=\
$helper_url ($((SECONDS - t)) s)" "exit code $rc" "$(tail -n 25 "$work/js-helper.log")"
  fi
  remove smemu-helpers
fi

if [[ $mode == chroot ]]; then
  note "chroot mode: port publishing, podman's health state and the engine's stop were not" \
    "exercised"
fi
finish
