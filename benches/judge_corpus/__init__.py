"""The judge corpus (``benches/data/judge.jsonl``): documents shaped like what agents send,
written to judge the token estimators on data nobody fitted them on. See docs/tokenizers.md,
"The judge corpus", and ``build.py``."""
