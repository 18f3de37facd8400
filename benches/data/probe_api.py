"""Tool results as real APIs return them, seeded (probe corpus): GitHub issues and review
comments (diff hunks quote installed httpx source), Stripe-style invoices, Kubernetes events
and Sentry events whose frames quote installed starlette and requests source. Field names and
value shapes follow the public API references; the values are drawn here."""

from __future__ import annotations

import json
import random

from probe_common import Sources
from probe_ids import PEOPLE, TITLES, b62, epoch, hexs, iso, paragraph, sentence, uid


def dump(rng: random.Random, obj: object) -> str:
    style = rng.random()
    if style < 0.45:
        return json.dumps(obj, indent=2, ensure_ascii=False)
    if style < 0.75:
        return json.dumps(obj, separators=(",", ":"))  # ensure_ascii: \u escapes, as many SDKs send
    return json.dumps(obj, ensure_ascii=False)


def _user(rng: random.Random) -> dict[str, object]:
    login = rng.choice(PEOPLE)
    n = rng.randrange(1, 160_000_000)
    api = f"https://api.github.com/users/{login}"
    return {
        "login": login,
        "id": n,
        "node_id": "MDQ6VXNlcj" + b62(rng, 10),
        "avatar_url": f"https://avatars.githubusercontent.com/u/{n}?v=4",
        "gravatar_id": "",
        "url": api,
        "html_url": f"https://github.com/{login}",
        "followers_url": f"{api}/followers",
        "repos_url": f"{api}/repos",
        "events_url": f"{api}/events{{/privacy}}",
        "type": "Bot" if "[bot]" in login else "User",
        "site_admin": False,
    }


def github_issues(rng: random.Random, src: Sources) -> tuple[str, str]:
    repo = rng.choice(["psf/requests", "encode/httpx", "pallets/flask", "tokio-rs/tokio", "kubernetes/kubernetes"])
    api = f"https://api.github.com/repos/{repo}"
    out = []
    for _ in range(rng.randint(1, 5)):
        num = rng.randrange(100, 130_000)
        t = epoch(rng)
        body = (
            f"### Description\n\n{paragraph(rng, 3)}\n\n```console\n$ pip install -U "
            f"{repo.split('/')[1]}=={rng.randint(0, 3)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}\n"
            'Traceback (most recent call last):\n  File "/usr/lib/python3.12/site-packages/x.py", line '
            f"{rng.randint(10, 900)}\n```\n\n- OS: Ubuntu 22.04\n- Version: `{hexs(rng, 7)}`\r\n"
        )
        out.append(
            {
                "url": f"{api}/issues/{num}",
                "repository_url": api,
                "labels_url": f"{api}/issues/{num}/labels{{/name}}",
                "comments_url": f"{api}/issues/{num}/comments",
                "html_url": f"https://github.com/{repo}/issues/{num}",
                "id": rng.randrange(10**9, 3 * 10**9),
                "node_id": "I_kwDO" + b62(rng, 14),
                "number": num,
                "title": rng.choice(TITLES),
                "user": _user(rng),
                "labels": [
                    {
                        "id": rng.randrange(10**8, 10**10),
                        "node_id": "LA_kwDO" + b62(rng, 15),
                        "url": f"{api}/labels/{name}",
                        "name": name,
                        "color": hexs(rng, 6),
                        "default": False,
                        "description": desc,
                    }
                    for name, desc in rng.sample(
                        [
                            ("bug", "Something isn't working"),
                            ("needs-triage", None),
                            ("kind/regression", "Categorizes issue as a regression"),
                            ("good first issue", "Good for newcomers"),
                            ("area/networking", ""),
                            ("priority/P1", None),
                        ],
                        rng.randint(0, 3),
                    )
                ],
                "state": rng.choice(["open", "closed"]),
                "locked": False,
                "assignee": None,
                "assignees": [],
                "milestone": None,
                "comments": rng.randint(0, 80),
                "created_at": iso(t),
                "updated_at": iso(t + rng.randrange(9_000_000)),
                "closed_at": None,
                "author_association": rng.choice(["NONE", "CONTRIBUTOR", "MEMBER"]),
                "active_lock_reason": None,
                "body": body,
                "reactions": {
                    "url": f"{api}/issues/{num}/reactions",
                    "total_count": rng.randint(0, 40),
                    "+1": rng.randint(0, 30),
                    "-1": 0,
                    "laugh": 0,
                    "hooray": 0,
                    "confused": rng.randint(0, 2),
                    "heart": 0,
                    "rocket": 0,
                    "eyes": rng.randint(0, 3),
                },
                "timeline_url": f"{api}/issues/{num}/timeline",
                "performed_via_github_app": None,
                "state_reason": None,
            }
        )
    return dump(rng, out), f"github_issues:{repo}"


