//! Line grep for the grep dialect (docs/grep.md), which Python parses and translates.
//!
//! The caller hands over two forms of one parsed pattern: `regex`, Rust `regex` syntax with
//! every class spelled out as code-point ranges (finite automata: linear in the text), and,
//! when the pattern has `\b` or `\B`, the compiled `Program`. Rust's `\b` has its own idea of a
//! word character, so the translation drops `\b` and `\B` (only more lines can match) and the
//! program's Pike VM, whose word character is the project's table, decides those lines. The
//! Python side bounds the program (2,000 instructions) and the classes, so the VM costs at most
//! O(line length x program size) and the regex always fits the size limits below.

use regex::RegexBuilder;

use crate::text::is_word_char;

/// Compiled-size limits for the `regex` crate. The dialect's own limits keep every accepted
/// pattern well below them (tests/kernels/test_grep_limits.py compiles the largest ones).
const SIZE_LIMIT: usize = 1 << 26;
const DFA_SIZE_LIMIT: usize = 1 << 24;
/// A program sent from Python is at most 2,000 instructions; this only stops a direct caller
/// of the private module from allocating without bound.
const MAX_INSTRUCTIONS: usize = 1 << 20;

#[derive(Clone, Copy, Debug)]
enum Look {
    Start,
    End,
    Word,
    NotWord,
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Char(usize),
    Split(usize, usize),
    Jmp(usize),
    Look(Look),
    Match,
}

/// A Thompson program as `kernels/grep_program.py` compiles it: opcodes 0 CHAR k, 1 SPLIT a b,
/// 2 JMP a, 3 ASSERT k (0 `^`, 1 `$`, 2 `\b`, 3 `\B`), 4 MATCH; `classes` are sorted, disjoint,
/// inclusive code-point ranges.
#[derive(Debug)]
pub struct Program {
    ops: Vec<Op>,
    classes: Vec<Vec<(u32, u32)>>,
}

impl Program {
    /// Checks every index and class, so that running the program cannot go out of bounds.
    pub fn new(raw: &[(u8, u32, u32)], classes: Vec<Vec<(u32, u32)>>) -> Result<Self, String> {
        let n = raw.len();
        if n == 0 || n > MAX_INSTRUCTIONS {
            return Err(format!(
                "program: expected 1 to {MAX_INSTRUCTIONS} instructions, got {n}"
            ));
        }
        for (k, class) in classes.iter().enumerate() {
            let sorted = class.windows(2).all(|w| w[0].1 < w[1].0);
            if !sorted || class.iter().any(|&(lo, hi)| lo > hi) {
                return Err(format!("program: class {k} is not sorted, disjoint ranges"));
            }
        }
        let target = |i: usize, t: u32| -> Result<usize, String> {
            let t = t as usize;
            if t < n {
                Ok(t)
            } else {
                Err(format!(
                    "program: instruction {i} refers to {t}, outside 0..{n}"
                ))
            }
        };
        let mut ops = Vec::with_capacity(n);
        for (i, &(op, a, b)) in raw.iter().enumerate() {
            ops.push(match op {
                0 if (a as usize) < classes.len() => Op::Char(a as usize),
                1 => Op::Split(target(i, a)?, target(i, b)?),
                2 => Op::Jmp(target(i, a)?),
                3 if a < 4 => {
                    Op::Look([Look::Start, Look::End, Look::Word, Look::NotWord][a as usize])
                }
                4 => Op::Match,
                _ => {
                    return Err(format!(
                        "program: instruction {i} ({op}, {a}, {b}) is not valid"
                    ))
                }
            });
            if matches!(op, 0 | 3) {
                target(i, i as u32 + 1)?; // CHAR and ASSERT continue at the next instruction
            }
        }
        Ok(Self { ops, classes })
    }

