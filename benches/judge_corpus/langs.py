"""Natural-language categories: support tickets (as helpdesk JSON and as e-mail threads), chat
with emoji, Chinese and Japanese around command lines, right-to-left text with left-to-right
numbers, names in many scripts, and the Chinese, Japanese and Korean texts of CPython's codec
tests."""

# ruff: noqa: E501  (templates of tool output and sentences: one line of source is one line of output)

from __future__ import annotations

import json
import random

from .common import STDLIB, fill, grow_json, iso_time, read, uuid4
from .phrases import CHAT, JA_CLI, NAMES, PRODUCTS, REPLIES, TICKETS, ZH_CLI

ERRORS = ["E_EXPORT_0x80070005", "ERR-5021", "0xC0000409", "HTTP 502", "SQLSTATE 40001", "ENOSPC", "code=-32603"]
PATHS = [
    "C:\\Users\\admin\\AppData\\Local\\Sync\\log.txt",
    "/var/log/app/sync-2025-03-14.log",
    "~/Library/Logs/Aurora/main.log",
    "D:\\導出\\報表_2025.xlsx",
    "/home/użytkownik/dokumenty/raport.pdf",
]
CURRENCY = {
    "es": "{:.2f} €",
    "zh": "¥{:.2f}",
    "ja": "¥{:,.0f}",
    "ko": "₩{:,.0f}",
    "ru": "{:.2f} ₽",
    "ar": "{:.2f} ر.س",
    "he": "₪{:.2f}",
    "hi": "₹{:,.2f}",
    "de": "{:.2f} €",
    "fr": "{:.2f} €",
    "pt": "R$ {:.2f}",
    "tr": "₺{:.2f}",
    "vi": "{:,.0f} ₫",
    "th": "฿{:,.2f}",
    "pl": "{:.2f} zł",
    "el": "{:.2f} €",
    "uk": "{:.2f} ₴",
    "en": "${:,.2f}",
}


def fill_slots(rng: random.Random, template: str, lang: str) -> str:
    amount = CURRENCY.get(lang, "${:.2f}").format(rng.choice([19.9, 249.0, 1299.99, 54000, 3.5]) * rng.randint(1, 9))
    return template.format(
        order=rng.choice(["#", "N.º ", "", "No."]) + str(rng.randint(10**6, 10**10)),
        amount=amount,
        date=f"{rng.randint(1, 28):02d}/{rng.randint(1, 12):02d}/2025"
        if rng.random() < 0.5
        else f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}",
        product=rng.choice(PRODUCTS),
        err=rng.choice(ERRORS),
        path=rng.choice(PATHS),
        name=rng.choice(NAMES),
    )


def _message(rng: random.Random, lang: str) -> str:
    return " ".join(fill_slots(rng, rng.choice(TICKETS[lang]), lang) for _ in range(rng.randint(1, 4)))


def _ticket_json(rng: random.Random, langs: list[str], target: int) -> str:
    def comment(rng: random.Random, i: int) -> object:
        lang = rng.choice(langs)
        agent = i % 2 == 1
        body = fill_slots(rng, rng.choice(REPLIES), "en") if agent else _message(rng, lang)
        return {
            "id": rng.randint(10**9, 10**10),
            "author_id": rng.randint(10**5, 10**8),
            "public": not agent or rng.random() < 0.8,
            "body": body,
            "created_at": iso_time(rng),
            "via": {"channel": rng.choice(["email", "web", "api", "chat"])},
        }

    ticket = {
        "ticket": {
            "id": rng.randint(10**4, 10**7),
            "external_id": uuid4(rng),
            "status": rng.choice(["open", "pending", "solved"]),
            "priority": rng.choice(["low", "normal", "high", "urgent"]),
            "tags": rng.sample(["billing", "shipping", "refund", "login", "bug", "vip", "export"], 3),
            "requester": {"name": rng.choice(NAMES), "locale": langs[0]},
        }
    }
    ticket["comments"] = grow_json(rng, target, comment)
    return json.dumps(ticket, ensure_ascii=False, indent=rng.choice([2, None]))


