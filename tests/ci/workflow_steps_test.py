#!/usr/bin/python3
"""Runs the CI recipes of examples/ci/ on this machine, as far as a machine without a CI service can,
so that the files users copy cannot go stale.

    tests/ci/workflow_steps_test.py BINARY [--github FILE] [--gitlab FILE] [--keep]

Both files are parsed (Debian's python3-yaml). Each job gets what a runner gives it, with BINARY
standing in for the emulator:
- a fresh copy of the working tree (the files git tracks or does not ignore) as its workspace,
  whose scripts/run starts BINARY instead of building the server;
- each emulator service started as the image would start it: the image's ENV defaults (read from
  docker/Dockerfile), then the service's variables (on GitLab, the job's too, as GitLab passes
  them), with `--host 127.0.0.1 --port 0`. Paths the Dockerfile copies into the image
  (/usr/share/sagemaker-emulator/scenarios/...) become their source in the copy. A service's
  --health-cmd is run against it;
- the service's address in the job's variables and steps (localhost:4577 behind `ports`, or the
  GitLab alias sagemaker-emulator:4577) rewritten to the local port. A job without a service gets a
  free port for 127.0.0.1:4577 and SAGEMAKER_EMULATOR_PORT set to it, for a server a step starts;
- a clean environment: PATH of the system directories, a scratch HOME, the job's env/variables.

Then every step runs in bash, in order: each GitHub `run:` as its own script (`if: failure()` and
`always()` honoured, $GITHUB_ENV and $GITHUB_PATH applied), the GitLab before_script and script
items in one shell with `set -eo pipefail`. A step that fails fails the job and the test.

What cannot run here is skipped by these rules, and listed with the reason:
- a `uses:` step (a GitHub action: checkout, setup-python, ...);
- a step whose commands all run apt-get: it checks instead that the packages it installs are
  installed here, and fails if one is not;
- a step whose commands all run docker (build, push, login): there is no Docker engine (a
  pipeline that feeds docker, as `echo "$PASSWORD" | docker login`, counts as docker);
- a step whose commands all pip-install from an index (PyPI) rather than local paths;
- a job with nothing left to run, whose services are then not started either.
A step that mixes such commands with others fails the test: split it, so the rest can run.
Job conditions (`if:`, `rules:`) are not evaluated: every job runs.

The jobs run in parallel, each in its own scratch folder. Their logs (each step's script and
output) are printed one job after the other, then a summary of what ran and what was skipped, and
why. Exit status 0 when every job passed, 1 otherwise; the scratch folder is kept on failure.
"""
import argparse
import concurrent.futures
import os
import random
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import yaml

REPOSITORY = Path(__file__).resolve().parents[2]
DOCKERFILE = REPOSITORY / "docker" / "Dockerfile"
DEFAULT_PORT = 4577  # the server's default --port, and the image's
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
STEP_TIMEOUT = 180
START_TIMEOUT = 15


class RecipeError(Exception):
    """A workflow this test cannot run as written."""


# --- the image, as docker/Dockerfile describes it -------------------------------------------------

@dataclass
class Image:
    env: Dict[str, str]
    copies: List[Tuple[str, str]]  # (path in the image, path in the repository)

    def local_path(self, path: str, root: Path) -> Optional[str]:
        """The file in the workspace copy that the image has at `path`, or None."""
        best = None
        for inside, source in self.copies:
            if path.rstrip("/") == inside.rstrip("/") or path.startswith(inside.rstrip("/") + "/"):
                if best is None or len(inside) > len(best[0]):
                    best = (inside, source)
        if best is None:
            return None
        inside, source = best
        rest = path[len(inside.rstrip("/")):].lstrip("/")
        return str(root / source / rest) if rest else str(root / source)


