#!/bin/bash
# The image's HEALTHCHECK, without curl: bash's /dev/tcp sends GET /_emulator/health to the server
# in this container; healthy when it answers 200 with status "ok". It asks the address and port the
# server listens on: SAGEMAKER_EMULATOR_HOST and SAGEMAKER_EMULATOR_PORT, or --host and --port
# given after the image name, which win as they do in the server (a wildcard address means
# loopback).
set -eu
host="${SAGEMAKER_EMULATOR_HOST:-127.0.0.1}"
port="${SAGEMAKER_EMULATOR_PORT:-4577}"
# PID 1 is the server: the entrypoint execs it.
if [[ -r /proc/1/cmdline ]]; then
  mapfile -d '' -t args </proc/1/cmdline
  for ((i = 0; i < ${#args[@]}; i++)); do
    case "${args[i]}" in
      --host) host="${args[i + 1]:-$host}" ;;
      --host=*) host="${args[i]#--host=}" ;;
      --port) port="${args[i + 1]:-$port}" ;;
      --port=*) port="${args[i]#--port=}" ;;
    esac
  done
fi
case "$host" in 0.0.0.0 | "") host=127.0.0.1 ;; :: | "[::]") host=::1 ;; esac
exec 3<>"/dev/tcp/$host/$port"
printf 'GET /_emulator/health HTTP/1.0\r\nHost: localhost\r\n\r\n' >&3
IFS= read -r status <&3
case "$status" in "HTTP/1."?" 200 "*) ;; *) echo "health: $status" >&2; exit 1 ;; esac
body="$(cat <&3)"
case "$body" in *'"status":"ok"'*) exit 0 ;; *) echo "health: ${body##*$'\n'}" >&2; exit 1 ;; esac
