"""The hand-written pages and questions of the shipped corpus and the script that writes them
out as JSONL (``python -m ctxsieve.eval.corpus_build``). Never imported by the eval itself."""
