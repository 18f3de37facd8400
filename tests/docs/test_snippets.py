"""The reader of the docs' code finds what a Markdown renderer shows, and nothing else."""

from __future__ import annotations

from tests.docs.snippets import commands, expected_output, parse_blocks, stray_norun_comments

PAGE = """# A page

Run `ctxsieve explain --config
a.yaml --query "x"` or `ctxsieve.kernels` (a module) with `python` (a tool), then `FOO=1 make help`.

<!-- norun: needs a server -->
```bash
ctxsieve serve --port 1   # comment
```

- in a list:

  ```sh
  export X=1
  python -c "print('#not a comment')" \\
      --flag
  ```

```console
$ ctxsieve --version
ctxsieve 1.2.3
...
$ echo a \\
> b
a b
```

~~~python
print("tilde fence")
~~~

```
no language
```
"""


def test_fences_inline_commands_and_norun_are_found_where_a_renderer_finds_them() -> None:
    blocks = parse_blocks(PAGE, "page.md")
    assert [(b.line, b.lang) for b in blocks] == [
        (3, "inline"),
        (4, "inline"),
        (7, "bash"),
        (13, "sh"),
        (19, "console"),
        (28, "python"),
        (32, ""),
    ]
    # a code span broken over two lines is one command, its line break a space
    assert blocks[0].text == 'ctxsieve explain --config a.yaml --query "x"'
    assert blocks[1].text == "FOO=1 make help"
    assert [b.norun for b in blocks] == [None, None, "needs a server", None, None, None, None]
    assert blocks[5].text == 'print("tilde fence")\n'


def test_commands_join_continuations_and_drop_comments() -> None:
    blocks = parse_blocks(PAGE, "page.md")
    assert commands(blocks[2]) == ["ctxsieve serve --port 1"]
    assert commands(blocks[3]) == ["export X=1", "python -c \"print('#not a comment')\" --flag"]
    assert commands(blocks[4]) == ["ctxsieve --version", "echo a b"]
    assert expected_output(blocks[4]) == ["ctxsieve 1.2.3", "a b"]
    assert expected_output(blocks[2]) == []


def test_a_norun_comment_away_from_a_fence_is_reported() -> None:
    page = "<!-- norun: why -->\n\ntext\n\n```bash\nls\n```\n\n<!-- norun: ok -->\n```bash\nls\n```\n"
    assert stray_norun_comments(page, "p.md") == ["p.md:1"]
    assert stray_norun_comments("<!-- norun -->\n```bash\nls\n```\n", "p.md") == ["p.md:1"]  # no reason given
