#!/usr/bin/env python3
"""Writes api/: the subset of the official AWS models that the emulator serves.

Reads the full botocore models (default ../shared/aws-models), keeps the operations listed in
scripts/api-operations.txt with every shape they reach, removes documentation strings, and writes
the botocore layout (service-2.json, paginators-1.json, waiters-2.json) so that the server can embed
it and older AWS CLIs / boto3 can load it through AWS_DATA_PATH.

Shapes and members newer than those models come from scripts/api-additions.json.

Usage: scripts/make-api-subset.py [--models DIR] [--out DIR]
"""
import argparse
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SERVICES = {"sagemaker": "2017-07-24", "sagemaker-runtime": "2017-05-13"}


def read_operation_list(path):
    wanted = {service: [] for service in SERVICES}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        service, operation = line.split()
        wanted[service].append(operation)
    return wanted


def strip_docs(node):
    if isinstance(node, dict):
        return {k: strip_docs(v) for k, v in node.items() if k not in ("documentation", "documentationUrl")}
    if isinstance(node, list):
        return [strip_docs(v) for v in node]
    return node


def reachable_shapes(model, operations):
    shapes = model["shapes"]
    seen = set()
    pending = []
    for op in operations:
        spec = model["operations"][op]
        for key in ("input", "output"):
            if key in spec:
                pending.append(spec[key]["shape"])
        pending.extend(err["shape"] for err in spec.get("errors", []))
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        shape = shapes[name]
        for member in shape.get("members", {}).values():
            pending.append(member["shape"])
        for key in ("member", "key", "value"):
            if key in shape:
                pending.append(shape[key]["shape"])
    return seen


def apply_additions(model, additions):
    """Adds shapes and members that the official models do not have yet (scripts/api-additions.json)."""
    for name, shape in additions.get("shapes", {}).items():
        model["shapes"][name] = shape
    for name, members in additions.get("members", {}).items():
        model["shapes"][name].setdefault("members", {}).update(members)
    for name, required in additions.get("required", {}).items():
        model["shapes"][name]["required"] = required


def subset_service(models_dir, service, version, operations, additions):
    src = models_dir / service / version
    model = json.loads((src / "service-2.json").read_text())
    apply_additions(model, additions.get(service, {}))
    missing = [op for op in operations if op not in model["operations"]]
    if missing:
        sys.exit(f"{service}: operations not in the model: {', '.join(missing)}")
    keep = reachable_shapes(model, operations)
    out = {
        "version": model.get("version", "2.0"),
        "metadata": model["metadata"],
        "operations": {op: model["operations"][op] for op in sorted(operations)},
        "shapes": {name: model["shapes"][name] for name in sorted(keep)},
    }
    files = {"service-2.json": strip_docs(out)}
    paginators_path = src / "paginators-1.json"
    if paginators_path.exists():
        pages = json.loads(paginators_path.read_text())["pagination"]
        files["paginators-1.json"] = {"pagination": {k: v for k, v in sorted(pages.items()) if k in operations}}
    waiters_path = src / "waiters-2.json"
    if waiters_path.exists():
        waiters = json.loads(waiters_path.read_text())
        kept = {k: v for k, v in sorted(waiters["waiters"].items()) if v["operation"] in operations}
        files["waiters-2.json"] = {"version": waiters["version"], "waiters": kept}
    return files


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=pathlib.Path, default=ROOT.parent / "shared" / "aws-models")
    parser.add_argument("--out", type=pathlib.Path, default=ROOT / "api")
    parser.add_argument("--operations", type=pathlib.Path, default=ROOT / "scripts" / "api-operations.txt")
    parser.add_argument("--additions", type=pathlib.Path, default=ROOT / "scripts" / "api-additions.json")
    args = parser.parse_args()
    wanted = read_operation_list(args.operations)
    additions = json.loads(args.additions.read_text())
    for service, version in SERVICES.items():
        target = args.out / service / version
        target.mkdir(parents=True, exist_ok=True)
        for filename, content in subset_service(args.models, service, version, wanted[service], additions).items():
            (target / filename).write_text(json.dumps(content, indent=1, sort_keys=False) + "\n")


if __name__ == "__main__":
    main()
