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

/// The wrapper text of one block and the separator after it.
pub fn wrapper_text(id: &str, source: &str, kind: &str, citation: Option<&str>) -> String {
    if kind == "instruction" {
        return SEPARATOR.to_string();
    }
    let mut out = String::with_capacity(48 + id.len() + source.len() + kind.len());
    out.push_str("<context id=\"");
    push_attr(&mut out, id);
    out.push_str("\" source=\"");
    push_attr(&mut out, source);
    out.push_str("\" kind=\"");
    out.push_str(kind); // a Kind literal, never escaped (as in render.wrapper)
    out.push('"');
    // an empty citation renders no attribute: render.wrapper tests its truth
    if let Some(c) = citation.filter(|c| !c.is_empty()) {
        out.push_str(" citation=\"");
        push_attr(&mut out, c);
        out.push('"');
    }
    out.push_str(">\n\n</context>");
    out.push_str(SEPARATOR);
    out
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
    fn instruction_and_empty_citation() {
        assert_eq!(wrapper_text("i", "s", "instruction", Some("c")), "\n\n");
        assert_eq!(
            wrapper_text("i", "s", "memory", Some("")),
            wrapper_text("i", "s", "memory", None)
        );
    }
}