def _ticket_mail(rng: random.Random, langs: list[str], target: int) -> str:
    def piece(rng: random.Random) -> str:
        lang = rng.choice(langs)
        who = rng.choice(NAMES)
        head = f"From: {who} <{rng.choice(['soporte', 'kunde', 'user', 'client'])}{rng.randint(1, 999)}@example.{rng.choice(['com', 'es', 'cn', 'jp', 'de'])}>\nDate: {iso_time(rng, frac=False)}\n"
        quoted = "\n".join("> " + line for line in _message(rng, lang).split("。"))
        return head + "\n" + _message(rng, lang) + "\n\n" + quoted + "\n"

    return fill(rng, target, piece, sep="\n-- \n")


def tickets_for(langs: list[str]):
    def gen(rng: random.Random, target: int) -> tuple[str, str]:
        if rng.random() < 0.5:
            return "helpdesk-json:" + "+".join(langs), _ticket_json(rng, langs, target)
        return "helpdesk-mail:" + "+".join(langs), _ticket_mail(rng, langs, target)

    return gen


OTHER_LANGS = ["ko", "ru", "uk", "hi", "de", "fr", "pt", "tr", "vi", "th", "pl", "el"]


def gen_tickets_other(rng: random.Random, target: int) -> tuple[str, str]:
    langs = rng.sample(OTHER_LANGS, rng.randint(1, 3))
    return tickets_for(langs)(rng, target)


def gen_rtl_numbers(rng: random.Random, target: int) -> tuple[str, str]:
    """Arabic and Hebrew lines full of left-to-right numbers, ids and units, some with the
    bidi marks editors insert (U+200F, U+200E, U+061C) and Arabic-Indic digits."""
    indic = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")

    def piece(rng: random.Random) -> str:
        lang = rng.choice(["ar", "he"])
        line = fill_slots(rng, rng.choice(TICKETS[lang]), lang)
        extra = f" SKU-{rng.randint(1000, 99999)} × {rng.randint(1, 12)} = {rng.uniform(5, 5000):.2f} USD, {rng.randint(1, 99)}% VAT"
        if lang == "ar" and rng.random() < 0.4:
            extra = extra.translate(indic)
        mark = rng.choice(["", "\u200f", "\u200e", "\u061c", ""])
        return mark + line + mark + extra

    return "rtl:ar+he", fill(rng, target, piece)


def gen_zh_cli(rng: random.Random, target: int) -> tuple[str, str]:
    cmds = [
        "kubectl get pods -n prod --selector=app=api -o wide",
        "docker compose up -d --build --remove-orphans",
        "pip install -U 'ctxsieve[tokenizers]>=0.1' --no-cache-dir",
        "git rebase -i HEAD~3 --autosquash",
        "npm ci --omit=dev && npm run build -- --mode=production",
        "terraform plan -var-file=env/staging.tfvars -out=plan.bin",
        "ssh -o StrictHostKeyChecking=no -i ~/.ssh/id_ed25519 deploy@10.0.3.17",
        "python -m pytest -q -k 'not slow' --maxfail=1 -x tests/",
    ]
    flags = [
        "--dry-run",
        "--force-with-lease",
        "-Xmx4g",
        "--max-old-space-size=8192",
        "--region=cn-north-1",
        "-DCMAKE_BUILD_TYPE=Release",
        "--no-verify",
        "--timeout=30s",
    ]

    def piece(rng: random.Random) -> str:
        bank = ZH_CLI if rng.random() < 0.75 else JA_CLI
        line = rng.choice(bank).format(cmd="`" + rng.choice(cmds) + "`", flag=rng.choice(flags), path=rng.choice(PATHS))
        if rng.random() < 0.35:
            line += (
                "\n```\n$ "
                + rng.choice(cmds)
                + "\n"
                + rng.choice(
                    [
                        "Error: 参数无效",
                        "エラー: 接続がタイムアウトしました",
                        "error: unknown option '--fast'",
                        "权限不足 (permission denied)",
                    ]
                )
                + "\n```"
            )
        return line

    return "zh-cli", fill(rng, target, piece)


