"""Finding the sagemaker-emulator binary and running it as a child process on a free port."""
from __future__ import annotations

import os
import queue
import shutil
import signal
import subprocess
import tempfile
import threading
from typing import IO, Optional, Sequence, Union

from .errors import BinaryNotFoundError, EmulatorStartError

BINARY_ENV = "SAGEMAKER_EMULATOR_BINARY"
BINARY_NAME = "sagemaker-emulator"
LISTENING_PREFIX = "sagemaker-emulator listening on "

StrPath = Union[str, "os.PathLike[str]"]


def find_binary(binary: Optional[StrPath] = None) -> str:
    """The binary to run: ``binary`` if given, else $SAGEMAKER_EMULATOR_BINARY, else
    sagemaker-emulator on PATH. A given one that does not exist is an error, not a reason to
    look further: running some other build than the one asked for would mislead."""
    given = ((binary, "the binary argument"), (os.environ.get(BINARY_ENV), BINARY_ENV))
    for candidate, origin in given:
        if candidate:
            found = shutil.which(os.fspath(candidate))
            if found is None:
                raise BinaryNotFoundError(
                    f"sagemaker-emulator binary {os.fspath(candidate)!r} (from {origin}) does "
                    "not exist or is not executable")
            return found
    found = shutil.which(BINARY_NAME)
    if found is None:
        raise BinaryNotFoundError(
            "sagemaker-emulator binary not found: pass it as the binary argument (pytest: "
            f"--sagemaker-emulator-binary), set {BINARY_ENV}, or put {BINARY_NAME} on PATH. "
            "To use an emulator that is already running, give its URL instead "
            "(SAGEMAKER_EMULATOR_URL, pytest: --sagemaker-emulator-url).")
    return found


class EmulatorProcess:
    """The emulator binary running on a free port (``--port 0``) with an in-memory database.

    Construction returns once the server has announced its URL on stdout. Its logs (stderr) go
    to ``log_path``, appended, or to a temporary file; either way a full pipe can never block
    it, and :meth:`log_tail` can show why it failed.
    """

    def __init__(self, binary: StrPath, args: Sequence[str] = (),
                 log_path: Optional[StrPath] = None, start_timeout: float = 30.0) -> None:
        self.command = [os.fspath(binary), "--port", "0", "--db", ":memory:", *args]
        self._log: IO[bytes] = (open(log_path, "ab") if log_path is not None
                                else tempfile.TemporaryFile())
        try:
            self._popen = subprocess.Popen(self.command, stdin=subprocess.DEVNULL,
                                           stdout=subprocess.PIPE, stderr=self._log)
        except OSError:
            self._log.close()
            raise
        self._announced: queue.Queue[Optional[str]] = queue.Queue()
        self._reader = threading.Thread(target=self._read_stdout, name="sagemaker-emulator stdout",
                                        daemon=True)
        self._reader.start()
        self.url = self._wait_for_url(start_timeout)

    @property
    def pid(self) -> int:
        return self._popen.pid

    @property
    def returncode(self) -> Optional[int]:
        """None while running, else the exit status (negative: killed by that signal)."""
        return self._popen.poll()

    def stop(self, timeout: float = 10.0) -> int:
        """SIGTERM, which the server answers by finishing its requests and exiting 0; SIGKILL
        if it has not exited after ``timeout`` seconds. Returns the exit status."""
        if self._popen.poll() is None:
            self._popen.send_signal(signal.SIGTERM)
            try:
                self._popen.wait(timeout)
            except subprocess.TimeoutExpired:
                self._popen.kill()
                self._popen.wait()
        self._release_files()
        return self._popen.returncode

    def log_tail(self, limit: int = 4000) -> str:
        """The end of the server's stderr, for error messages."""
        if self._log.closed:
            return ""
        self._log.flush()
        with open(self._log.fileno(), "rb", closefd=False) as log:
            size = os.fstat(log.fileno()).st_size
            log.seek(max(0, size - limit))
            return log.read().decode("utf-8", "replace")

    def _release_files(self) -> None:
        """Closes stdout and the log once the process has exited; the reader thread sees the
        end of stdout first, so it is never closed under it."""
        self._reader.join(timeout=1)
        self._popen.stdout.close()  # type: ignore[union-attr]  # always a pipe here
        self._log.close()

    def _read_stdout(self) -> None:
        """Runs for the server's whole life: hands over the listening line, then keeps reading
        and dropping stdout so that the server never blocks on a full pipe."""
        announced = False
        for raw in self._popen.stdout:  # type: ignore[union-attr]  # always a pipe here
            line = raw.decode("utf-8", "replace").strip()
            if not announced and line.startswith(LISTENING_PREFIX):
                announced = True
                self._announced.put(line[len(LISTENING_PREFIX):])
        if not announced:
            self._announced.put(None)  # stdout closed: the server exited without listening

    def _wait_for_url(self, timeout: float) -> str:
        try:
            url = self._announced.get(timeout=timeout)
        except queue.Empty:
            url = None
        if url is not None:
            return url
        status = self._reap_failed_start()
        reason = (f"did not announce its URL within {timeout:g} s" if status is None
                  else f"exited with status {status} before listening")
        message = (f"{' '.join(self.command)} {reason}; its stderr ends with:\n"
                   f"{self.log_tail()}")
        self._release_files()
        raise EmulatorStartError(message)

    def _reap_failed_start(self) -> Optional[int]:
        """The exit status of a server that died by itself, or None for one that hung, which
        is killed so that a failed start leaves no process behind."""
        try:
            return self._popen.wait(timeout=1)  # stdout closes a moment before the exit
        except subprocess.TimeoutExpired:
            self._popen.kill()
            self._popen.wait()
            return None
