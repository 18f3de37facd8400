"""Configuration and infrastructure files agents read and write: Dockerfiles, Terraform,
Kubernetes and GitHub Actions YAML, pyproject TOML, Jupyter notebooks (JSON with escaped
sources and base64 outputs), and OpenAPI documents built from botocore's real service models."""

# ruff: noqa: E501  (templates of tool output and sentences: one line of source is one line of output)

from __future__ import annotations

import base64
import functools
import gzip
import json
import random
from pathlib import Path

import yaml

from .common import SITE, fill, hexid, listing, read
from .sources import english_sentences, py_files

IMAGES = [
    "python:3.12-slim-bookworm",
    "node:20-alpine",
    "golang:1.23 AS build",
    "rust:1.82",
    "ubuntu:24.04",
    "nvidia/cuda:12.4.1-cudnn-runtime-ubuntu22.04",
]


def gen_dockerfile(rng: random.Random, target: int) -> tuple[str, str]:
    def stage(rng: random.Random) -> str:
        pkgs = " \\\n      ".join(
            rng.sample(
                [
                    "build-essential",
                    "curl",
                    "ca-certificates",
                    "git",
                    "libpq-dev",
                    "tini",
                    "locales",
                    "ffmpeg",
                    "libssl-dev",
                ],
                5,
            )
        )
        return (
            f"FROM {rng.choice(IMAGES)}\nARG VERSION={rng.randint(0, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}\nENV PYTHONDONTWRITEBYTECODE=1 \\\n    PIP_NO_CACHE_DIR=1 \\\n    LANG=C.UTF-8\n"
            f"RUN apt-get update && apt-get install -y --no-install-recommends \\\n      {pkgs} \\\n    && rm -rf /var/lib/apt/lists/*\nWORKDIR /app\nCOPY --chown=app:app requirements*.txt ./\n"
            f"RUN --mount=type=cache,target=/root/.cache/pip pip install -r requirements.txt\nCOPY . .\nHEALTHCHECK --interval=30s --timeout=3s CMD curl -fsS http://localhost:{rng.choice([8000, 8080, 3000])}/healthz || exit 1\n"
            f'EXPOSE {rng.choice([8000, 8080, 3000])}\nUSER {rng.randint(1000, 65000)}:{rng.randint(1000, 65000)}\nENTRYPOINT ["/usr/bin/tini", "--"]\nCMD ["gunicorn", "-w", "{rng.randint(2, 16)}", "-b", "0.0.0.0:8000", "app.wsgi:application"]'
        )

    return "dockerfile", "# syntax=docker/dockerfile:1.7\n" + fill(rng, target, stage, sep="\n\n")


def gen_terraform(rng: random.Random, target: int) -> tuple[str, str]:
    def block(rng: random.Random) -> str:
        name = rng.choice(["api", "worker", "logs", "assets", "db"]) + "_" + hexid(rng, 4)
        kind = rng.randrange(3)
        if kind == 0:
            return (
                f'resource "aws_s3_bucket" "{name}" {{\n  bucket        = "${{var.project}}-{name}-${{var.env}}"\n  force_destroy = {rng.choice(["true", "false"])}\n\n  tags = merge(local.common_tags, {{\n'
                f'    Name        = "{name}"\n    CostCenter  = "{rng.randint(1000, 9999)}"\n  }})\n}}'
            )
        if kind == 1:
            cidrs = ", ".join(
                f'"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.0/{rng.choice([16, 20, 24])}"'
                for _ in range(rng.randint(1, 4))
            )
            return (
                f'resource "aws_security_group_rule" "{name}" {{\n  type              = "ingress"\n  from_port         = {rng.choice([443, 5432, 6379])}\n  to_port           = {rng.choice([443, 5432, 6379])}\n'
                f'  protocol          = "tcp"\n  cidr_blocks       = [{cidrs}]\n  security_group_id = aws_security_group.{name}.id\n}}'
            )
        return (
            f'variable "{name}" {{\n  type = map(object({{\n    instance_type = string\n    min_size      = number\n  }}))\n  default = {{\n    prod = {{ instance_type = "m7g.{rng.choice(["large", "xlarge", "2xlarge"])}", min_size = {rng.randint(1, 9)} }}\n  }}\n}}\n\n'
            f'output "{name}_arn" {{\n  value       = module.{name}.arn\n  description = "{rng.choice(english_sentences())[:70]}"\n}}'
        )

    return "terraform", fill(rng, target, block, sep="\n\n")