EMOJI_EXTRA = [
    "😀",
    "😅",
    "🤣",
    "😍",
    "🤖",
    "🚀",
    "✅",
    "❌",
    "⚠️",
    "🐛",
    "🧪",
    "📦",
    "🔧",
    "👍🏻",
    "👎🏿",
    "🙋‍♀️",
    "🧑🏽‍💻",
    "🏳️‍🌈",
    "1️⃣",
    "#️⃣",
    "🇩🇪",
    "🇧🇷",
    "❤️‍🔥",
    "🫠",
    "🪿",
]


def gen_emoji_chat(rng: random.Random, target: int) -> tuple[str, str]:
    people = rng.sample(["maya", "tomás", "li.wei", "yuki", "olu", "sven", "priya", "dmitri"], 4)
    style = rng.choice(["slack", "json"])

    def line(rng: random.Random) -> str:
        text = rng.choice(CHAT) + "".join(" " + rng.choice(EMOJI_EXTRA) for _ in range(rng.choice([0, 0, 1, 3])))
        return text

    if style == "json":

        def msg(rng: random.Random, i: int) -> object:
            return {
                "user": rng.choice(people),
                "ts": f"{rng.randint(1_700_000_000, 1_760_000_000)}.{rng.randint(0, 999999):06d}",
                "text": line(rng),
                "reactions": [{"name": rng.choice(["tada", "eyes", "+1", "rocket"]), "count": rng.randint(1, 9)}]
                if rng.random() < 0.3
                else [],
            }

        return "chat:json", json.dumps({"ok": True, "messages": grow_json(rng, target, msg)}, ensure_ascii=False)

    def piece(rng: random.Random) -> str:
        return f"[{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}] {rng.choice(people)}: {line(rng)}"

    return "chat:slack", fill(rng, target, piece)


def gen_cjk_codec_texts(rng: random.Random, target: int) -> tuple[str, str]:
    """The Chinese, Japanese and Korean passages of CPython's codec tests, as a user pastes them."""
    files = sorted((STDLIB / "test" / "cjkencodings").glob("*-utf8.txt"))
    files = [f for f in files if f.stat().st_size > 400]
    picked = rng.sample(files, min(len(files), 4))
    texts = [read(f) for f in picked]
    return "cpython-test:cjkencodings", fill(rng, target, lambda r: r.choice(texts), sep="\n\n")


SCRIPT_NAMES = [
    "Ἀριστοτέλης",
    "Дмитрий Шостакович",
    "Ծովինար Մելքոնյան",
    "ნინო ბერიძე",
    "አበበ ቢቂላ",
    "สมชาย ใจดี",
    "ශ්‍රියානි",
    "ਗੁਰਪ੍ਰੀਤ ਸਿੰਘ",
    "சுப்பிரமணியன்",
    "ሰላም",
    "Nguyễn Văn Anh",
    "Ólafur Þórðarson",
    "Ṭāhā Ḥusayn",
    "محمد بن سلمان",
    "יוסף חיים",
    "李四",
    "たなか ゆうこ",
    "ジョン・スミス",
    "최지우",
    "Ǆurđa Đokić",
    "Kʼicheʼ",
    "Māori Ngāti",
]


def gen_mixed_script_names(rng: random.Random, target: int) -> tuple[str, str]:
    """A CRM export: names in many scripts next to e-mails, phones and ids."""

    def row(rng: random.Random, i: int) -> object:
        return {
            "id": i + 1,
            "name": rng.choice(SCRIPT_NAMES),
            "email": f"u{rng.randint(1, 99999)}@{rng.choice(['example.org', 'mail.co.jp', 'яндекс.рф', 'xn--80ak6aa92e.com'])}",
            "phone": f"+{rng.randint(1, 998)} {rng.randint(100, 999)} {rng.randint(1000, 9999)}",
            "city": rng.choice(["Αθήνα", "Москва", "東京", "القاهرة", "São Paulo", "Reykjavík", "Երևան", "თბილისი"]),
        }

    rows = grow_json(rng, target, row, indent=None)
    if rng.random() < 0.5:
        return "crm:json", json.dumps(rows, ensure_ascii=False)
    lines = ["id\tname\temail\tphone\tcity"] + ["\t".join(str(v) for v in r.values()) for r in rows]  # type: ignore[attr-defined]
    return "crm:tsv", "\n".join(lines)
