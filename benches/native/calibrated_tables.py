"""Writes the files ``calibrated_pass`` reads: the corpora's texts and every shipped profile's
cost vector and tables.

    PYTHONPATH=python python benches/native/calibrated_tables.py OUT_DIR
    cargo build --profile profiling --example calibrated_pass
    valgrind --tool=callgrind target/profiling/examples/calibrated_pass OUT_DIR o200k heldout 2

(Instructions a pass: the run with 2 passes less the run with 1.)
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE / "data"))

from mixed_corpus import load_jsonl  # noqa: E402

from ctxsieve.tokenizers import shipped_profiles  # noqa: E402
from ctxsieve.tokenizers.profiles import load_profile  # noqa: E402


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for corpus in ("heldout", "judge", "check"):
        with open(out / f"{corpus}.bin", "wb") as f:
            for doc in load_jsonl(HERE / "data" / f"{corpus}.jsonl"):
                text = doc["text"].encode("utf-8", "surrogatepass")
                f.write(struct.pack("<I", len(text)) + text)
    for name in shipped_profiles():
        p = load_profile(name)
        tables = {
            "costs": b"".join(struct.pack(f"<{len(v)}Q", *v) for v in p.cost_vectors()),
            "known": p.known_words or b"",
            "extra": p.char_extra,
            "pairs": p.punct_pairs,
            "cjkpairs": p.cjk_pairs,
            "cjktokens": p.cjk_tokens,
            "group": str(p.digit_group or 0).encode(),
        }
        for ext, data in tables.items():
            if data is not None:
                (out / f"{name}.{ext}").write_bytes(data)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