def github_review_comments(rng: random.Random, src: Sources) -> tuple[str, str]:
    files = src.glob("site:httpx/_*.py")
    out = []
    for _ in range(rng.randint(2, 6)):
        name = rng.choice(files)
        lines = src.text(name).splitlines()
        at = rng.randrange(max(1, len(lines) - 8))
        hunk = f"@@ -{at},7 +{at},8 @@ " + "\n".join(
            ("+" if i == 3 else " ") + ln for i, ln in enumerate(lines[at : at + 7])
        )
        sha = hexs(rng, 40)
        out.append(
            {
                "url": f"https://api.github.com/repos/encode/httpx/pulls/comments/{rng.randrange(10**9, 2 * 10**9)}",
                "pull_request_review_id": rng.randrange(10**9, 3 * 10**9),
                "diff_hunk": hunk,
                "path": name.split(":", 1)[1],
                "commit_id": sha,
                "original_commit_id": hexs(rng, 40),
                "user": _user(rng),
                "body": sentence(rng) + " " + sentence(rng),
                "created_at": iso(epoch(rng)),
                "line": at + 4,
                "original_line": at + 4,
                "side": "RIGHT",
                "start_line": None,
                "author_association": "MEMBER",
                "subject_type": "line",
            }
        )
    return dump(rng, out), "github_review_comments:httpx"


ITEMS = ["Pro seat", "API calls (per 1k)", "Storage GB-month", "Egress TB"]


def stripe_invoice(rng: random.Random, src: Sources) -> tuple[str, str]:
    t = epoch(rng)
    acct = "acct_1" + b62(rng, 15)
    lines = []
    for _ in range(rng.randint(1, 12)):
        qty = rng.randint(1, 5000)
        unit = rng.choice([0.000015, 0.0025, 12.5, 1999, 49, 0.35])
        lines.append(
            {
                "id": "il_1" + b62(rng, 23),
                "object": "line_item",
                "amount": int(qty * unit * 100),
                "amount_excluding_tax": int(qty * unit * 100),
                "currency": "usd",
                "description": f"{qty} × {rng.choice(ITEMS)} (at ${unit} / unit)",
                "discountable": True,
                "livemode": False,
                "metadata": {},
                "period": {"end": t + 2_592_000, "start": t},
                "price": {
                    "id": "price_1" + b62(rng, 23),
                    "object": "price",
                    "active": True,
                    "billing_scheme": "per_unit",
                    "created": t - 10**7,
                    "currency": "usd",
                    "product": "prod_" + b62(rng, 14),
                    "type": "recurring",
                    "unit_amount": None if unit < 0.01 else int(unit * 100),
                    "unit_amount_decimal": f"{unit * 100:.12f}".rstrip("0").rstrip("."),
                    "recurring": {"interval": "month", "interval_count": 1, "usage_type": "metered"},
                },
                "proration": False,
                "quantity": qty,
                "tax_amounts": [],
                "type": "subscription",
            }
        )
    total = sum(int(x["amount"]) for x in lines)  # type: ignore[call-overload]
    inv = {
        "id": "in_1" + b62(rng, 23),
        "object": "invoice",
        "account_country": rng.choice(["US", "DE", "BR"]),
        "account_name": "Acme, Inc.",
        "amount_due": total,
        "amount_paid": 0,
        "amount_remaining": total,
        "attempt_count": 0,
        "billing_reason": "subscription_cycle",
        "charge": None,
        "collection_method": "charge_automatically",
        "created": t,
        "currency": "usd",
        "customer": "cus_" + b62(rng, 14),
        "customer_address": {"city": "Münster", "country": "DE", "line1": "Königsstraße 12", "postal_code": "48143"},
        "customer_email": f"billing+{hexs(rng, 6)}@example.com",
        "hosted_invoice_url": f"https://invoice.stripe.com/i/{acct}/test_{b62(rng, 60)}?s=ap",
        "invoice_pdf": f"https://pay.stripe.com/invoice/{acct}/test_{b62(rng, 60)}/pdf?s=ap",
        "lines": {
            "object": "list",
            "data": lines,
            "has_more": False,
            "total_count": len(lines),
            "url": "/v1/invoices/upcoming/lines",
        },
        "livemode": False,
        "metadata": {"order_id": uid(rng)},
        "number": f"{b62(rng, 8).upper()}-{rng.randint(1, 9999):04d}",
        "paid": False,
        "period_end": t,
        "period_start": t - 2_592_000,
        "status": "open",
        "status_transitions": {
            "finalized_at": t + 3600,
            "marked_uncollectible_at": None,
            "paid_at": None,
            "voided_at": None,
        },
        "subtotal": total,
        "tax": None,
        "total": total,
        "webhooks_delivered_at": t + 5,
    }
    return dump(rng, inv), "stripe:invoice"