    /// Whether the program matches somewhere in `line`: a Pike VM (all threads in lock-step, a
    /// fresh one started at every position), O(line length x program size).
    pub fn is_match(&self, line: &str) -> bool {
        let n = self.ops.len();
        let mut cur: Vec<usize> = Vec::new();
        let mut next: Vec<usize> = Vec::new();
        let mut stack: Vec<usize> = Vec::new();
        let mut seen = vec![usize::MAX; n]; // the position at which each pc was last visited
        let mut prev_word = false;
        let mut chars = line.chars();
        for pos in 0.. {
            let ch = chars.next();
            let next_word = ch.is_some_and(is_word_char);
            stack.clear();
            stack.push(0);
            stack.extend_from_slice(&cur);
            next.clear();
            while let Some(pc) = stack.pop() {
                if seen[pc] == pos {
                    continue;
                }
                seen[pc] = pos;
                match self.ops[pc] {
                    Op::Char(k) => {
                        if ch.is_some_and(|c| in_class(&self.classes[k], c as u32)) {
                            next.push(pc + 1);
                        }
                    }
                    Op::Split(a, b) => {
                        stack.push(b);
                        stack.push(a);
                    }
                    Op::Jmp(a) => stack.push(a),
                    Op::Look(look) => {
                        let holds = match look {
                            Look::Start => pos == 0,
                            Look::End => ch.is_none(),
                            Look::Word => prev_word != next_word,
                            Look::NotWord => prev_word == next_word,
                        };
                        if holds {
                            stack.push(pc + 1);
                        }
                    }
                    Op::Match => return true,
                }
            }
            if ch.is_none() {
                break;
            }
            std::mem::swap(&mut cur, &mut next);
            prev_word = next_word;
        }
        false
    }
}

fn in_class(ranges: &[(u32, u32)], cp: u32) -> bool {
    ranges
        .binary_search_by(|&(lo, hi)| {
            if hi < cp {
                std::cmp::Ordering::Less
            } else if lo > cp {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// Indices of the lines (split on '\n') that match, at most `max_matches`: `regex` decides,
/// and `program`, when given, confirms each line `regex` matched.
pub fn grep_lines(
    text: &str,
    regex: &str,
    program: Option<&Program>,
    max_matches: usize,
) -> Result<Vec<usize>, String> {
    let re = RegexBuilder::new(regex)
        .size_limit(SIZE_LIMIT)
        .dfa_size_limit(DFA_SIZE_LIMIT)
        .nest_limit(1000)
        .build()
        .map_err(|e| format!("invalid pattern: {e}"))?;
    let mut out = Vec::new();
    if max_matches == 0 {
        return Ok(out);
    }
    for (i, line) in text.split('\n').enumerate() {
        if re.is_match(line) && program.is_none_or(|p| p.is_match(line)) {
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

    // `\bab` as grep_program.py compiles it: ASSERT \b, CHAR a, CHAR b, MATCH
    fn word_ab() -> Program {
        Program::new(
            &[(3, 2, 0), (0, 0, 0), (0, 1, 0), (4, 0, 0)],
            vec![vec![(0x61, 0x61)], vec![(0x62, 0x62)]],
        )
        .unwrap()
    }

    #[test]
    fn matches_per_line() {
        assert_eq!(
            grep_lines("alpha\nbeta\ngamma", "a$", None, 10).unwrap(),
            vec![0, 1, 2]
        );
        assert_eq!(
            grep_lines("alpha\nbeta\ngamma", "^b", None, 10).unwrap(),
            vec![1]
        );
        assert_eq!(grep_lines("a\na\na", "a", None, 2).unwrap(), vec![0, 1]);
    }

    #[test]
    fn the_program_confirms_word_boundaries_with_the_projects_word_table() {
        let p = word_ab();
        // '²' is a word character in the project's table (category No), not in regex's \w
        let text = "ab\nxab\n ab\n²ab\n-ab";
        assert_eq!(grep_lines(text, "ab", Some(&p), 10).unwrap(), vec![0, 2, 4]);
    }

    #[test]
    fn bad_programs_are_errors_not_panics() {
        let class = || vec![vec![(0x61, 0x61)]];
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
        assert!(grep_lines("x", "(", None, 1)
            .unwrap_err()
            .starts_with("invalid pattern"));
    }

    #[test]
    fn pathological_pattern_is_linear() {
        let text = "a".repeat(1 << 20);
        let t = std::time::Instant::now();
        assert!(grep_lines(&text, "(a+)+$", None, 1).unwrap() == vec![0]);
        assert!(t.elapsed().as_secs() < 5);
    }
}
