#!/usr/bin/env bash
# Real-client test of strict authentication: the Debian AWS CLI v2 (/usr/bin/aws) against a
# sagemaker-emulator started with --credentials FILE.
#
#   tests/cli/auth_cli_test.sh /path/to/sagemaker-emulator
#
# Good credentials work on the control plane (awsJson1_1) and the runtime (restJson1, an endpoint
# invoked end to end), in the account the file gives the key. A wrong secret, an unknown key, an
# unsigned request (--no-sign-request) and a CLI whose clock is 20 minutes slow are refused with
# AWS's codes and texts; raw HTTP checks the statuses (400 on the control plane, 403 on the
# runtime). A bad credentials file stops the server with a message naming the field.
#
# The Debian CLI's bundled botocore predates the newer SageMaker operations, so it is pointed
# at the project's own model subset (api/ at the repo root) through AWS_DATA_PATH.
# Only /usr/bin/aws and /usr/bin/python3 are used (never whatever is first on PATH).
# Prints one "ok - ..." / "not ok - ..." line per check and ends with "N passed, M failed".
set -uo pipefail

CLI_TEST_TAG=auth-cli
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

KEY=AKIAEMULATORCLI
SECRET='wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY'
KEY_ACCOUNT=111122223333
MISMATCH='The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.'
UNKNOWN_KEY='The security token included in the request is invalid.'

# sm_slow_clock SUBCOMMAND ARGS... : "aws sagemaker ..." by the same CLI, its signing clock
# (the datetime of the botocore.auth the CLI uses) set 20 minutes back, as on a machine whose
# clock is slow. The CLI's own botocore (awscli/botocore, aliased as botocore) must be imported
# through awscli first.
sm_slow_clock() {
  CALLS=$((CALLS + 1))
  OUT=$WORK/call$CALLS.out
  ERR=$WORK/call$CALLS.err
  "$PY" - sagemaker "$@" --endpoint-url "$ENDPOINT" --output json >"$OUT" 2>"$ERR" <<'EOF'
import datetime, runpy, sys, types
import awscli.clidriver  # noqa: F401 (makes "botocore" the CLI's own copy)
import botocore.auth
class SlowClock(datetime.datetime):
    @classmethod
    def utcnow(cls):
        return datetime.datetime.utcnow() - datetime.timedelta(minutes=20)
shim = types.ModuleType("datetime")
shim.__dict__.update(datetime.__dict__)
shim.datetime = SlowClock
botocore.auth.datetime = shim
sys.argv = ["aws"] + sys.argv[1:]
runpy.run_path("/usr/bin/aws", run_name="__main__")
EOF
  RC=$?
}

# unsigned_status PATH BODY CONTENT_TYPE [TARGET]: POSTs without a signature; prints
# "<status> <X-Amzn-ErrorType> <message>".
unsigned_status() {
  "$PY" - "$ENDPOINT$1" "$2" "$3" "${4:-}" <<'EOF'
import json, sys, urllib.error, urllib.request
url, body, content_type, target = sys.argv[1:5]
headers = {"Content-Type": content_type}
if target:
    headers["X-Amz-Target"] = target
req = urllib.request.Request(url, method="POST", data=body.encode(), headers=headers)
try:
    with urllib.request.urlopen(req, timeout=10) as r:
        print(r.status, "-", r.read().decode())
except urllib.error.HTTPError as e:
    print(e.code, e.headers.get("X-Amzn-ErrorType"), json.loads(e.read())["message"])
EOF
}

# ---------------------------------------------------------------- the tests
T0=$(date +%s.%N)
echo "# binary: $BIN"
echo "# AWS_DATA_PATH=$AWS_DATA_PATH"
echo "# $("$AWS" --version 2>&1)"

# A bad file stops the server with a message naming the field.
BAD=$WORK/bad-credentials.json
echo '{"credentials": [{"access_key_id": "AKIAX", "secret": "s"}]}' >"$BAD"
"$BIN" --port 0 --db :memory: --credentials "$BAD" >"$WORK/bad.out" 2>"$WORK/bad.err"
BAD_RC=$?
expect_eq "a bad credentials file stops the server (exit 1)" "1" "$BAD_RC"
expect_eq "the error names the file and the field" \
  "sagemaker-emulator: cannot start: $BAD: credentials[0].secret: unknown field" \
  "$(head -n 1 "$WORK/bad.err")"

CREDENTIALS=$WORK/credentials.json
cat >"$CREDENTIALS" <<EOF
{"credentials": [{"access_key_id": "$KEY", "secret_access_key": "$SECRET", "account_id": "$KEY_ACCOUNT"}]}
EOF
start_server_or_exit --credentials "$CREDENTIALS"

# ================================================================ 1. good credentials
export AWS_ACCESS_KEY_ID=$KEY AWS_SECRET_ACCESS_KEY=$SECRET

sm create-model --model-name auth-model \
  --primary-container "Image=$KEY_ACCOUNT.dkr.ecr.$REGION.amazonaws.com/demo:1" \
  --execution-role-arn "arn:aws:iam::$KEY_ACCOUNT:role/demo"
