//! Line grep for the grep dialect (docs/grep.md), which Python parses and translates.
//!
//! The caller hands over two forms of one parsed pattern: `regex`, in `regex-automata` syntax
//! with every class spelled out as code-point ranges, and the compiled `Program` (at most 1,000
//! instructions, checked in Python). Each line goes to the lazy DFA first: one table step per
//! byte. A lazy DFA can be forced to build a new state at almost every byte (`[ab]*a[ab]{500}c`
//! has 2^500 states); when it reports that it is giving up, the line and the rest of the text
//! go to the program's Pike VM, O(line length x program size), about 2 ns per thread step.
//! (The `regex` crate's own fallback, its PikeVM, measured 11 s/MiB on that pattern; this VM
//! 2 s/MiB.)
//!
//! Rust's `\b` has its own idea of a word character, so the translation drops `\b` and `\B`
//! (only more lines can match) and, with `confirm`, the VM (whose word character is the
//! project's table) decides every line the DFA matched. `required` is a literal every match
//! contains: a line without it is skipped.

use regex_automata::hybrid::dfa::DFA;
use regex_automata::nfa::thompson;
use regex_automata::util::syntax;
use regex_automata::Input;

mod vm;
pub use vm::Program;

/// Compiled-size limits for the lazy DFA. The dialect's own limits keep every accepted pattern
/// well below them (tests/kernels/test_grep_complexity.py compiles the largest ones).
const NFA_SIZE_LIMIT: usize = 1 << 26;
const DFA_CACHE: usize = 1 << 21;

/// Indices of the lines (split on '\n') that match, at most `max_matches`.
pub fn grep_lines(
    text: &str,
    regex: &str,
    required: &str,
    program: &Program,
    confirm: bool,
    max_matches: usize,
) -> Result<Vec<usize>, String> {
    let dfa = DFA::builder()
        .configure(
            DFA::config()
                .cache_capacity(DFA_CACHE)
                // the regex crate's own give-up rule: 3 cache clears at < 10 bytes per state
                .minimum_cache_clear_count(Some(3))
                .minimum_bytes_per_state(Some(10)),
        )
        .syntax(syntax::Config::new().nest_limit(1000))
        .thompson(
            thompson::Config::new()
                .nfa_size_limit(Some(NFA_SIZE_LIMIT))
                .which_captures(thompson::WhichCaptures::None),
        )
        .build(regex)
        .map_err(|e| format!("invalid pattern: {e}"))?;
    let mut cache = dfa.create_cache();
    let mut vm = program.matcher();
    let mut use_dfa = true;
    let mut out = Vec::new();
    if max_matches == 0 {
        return Ok(out);
    }
    for (i, line) in text.split('\n').enumerate() {
        if !line.contains(required) {
            continue;
        }
        let found = if use_dfa {
            match dfa.try_search_fwd(&mut cache, &Input::new(line).earliest(true)) {
                Ok(m) => m.is_some() && (!confirm || vm.is_match(line)),
                Err(_) => {
                    use_dfa = false; // it gave up: the states it needs do not fit the cache
                    vm.is_match(line)
                }
            }
        } else {
            vm.is_match(line)
        };
        if found {
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

    const A: u32 = 0x61;

    /// A program for a sequence of single characters (CHAR each, MATCH), optionally after an
    /// assertion: enough to exercise the VM against the DFA.
    fn seq(look: Option<u32>, chars: &str) -> Program {
        let mut ops = Vec::new();
        if let Some(k) = look {
            ops.push((3, k, 0));
        }
        let classes: Vec<Vec<(u32, u32)>> =
            chars.chars().map(|c| vec![(c as u32, c as u32)]).collect();
        ops.extend((0..classes.len() as u32).map(|k| (0, k, 0)));
        ops.push((4, 0, 0));
        Program::new(&ops, classes).unwrap()
    }

    #[test]
    fn matches_per_line() {
        let text = "alpha\nbeta\ngamma";
        let a = seq(None, "a");
        assert_eq!(
            grep_lines(text, "a$", "", &a, false, 10).unwrap(),
            vec![0, 1, 2]
        );
        assert_eq!(grep_lines(text, "^b", "", &a, false, 10).unwrap(), vec![1]);
        assert_eq!(
            grep_lines("a\na\na", "a", "a", &a, false, 2).unwrap(),
            vec![0, 1]
        );
        // a line without the required literal is never searched
        assert_eq!(grep_lines(text, "a", "mm", &a, false, 10).unwrap(), vec![2]);
    }

    #[test]
    fn the_program_confirms_word_boundaries_with_the_projects_word_table() {
        let p = seq(Some(2), "ab");
        // '²' is a word character in the project's table (category No), not in Rust's \w
        let text = "ab\nxab\n ab\n²ab\n-ab";
        assert_eq!(
            grep_lines(text, "ab", "ab", &p, true, 10).unwrap(),
            vec![0, 2, 4]
        );
        // the VM alone (a regex that matches everything, confirmed) gives the same lines
        assert_eq!(
            grep_lines(text, "", "", &p, true, 10).unwrap(),
            vec![0, 2, 4]
        );
    }

    #[test]
    fn a_lazy_dfa_that_gives_up_hands_over_to_the_program() {
        // [ab]*a[ab]{30}c: CHAR [ab] looped, CHAR a, 30 x CHAR [ab], CHAR c, MATCH
        let mut ops = vec![(1, 1, 3), (0, 0, 0), (2, 0, 0), (0, 1, 0)];
        ops.extend(std::iter::repeat_n((0, 0, 0), 30));
        ops.extend([(0, 2, 0), (4, 0, 0)]);
        let classes = vec![vec![(A, A + 1)], vec![(A, A)], vec![(A + 2, A + 2)]];
        let p = Program::new(&ops, classes).unwrap();
        let mut x: u32 = 12345;
        let mut text: String = (0..1 << 20)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                if x & 1 == 0 {
                    'a'
                } else {
                    'b'
                }
            })
            .collect();
        let regex = "[ab]*a[ab]{30}c";
        assert!(grep_lines(&text, regex, "c", &p, false, 1)
            .unwrap()
            .is_empty());
        let pos = text.len() - 31;
        text.replace_range(pos..pos + 1, "a");
        text.push('c');
        let t = std::time::Instant::now();
        assert_eq!(
            grep_lines(&text, regex, "c", &p, false, 1).unwrap(),
            vec![0]
        );
        assert!(t.elapsed().as_secs() < 20);
    }

    #[test]
    fn bad_programs_are_errors_not_panics() {
        let class = || vec![vec![(A, A)]];
        assert!(Program::new(&[], class()).is_err());
        assert!(Program::new(&[(1, 0, 9)], class()).is_err());
        assert!(Program::new(&[(0, 0, 0)], class()).is_err()); // CHAR must have a successor
        assert!(Program::new(&[(0, 5, 0), (4, 0, 0)], class()).is_err());
        assert!(Program::new(&[(3, 4, 0), (4, 0, 0)], class()).is_err());
        assert!(Program::new(&[(9, 0, 0)], class()).is_err());
        assert!(Program::new(&[(4, 0, 0)], vec![vec![(2, 1)]]).is_err());
        assert!(Program::new(&[(4, 0, 0)], vec![vec![(1, 5), (3, 9)]]).is_err());
    }

    #[test]
    fn bad_regex_is_an_error() {
        let p = seq(None, "a");
        assert!(grep_lines("x", "(", "", &p, false, 1)
            .unwrap_err()
            .starts_with("invalid pattern"));
    }
}
