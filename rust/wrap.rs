//! The wrapper the window renders around a block (`stages/render.py`, `wrapper`), as one text
//! per candidate for the budget's estimate: `<context id=".." source=".." kind=".."[ citation=".."]>\n`,
//! then `\n</context>`, then the blank line that separates blocks; an instruction has no
//! wrapper and costs only the separator. The spec is `kernels/build_reference.py`.
//!
//! Native because `rendered_costs` made this text for every candidate of every build with two
//! f-strings and six `str.replace` calls in Python: 6.5 ms of a 10k build (CPU time, one run).

/// What joins two blocks inside one message (`render.SEPARATOR`).
pub const SEPARATOR: &str = "\n\n";

/// Appends `value` with `&`, `"` and `<` escaped, in that order of replacement (`_attr`):
/// `&` first, so the `&` of an escape is never escaped again.
fn push_attr(out: &mut String, value: &str) {
    let mut rest = value;
    while let Some(at) = rest.find(['&', '"', '<']) {
        out.push_str(&rest[..at]);
        out.push_str(match rest.as_bytes()[at] {
            b'&' => "&amp;",
            b'"' => "&quot;",
            _ => "&lt;",
        });
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
}

/// The byte length of `value` as `push_attr` writes it: each escape replaces one byte.
fn attr_len(value: &str) -> usize {
    value.len()
        + value
            .bytes()
            .map(|b| match b {
                b'&' => 4,
                b'"' => 5,
                b'<' => 3,
                _ => 0,
            })
            .sum::<usize>()
}

/// The byte length of `wrapper_text(id, source, kind, citation)`, counted without writing it:
/// the cost pass needs only the length for the `bytes/<n>` estimate (writing each wrapper into
/// a reused buffer, then reading its length, cost ~40 % more at 10k).
pub fn wrapper_len(id: &str, source: &str, kind: &str, citation: Option<&str>) -> usize {
    if kind == "instruction" {
        return SEPARATOR.len();
    }
    let cite = citation
        .filter(|c| !c.is_empty())
        .map_or(0, |c| " citation=\"".len() + attr_len(c) + 1);
    "<context id=\"\" source=\"\" kind=\"\">\n\n</context>".len()
        + attr_len(id)
        + attr_len(source)
        + kind.len()
        + cite
        + SEPARATOR.len()
}

/// The wrapper text of one block and the separator after it.
pub fn wrapper_text(id: &str, source: &str, kind: &str, citation: Option<&str>) -> String {
    let mut out = String::with_capacity(48 + id.len() + source.len() + kind.len());
    push_wrapper(&mut out, id, source, kind, citation);
    out
}

/// Appends the wrapper text of one block and the separator after it to `out` (a buffer the
/// cost pass reuses for every candidate, where only the length is wanted).
pub fn push_wrapper(out: &mut String, id: &str, source: &str, kind: &str, citation: Option<&str>) {
    if kind == "instruction" {
        out.push_str(SEPARATOR);
        return;
    }
    out.push_str("<context id=\"");
    push_attr(out, id);
    out.push_str("\" source=\"");
    push_attr(out, source);
    out.push_str("\" kind=\"");
    out.push_str(kind); // a Kind literal, never escaped (as in render.wrapper)
    out.push('"');
    // an empty citation renders no attribute: render.wrapper tests its truth
    if let Some(c) = citation.filter(|c| !c.is_empty()) {
        out.push_str(" citation=\"");
        push_attr(out, c);
        out.push('"');
    }
    out.push_str(">\n\n</context>");
    out.push_str(SEPARATOR);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_wrapper_and_separator() {
        assert_eq!(
            wrapper_text("k1", "kb", "knowledge", None),
            "<context id=\"k1\" source=\"kb\" kind=\"knowledge\">\n\n</context>\n\n"
        );
    }

    #[test]
    fn attributes_are_escaped_once() {
        assert_eq!(
            wrapper_text("a&b\"<", "s&amp;", "tool", Some("x<y")),
            "<context id=\"a&amp;b&quot;&lt;\" source=\"s&amp;amp;\" kind=\"tool\" citation=\"x&lt;y\">\n\n</context>\n\n"
        );
    }

    #[test]
    fn lengths_are_those_of_the_texts() {
        let cases = [
            ("k1", "kb", "knowledge", None),
            ("a&b\"<", "s&amp;", "tool", Some("x<y")),
            ("i", "s", "instruction", Some("c")),
            ("é", "ü\"", "memory", Some("")),
            ("東京<", "s", "image", Some("&&")),
        ];
        for (id, source, kind, cite) in cases {
            assert_eq!(
                wrapper_len(id, source, kind, cite),
                wrapper_text(id, source, kind, cite).len()
            );
        }
    }

    #[test]
    fn instruction_and_empty_citation() {
        assert_eq!(wrapper_text("i", "s", "instruction", Some("c")), "\n\n");
        assert_eq!(
            wrapper_text("i", "s", "memory", Some("")),
            wrapper_text("i", "s", "memory", None)
        );
    }
}
