#!/bin/sh
# The image's entrypoint: runs sagemaker-emulator with the arguments given after the image name.
# Started as root (the default), it drops to the owner of /data when that is not root, so that the
# files of a bind-mounted host directory stay its owner's; otherwise it gives /data (the directory
# itself) to the emulator user and runs as that user. Started with --user, it just runs the server.
# exec throughout: the server is PID 1 and gets the engine's SIGTERM.
set -eu
data=/data

if [ "$(id -u)" -ne 0 ]; then
  exec sagemaker-emulator "$@"
fi

uid=$(stat -c %u "$data")
gid=$(stat -c %g "$data")
if [ "$uid" -eq 0 ]; then
  # A rootless engine (podman run as a user) maps root here to that user, and shows the user's own
  # directories as root's: root is then the right owner, and no one else's.
  read -r _ outside _ </proc/self/uid_map
  if [ "$outside" -ne 0 ]; then
    exec sagemaker-emulator "$@"
  fi
  uid=$(id -u emulator)
  gid=$(id -g emulator)
  chown "$uid:$gid" "$data" 2>/dev/null ||
    echo "entrypoint: cannot chown $data; the server runs as $uid:$gid all the same" >&2
fi
exec setpriv --reuid "$uid" --regid "$gid" --clear-groups -- sagemaker-emulator "$@"