def read_image(dockerfile: Path) -> Image:
    logical: List[str] = []
    pending = ""
    for line in dockerfile.read_text().splitlines():
        if not pending and line.lstrip().startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        logical.append(pending + line)
        pending = ""
    # Stages as (base, name, lines); the image is the last stage on top of the stages it is FROM.
    stages: List[Tuple[str, str, List[str]]] = []
    for line in logical:
        if line.upper().startswith("FROM "):
            words = line.split()
            name = words[3] if len(words) >= 4 and words[2].upper() == "AS" else ""
            stages.append((words[1], name, []))
        elif stages:
            stages[-1][2].append(line)
    chain: List[List[str]] = []
    stage = stages[-1] if stages else None
    while stage is not None:
        chain.insert(0, stage[2])
        stage = next((s for s in stages if s[1] and s[1] == stage[0]), None)
    env: Dict[str, str] = {}
    copies: List[Tuple[str, str]] = []
    for line in (line for lines in chain for line in lines):
        keyword, _, rest = line.strip().partition(" ")
        if keyword.upper() == "ENV":
            for token in shlex.split(rest):
                name, _, value = token.partition("=")
                env[name] = value
        elif keyword.upper() == "COPY":
            tokens = shlex.split(rest)
            if any(t.startswith("--from") for t in tokens):
                continue  # the binary: BINARY stands in for it
            paths = [t for t in tokens if not t.startswith("--")]
            sources, target = paths[:-1], paths[-1]
            for source in sources:
                if target.endswith("/") and not source.endswith("/"):
                    copies.append((target + Path(source).name, source))
                else:
                    copies.append((target, source))
    return Image(env, copies)


# --- jobs, steps and services ---------------------------------------------------------------------

@dataclass
class Step:
    name: str
    script: str = ""
    uses: Optional[str] = None
    env: Dict[str, str] = field(default_factory=dict)
    condition: str = "success()"
    shell: Optional[str] = None
    workdir: Optional[str] = None
    skip_reason: Optional[str] = None


@dataclass
class Service:
    name: str
    image: str
    env: Dict[str, str]
    ports: List[Tuple[int, int]]  # (host, container), GitHub
    aliases: List[str]            # GitLab
    command: List[str]
    health_cmd: Optional[str]


@dataclass
class Job:
    ci: str  # "github" or "gitlab"
    name: str
    env: Dict[str, str]
    services: List[Service]
    steps: List[Step]
    notes: List[str]
    shell: Optional[str] = None  # GitHub default shell
    after_steps: List[Step] = field(default_factory=list)  # GitLab after_script

    @property
    def title(self) -> str:
        return f"{'GitHub Actions' if self.ci == 'github' else 'GitLab CI'} / {self.name}"


def strings(mapping) -> Dict[str, str]:
    result = {}
    for key, value in (mapping or {}).items():
        if isinstance(value, dict):  # GitLab: {value: ..., description: ...}
            value = value.get("value", "")
        result[str(key)] = "" if value is None else (str(value).lower() if isinstance(value, bool)
                                                     else str(value))
    return result


def load_github(path: Path) -> List[Job]:
    workflow = yaml.safe_load(path.read_text())
    default_shell = ((workflow.get("defaults") or {}).get("run") or {}).get("shell")
    jobs = []
    for name, spec in (workflow.get("jobs") or {}).items():
        notes = []
        if "if" in spec:
            notes.append(f"job condition `{spec['if']}` not evaluated: every job runs here")
        if spec.get("container"):
            image = spec["container"] if isinstance(spec["container"], str) else spec["container"].get("image")
            notes.append(f"container {image}: the steps run on this machine instead")
        services = []
        for service_name, service in (spec.get("services") or {}).items():
            ports = []
            for entry in service.get("ports") or []:
                host, sep, container = str(entry).partition(":")
                if not sep:
                    raise RecipeError(f"{path.name}: {name}: service port {entry!r}: give it as HOST:CONTAINER")
                ports.append((int(host), int(container.split("/")[0])))
            options = shlex.split(service.get("options") or "")
            health = None
            for i, option in enumerate(options):
                if option == "--health-cmd" and i + 1 < len(options):
                    health = options[i + 1]
                elif option.startswith("--health-cmd="):
                    health = option.split("=", 1)[1]
            services.append(Service(service_name, str(service.get("image", "")), strings(service.get("env")),
                                    ports, [service_name], [], health))
        steps = []
        for number, step in enumerate(spec.get("steps") or [], 1):
            condition = str(step.get("if", "success()")).strip()
            condition = re.sub(r"^\$\{\{\s*(.*?)\s*\}\}$", r"\1", condition)
            if condition not in ("success()", "failure()", "always()"):
                raise RecipeError(f"{path.name}: {name}: step {number}: condition `{condition}` is not "
                                  "one this test knows (success(), failure(), always())")
            steps.append(Step(name=step.get("name") or step.get("uses") or step.get("run", "").splitlines()[0],
                              script=step.get("run", ""), uses=step.get("uses"), env=strings(step.get("env")),
                              condition=condition, shell=step.get("shell"),
                              workdir=step.get("working-directory")))
        job_shell = ((spec.get("defaults") or {}).get("run") or {}).get("shell") or default_shell
        env = strings(workflow.get("env"))
        env.update(strings(spec.get("env")))
        jobs.append(Job("github", name, env, services, steps, notes, shell=job_shell))
    return jobs


