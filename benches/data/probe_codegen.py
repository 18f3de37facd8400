"""Code in languages nothing on the machine image ships (probe corpus), written here: Kotlin,
Swift, Haskell, Elixir and Lua from hand-written templates filled with seeded names and
numbers; R, Octave/MATLAB and Julia functions whose bodies are sympy's code printers' output
for seeded expressions; LaTeX math from ``sympy.latex``; and objdump-style x86-64 listings
(seeded addresses, encodings and mnemonics)."""

from __future__ import annotations

import random

from probe_ids import b62, hexs

NAMES = [
    "user",
    "order",
    "invoice",
    "session",
    "cache",
    "token",
    "retry",
    "buffer",
    "widget",
    "tensor",
    "packet",
    "ledger",
]

TEMPLATES = {
    "kotlin": [
        """data class {N}(val id: Long, val name: String, val tags: List<String> = emptyList())

suspend fun fetch{N}s(client: HttpClient, page: Int = {k}): Result<List<{N}>> = runCatching {{
    client.get("https://api.example.com/v1/{n}s?page=$page&limit={m}") {{
        header(HttpHeaders.Authorization, "Bearer ${{tokenProvider()}}")
    }}.body<List<{N}>>().filter {{ it.tags.isNotEmpty() && it.id > {m}L }}
}}
""",
        """@Composable
fun {N}Row({n}: {N}, onClick: ({N}) -> Unit) {{
    Row(Modifier.fillMaxWidth().padding({k}.dp).clickable {{ onClick({n}) }}) {{
        Text(text = "${{{n}.name}} (#${{{n}.id}})", style = MaterialTheme.typography.bodyLarge)
        Spacer(Modifier.weight(1f))
        {n}.tags.take({k}).forEach {{ AssistChip(onClick = {{}}, label = {{ Text(it) }}) }}
    }}
}}
""",
    ],
    "swift": [
        """struct {N}: Codable, Identifiable, Hashable {{
    let id: UUID
    var name: String
    var score: Double? = nil
}}

@MainActor
final class {N}Store: ObservableObject {{
    @Published private(set) var items: [{N}] = []
    func load() async throws {{
        let url = URL(string: "https://api.example.com/{n}s?limit={m}")!
        let (data, response) = try await URLSession.shared.data(from: url)
        guard let http = response as? HTTPURLResponse, (200..<300).contains(http.statusCode) else {{
            throw URLError(.badServerResponse)
        }}
        items = try JSONDecoder().decode([{N}].self, from: data).sorted {{ ($0.score ?? 0) > ($1.score ?? 0) }}
    }}
}}
""",
        """extension Array where Element == {N} {{
    func chunked(into size: Int = {k}) -> [[{N}]] {{
        stride(from: 0, to: count, by: size).map {{ Array(self[$0 ..< Swift.min($0 + size, count)]) }}
    }}
}}
""",
    ],
    "haskell": [
        """{{-# LANGUAGE OverloadedStrings, DeriveGeneric #-}}
module {N}.Store ({n}Lookup, {n}Insert) where

import qualified Data.Map.Strict as M
import Data.Maybe (fromMaybe)

data {N} = {N} {{ {n}Id :: !Int, {n}Name :: !Text, {n}Weight :: Double }} deriving (Show, Eq, Generic)

{n}Lookup :: Int -> M.Map Int {N} -> Either String {N}
{n}Lookup k m = maybe (Left ("no {n} " <> show k)) Right (M.lookup k m)

{n}Insert :: {N} -> M.Map Int {N} -> M.Map Int {N}
{n}Insert x = M.insertWith (\\new old -> old {{ {n}Weight = {n}Weight old + {n}Weight new }}) ({n}Id x) x
""",
        """fibs{N} :: [Integer]
fibs{N} = 0 : 1 : zipWith (+) fibs{N} (tail fibs{N})

main :: IO ()
main = mapM_ (\\(i, f) -> putStrLn $ show i ++ "\\t" ++ show f) . take {m} $ zip [0 :: Int ..] fibs{N}
""",
    ],
    "elixir": [
        """defmodule MyApp.{N}s do
  @moduledoc "Context for {n}s."
  import Ecto.Query, warn: false
  alias MyApp.{{Repo, {N}}}

  def list_{n}s(opts \\\\ []) do
    limit = Keyword.get(opts, :limit, {m})
    from(x in {N}, where: x.inserted_at > ago({k}, "day"), order_by: [desc: x.id], limit: ^limit)
    |> Repo.all()
    |> Enum.map(&%{{&1 | name: String.trim(&1.name)}})
  end

  def handle_info({{:tick, ref}}, %{{ref: ref}} = state), do: {{:noreply, %{{state | count: state.count + 1}}}}
  def handle_info(_msg, state), do: {{:noreply, state}}
end
"""
    ],
    "lua": [
        """local {N} = {{}}
{N}.__index = {N}

function {N}.new(opts)
  local self = setmetatable({{}}, {N})
  self.items, self.limit = {{}}, opts and opts.limit or {m}
  return self
end

function {N}:push(x)
  if #self.items >= self.limit then table.remove(self.items, 1) end
  self.items[#self.items + 1] = x
  return #self.items
end

for i, v in ipairs({{ {k}, "two", 3.5e-{k}, nil }}) do
  print(string.format("%d\\t%s", i, tostring(v)))
end

return {N}
"""
    ],
}


