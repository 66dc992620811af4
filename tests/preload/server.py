"""Serves the AWS CLI from one interpreter that has already imported it, so that a test suite's
thousand `aws` commands do not each spend half a second starting Python and importing botocore.

    python-of-the-cli server.py SOCKET AWS_SCRIPT

Each command still runs in a process of its own: the server forks a child per command, the child
takes the caller's stdin, stdout, stderr, arguments, environment and working folder, and runs
AWS_SCRIPT itself (the `aws` program the caller would have run) as __main__. Only the imports
are shared, and they are done before any command's environment is set, as a fresh process would.
The caller is `tests/preload/aws`, a stand-in for `aws` on PATH. The server stops when its
socket file is removed or on SIGTERM.
"""
import importlib
import io
import json
import os
import runpy
import signal
import socket
import struct
import sys
import traceback

HEADER = struct.Struct("!I")


def read_exactly(connection: socket.socket, size: int) -> bytes:
    data = bytearray()
    while len(data) < size:
        chunk = connection.recv(size - len(data))
        if not chunk:
            raise ConnectionError("the caller closed the connection")
        data += chunk
    return bytes(data)


def rebind_stdio() -> None:
    """Python picks its standard streams' buffering when it starts; pick it again for the
    caller's descriptors, as the command's own process would have."""
    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        old = getattr(sys, name)
        mode = "r" if fd == 0 else "w"
        line_buffered = fd == 2 or (fd == 1 and os.isatty(fd))
        stream = io.open(fd, mode, buffering=1 if line_buffered else -1, encoding=old.encoding,
                         errors=old.errors, closefd=False)
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


def run_command(connection: socket.socket, listener: socket.socket, script: str) -> None:
    """In the forked child: become the caller's command, run it, report its exit status."""
    listener.close()
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    status = 1
    try:
        message, fds, _, _ = socket.recv_fds(connection, HEADER.size, 3)
        if len(fds) != 3 or len(message) != HEADER.size:
            raise ConnectionError("expected the caller's three standard descriptors")
        (size,) = HEADER.unpack(message)
        request = json.loads(read_exactly(connection, size))
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        rebind_stdio()
        # awscli's package reads the environment when it is imported (it appends its own data
        # folder to AWS_DATA_PATH): run that again in the command's environment.
        importlib.reload(sys.modules["awscli"])
        sys.argv = [script] + request["args"]
        try:
            runpy.run_path(script, run_name="__main__")
            status = 0
        except SystemExit as leaving:
            if leaving.code is None:
                status = 0
            elif isinstance(leaving.code, int):
                status = leaving.code
            else:
                print(leaving.code, file=sys.stderr)
                status = 1
        except BaseException:  # what an uncaught exception does to a real process
            traceback.print_exc()
            status = 1
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
    except BaseException:
        traceback.print_exc()  # to the server's own stderr: the caller's streams may not be set
    finally:
        try:
            connection.sendall(HEADER.pack(status & 0xFF))
        except OSError:
            pass
        os._exit(0)


def main() -> int:
    socket_path, script = sys.argv[1], sys.argv[2]
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(socket_path)
    listener.listen(64)
    # What the `aws` script imports, once; each command's child inherits it.
    import awscli.clidriver  # noqa: F401
    import awscli.handlers  # noqa: F401
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children reap themselves
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    listener.settimeout(1.0)
    try:
        while os.path.exists(socket_path):
            try:
                connection, _ = listener.accept()
            except socket.timeout:
                continue
            connection.settimeout(None)
            if os.fork() == 0:
                run_command(connection, listener, script)
            connection.close()
    finally:
        listener.close()
        if os.path.exists(socket_path):
            os.unlink(socket_path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
