"""The emulator's admin API (plain JSON under /_emulator/), over the standard library's urllib."""
from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, Dict, Iterator, List, Optional, Union

from .errors import AdminError, EmulatorError, EmulatorUnavailableError

ADMIN_TOKEN_HEADER = "X-Emulator-Admin-Token"

# The emulator runs next to the tests (a child process or a local container), so admin calls
# never go through an HTTP proxy from the environment, which would not know the address.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))

JsonObject = Dict[str, Any]


@dataclass(frozen=True)
class Clock:
    """The virtual clock: its time (timezone-aware, UTC) and whether it stands still."""

    now: datetime
    frozen: bool

    @classmethod
    def from_json(cls, body: JsonObject) -> Clock:
        return cls(now=parse_time(body["now"]), frozen=bool(body["frozen"]))


def parse_time(text: str) -> datetime:
    # fromisoformat() accepts a trailing "Z" only from Python 3.11 on.
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    return datetime.fromisoformat(text)


def format_time(when: Union[datetime, str]) -> str:
    """ISO 8601 in UTC with a Z, as the admin API takes it. A naive datetime is taken as UTC,
    as botocore does; a string is passed on for the emulator to check."""
    if isinstance(when, str):
        return when
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    when = when.astimezone(timezone.utc)
    fraction = f".{when.microsecond // 1000:03d}" if when.microsecond else ""
    return when.strftime("%Y-%m-%dT%H:%M:%S") + fraction + "Z"


