#!/usr/bin/env bash
# Real-client test of InvokeEndpoint bodies at the runtime model's limit: the Debian AWS CLI v2
# (/usr/bin/aws) sends files of 2,000,000, 6,291,455 and 6,291,456 bytes (6 MiB, the model's
# BodyBlob maximum) and one byte more with --body fileb://, as a user does, with a
# Content-Length.
#
#   tests/cli/invoke_cli_test.sh /path/to/sagemaker-emulator
#
# The echo model answers with the body it was sent, so the output file must equal the input; the
# body past the limit must be refused with RequestEntityTooLargeException naming the limit (the
# CLI must read the refusal, not a dropped connection).
# Prints one "ok - ..." / "not ok - ..." line per check and ends with "N passed, M failed".
set -uo pipefail

CLI_TEST_TAG=invoke-cli
# shellcheck source=tests/cli/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

T0=$(date +%s.%N)
echo "# binary: $BIN"
echo "# $("$AWS" --version 2>&1)"
start_server_or_exit --clock-start 2027-01-25T00:00:00Z --frozen-clock

sm create-model --model-name echo --execution-role-arn "arn:aws:iam::$ACCOUNT:role/r"
expect_success "create-model echo"
sm create-endpoint-config --endpoint-config-name echo --production-variants \
  '[{"VariantName":"AllTraffic","ModelName":"echo","InstanceType":"ml.m5.large","InitialInstanceCount":1}]'
expect_success "create-endpoint-config echo"
sm create-endpoint --endpoint-name echo --endpoint-config-name echo
expect_success "create-endpoint echo"

for size in 2000000 6291455 6291456; do
  head -c "$size" /dev/urandom >"$WORK/body-$size.bin"
  rt invoke-endpoint --endpoint-name echo --content-type application/octet-stream \
    --body "fileb://$WORK/body-$size.bin" "$WORK/answer-$size.bin"
  expect_success "invoke-endpoint with a $size-byte file"
  if cmp -s "$WORK/body-$size.bin" "$WORK/answer-$size.bin"; then
    ok "the $size-byte answer is the body sent"
  else
    not_ok "the $size-byte answer is the body sent" \
      "answer: $(stat -c %s "$WORK/answer-$size.bin" 2>/dev/null || echo missing) bytes"
  fi
done

head -c 6291457 /dev/urandom >"$WORK/body-over.bin"
rt invoke-endpoint --endpoint-name echo --content-type application/octet-stream \
  --body "fileb://$WORK/body-over.bin" "$WORK/answer-over.bin"
expect_aws_error "a 6,291,457-byte file is refused, naming the limit" InvokeEndpoint \
  RequestEntityTooLargeException \
  "The request body of 6291457 bytes exceeds the limit of 6291456 bytes."

stop_server
summarize
