#!/bin/bash
# The image's HEALTHCHECK, without curl: bash's /dev/tcp sends GET /_emulator/health to the server
# in this container; healthy when it answers 200 with status "ok". It asks the address and port of
# SAGEMAKER_EMULATOR_HOST and SAGEMAKER_EMULATOR_PORT (a wildcard address means loopback).
set -eu
host="${SAGEMAKER_EMULATOR_HOST:-127.0.0.1}"
case "$host" in 0.0.0.0 | "" ) host=127.0.0.1 ;; :: | "[::]") host=::1 ;; esac
exec 3<>"/dev/tcp/$host/${SAGEMAKER_EMULATOR_PORT:-4577}"
printf 'GET /_emulator/health HTTP/1.0\r\nHost: localhost\r\n\r\n' >&3
IFS= read -r status <&3
case "$status" in "HTTP/1."?" 200 "*) ;; *) echo "health: $status" >&2; exit 1 ;; esac
body="$(cat <&3)"
case "$body" in *'"status":"ok"'*) exit 0 ;; *) echo "health: ${body##*$'\n'}" >&2; exit 1 ;; esac