def _expr(rng: random.Random):  # type: ignore[no-untyped-def]
    import sympy as sp

    x, y, a, b = sp.symbols("x y alpha beta")
    leaves = [x, y, a, b, sp.Rational(rng.randint(1, 9), rng.randint(2, 11)), sp.Float(rng.random() * 100, 15), sp.pi]
    ops = [sp.sin, sp.exp, sp.sqrt, sp.log, sp.cos, sp.atan]

    def build(d: int):  # type: ignore[no-untyped-def]
        if d == 0:
            return rng.choice(leaves)
        r = rng.random()
        if r < 0.3:
            return rng.choice(ops)(build(d - 1))
        if r < 0.6:
            return build(d - 1) * build(d - 1) + build(d - 1)
        return build(d - 1) / (1 + build(d - 1) ** rng.randint(2, 4))

    return build(rng.randint(2, 4))


def templated(rng: random.Random, lang: str) -> tuple[str, str]:
    parts = []
    for _ in range(rng.randint(1, 4)):
        n = rng.choice(NAMES)
        parts.append(
            rng.choice(TEMPLATES[lang]).format(N=n.capitalize(), n=n, k=rng.randint(2, 16), m=rng.randint(10, 5000))
        )
    return "\n".join(parts), f"template:{lang}"


def sympy_code(rng: random.Random, lang: str) -> tuple[str, str]:
    import sympy as sp

    parts = []
    for _ in range(rng.randint(2, 6)):
        e = _expr(rng)
        f = f"{rng.choice(NAMES)}_{b62(rng, 3).lower()}"
        if lang == "r":
            parts.append(
                f"{f} <- function(x, y, alpha, beta) {{\n  # generated\n  {sp.rcode(e)}\n}}\nprint({f}(c(1.5, 2, NA), "
                "0.25, 1e-3, -2))\n"
            )
        elif lang == "octave":
            parts.append(
                f"function r = {f}(x, y, alpha, beta)\n  % vectorised: use .* and ./\n  r = {sp.octave_code(e)};"
                f"\nend\n\nA = [1 2; 3 4] .^ 2;\ndisp({f}(A, 0.5, pi, 1e-6));\n"
            )
        else:
            parts.append(
                f"function {f}(x::Float64, y, alpha, beta)\n    return {sp.julia_code(e)}\nend\n\n@assert "
                f"isfinite({f}(0.5, 2.0, 1.0, 3.0))\n"
            )
    return "\n".join(parts), f"sympy:{lang}"


def latex_math(rng: random.Random) -> tuple[str, str]:
    import sympy as sp

    body = ["\\documentclass{article}", "\\usepackage{amsmath,amssymb}", "\\begin{document}", "\\section{Derivation}"]
    for k in range(rng.randint(2, 8)):
        e = _expr(rng)
        x = sp.Symbol("x")
        body.append(f"For the {k + 1}-th term, $f_{{{k}}}(x) = {sp.latex(e)}$ and")
        body.append(
            f"\\begin{{align}}\n  \\frac{{\\partial f_{{{k}}}}}{{\\partial x}} &= {sp.latex(sp.diff(e, x))} "
            f"\\label{{eq:{b62(rng, 4)}}}\n\\end{{align}}"
        )
    body.append("\\end{document}\n")
    return "\n".join(body), "sympy:latex"


MNEMONICS = [
    ("48 89 e5", "mov    %rsp,%rbp"),
    ("55", "push   %rbp"),
    ("41 57", "push   %r15"),
    ("48 83 ec 28", "sub    $0x28,%rsp"),
    ("0f 1f 44 00 00", "nopl   0x0(%rax,%rax,1)"),
    ("c5 fd 6f 04 07", "vmovdqa (%rdi,%rax,1),%ymm0"),
    ("31 c0", "xor    %eax,%eax"),
    ("48 8b 05 {d4}", "mov    0x{r}(%rip),%rax        # {t} <{s}@GLIBC_2.2.5>"),
    ("e8 {d4}", "call   {t} <{s}>"),
    ("0f 85 {d4}", "jne    {t} <{s}+0x{o}>"),
    ("c3", "ret"),
    ("f3 0f 1e fa", "endbr64"),
    ("66 0f ef c0", "pxor   %xmm0,%xmm0"),
]


def asm_listing(rng: random.Random) -> tuple[str, str]:
    addr = 0x401000 + rng.randrange(0x100000)
    out = [
        f"\n/usr/lib/x86_64-linux-gnu/lib{b62(rng, 5).lower()}.so.1:     file format elf64-x86-64\n\n",
        "Disassembly of section .text:\n",
    ]
    for _ in range(rng.randint(2, 8)):
        sym = rng.choice(
            [
                "memcpy",
                "_ZN4core3fmt5write17h" + hexs(rng, 16) + "E",
                "__libc_start_main",
                "main",
                "malloc",
                "_ZNSt6vectorIiSaIiEE9push_backEOi",
            ]
        )
        out.append(f"\n{addr:016x} <{sym}>:")
        for _ in range(rng.randint(6, 40)):
            enc, text = rng.choice(MNEMONICS)
            enc = enc.replace("{d4}", " ".join(hexs(rng, 2) for _ in range(4)))
            text = text.format(r=hexs(rng, 5), t=f"{addr + rng.randrange(4096):x}", s=sym, o=hexs(rng, 2))
            out.append(f"  {addr:x}:\t{enc:<21}\t{text}")
            addr += len(enc.split())
    return "\n".join(out) + "\n", "asm:objdump-style"