GITLAB_RESERVED = {"stages", "variables", "default", "include", "workflow", "image", "services",
                   "before_script", "after_script", "cache"}


def load_gitlab(path: Path) -> List[Job]:
    pipeline = yaml.safe_load(path.read_text())
    default = pipeline.get("default") or {}
    jobs = []
    for name, spec in pipeline.items():
        if name in GITLAB_RESERVED or name.startswith(".") or not isinstance(spec, dict):
            continue
        if "extends" in spec or "trigger" in spec:
            raise RecipeError(f"{path.name}: {name}: extends and trigger are not supported by this test")
        notes = []
        if "rules" in spec or "only" in spec or "except" in spec:
            notes.append("rules not evaluated: every job runs here")
        image = spec.get("image", default.get("image", pipeline.get("image")))
        if image:
            notes.append(f"image {image if isinstance(image, str) else image.get('name')}: "
                         "the script runs on this machine instead")
        env = strings(pipeline.get("variables"))
        env.update(strings(spec.get("variables")))
        services = []
        for entry in spec.get("services", default.get("services", pipeline.get("services"))) or []:
            if isinstance(entry, str):
                entry = {"name": entry}
            aliases = [a.strip() for a in str(entry.get("alias", "")).split(",") if a.strip()]
            services.append(Service(str(entry.get("name", "")), str(entry.get("name", "")),
                                    strings(entry.get("variables")), [], aliases,
                                    [str(c) for c in entry.get("command") or []], None))

        def items(key):
            value = spec.get(key, default.get(key, pipeline.get(key)))
            return [str(v) for v in ([value] if isinstance(value, str) else value or [])]

        steps = [Step(name=f"{key}: {text.splitlines()[0]}", script=text)
                 for key in ("before_script", "script") for text in items(key)]
        after = [Step(name=f"after_script: {text.splitlines()[0]}", script=text, condition="always()")
                 for text in items("after_script")]
        jobs.append(Job("gitlab", name, env, services, steps, notes, after_steps=after))
    return jobs


# --- what runs here, what is skipped, and why -----------------------------------------------------