class AdminClient:
    """Calls the admin API of the emulator at ``url``, sending ``admin_token`` (when given) in
    the X-Emulator-Admin-Token header of every call."""

    def __init__(self, url: str, admin_token: Optional[str] = None, timeout: float = 10.0) -> None:
        self.url = url.rstrip("/")
        self.admin_token = admin_token
        self.timeout = timeout

    def health(self) -> JsonObject:
        """``{"status": "ok", "version": ...}``; open even when a token is required."""
        return self._call("GET", "health")

    def wait_until_healthy(self, timeout: float) -> None:
        """Polls the health check until it answers 200, for at most ``timeout`` seconds: a
        server that just printed its listening line, or a container still starting, may
        refuse connections for a moment."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.health()
                return
            except EmulatorError as error:
                if time.monotonic() >= deadline:
                    raise EmulatorUnavailableError(
                        f"sagemaker-emulator at {self.url} not healthy after {timeout:g} s: "
                        f"{error}") from error
            time.sleep(0.05)

    def reset(self) -> Clock:
        """Deletes every resource of every account, drops run-time capacity changes and puts
        the clock back to its start. Returns that clock."""
        return Clock.from_json(self._call("POST", "reset", {})["clock"])

    def clock(self) -> Clock:
        return Clock.from_json(self._call("GET", "clock"))

    def set_clock(self, when: Union[datetime, str], *, frozen: Optional[bool] = None) -> Clock:
        """Moves the clock to ``when`` (never backwards: the emulator refuses that), and
        freezes or unfreezes it in the same call when ``frozen`` is given."""
        change: JsonObject = {"now": format_time(when)}
        if frozen is not None:
            change["frozen"] = frozen
        return self._change_clock(change)

    def advance(self, by: Union[timedelta, float]) -> Clock:
        """Moves the clock forward by a timedelta or a number of seconds."""
        seconds = by.total_seconds() if isinstance(by, timedelta) else float(by)
        return self._change_clock({"advance_seconds": seconds})

    def freeze(self, frozen: bool = True) -> Clock:
        """Stops the clock (or, with ``False``, lets it run again)."""
        return self._change_clock({"frozen": frozen})

    def set_pool(self, region: str, availability_zone: str, instance_type: str,
                 reservable: Optional[int] = None, on_demand: Optional[int] = None) -> JsonObject:
        """Changes (or adds) the capacity pool of one zone and instance type; jobs waiting for
        capacity that now fit start at once. Returns the pool as the emulator now sees it."""
        pool: JsonObject = {"region": region, "availability_zone": availability_zone,
                            "instance_type": instance_type}
        if reservable is not None:
            pool["reservable"] = reservable
        if on_demand is not None:
            pool["on_demand"] = on_demand
        return self._call("POST", "capacity", pool)

    def capacity(self, region: Optional[str] = None,
                 instance_type: Optional[str] = None) -> JsonObject:
        """Every pool (``pools``) with its reservations and free instances, and every holder
        of instances now (``in_use``), optionally for one region and instance type."""
        query = {name: value for name, value in
                 (("region", region), ("instance_type", instance_type)) if value is not None}
        return self._call("GET", "capacity", query=query)

    def costs(self, from_time: Optional[Union[datetime, str]] = None,
              to_time: Optional[Union[datetime, str]] = None,
              account: Optional[str] = None) -> JsonObject:
        """The cost ledger (``GET /_emulator/costs``): each plan's fee beside its reserved and
        used instance-hours, each holder's instance-hours and on-demand cost, and the totals
        (``plans``, ``holders``, ``preference_jobs``, ``totals``), over the range
        ``[from_time, to_time)`` and for one ``account`` when given. Times are datetimes (a
        naive one is taken as UTC) or ISO 8601 strings; left out, the emulator picks the range
        (from the first plan or holding to now, or to the end of the last plan if later)."""
        return self._call("GET", "costs", query=_costs_query(from_time, to_time, account))

    def costs_csv(self, from_time: Optional[Union[datetime, str]] = None,
                  to_time: Optional[Union[datetime, str]] = None,
                  account: Optional[str] = None) -> str:
        """The same ledger as :meth:`costs`, as CSV text: a header line, then one row per plan,
        holder, preference job and total."""
        query = _costs_query(from_time, to_time, account)
        query["format"] = "csv"
        return self._call_text("GET", "costs", query=query, accept="text/csv")

    def report(self) -> str:
        """``GET /_emulator/report``: one self-contained HTML page (the dashboard with the
        state and the whole cost ledger inside it) to save next to a test's results."""
        return self._call_text("GET", "report", accept="text/html")

    def add_faults(self, *rules: JsonObject) -> List[JsonObject]:
        """Adds fault rules (``POST /_emulator/faults``, see the emulator's "Make it fail on
        purpose"): each a dict such as ``{"operation": "List*", "times": 2, "error":
        "ThrottlingException"}``. All or none are added; returns them with their ids."""
        answer = self._call("POST", "faults", {"rules": list(rules)})
        added: List[JsonObject] = answer["rules"]
        return added

    def faults(self) -> List[JsonObject]:
        """The fault rules in force, each with ``source``, ``matched`` and ``fired``."""
        rules: List[JsonObject] = self._call("GET", "faults")["rules"]
        return rules

    def remove_faults(self, rule_id: Optional[str] = None) -> int:
        """Removes the rule ``rule_id``, or every rule; returns how many were removed."""
        query = {"id": rule_id} if rule_id is not None else None
        removed: int = self._call("DELETE", "faults", query=query)["removed"]
        return removed

    @contextmanager
    def fault(self, rule: JsonObject) -> Iterator[JsonObject]:
        """A fault rule in force for the ``with`` block, removed after it (however it ends)::

            with emulator.fault({"operation": "ListTrainingJobs", "error": "ThrottlingException"}):
                ...

        Yields the rule as added, with its id."""
        added = self.add_faults(rule)[0]
        try:
            yield added
        finally:
            self.remove_faults(added["id"])

    def _change_clock(self, change: JsonObject) -> Clock:
        return Clock.from_json(self._call("POST", "clock", change))

    def _call(self, method: str, name: str, body: Optional[JsonObject] = None,
              query: Optional[Dict[str, str]] = None) -> JsonObject:
        answer: JsonObject = json.loads(self._request(method, name, body, query,
                                                      "application/json"))
        return answer

    def _call_text(self, method: str, name: str, query: Optional[Dict[str, str]] = None,
                   accept: str = "text/plain") -> str:
        """As :meth:`_call`, for an answer that is not JSON (CSV, HTML): its text, decoded
        as UTF-8, the only charset the emulator sends."""
        return self._request(method, name, None, query, accept).decode("utf-8")

    def _request(self, method: str, name: str, body: Optional[JsonObject],
                 query: Optional[Dict[str, str]], accept: str) -> bytes:
        path = "/_emulator/" + name
        if query:
            path += "?" + urllib.parse.urlencode(query)
        request = urllib.request.Request(self.url + path, method=method,
                                         headers=self._headers(accept),
                                         data=None if body is None else json.dumps(body).encode())
        try:
            with _OPENER.open(request, timeout=self.timeout) as response:
                raw: bytes = response.read()
                return raw
        except urllib.error.HTTPError as error:
            with error:
                raise _admin_error(method, path, error.code, error.read()) from None
        except (urllib.error.URLError, OSError) as error:
            # URLError wraps refused connections; a bare OSError is a reset or a timeout.
            raise EmulatorUnavailableError(
                f"{method} {self.url}{path}: cannot reach sagemaker-emulator: "
                f"{getattr(error, 'reason', error)}") from error

    def _headers(self, accept: str = "application/json") -> Dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": accept}
        if self.admin_token:
            headers[ADMIN_TOKEN_HEADER] = self.admin_token
        return headers


def _costs_query(from_time: Optional[Union[datetime, str]],
                 to_time: Optional[Union[datetime, str]],
                 account: Optional[str]) -> Dict[str, str]:
    """The query of GET /_emulator/costs; the emulator checks the values (a range whose start
    is not before its end, an account that is not 12 digits) and refuses them with a 400."""
    query: Dict[str, str] = {}
    if from_time is not None:
        query["from"] = format_time(from_time)
    if to_time is not None:
        query["to"] = format_time(to_time)
    if account is not None:
        query["account"] = account
    return query


def _admin_error(method: str, path: str, status: int, raw: bytes) -> AdminError:
    """The emulator's error body is {"__type", "message"}; anything else (a proxy's page, an
    older server) is kept whole as the message so that nothing is lost."""
    try:
        body = json.loads(raw)
        return AdminError(method, path, status, str(body["__type"]), str(body["message"]))
    except (ValueError, TypeError, KeyError):
        return AdminError(method, path, status, f"HTTP{status}",
                          raw.decode("utf-8", "replace").strip())