def gen_yaml(rng: random.Random, target: int) -> tuple[str, str]:
    def doc(rng: random.Random) -> str:
        if rng.random() < 0.5:
            d: object = {
                "apiVersion": "apps/v1",
                "kind": "Deployment",
                "metadata": {
                    "name": f"api-{hexid(rng, 5)}",
                    "labels": {"app.kubernetes.io/name": "api", "tier": "backend"},
                },
                "spec": {
                    "replicas": rng.randint(1, 12),
                    "template": {
                        "spec": {
                            "containers": [
                                {
                                    "name": "api",
                                    "image": f"ghcr.io/acme/api@sha256:{hexid(rng, 64)}",
                                    "resources": {
                                        "limits": {
                                            "cpu": f"{rng.randint(100, 4000)}m",
                                            "memory": f"{rng.randint(128, 8192)}Mi",
                                        }
                                    },
                                    "env": [
                                        {"name": k, "value": v}
                                        for k, v in [
                                            ("LOG_LEVEL", "info"),
                                            (
                                                "DATABASE_URL",
                                                f"postgres://app:{hexid(rng, 12)}@db:5432/app?sslmode=require",
                                            ),
                                        ]
                                    ],
                                }
                            ]
                        }
                    },
                },
            }
        else:
            d = {
                "name": "CI",
                "on": {"push": {"branches": ["main"]}, "pull_request": None},
                "jobs": {
                    "test": {
                        "runs-on": "${{ matrix.os }}",
                        "strategy": {
                            "matrix": {"os": ["ubuntu-latest", "macos-14"], "python": ["3.10", "3.11", "3.12"]}
                        },
                        "steps": [
                            {"uses": "actions/checkout@v4"},
                            {"uses": "actions/setup-python@v5", "with": {"python-version": "${{ matrix.python }}"}},
                            {"run": "pip install -e '.[dev]'\npytest -q --cov"},
                        ],
                    }
                },
            }
        return yaml.safe_dump(d, sort_keys=False, allow_unicode=True)

    return "yaml", fill(rng, target, doc, sep="---\n")


def gen_toml(rng: random.Random, target: int) -> tuple[str, str]:
    def table(rng: random.Random) -> str:
        deps = "\n".join(
            f'    "{n}>={rng.randint(0, 9)}.{rng.randint(0, 40)}",'
            for n in rng.sample(["httpx", "pydantic", "numpy", "rich", "click", "orjson", "redis", "sqlalchemy"], 4)
        )
        return (
            f'[project]\nname = "svc-{hexid(rng, 4)}"\nversion = "{rng.randint(0, 3)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}"\nrequires-python = ">=3.10"\ndependencies = [\n{deps}\n]\n\n'
            f'[tool.ruff]\nline-length = {rng.choice([88, 100, 120])}\ntarget-version = "py311"\n\n[tool.ruff.lint]\nselect = ["E", "F", "I", "UP", "B"]\nignore = ["E501"]\n\n'
            f'[tool.pytest.ini_options]\naddopts = "-q --strict-markers"\ntestpaths = ["tests"]\nfilterwarnings = ["error", "ignore::DeprecationWarning:{hexid(rng, 4)}"]'
        )

    return "toml", fill(rng, target, table, sep="\n\n")


