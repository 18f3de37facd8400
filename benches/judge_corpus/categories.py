"""Every category of the judge corpus and its generator, in file order."""

from __future__ import annotations

from . import adversarial as adv
from . import agent_json as aj
from . import configs as cfg
from . import devtools as dev
from . import documents as docs
from . import langs
from . import numeric as num
from . import sources as src
from . import terminal as term
from . import tool_json as tj
from .common import Gen

CATEGORIES: dict[str, Gen] = {
    # JSON and other tool results
    "search_api": tj.gen_search_api,
    "sql_json": tj.gen_sql_json,
    "sql_table": tj.gen_sql_table,
    "http_errors": tj.gen_http_errors,
    "agent_transcript": aj.gen_agent_transcript,
    "sse_stream": aj.gen_sse_stream,
    "json_ascii_escaped": aj.gen_json_ascii_escaped,
    "json_minified_deep": aj.gen_json_minified_deep,
    "aws_cli_output": aj.gen_aws_cli,
    "id_lists": aj.gen_id_lists,
    # numbers
    "json_timestamps": num.gen_timestamps,
    "json_exponent_floats": num.gen_exponent_floats,
    "json_price_table": num.gen_price_table,
    "json_embeddings": num.gen_embeddings,
    "geo_coordinates": num.gen_geo,
    "financial_table": num.gen_financial,
    "sensor_log": num.gen_sensor_log,
    "hexdump": num.gen_hexdump,
    "float_testdata": src.number_test_chunk,
    "decimal_testdata": src.decimal_test_chunk,
    # developer tools
    "file_listing": dev.gen_listing,
    "git_log": dev.gen_git_log,
    "git_diff": dev.gen_git_diff,
    "pytest_output": dev.gen_pytest,
    "compiler_errors": dev.gen_compiler_errors,
    "ansi_logs": dev.gen_ansi_logs,
    "crash_dumps": dev.gen_crash_dumps,
    # configuration and infrastructure
    "dockerfile": cfg.gen_dockerfile,
    "terraform": cfg.gen_terraform,
    "yaml_config": cfg.gen_yaml,
    "toml_config": cfg.gen_toml,
    "notebook_json": cfg.gen_notebook,
    "openapi": cfg.gen_openapi,
    # natural languages
    "tickets_es": langs.tickets_for(["es"]),
    "tickets_zh": langs.tickets_for(["zh"]),
    "tickets_ja": langs.tickets_for(["ja"]),
    "tickets_other": langs.gen_tickets_other,
    "rtl_ltr_numbers": langs.gen_rtl_numbers,
    "zh_cli_mixed": langs.gen_zh_cli,
    "emoji_chat": langs.gen_emoji_chat,
    "cjk_codec_texts": langs.gen_cjk_codec_texts,
    "mixed_script_names": langs.gen_mixed_script_names,
    # adversarial but plausible
    "minified_js": adv.gen_minified_js,
    "long_urls": adv.gen_long_urls,
    "base64_jwt": adv.gen_tokens_b64,
    "html_nbsp": adv.gen_html_nbsp,
    "styled_unicode": adv.gen_styled_unicode,
    "regex_patterns": adv.gen_regex,
    "unicode_table": adv.gen_unicode_table,
    "pem_certificates": src.certificates,
    # documents and code
    "markdown_docs": docs.gen_markdown,
    "rst_pages": docs.gen_rst_pages,
    "email_messages": docs.gen_email,
    "licence_texts": docs.gen_licence,
    "python_code": docs.gen_python_code,
    "sympy_codegen": docs.gen_sympy_codegen,
    # second batch (written after the first report; terminal.py says why)
    "rich_tables": term.gen_rich_tables,
    "progress_bars": term.gen_progress_bars,
    "dependency_trees": term.gen_dep_trees,
    "lockfiles": term.gen_lockfiles,
    "access_logs": term.gen_access_logs,
    "windows_output": term.gen_windows,
    "mojibake": term.gen_mojibake,
    "latex_docs": term.gen_latex,
    "cjk_markdown": term.gen_cjk_markdown,
    "math_notes": term.gen_math_notes,
    "romanized_chat": term.gen_romanized_chat,
}
