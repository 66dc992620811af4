# Shared by the Debian AWS CLI test scripts in this folder; source it right after `set -uo pipefail`.
# Checks the one argument (the sagemaker-emulator binary), sets up a clean CLI environment with
# AWS_DATA_PATH=<repo>/api and a work folder, and defines: start_server/stop_server, admin, sm
# (runs "aws sagemaker ..." into RC/OUT/ERR), rt (the same for sagemaker-runtime), jget, and the
# ok/not_ok/expect_* assertions.
# Set CLI_TEST_TAG before sourcing to name the work folder.
# Each `aws` command runs in a process of its own forked from one preloaded AWS CLI
# (tests/preload/server.py: the same /usr/bin/aws program, about 0.3 s a command instead of
# 0.85 s); set CLI_PRELOAD=0 before sourcing, or in the environment, to start /usr/bin/aws afresh
# for every command, as tests/cli/aws_cli_test.sh does.

if [[ $# -ne 1 ]]; then
  echo "usage: $0 /path/to/sagemaker-emulator" >&2
  exit 2
fi
BIN=$1
if [[ ! -x $BIN ]]; then
  echo "error: $BIN is not an executable file" >&2
  exit 2
fi
AWS=/usr/bin/aws
PY=/usr/bin/python3
for tool in "$AWS" "$PY"; do
  if [[ ! -x $tool ]]; then
    echo "error: $tool is missing (Debian packages awscli and python3)" >&2
    exit 2
  fi
done

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/../.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/smemu-${CLI_TEST_TAG:-cli}.XXXXXX")
DB=$WORK/state.db
SERVER_PID=""
PORT=""
ENDPOINT=""

# A clean, self-contained client environment.
unset PYTHONPATH PYTHONHOME
export PYTHONNOUSERSITE=1  # the CLI and helpers must use Debian's own botocore
unset AWS_PROFILE AWS_DEFAULT_PROFILE AWS_SESSION_TOKEN AWS_SECURITY_TOKEN AWS_ENDPOINT_URL \
      AWS_CA_BUNDLE AWS_RETRY_MODE AWS_DEFAULT_OUTPUT AWS_CLI_AUTO_PROMPT
export AWS_DATA_PATH=$REPO_ROOT/api
export AWS_ACCESS_KEY_ID=123456789012
export AWS_SECRET_ACCESS_KEY=x
export AWS_DEFAULT_REGION=us-west-2
export AWS_PAGER=""
export AWS_CONFIG_FILE=/dev/null
export AWS_SHARED_CREDENTIALS_FILE=/dev/null
export AWS_MAX_ATTEMPTS=1
export AWS_EC2_METADATA_DISABLED=true
export NO_PROXY=127.0.0.1,localhost no_proxy=127.0.0.1,localhost

ACCOUNT=123456789012
REGION=us-west-2

PASSED=0
FAILED=0

cleanup() {
  if [[ -n ${PRELOAD_PID:-} ]]; then
    kill -TERM "$PRELOAD_PID" 2>/dev/null
    wait "$PRELOAD_PID" 2>/dev/null
    [[ -s $WORK/preload.err ]] && sed 's/^/# preload: /' "$WORK/preload.err" >&2
  fi
  if [[ -n $SERVER_PID ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -TERM "$SERVER_PID" 2>/dev/null
    for _ in $(seq 1 50); do
      kill -0 "$SERVER_PID" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$SERVER_PID" 2>/dev/null
    wait "$SERVER_PID" 2>/dev/null
  fi
  if [[ -n ${KEEP_WORK:-} ]]; then
    echo "# work files kept in $WORK" >&2
  else
    rm -rf "$WORK"
  fi
}
trap cleanup EXIT

# The preloaded CLI, when used, is served from the work folder and ends when its socket goes.
if [[ ${CLI_PRELOAD:-1} != 0 ]]; then
  export SMEMU_AWS_PRELOAD=$WORK/aws.sock
  "$PY" "$REPO_ROOT/tests/preload/server.py" "$SMEMU_AWS_PRELOAD" "$AWS" 2>"$WORK/preload.err" &
  PRELOAD_PID=$!
  for _ in $(seq 1 100); do [[ -S $SMEMU_AWS_PRELOAD ]] && break; sleep 0.05; done
  AWS=$REPO_ROOT/tests/preload/aws
fi
trap 'exit 130' INT TERM

ok() { PASSED=$((PASSED + 1)); echo "ok - $1"; }
not_ok() {
  FAILED=$((FAILED + 1))
  echo "not ok - $1"
  shift
  local detail
  for detail in "$@"; do printf '%s\n' "$detail" | sed 's/^/#   /'; done
}

# ---------------------------------------------------------------- server control
# start_server EXTRA_ARGS... : starts the binary on port 0 with the temp-file database, checking
# every answer against the service model (--check-responses: a departure is a 500).
start_server() {
  local n=$((${SERVER_STARTS:-0} + 1))
  SERVER_STARTS=$n
  SERVER_OUT=$WORK/server$n.out
  SERVER_ERR=$WORK/server$n.err
  : >"$SERVER_OUT"  # read below before the server's shell may have opened it
  "$BIN" --port 0 --db "$DB" --check-responses "$@" >"$SERVER_OUT" 2>"$SERVER_ERR" &
  SERVER_PID=$!
  local line=""
  for _ in $(seq 1 100); do  # up to 10 s for the first complete line
    if [[ $(wc -l <"$SERVER_OUT") -ge 1 ]]; then line=$(head -n 1 "$SERVER_OUT"); break; fi
    kill -0 "$SERVER_PID" 2>/dev/null || { line=$(head -n 1 "$SERVER_OUT"); break; }
    sleep 0.1
  done
  if [[ $line =~ ^sagemaker-emulator\ listening\ on\ http://127\.0\.0\.1:([0-9]+)$ ]]; then
    PORT=${BASH_REMATCH[1]}
    ENDPOINT=http://127.0.0.1:$PORT
    return 0
  fi
  echo "# server did not announce itself; stdout: '$line'; stderr:" >&2
  sed 's/^/#   /' "$SERVER_ERR" >&2
  return 1
}

# stop_server: SIGTERM, wait up to 10 s; sets STOP_STATUS (exit status, or "timeout").
# Starts the server with the given options, or reports the failure and ends the script: no check
# can run without it.
start_server_or_exit() {
  if ! start_server "$@"; then
    not_ok "server starts and prints its listening line"
    echo "$PASSED passed, $FAILED failed"
    exit 1
  fi
  ok "server starts and prints its listening line (port $PORT)"
}

stop_server() {
  STOP_STATUS=""
  [[ -z $SERVER_PID ]] && { STOP_STATUS="not running"; return; }
  kill -TERM "$SERVER_PID" 2>/dev/null
  for _ in $(seq 1 100); do
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -KILL "$SERVER_PID" 2>/dev/null
    wait "$SERVER_PID" 2>/dev/null
    STOP_STATUS="timeout"
  else
    wait "$SERVER_PID"
    STOP_STATUS=$?
  fi
  SERVER_PID=""
}

# admin METHOD PATH [JSON]: calls the emulator's admin API; prints the body.
admin() {
  "$PY" - "$ENDPOINT$2" "$1" "${3:-}" <<'EOF'
import sys, urllib.request
url, method, body = sys.argv[1], sys.argv[2], sys.argv[3]
req = urllib.request.Request(url, method=method, data=body.encode() if body else None,
                             headers={"Content-Type": "application/json"})
with urllib.request.urlopen(req, timeout=10) as r:
    sys.stdout.write(r.read().decode())
EOF
}

# ---------------------------------------------------------------- CLI runner
# sm SUBCOMMAND ARGS... : runs "aws sagemaker ..." and sets RC, OUT (file), ERR (file).
CALLS=0
sm() {
  CALLS=$((CALLS + 1))
  OUT=$WORK/call$CALLS.out
  ERR=$WORK/call$CALLS.err
  "$AWS" sagemaker "$@" --endpoint-url "$ENDPOINT" --output json >"$OUT" 2>"$ERR"
  RC=$?
}

# rt SUBCOMMAND ARGS... : runs "aws sagemaker-runtime ..." and sets RC, OUT (file), ERR (file).
rt() {
  CALLS=$((CALLS + 1))
  OUT=$WORK/call$CALLS.out
  ERR=$WORK/call$CALLS.err
  "$AWS" sagemaker-runtime "$@" --endpoint-url "$ENDPOINT" --output json >"$OUT" 2>"$ERR"
  RC=$?
}

# jget FILE EXPR: evaluates a Python expression over the parsed JSON document `d`.
# Strings are printed raw, None as "<none>", everything else as compact JSON.
jget() {
  "$PY" - "$1" "$2" <<'EOF'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
    v = eval(sys.argv[2], {"d": d, "sorted": sorted, "len": len})
except Exception as e:  # unparsable output, missing key, ...
    print("<error: %s: %s>" % (type(e).__name__, e))
    sys.exit(0)
if v is None:
    print("<none>")
elif isinstance(v, str):
    print(v)
else:
    print(json.dumps(v, separators=(",", ":"), sort_keys=True))
EOF
}

# ---------------------------------------------------------------- assertions
call_context() { printf 'exit=%s\nstdout: %s\nstderr: %s\n' "$RC" "$(head -c 600 "$OUT")" "$(head -c 600 "$ERR")"; }

expect_success() {  # NAME
  if [[ $RC -eq 0 ]]; then ok "$1"; else not_ok "$1" "$(call_context)"; fi
}

expect_eq() {  # NAME EXPECTED ACTUAL
  if [[ "$3" == "$2" ]]; then ok "$1"; else not_ok "$1" "expected: $2" "actual:   $3"; fi
}

expect_match() {  # NAME ERE ACTUAL
  if [[ "$3" =~ $2 ]]; then ok "$1"; else not_ok "$1" "expected to match: $2" "actual: $3"; fi
}

# expect_aws_error NAME OPERATION CODE MESSAGE
# The call must fail with the CLI's service-error exit status 254 and print
#   An error occurred (CODE) when calling the OPERATION operation: MESSAGE
# CLI v2 inserts " (reached max retries: N)" before the colon when the retry budget is spent,
# which is always the case with AWS_MAX_ATTEMPTS=1; that insertion is allowed, nothing else.
expect_aws_error() {
  local name=$1 op=$2 code=$3 message=$4
  if [[ $RC -ne 254 ]]; then
    not_ok "$name" "expected exit status 254" "$(call_context)"; return
  fi
  if "$PY" - "$ERR" "$op" "$code" "$message" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
op, code, message = sys.argv[2:5]
pattern = (r"^An error occurred \(" + re.escape(code) + r"\) when calling the " + re.escape(op) +
           r" operation( \(reached max retries: \d+\))?: " + re.escape(message) + r"$")
sys.exit(0 if re.search(pattern, text, re.M) else 1)
EOF
  then ok "$name"; else
    not_ok "$name" "expected stderr line: An error occurred ($code) when calling the $op operation: $message" \
      "actual stderr: $(cat "$ERR")"
  fi
}


# expect_aws_code NAME OPERATION CODE
# The call must fail with the CLI's service-error exit status 254 and print
#   An error occurred (CODE) when calling the OPERATION operation: <a non-empty message>
# CLI v2 inserts " (reached max retries: N)" before the colon when the retry budget is spent,
# which is always the case with AWS_MAX_ATTEMPTS=1. The texts of these errors are the emulator's
# own (AWS does not publish them), so only the code is checked.
expect_aws_code() {
  local name=$1 op=$2 code=$3
  if [[ $RC -ne 254 ]]; then
    not_ok "$name" "expected exit status 254" "$(call_context)"; return
  fi
  if "$PY" - "$ERR" "$op" "$code" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
op, code = sys.argv[2:4]
pattern = (r"^An error occurred \(" + re.escape(code) + r"\) when calling the " + re.escape(op) +
           r" operation( \(reached max retries: \d+\))?: \S.*$")
sys.exit(0 if re.search(pattern, text, re.M) else 1)
EOF
  then ok "$name"; else
    not_ok "$name" "expected stderr line: An error occurred ($code) when calling the $op operation: ..." \
      "actual stderr: $(cat "$ERR")"
  fi
}

# summarize: the last line of every script: how long its CLI calls took, the counts, and an exit
# status that fails the test when any check failed.
summarize() {
  local t1
  t1=$(date +%s.%N)
  echo "# $CALLS CLI calls in $("$PY" -c "import sys; print('%.1f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$T0" "$t1") s"
  echo "$PASSED passed, $FAILED failed"
  [[ $FAILED -eq 0 ]]
}