def pipelines(line: str) -> List[List[List[str]]]:
    """The pipelines of a shell line, each a list of simple commands as words."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        words = list(lexer)
    except ValueError:  # an open quote: leave the line to bash
        return [[line.split()]]
    result: List[List[List[str]]] = []
    pipeline: List[List[str]] = []
    current: List[str] = []
    for word in words:
        if word and set(word) <= set("&|;()$"):
            if current:
                pipeline.append(current)
            current = []
            if word != "|" and pipeline:
                result.append(pipeline)
                pipeline = []
        else:
            current.append(word)
    if current:
        pipeline.append(current)
    if pipeline:
        result.append(pipeline)
    return result


def command_kind(words: List[str]) -> str:
    words = words[1:] if words and words[0] == "sudo" else words
    program = Path(words[0]).name if words else ""
    if program in ("apt-get", "apt"):
        return "apt"
    if program == "docker":
        return "docker"
    if program in ("pip", "pip3") and words[1:2] == ["install"]:
        arguments = words[2:]
    elif program.startswith("python") and words[1:4] == ["-m", "pip", "install"]:
        arguments = words[4:]
    else:
        return "run"
    if "--no-index" in arguments:
        return "run"
    wanted = [a for a in arguments if not a.startswith("-")]
    local = all(w.startswith((".", "/", "~")) for w in wanted)
    return "run" if local and not {"-r", "--requirement"} & set(arguments) else "pypi"


def pipeline_kind(pipeline: List[List[str]]) -> str:
    """A pipeline that feeds a command this test skips (echo "$PASSWORD" | docker login) is skipped."""
    kinds = [command_kind(words) for words in pipeline]
    return next((k for k in ("docker", "apt", "pypi") if k in kinds), "run")


def logical_lines(script: str) -> List[str]:
    lines, pending = [], ""
    for line in script.splitlines():
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        line = (pending + line).strip()
        pending = ""
        if line and not line.startswith("#"):
            lines.append(line)
    if pending.strip():
        lines.append(pending.strip())
    return lines


def installed(package: str) -> bool:
    status = subprocess.run(["dpkg-query", "-W", "-f=${Status}", package], capture_output=True, text=True)
    return status.returncode == 0 and "install ok installed" in status.stdout


def classify(step: Step, job: Job) -> None:
    """Sets step.skip_reason for a step that cannot run here; raises for a step that mixes."""
    if step.uses:
        action = step.uses.split("@")[0]
        if action == "actions/checkout":
            step.skip_reason = "GitHub action; the job works in a fresh copy of the working tree instead"
        elif action.startswith("actions/setup-"):
            step.skip_reason = "GitHub action; the job uses this machine's tools instead"
        else:
            step.skip_reason = "GitHub action, runs only on GitHub"
        return
    kinds: Dict[str, List[List[str]]] = {}
    for line in logical_lines(step.script):
        for pipeline in pipelines(line):
            kinds.setdefault(pipeline_kind(pipeline), []).extend(pipeline)
    skippable = set(kinds) - {"run"}
    if not skippable:
        return
    if "run" in kinds:
        raise RecipeError(f"{job.title}: step `{step.name}` mixes commands this test skips "
                          f"({', '.join(sorted(skippable))}) with others; split it so the others run")
    reasons = []
    if "apt" in kinds:
        packages = []
        for tokens in kinds["apt"]:
            if "install" in tokens:
                packages += [t for t in tokens[tokens.index("install") + 1:] if not t.startswith("-")]
        missing = [p for p in packages if not installed(p)]
        if missing:
            raise RecipeError(f"{job.title}: step `{step.name}` installs {' '.join(missing)}, which this "
                              "machine lacks (scripts/deps installs the test packages)")
        reasons.append("apt-get; its packages are installed here" if packages
                       else "apt-get; nothing to install here")
    if "docker" in kinds:
        reasons.append("needs a Docker engine and a registry")
    if "pypi" in kinds:
        reasons.append("installs from PyPI, which tests do not reach")
    step.skip_reason = "; ".join(reasons)


# --- expressions and variables --------------------------------------------------------------------

GITHUB_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
SHELL_VARIABLE = re.compile(r"\$\{(\w+)\}|\$(\w+)")


def github_expand(text: str, context: Dict[str, str], where: str) -> str:
    def value(match):
        name = match.group(1)
        if name in context:
            return context[name]
        if name.startswith("env.") and name[4:] in context.get("__env__", {}):
            return context["__env__"][name[4:]]
        raise RecipeError(f"{where}: expression `{match.group(0)}` is not one this test evaluates")
    return GITHUB_EXPRESSION.sub(value, text)


def gitlab_expand(text: str, variables: Dict[str, str]) -> str:
    return SHELL_VARIABLE.sub(lambda m: variables.get(m.group(1) or m.group(2), ""), text)


def free_port() -> int:
    """A port nothing holds, below the kernel's ephemeral range: the server a step starts binds it
    later, and an outgoing connection of a test running beside this one may take any port of that
    range in between."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as ports:
            low = int(ports.read().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    low = low if low > 21000 else 32768
    while True:
        port = random.randrange(20000, low)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
                return port
            except OSError:
                continue


# --- running a job --------------------------------------------------------------------------------

@dataclass
class Outcome:
    job: Job
    passed: bool = True
    log: List[str] = field(default_factory=list)
    ran: List[Tuple[str, str]] = field(default_factory=list)      # (step, "ok 1.2 s" / "FAILED ...")
    skipped: List[Tuple[str, str]] = field(default_factory=list)  # (step, reason)
    seconds: float = 0.0

    @property
    def verdict(self) -> str:
        if not self.passed:
            return "FAILED"
        return "passed" if self.ran else "skipped (nothing to run here)"

    def say(self, text: str = "") -> None:
        self.log.append(text)


def copy_working_tree(destination: Path, binary: Path) -> None:
    listing = subprocess.run(["git", "-C", str(REPOSITORY), "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], capture_output=True)
    if listing.returncode == 0:
        files = [f for f in listing.stdout.decode().split("\0") if f]
    else:  # not a git checkout: everything but build output and local state
        def wanted(parts: Tuple[str, ...]) -> bool:
            return not (parts[0].startswith("build") or parts[:2] == ("tests", "artifacts")
                        or any(part in (".git", "node_modules", "__pycache__", ".venv", "build", "_models")
                               or part.endswith(".egg-info") for part in parts[:-1])
                        or parts[-1].endswith((".db", ".db-wal", ".db-shm")))
        files = [str(p.relative_to(REPOSITORY)) for p in REPOSITORY.rglob("*")
                 if p.is_file() and wanted(p.relative_to(REPOSITORY).parts)]
    for name in files:
        source = REPOSITORY / name
        target = destination / name
        if not source.exists() and not source.is_symlink():
            continue  # deleted in the working tree
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            os.symlink(os.readlink(source), target)
        elif source.is_file():
            shutil.copy2(source, target)
    stub = destination / "scripts" / "run"
    stub.write_text("#!/usr/bin/env bash\n# workflow_steps_test.py: scripts/run without the build, "
                    "the server under test.\n" f"exec {shlex.quote(str(binary))} \"$@\"\n")
    stub.chmod(0o755)


def stop_group(pgid: int) -> None:
    for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 0)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            try:
                os.killpg(pgid, 0)
            except ProcessLookupError:
                return
            time.sleep(0.05)


class JobRun:
    def __init__(self, job: Job, binary: Path, image: Image, scratch: Path):
        self.job = job
        self.binary = binary
        self.image = image
        self.scratch = scratch
        self.workspace = scratch / "workspace"
        self.home = scratch / "home"
        self.temp = scratch / "runner-temp"
        self.outcome = Outcome(job)
        self.groups: List[int] = []
        self.servers: List[subprocess.Popen] = []
        self.rewrites: List[Tuple[str, str]] = []

    # The job's environment, before rewriting.
    def base_env(self) -> Dict[str, str]:
        env = {"PATH": SYSTEM_PATH, "HOME": str(self.home), "LANG": "C.UTF-8", "CI": "true"}
        if self.job.ci == "github":
            env.update(GITHUB_ACTIONS="true", GITHUB_WORKSPACE=str(self.workspace), GITHUB_JOB=self.job.name,
                       RUNNER_TEMP=str(self.temp))
        else:
            env.update(GITLAB_CI="true", CI_PROJECT_DIR=str(self.workspace), CI_JOB_NAME=self.job.name,
                       CI_REGISTRY="registry.example.com",
                       CI_REGISTRY_IMAGE="registry.example.com/group/project",
                       CI_COMMIT_BRANCH="main", CI_DEFAULT_BRANCH="main")
        return env

    def github_context(self) -> Dict[str, str]:
        return {"github.workspace": str(self.workspace), "runner.temp": str(self.temp),
                "github.job": self.job.name}

    def job_variables(self) -> Dict[str, str]:
        base = self.base_env()
        if self.job.ci == "github":
            context = self.github_context()
            return {k: github_expand(v, context, f"{self.job.title}: env {k}") for k, v in self.job.env.items()}
        variables: Dict[str, str] = {}
        for key, value in self.job.env.items():
            variables[key] = gitlab_expand(value, {**base, **variables})
        return variables

    def rewrite(self, text: str) -> str:
        for old, new in self.rewrites:
            text = text.replace(old, new)
        return text

    def start_service(self, service: Service, job_variables: Dict[str, str]) -> None:
        out = self.outcome
        described = service.image
        if self.job.ci == "gitlab":
            described = gitlab_expand(service.image, {**self.base_env(), **job_variables})
        if "sagemaker-emulator" not in (described + " ".join(service.aliases) + service.name).lower() and \
                "SAGEMAKER_EMULATOR" not in described:
            raise RecipeError(f"{self.job.title}: service {service.name} ({described}) is not the emulator; "
                              "this test stands in for the emulator only")
        env = {"PATH": SYSTEM_PATH, "HOME": str(self.scratch / f"service-{service.name}")}
        env.update(self.image.env)
        if self.job.ci == "gitlab":  # GitLab passes the job's variables to its services
            env.update(job_variables)
            env.update({k: gitlab_expand(v, {**self.base_env(), **job_variables})
                        for k, v in service.env.items()})
        else:
            context = self.github_context()
            env.update({k: github_expand(v, context, f"{self.job.title}: service env {k}")
                        for k, v in service.env.items()})
        for key, value in list(env.items()):
            if value.startswith("/"):
                local = self.image.local_path(value, self.workspace)
                if local:
                    env[key] = local
        container_port = int(env.get("SAGEMAKER_EMULATOR_PORT", DEFAULT_PORT))
        data = Path(env["HOME"])
        data.mkdir(parents=True, exist_ok=True)
        argv = [str(self.binary), "--host", "127.0.0.1", "--port", "0"] + \
            [gitlab_expand(c, {**self.base_env(), **job_variables}) for c in service.command]
        stdout_path, stderr_path = data / "stdout", data / "stderr"
        with open(stdout_path, "wb") as stdout, open(stderr_path, "wb") as stderr:
            server = subprocess.Popen(argv, env=env, cwd=data, stdout=stdout, stderr=stderr,
                                      start_new_session=True)
        self.servers.append(server)
        port = None
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline and port is None:
            match = re.search(r"listening on http://127\.0\.0\.1:(\d+)", stdout_path.read_text())
            if match:
                port = int(match.group(1))
            elif server.poll() is not None:
                break
            else:
                time.sleep(0.05)
        if port is None:
            raise RecipeError(f"{self.job.title}: service {described} did not start:\n"
                              + "\n".join(stderr_path.read_text().splitlines()[-15:]))
        shown = {k: v for k, v in env.items() if k.startswith("SAGEMAKER_EMULATOR_")}
        out.say(f"service {described}: {' '.join(shlex.quote(a) for a in argv[1:])} -> 127.0.0.1:{port}")
        out.say("  environment: "
                + " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(shown.items())))
        for host, container in service.ports:
            if container != container_port:
                raise RecipeError(f"{self.job.title}: service {service.name} publishes container port "
                                  f"{container}, but the emulator listens on {container_port}")
            self.rewrites += [(f"localhost:{host}", f"127.0.0.1:{port}"), (f"127.0.0.1:{host}", f"127.0.0.1:{port}")]
        for alias in service.aliases:
            self.rewrites.append((f"{alias}:{container_port}", f"127.0.0.1:{port}"))
        if service.health_cmd:
            command = shlex.split(service.health_cmd)
            local = self.image.local_path(command[0], self.workspace)
            if not local:
                raise RecipeError(f"{self.job.title}: --health-cmd {command[0]} is not a file the image has")
            health_env = dict(env, SAGEMAKER_EMULATOR_HOST="127.0.0.1", SAGEMAKER_EMULATOR_PORT=str(port))
            check = subprocess.run(["bash", local] + command[1:], env=health_env, capture_output=True,
                                   text=True, timeout=10)
            if check.returncode != 0:
                raise RecipeError(f"{self.job.title}: --health-cmd {service.health_cmd} failed: "
                                  f"{check.stdout}{check.stderr}")
            out.say(f"  --health-cmd {service.health_cmd} ({Path(local).relative_to(self.workspace)}): healthy")

    def run_script(self, argv: List[str], env: Dict[str, str], cwd: Path, log: Path) -> Tuple[int, float]:
        started = time.monotonic()
        with open(log, "wb") as output:
            process = subprocess.Popen(argv, env=env, cwd=cwd, stdout=output, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL, start_new_session=True)
            self.groups.append(process.pid)
            try:
                code = process.wait(timeout=STEP_TIMEOUT)
            except subprocess.TimeoutExpired:
                stop_group(process.pid)
                process.wait()
                code = -1
                with open(log, "a") as tail:
                    tail.write(f"\n(stopped after {STEP_TIMEOUT} s)\n")
        return code, time.monotonic() - started

    def github_shell(self, step: Step) -> List[str]:
        shell = step.shell or self.job.shell
        if shell is None:
            return ["bash", "-e", "{0}"]
        if shell == "bash":
            return ["bash", "--noprofile", "--norc", "-eo", "pipefail", "{0}"]
        if shell == "sh":
            return ["sh", "-e", "{0}"]
        if "{0}" in shell:
            return shlex.split(shell)
        raise RecipeError(f"{self.job.title}: shell `{shell}` is not one this test knows")

    def run(self) -> Outcome:
        out, job = self.outcome, self.job
        started = time.monotonic()
        try:
            for step in job.steps + job.after_steps:
                classify(step, job)
            runnable = [s for s in job.steps if not s.skip_reason]
            if not runnable:
                out.say("nothing to run here; services not started")
                for step in job.steps:
                    out.skipped.append((step.name, step.skip_reason))
                return out
            for directory in (self.workspace, self.home, self.temp):
                directory.mkdir(parents=True, exist_ok=True)
            copy_working_tree(self.workspace, self.binary)
            for note in job.notes:
                out.say(f"note: {note}")
            variables = self.job_variables()
            for service in job.services:
                self.start_service(service, variables)
            if not job.services:
                port = free_port()
                self.rewrites += [(f"localhost:{DEFAULT_PORT}", f"127.0.0.1:{port}"),
                                  (f"127.0.0.1:{DEFAULT_PORT}", f"127.0.0.1:{port}")]
                variables["SAGEMAKER_EMULATOR_PORT"] = str(port)
                out.say(f"no service: a server a step starts gets port {port} (SAGEMAKER_EMULATOR_PORT)")
            if any("scripts/run" in s.script for s in runnable):
                out.say("note: scripts/run in this copy runs BINARY instead of building the server")
            for old, new in self.rewrites:
                out.say(f"rewrite: {old} -> {new}")
            variables = {k: self.rewrite(v) for k, v in variables.items()}
            leftover = [f"variable {k}" for k, v in variables.items() if f":{DEFAULT_PORT}" in v]
            leftover += [f"step `{s.name}`" for s in runnable if f":{DEFAULT_PORT}" in self.rewrite(s.script)]
            if leftover:
                raise RecipeError(f"{job.title}: port {DEFAULT_PORT} at an address this test does not map "
                                  f"to the local server, in {', '.join(leftover)}")
            env = {**self.base_env(), **variables}
            if job.ci == "github":
                self.run_github(env)
            else:
                self.run_gitlab(env)
        except RecipeError as error:
            out.passed = False
            out.say(f"ERROR {error}")
        finally:
            for pgid in self.groups:
                stop_group(pgid)
            for server in self.servers:
                stop_group(server.pid)
            out.seconds = time.monotonic() - started
        return out

    def show(self, title: str, script: str) -> None:
        self.outcome.say(f"--- {title}")
        for line in script.rstrip("\n").splitlines():
            self.outcome.say(f"    | {line}")

    def show_output(self, log: Path) -> None:
        for line in log.read_text(errors="replace").rstrip("\n").splitlines():
            self.outcome.say(f"    {line}")

    def run_github(self, env: Dict[str, str]) -> None:
        out = self.outcome
        failed = False
        context = self.github_context()
        for number, step in enumerate(self.job.steps, 1):
            if step.skip_reason:
                out.say(f"--- skipped: {step.name} ({step.skip_reason})")
                out.skipped.append((step.name, step.skip_reason))
                continue
            if (step.condition == "success()" and failed) or (step.condition == "failure()" and not failed):
                out.say(f"--- not run: {step.name} (if: {step.condition})")
                continue
            where = f"{self.job.title}: step `{step.name}`"
            script = self.rewrite(github_expand(step.script, {**context, "__env__": env}, where))
            step_env = dict(env)
            step_env.update({k: self.rewrite(github_expand(v, context, where)) for k, v in step.env.items()})
            files = {name: self.temp / f"{name.lower()}-{number}" for name in
                     ("GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY")}
            for name, path in files.items():
                path.write_text("")
                step_env[name] = str(path)
            script_file = self.temp / f"step-{number}.sh"
            script_file.write_text(script + "\n")
            argv = [a.replace("{0}", str(script_file)) for a in self.github_shell(step)]
            cwd = self.workspace / (step.workdir or "")
            self.show(f"{step.name}  [{' '.join(argv[:-1])}]", script)
            log = self.temp / f"step-{number}.log"
            code, seconds = self.run_script(argv, step_env, cwd, log)
            self.show_output(log)
            verdict = f"ok, {seconds:.1f} s" if code == 0 else f"FAILED, exit {code}, {seconds:.1f} s"
            out.say(f"    ({verdict})")
            out.ran.append((step.name, verdict))
            if code != 0:
                failed = True
                out.passed = False
                continue
            env.update(parse_github_env(files["GITHUB_ENV"].read_text()))
            for directory in files["GITHUB_PATH"].read_text().splitlines():
                if directory.strip():
                    env["PATH"] = directory.strip() + ":" + env["PATH"]

    def run_gitlab(self, env: Dict[str, str]) -> None:
        out = self.outcome
        lines = ["set -eo pipefail", "set +o noclobber"]
        shown = []
        for step in self.job.steps:
            if step.skip_reason:
                out.skipped.append((step.name, step.skip_reason))
                lines.append(f"echo {shlex.quote(f'(skipped: {step.name.split(chr(10))[0]}: {step.skip_reason})')}")
                shown.append(f"# skipped ({step.skip_reason}): {step.script}")
                continue
            script = self.rewrite(step.script)
            lines.append(f"printf '%s\\n' {shlex.quote('$ ' + script.rstrip())}")
            lines.append(script)
            shown.append(script.rstrip())
        script_file = self.temp / "script.sh"
        script_file.write_text("\n".join(lines) + "\n")
        self.show("before_script + script, in one bash with set -eo pipefail", "\n".join(shown))
        log = self.temp / "script.log"
        code, seconds = self.run_script(["bash", "--noprofile", "--norc", str(script_file)], env, self.workspace, log)
        self.show_output(log)
        verdict = f"ok, {seconds:.1f} s" if code == 0 else f"FAILED, exit {code}, {seconds:.1f} s"
        out.say(f"    ({verdict})")
        runnable = [s for s in self.job.steps if not s.skip_reason]
        out.ran.append((f"{len(runnable)} script items", verdict))
        if code != 0:
            out.passed = False
        for step in self.job.after_steps:
            if step.skip_reason:
                out.skipped.append((step.name, step.skip_reason))
                continue
            log = self.temp / "after.log"
            self.show(step.name, step.script)
            after_file = self.temp / "after.sh"
            after_file.write_text(self.rewrite(step.script) + "\n")
            after_code, _ = self.run_script(["bash", "--noprofile", "--norc", "-e", str(after_file)], env,
                                            self.workspace, log)
            self.show_output(log)
            out.ran.append((step.name, "ok" if after_code == 0 else f"exit {after_code} (ignored, as GitLab does)"))


def parse_github_env(text: str) -> Dict[str, str]:
    values, lines = {}, text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            body = []
            i += 1
            while i < len(lines) and lines[i] != delimiter:
                body.append(lines[i])
                i += 1
            values[name] = "\n".join(body)
        elif "=" in line:
            name, value = line.split("=", 1)
            values[name] = value
        i += 1
    return values


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("binary", type=Path)
    parser.add_argument("--github", type=Path, default=REPOSITORY / "examples" / "ci" / "github-actions.yml")
    parser.add_argument("--gitlab", type=Path, default=REPOSITORY / "examples" / "ci" / "gitlab-ci.yml")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder")
    arguments = parser.parse_args()
    binary = arguments.binary.resolve()
    if not os.access(binary, os.X_OK):
        print(f"not an executable: {binary}", file=sys.stderr)
        return 2

    started = time.monotonic()
    image = read_image(DOCKERFILE)
    try:
        jobs = load_github(arguments.github) + load_gitlab(arguments.gitlab)
    except (RecipeError, yaml.YAMLError) as error:
        print(f"FAILED: {error}")
        return 1
    scratch = Path(tempfile.mkdtemp(prefix="sagemaker-emulator-ci."))
    print(f"running {arguments.github.name} and {arguments.gitlab.name} with {binary}, in {scratch}", flush=True)
    runs = [JobRun(job, binary, image, scratch / f"{job.ci}-{job.name}") for job in jobs]
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(runs)) as pool:
        outcomes = list(pool.map(lambda run: run.run(), runs))

    for outcome in outcomes:
        print(f"\n=== {outcome.job.title}: {outcome.verdict} ({outcome.seconds:.1f} s)")
        print("\n".join(outcome.log))
    print("\n=== summary")
    for outcome in outcomes:
        print(f"{outcome.job.title}: {outcome.verdict}")
        for name, verdict in outcome.ran:
            print(f"  ran      {name} ({verdict})")
        for name, reason in outcome.skipped:
            print(f"  skipped  {name.splitlines()[0]}: {reason}")
    passed = all(o.passed for o in outcomes)
    print(f"{'passed' if passed else 'FAILED'} in {time.monotonic() - started:.1f} s")
    if passed and not arguments.keep:
        shutil.rmtree(scratch, ignore_errors=True)
    else:
        print(f"scratch folder kept: {scratch}")
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