def gen_notebook(rng: random.Random, target: int) -> tuple[str, str]:
    cells: list[object] = []
    size = 0
    while size < target:
        files = py_files(rng.choice(["networkx", "rich", "requests"]))
        src = read(Path(files[rng.randrange(len(files))])).splitlines()
        a = rng.randrange(max(1, len(src) - 15))
        lines = [ln + "\n" for ln in src[a : a + rng.randint(3, 15)]]
        png = base64.b64encode(bytes(rng.randrange(256) for _ in range(rng.randint(60, 900)))).decode()
        outputs = [
            {
                "output_type": "execute_result",
                "execution_count": len(cells) + 1,
                "data": {"text/plain": [f"array([{', '.join(f'{rng.random():.8f}' for _ in range(6))}])"]},
                "metadata": {},
            }
        ]
        if rng.random() < 0.4:
            outputs.append(
                {
                    "output_type": "display_data",
                    "data": {"image/png": png, "text/plain": ["<Figure size 640x480 with 1 Axes>"]},
                    "metadata": {},
                }
            )
        cells.append(
            {
                "cell_type": "code",
                "execution_count": len(cells) + 1,
                "id": hexid(rng, 8),
                "metadata": {},
                "outputs": outputs,
                "source": lines,
            }
        )
        if rng.random() < 0.3:
            cells.append(
                {
                    "cell_type": "markdown",
                    "id": hexid(rng, 8),
                    "metadata": {},
                    "source": [
                        "## " + rng.choice(english_sentences())[:50] + "\n",
                        "\n",
                        rng.choice(english_sentences()),
                    ],
                }
            )
        size = len(json.dumps(cells, indent=1))
    nb = {
        "cells": cells,
        "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return "notebook", json.dumps(nb, indent=1, ensure_ascii=False)


@functools.lru_cache(maxsize=1)
def _service_models() -> list[str]:
    return [str(p) for p in listing(SITE / "botocore" / "data", "service-2.json.gz")]


def _schema(shapes: dict, name: str, depth: int = 0) -> dict:
    shape = shapes.get(name, {})
    t = shape.get("type", "string")
    if depth > 2:
        return {"$ref": f"#/components/schemas/{name}"}
    if t == "structure":
        return {
            "type": "object",
            "required": shape.get("required", []),
            "properties": {
                k: _schema(shapes, v["shape"], depth + 1) for k, v in list(shape.get("members", {}).items())[:12]
            },
        }
    if t == "list":
        return {"type": "array", "items": _schema(shapes, shape["member"]["shape"], depth + 1)}
    out: dict = {
        "type": {
            "long": "integer",
            "integer": "integer",
            "boolean": "boolean",
            "double": "number",
            "float": "number",
            "timestamp": "string",
        }.get(t, "string")
    }
    for k in ("min", "max", "pattern", "enum"):
        if k in shape:
            out[{"min": "minLength", "max": "maxLength"}.get(k, k)] = shape[k]
    return out


def gen_openapi(rng: random.Random, target: int) -> tuple[str, str]:
    models = _service_models()
    path = models[rng.randrange(len(models))]
    with gzip.open(path, "rt", encoding="utf-8") as f:
        model = json.load(f)
    shapes = model["shapes"]
    ops = sorted(model["operations"])
    doc: dict = {
        "openapi": "3.1.0",
        "info": {
            "title": model["metadata"].get("serviceFullName", "service"),
            "version": model["metadata"].get("apiVersion", "1"),
        },
        "paths": {},
    }
    i = rng.randrange(len(ops))
    while len(json.dumps(doc)) < target and len(doc["paths"]) < len(ops):
        op = model["operations"][ops[i % len(ops)]]
        i += 1
        entry = {
            "operationId": op["name"],
            "summary": op.get("documentation", "")[:300],
            "requestBody": {
                "content": {"application/json": {"schema": _schema(shapes, op.get("input", {}).get("shape", ""))}}
            },
            "responses": {
                "200": {
                    "description": "OK",
                    "content": {"application/json": {"schema": _schema(shapes, op.get("output", {}).get("shape", ""))}},
                }
            },
        }
        doc["paths"][op.get("http", {}).get("requestUri", "/") + f"#{op['name']}"] = {
            op.get("http", {}).get("method", "POST").lower(): entry
        }
    service = path.split("/data/")[1].split("/")[0]
    if rng.random() < 0.5:
        return f"openapi-yaml:{service}", yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=100)
    return f"openapi-json:{service}", json.dumps(doc, indent=2)