K8S_REASONS = [
    (
        "Warning",
        "FailedScheduling",
        "0/{n} nodes are available: {a} Insufficient cpu, {b} node(s) had untolerated taint {{node-role."
        "kubernetes.io/control-plane: }}. preemption: 0/{n} nodes are available: "
        "{n} No preemption victims found for incoming pod.",
    ),
    ("Warning", "BackOff", "Back-off restarting failed container {c} in pod {p}_{ns}({uid})"),
    (
        "Normal",
        "Pulled",
        'Successfully pulled image "ghcr.io/acme/{c}:sha-{h}" in 2.{a}s (2.{b}s including waiting). Image '
        "size: {n}123456 bytes.",
    ),
    (
        "Warning",
        "Unhealthy",
        'Readiness probe failed: Get "http://10.244.{a}.{b}:8080/healthz": context deadline exceeded (Client.'
        "Timeout exceeded while awaiting headers)",
    ),
    (
        "Warning",
        "OOMKilling",
        "Memory cgroup out of memory: Killed process {n}{a} ({c}) total-vm:{n}4424kB, anon-rss:{b}81236kB, "
        "file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:{a}32kB oom_score_adj:{b}",
    ),
]


def k8s_events(rng: random.Random, src: Sources) -> tuple[str, str]:
    ns = rng.choice(["default", "payments-prod", "kube-system", "ml-inference"])
    items = []
    for _ in range(rng.randint(2, 14)):
        kind, reason, tmpl = rng.choice(K8S_REASONS)
        c = rng.choice(["api", "worker", "redis", "envoy", "model-server"])
        p = f"{c}-{hexs(rng, 10)}-{b62(rng, 5).lower()}"
        u = uid(rng)
        t = epoch(rng)
        items.append(
            {
                "apiVersion": "v1",
                "count": rng.randint(1, 900),
                "eventTime": None,
                "firstTimestamp": iso(t),
                "lastTimestamp": iso(t + rng.randrange(90_000)),
                "involvedObject": {
                    "apiVersion": "v1",
                    "fieldPath": f"spec.containers{{{c}}}",
                    "kind": "Pod",
                    "name": p,
                    "namespace": ns,
                    "resourceVersion": str(rng.randrange(10**6, 10**9)),
                    "uid": u,
                },
                "kind": "Event",
                "message": tmpl.format(
                    n=rng.randint(3, 60),
                    a=rng.randint(0, 9),
                    b=rng.randint(0, 9),
                    c=c,
                    p=p,
                    ns=ns,
                    uid=u,
                    h=hexs(rng, 7),
                ),
                "metadata": {
                    "creationTimestamp": iso(t),
                    "name": f"{p}.{hexs(rng, 16)}",
                    "namespace": ns,
                    "resourceVersion": str(rng.randrange(10**6, 10**9)),
                    "uid": uid(rng),
                },
                "reason": reason,
                "reportingComponent": "kubelet",
                "reportingInstance": f"gke-prod-pool-{hexs(rng, 8)}-{b62(rng, 4).lower()}",
                "source": {
                    "component": "kubelet",
                    "host": f"ip-10-0-{rng.randint(0, 255)}-{rng.randint(0, 255)}.ec2.internal",
                },
                "type": kind,
            }
        )
    return dump(
        rng, {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}
    ), f"k8s_events:{ns}"


