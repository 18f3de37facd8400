//! Line grep with the `regex` crate: finite automata, so time is linear in the text for every
//! pattern (no catastrophic backtracking), which is why the offloader's `ctx_grep` uses it.

use regex::RegexBuilder;

/// Indices of the lines (split on '\n') in which `pattern` finds a match, at most `max_matches`.
pub fn grep_lines(text: &str, pattern: &str, max_matches: usize) -> Result<Vec<usize>, String> {
    let re = RegexBuilder::new(pattern)
        .size_limit(1 << 24)
        .dfa_size_limit(1 << 24)
        .build()
        .map_err(|e| format!("invalid pattern: {e}"))?;
    let mut out = Vec::new();
    if max_matches == 0 {
        return Ok(out);
    }
    for (i, line) in text.split('\n').enumerate() {
        if re.is_match(line) {
            out.push(i);
            if out.len() >= max_matches {
                break;
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_per_line() {
        assert_eq!(
            grep_lines("alpha\nbeta\ngamma", "a$", 10).unwrap(),
            vec![0, 1, 2]
        );
        assert_eq!(grep_lines("alpha\nbeta\ngamma", "^b", 10).unwrap(), vec![1]);
        assert_eq!(grep_lines("a\na\na", "a", 2).unwrap(), vec![0, 1]);
    }

    #[test]
    fn bad_pattern_is_an_error() {
        assert!(grep_lines("x", "(", 1)
            .unwrap_err()
            .starts_with("invalid pattern"));
    }

    #[test]
    fn pathological_pattern_is_linear() {
        let text = "a".repeat(1 << 20);
        let t = std::time::Instant::now();
        assert!(grep_lines(&text, "(a+)+$", 1).unwrap() == vec![0]);
        assert!(t.elapsed().as_secs() < 5);
    }
}
