"""Matching the grep dialect: the compiled program, the reference matcher, the native form.

``compile_pattern(pattern)`` parses once (``grep_dialect``) and compiles the tree to a Thompson
program of at most ``MAX_PROGRAM`` instructions:

* ``CHAR k``: consume one character of ``classes[k]``; ``SPLIT a b``: continue at both;
  ``JMP a``; ``ASSERT k`` (``^``, ``$``, ``\\b``, ``\\B``); ``MATCH``.

``Compiled.search(line)`` is the reference matcher: a Pike VM (every thread advanced in
lock-step, one character at a time), so a line costs O(len(line) x program size) whatever the
pattern; there is no backtracking to explode. Threads are a bit set and the closure of each
instruction is cached, so a step is a few integer operations; and a step is a pure function of
(threads, character, context), so it is memoised: on ordinary text almost every step is a hit.

The native backend (rust/grep.rs) gets the same tree as a ``regex-automata`` pattern with every
class spelled out as code-point ranges (``regex``) for its lazy DFA, the program itself for its
Pike VM (used when the DFA gives up, and to decide ``\\b`` and ``\\B``, which Rust reads with
another word character and the translation therefore drops), and ``required``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from ctxsieve.kernels import grep_classes as gc
from ctxsieve.kernels.grep_dialect import parse
from ctxsieve.kernels.grep_tree import Alt, Assert, Chars, Concat, Node

CHAR, SPLIT, JMP, ASSERT, MATCH = range(5)
LOOKS = {"^": 0, "$": 1, "b": 2, "B": 3}
Instr = tuple[int, int, int]


class Compiled:
    def __init__(self, tree: Node):
        self.program: list[Instr] = []
        self.classes: list[gc.Ranges] = []
        self._class_ids: dict[gc.Ranges, int] = {}
        self._emit(tree)
        self.program.append((MATCH, 0, 0))
        self.uses_words = any(op == ASSERT and a >= 2 for op, a, _ in self.program)
        self.regex = to_rust(tree)
        self.required, self.exact = _literals(tree)
        self._prepare_bitsets()
        # one memo per pattern; bounded, so a text of many distinct characters cannot grow it
        self._step = lru_cache(maxsize=1 << 13)(self._advance)

    # -- compiling (sizes must agree with grep_tree.program_size) -----------------------------

    def _emit(self, node: Node) -> None:
        prog = self.program
        if isinstance(node, Chars):
            k = self._class_ids.setdefault(node.ranges, len(self.classes))
            if k == len(self.classes):
                self.classes.append(node.ranges)
            prog.append((CHAR, k, 0))
        elif isinstance(node, Assert):
            prog.append((ASSERT, LOOKS[node.kind], 0))
        elif isinstance(node, Concat):
            for item in node.items:
                self._emit(item)
        elif isinstance(node, Alt):
            jumps = []
            for item in node.items[:-1]:
                split = len(prog)
                prog.append((SPLIT, 0, 0))  # patched below, once the next branch's start is known
                self._emit(item)
                jumps.append(len(prog))
                prog.append((JMP, 0, 0))
                prog[split] = (SPLIT, split + 1, len(prog))
            self._emit(node.items[-1])
            for j in jumps:
                prog[j] = (JMP, len(prog), 0)
        else:
            for _ in range(node.lo):
                self._emit(node.item)
            if node.hi is None:  # loop: SPLIT body, out; body; JMP loop
                loop = len(prog)
                prog.append((SPLIT, 0, 0))
                self._emit(node.item)
                prog.append((JMP, loop, 0))
                prog[loop] = (SPLIT, loop + 1, len(prog))
            else:  # hi - lo optional copies, each one able to skip to the end
                splits = []
                for _ in range(node.hi - node.lo):
                    splits.append(len(prog))
                    prog.append((SPLIT, 0, 0))
                    self._emit(node.item)
                for s in splits:
                    prog[s] = (SPLIT, s + 1, len(prog))

    # -- the reference matcher ----------------------------------------------------------------
    #
    # Threads are a bit set (bit pc: a thread waits at instruction pc), so that a step costs a
    # few integer operations however many threads are alive, not one Python operation per thread.

    def _prepare_bitsets(self) -> None:
        prog = self.program
        self._plain = sum(1 << pc for pc, (op, _, _) in enumerate(prog) if op in (CHAR, MATCH))
        self._match = 1 << (len(prog) - 1)  # the only MATCH is the last instruction
        self._class_pcs = [0] * len(self.classes)  # the CHAR instructions testing each class
        for pc, (op, a, _) in enumerate(prog):
            if op == CHAR:
                self._class_pcs[a] |= 1 << pc
        self._closures: dict[tuple[int, int], tuple[int, int]] = {}
        self._accepting = lru_cache(maxsize=4096)(self._accepting_uncached)

    def search(self, line: str) -> bool:
        """Whether the pattern matches somewhere in ``line`` (which holds no newline)."""
        if self.exact is not None:
            return self.exact(line)
        if self.required and self.required not in line:
            return False  # every match contains ``required``
        step = self._step
        threads = 0
        prev_word = False
        for i, ch in enumerate(line):
            word = self.uses_words and _is_word(ch)
            matched, threads = step(threads, i == 0, ch, prev_word, word)
            if matched:
                return True
            prev_word = word
        return step(threads, not line, None, prev_word, False)[0]

    def first_end(self, line: str, start: int, stop: int) -> int | None:
        """The earliest position in ``start..stop`` where a match that starts at or after
        ``start`` ends, with ``^ $ \\b \\B`` judged against the whole ``line``; None when no such
        match ends by ``stop``. Used to place ``ctx_grep``'s windows in a long line; one call
        costs O((stop - start) x program size), like ``search``."""
        step = self._step
        threads = 0
        prev_word = self.uses_words and start > 0 and _is_word(line[start - 1])
        end = min(stop, len(line))
        for i in range(start, end):
            ch = line[i]
            word = self.uses_words and _is_word(ch)
            matched, threads = step(threads, i == 0, ch, prev_word, word)
            if matched:
                return i
            prev_word = word
        if end == len(line) and stop >= len(line) and step(threads, not line, None, prev_word, False)[0]:
            return len(line)
        return None

    def _advance(
        self, threads: int, at_start: bool, ch: str | None, prev_word: bool, next_word: bool
    ) -> tuple[bool, int]:
        """One step at one position: follow the non-consuming instructions from ``threads`` plus
        a new thread at 0 (a match may start anywhere); return whether MATCH was reached, and
        the threads after consuming ``ch`` (None: the end of the line, nothing to consume)."""
        context = at_start | (ch is None) << 1 | (prev_word != next_word) << 2
        pending = threads | 1
        reached = pending & self._plain  # CHAR and MATCH instructions are their own closure
        pending &= ~self._plain
        while pending:
            pc = (pending & -pending).bit_length() - 1
            closure, visited = self._closure(context, pc)
            reached |= closure
            pending &= ~visited  # what pc reaches, the instructions it passed through reach too
        if reached & self._match:
            return True, 0
        if ch is None:
            return False, 0
        return False, (reached & self._accepting(ch)) << 1  # a CHAR continues at pc + 1

    def _closure(self, context: int, start: int) -> tuple[int, int]:
        """The CHAR and MATCH instructions reachable from ``start`` without consuming (under
        the assertions' ``context``: bit 0 line start, 1 line end, 2 word boundary), and every
        instruction visited on the way; cached."""
        key = (context, start)
        if key not in self._closures:
            holds = (context & 1, context & 2, context & 4, not context & 4)  # ^ $ \b \B
            reached = visited = 0
            stack = [start]
            while stack:
                pc = stack.pop()
                if visited >> pc & 1:
                    continue
                visited |= 1 << pc
                op, a, b = self.program[pc]
                if op in (CHAR, MATCH):
                    reached |= 1 << pc
                elif op == SPLIT:
                    stack += (b, a)
                elif op == JMP:
                    stack.append(a)
                elif holds[a]:  # ASSERT
                    stack.append(pc + 1)
            self._closures[key] = (reached, visited)
        return self._closures[key]

    def _accepting_uncached(self, ch: str) -> int:
        """The CHAR instructions whose class holds ``ch``."""
        cp = ord(ch)
        return sum(pcs for ranges, pcs in zip(self.classes, self._class_pcs) if gc.contains(ranges, cp))


@lru_cache(maxsize=4096)
def _is_word(ch: str) -> bool:
    return gc.is_word(ch)


# a few patterns only: each holds its memo (up to about 4 MB for a program at the limit)
@lru_cache(maxsize=16)
def compile_pattern(pattern: str) -> Compiled:
    """The compiled ``pattern`` (surrogates already replaced); ValueError outside the dialect."""
    return Compiled(parse(pattern))


def _flat(node: Node) -> list[Node]:
    if isinstance(node, Concat):
        return [x for item in node.items for x in _flat(item)]
    return [node]


def _literals(tree: Node) -> tuple[str, Callable[[str], bool] | None]:
    """``(required, exact)``: ``required`` is a string every match contains (the longest run of
    consecutive case-sensitive literal characters at the top level); ``exact`` is a test that
    decides a line alone when the pattern is nothing but that run, optionally between ^ and $."""
    items = _flat(tree)
    runs, run = [""], ""
    for node in items:
        if isinstance(node, Chars) and node.literal is not None:
            run += node.literal
        else:
            runs.append(run)
            run = ""
    runs.append(run)
    required = max(runs, key=len)
    start = items[:1] == [Assert("^")]
    core = items[1:] if start else items
    end = core[-1:] == [Assert("$")]
    core = core[:-1] if end else core
    if not all(isinstance(x, Chars) and x.literal is not None for x in core):
        return required, None
    lit = "".join(x.literal for x in core if isinstance(x, Chars) and x.literal is not None)
    if start and end:
        return required, lit.__eq__
    if start:
        return required, lambda line: line.startswith(lit)
    if end:
        return required, lambda line: line.endswith(lit)
    return required, lambda line: lit in line


def to_rust(node: Node) -> str:
    """``node`` in Rust ``regex`` syntax with explicit code-point classes; \\b and \\B dropped."""
    if isinstance(node, Chars):
        r = node.ranges
        if len(r) == 1 and r[0][0] == r[0][1]:
            return _hex(r[0][0])
        if not r:
            return "[^\\x{0}-\\x{10FFFF}]"  # the empty class: never matches
        return "[" + "".join(_hex(a) if a == b else f"{_hex(a)}-{_hex(b)}" for a, b in r) + "]"
    if isinstance(node, Assert):
        return node.kind if node.kind in "^$" else ""
    if isinstance(node, Concat):
        return "".join(to_rust(x) for x in node.items) if node.items else "(?:)"
    if isinstance(node, Alt):
        return "(?:" + "|".join(to_rust(x) for x in node.items) + ")"
    hi = "" if node.hi is None else str(node.hi)
    return f"(?:{to_rust(node.item)}){{{node.lo},{hi}}}"


def _hex(cp: int) -> str:
    return f"\\x{{{cp:X}}}"