def sentry_event(rng: random.Random, src: Sources) -> tuple[str, str]:
    names = src.glob("site:starlette/*.py") + src.glob("site:requests/*.py")
    frames = []
    for _ in range(rng.randint(3, 12)):
        name = rng.choice(names)
        lines = src.text(name).splitlines()
        if len(lines) < 12:
            continue  # a package's tiny __init__ or __version__ module
        n = rng.randrange(5, len(lines) - 5)
        rel = name.split(":", 1)[1]
        frames.append(
            {
                "filename": rel,
                "abs_path": f"/app/.venv/lib/python3.12/site-packages/{rel}",
                "module": rel[:-3].replace("/", "."),
                "function": rng.choice(["__call__", "send", "dispatch", "handle", "_run"]),
                "lineno": n + 1,
                "colno": None,
                "in_app": False,
                "pre_context": lines[n - 5 : n],
                "context_line": lines[n],
                "post_context": lines[n + 1 : n + 4],
                "vars": {
                    "self": f"<{rel.split('/')[0]}.Session object at 0x7f{hexs(rng, 10)}>",
                    "timeout": rng.choice(["None", "30.0", "(3.05, 27)"]),
                    "retries": str(rng.randint(0, 5)),
                },
            }
        )
    ev = {
        "event_id": hexs(rng, 32),
        "level": "error",
        "platform": "python",
        "timestamp": epoch(rng) + rng.random(),
        "environment": "production",
        "release": f"backend@{rng.randint(1, 9)}.{rng.randint(0, 40)}.{rng.randint(0, 9)}+{hexs(rng, 12)}",
        "server_name": f"web-{hexs(rng, 6)}",
        "exception": {
            "values": [
                {
                    "type": rng.choice(["ReadTimeout", "KeyError", "ConnectionResetError"]),
                    "value": sentence(rng, 4, 10),
                    "module": "requests.exceptions",
                    "mechanism": {"type": "starlette", "handled": False},
                    "stacktrace": {"frames": frames},
                }
            ]
        },
        "breadcrumbs": {
            "values": [
                {
                    "timestamp": epoch(rng) + rng.random(),
                    "type": "http",
                    "category": "httplib",
                    "level": "info",
                    "data": {
                        "http.method": "GET",
                        "url": f"https://api.internal/v2/orders/{uid(rng)}?expand=items%2Ccustomer",
                        "status_code": rng.choice([200, 502, 504]),
                    },
                }
                for _ in range(rng.randint(0, 6))
            ]
        },
        "tags": {
            "transaction": "/api/v2/orders/{order_id}",
            "runtime": "CPython 3.12.4",
            "url": "https://shop.example.com/api/v2/orders",
        },
        "contexts": {
            "trace": {
                "trace_id": hexs(rng, 32),
                "span_id": hexs(rng, 16),
                "op": "http.server",
                "status": "internal_error",
            },
            "runtime": {
                "name": "CPython",
                "version": "3.12.4",
                "build": "3.12.4 (main, Jun  7 2024, 06:33:07) [GCC 12.2.0]",
            },
        },
        "sdk": {
            "name": "sentry.python.starlette",
            "version": "2.8.0",
            "packages": [{"name": "pypi:sentry-sdk", "version": "2.8.0"}],
        },
    }
    return dump(rng, ev), "sentry:" + names[0].split(":")[1].split("/")[0]