expect_success "create-model with the right key and secret"
expect_eq "the model belongs to the account the file gives the key" \
  "arn:aws:sagemaker:$REGION:$KEY_ACCOUNT:model/auth-model" "$(jget "$OUT" 'd["ModelArn"]')"

sm list-models
expect_success "list-models with the right key and secret"
expect_eq "list-models shows the model" '["auth-model"]' "$(jget "$OUT" '[m["ModelName"] for m in d["Models"]]')"

sm create-endpoint-config --endpoint-config-name auth-config --production-variants \
  '[{"VariantName":"AllTraffic","ModelName":"auth-model","InstanceType":"ml.m5.xlarge","InitialInstanceCount":1}]'
expect_success "create-endpoint-config"
sm create-endpoint --endpoint-name auth-endpoint --endpoint-config-name auth-config
expect_success "create-endpoint"

rt invoke-endpoint --endpoint-name auth-endpoint --content-type text/csv --body '1,2,3' \
  --cli-binary-format raw-in-base64-out "$WORK/answer.txt"
expect_success "invoke-endpoint (restJson1) with the right key and secret"
expect_eq "the emulated model echoes the body" "1,2,3" "$(cat "$WORK/answer.txt" 2>/dev/null)"

# ================================================================ 2. bad credentials
AWS_SECRET_ACCESS_KEY=wrong sm list-models
expect_aws_error "a wrong secret: InvalidSignatureException with AWS's text" ListModels \
  InvalidSignatureException "$MISMATCH"
if grep -q "^The Canonical String for this request should have been$" "$ERR" \
  && grep -q "^x-amz-target:SageMaker.ListModels$" "$ERR"; then
  ok "the refusal shows the canonical request the server computed"
else
  not_ok "the refusal shows the canonical request the server computed" "$(cat "$ERR")"
fi

AWS_SECRET_ACCESS_KEY=wrong rt invoke-endpoint --endpoint-name auth-endpoint --content-type text/csv \
  --body '1,2,3' --cli-binary-format raw-in-base64-out "$WORK/answer2.txt"
expect_aws_error "a wrong secret on the runtime: InvalidSignatureException" InvokeEndpoint \
  InvalidSignatureException "$MISMATCH"

AWS_ACCESS_KEY_ID=AKIANOBODYKNOWS sm list-models
expect_aws_error "an unknown access key: UnrecognizedClientException" ListModels \
  UnrecognizedClientException "$UNKNOWN_KEY"

AWS_ACCESS_KEY_ID=AKIANOBODYKNOWS rt invoke-endpoint --endpoint-name auth-endpoint \
  --content-type text/csv --body '1' --cli-binary-format raw-in-base64-out "$WORK/answer3.txt"
expect_aws_error "an unknown access key on the runtime: UnrecognizedClientException" InvokeEndpoint \
  UnrecognizedClientException "$UNKNOWN_KEY"

sm list-models --no-sign-request
expect_aws_error "an unsigned request: MissingAuthenticationTokenException" ListModels \
  MissingAuthenticationTokenException "Missing Authentication Token"

sm_slow_clock list-models
if [[ $RC -eq 254 ]] && "$PY" - "$ERR" <<'EOF'
import datetime, re, sys
text = open(sys.argv[1]).read()
m = re.search(r"^An error occurred \(InvalidSignatureException\) when calling the ListModels "
              r"operation( \(reached max retries: \d+\))?: Signature expired: (\d{8}T\d{6}Z) is now "
              r"earlier than (\d{8}T\d{6}Z) \((\d{8}T\d{6}Z) - 15 min\.\)$", text, re.M)
if not m:
    sys.exit(1)
parse = lambda s: datetime.datetime.strptime(s, "%Y%m%dT%H%M%SZ")
signed, earliest, now = (parse(g) for g in m.groups()[1:])
real_now = datetime.datetime.utcnow()
ok = (abs((real_now - now).total_seconds()) < 60 and now - earliest == datetime.timedelta(minutes=15)
      and abs((now - signed).total_seconds() - 1200) < 60)
sys.exit(0 if ok else 1)
EOF
then
  ok "a CLI clock 20 minutes slow: Signature expired, against the server's real time"
else
  not_ok "a CLI clock 20 minutes slow: Signature expired, against the server's real time" "$(call_context)"
fi

# ================================================================ 3. statuses on the wire
expect_eq "unsigned control-plane request: 400" \
  "400 MissingAuthenticationTokenException Missing Authentication Token" \
  "$(unsigned_status / '{}' application/x-amz-json-1.1 SageMaker.ListModels)"
expect_eq "unsigned runtime request: 403" \
  "403 MissingAuthenticationTokenException Missing Authentication Token" \
  "$(unsigned_status /endpoints/auth-endpoint/invocations '1,2,3' text/csv)"

stop_server
expect_eq "server stops cleanly on SIGTERM" "0" "$STOP_STATUS"

summarize
