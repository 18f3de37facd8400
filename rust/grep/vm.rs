//! The grep program and its Pike VM (the lazy DFA's fallback, and the judge of `\b` and `\B`).
//!
//! Threads are a bit set (bit pc: a thread waits at instruction pc), as in the reference
//! (`kernels/grep_program.py`): a step ORs the cached closure of each live non-consuming
//! instruction and shifts the CHAR instructions that accept the character by one, so it costs
//! O(program / 64) word operations plus one per live SPLIT, JMP or ASSERT thread, instead of
//! one per thread. The first version walked a thread list and measured 4 s/MiB on
//! `[ab]*a[ab]{500}[ab]{490}c`.

use std::collections::HashMap;

use crate::text::{in_ranges, is_word_char};

/// A program sent from Python is at most 1,000 instructions; this only stops a direct caller
/// of the private module from allocating without bound.
const MAX_INSTRUCTIONS: usize = 1 << 16;
/// Distinct characters whose accepting set is kept per search (then the cache starts over).
const ACCEPT_CACHE: usize = 4096;

type Bits = Vec<u64>;

#[derive(Clone, Copy, Debug)]
enum Op {
    Char,
    Split(usize, usize),
    Jmp(usize),
    /// 0 `^`, 1 `$`, 2 `\b`, 3 `\B`
    Look(usize),
    Match,
}

/// A Thompson program as `kernels/grep_program.py` compiles it: opcodes 0 CHAR k, 1 SPLIT a b,
/// 2 JMP a, 3 ASSERT k (0 `^`, 1 `$`, 2 `\b`, 3 `\B`), 4 MATCH; `classes` are sorted, disjoint,
/// inclusive code-point ranges.
#[derive(Debug)]
pub struct Program {
    ops: Vec<Op>,
    classes: Vec<Vec<(u32, u32)>>,
    class_pcs: Vec<Bits>, // the CHAR instructions testing each class
    plain: Bits,          // CHAR and MATCH: their own closure
    matches: Bits,        // MATCH
}

fn bit(bits: &mut Bits, pc: usize) {
    bits[pc / 64] |= 1 << (pc % 64);
}

fn has(bits: &Bits, pc: usize) -> bool {
    bits[pc / 64] >> (pc % 64) & 1 == 1
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
        let words = n.div_ceil(64);
        let (mut plain, mut matches) = (vec![0; words], vec![0; words]);
        let mut class_pcs = vec![vec![0; words]; classes.len()];
        let mut ops = Vec::with_capacity(n);
        for (i, &(op, a, b)) in raw.iter().enumerate() {
            ops.push(match op {
                0 if (a as usize) < classes.len() => {
                    bit(&mut plain, i);
                    bit(&mut class_pcs[a as usize], i);
                    Op::Char
                }
                1 => Op::Split(target(i, a)?, target(i, b)?),
                2 => Op::Jmp(target(i, a)?),
                3 if a < 4 => Op::Look(a as usize),
                4 => {
                    bit(&mut plain, i);
                    bit(&mut matches, i);
                    Op::Match
                }
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
        Ok(Self {
            ops,
            classes,
            class_pcs,
            plain,
            matches,
        })
    }

    fn words(&self) -> usize {
        self.plain.len()
    }

    /// A matcher with its own caches, for the lines of one search.
    pub fn matcher(&self) -> Matcher<'_> {
        Matcher {
            p: self,
            closures: vec![None; 8 * self.ops.len()],
            accepting: HashMap::new(),
        }
    }

    /// The CHAR and MATCH instructions reachable from `start` without consuming, under the
    /// assertions' `context` (bit 0 line start, 1 line end, 2 word boundary), and every
    /// instruction visited on the way.
    fn closure(&self, context: usize, start: usize) -> (Bits, Bits) {
        let holds = [
            context & 1 != 0,
            context & 2 != 0,
            context & 4 != 0,
            context & 4 == 0,
        ];
        let (mut reached, mut visited) = (vec![0; self.words()], vec![0; self.words()]);
        let mut stack = vec![start];
        while let Some(pc) = stack.pop() {
            if has(&visited, pc) {
                continue;
            }
            bit(&mut visited, pc);
            match self.ops[pc] {
                Op::Char | Op::Match => bit(&mut reached, pc),
                Op::Split(a, b) => stack.extend([b, a]),
                Op::Jmp(a) => stack.push(a),
                Op::Look(k) => {
                    if holds[k] {
                        stack.push(pc + 1);
                    }
                }
            }
        }
        (reached, visited)
    }

    /// The CHAR instructions whose class holds `c`.
    fn accepting(&self, c: char) -> Bits {
        let mut out = vec![0; self.words()];
        for (ranges, pcs) in self.classes.iter().zip(&self.class_pcs) {
            if in_ranges(ranges, c as u32) {
                out.iter_mut().zip(pcs).for_each(|(o, p)| *o |= p);
            }
        }
        out
    }

    /// Whether the program matches somewhere in `line` (a one-off matcher).
    pub fn is_match(&self, line: &str) -> bool {
        self.matcher().is_match(line)
    }
}

pub struct Matcher<'p> {
    p: &'p Program,
    closures: Vec<Option<(Bits, Bits)>>, // by context * len + pc
    accepting: HashMap<char, Bits>,
}

impl Matcher<'_> {
    /// Whether the program matches somewhere in `line`: all threads in lock-step, a fresh one
    /// started at every position; O(line length x program size) at worst.
    pub fn is_match(&mut self, line: &str) -> bool {
        let p = self.p;
        let (n, words) = (p.ops.len(), p.words());
        let mut threads: Bits = vec![0; words];
        let (mut reached, mut pending): (Bits, Bits) = (vec![0; words], vec![0; words]);
        let mut prev_word = false;
        let mut chars = line.chars();
        let mut at_start = true;
        loop {
            let ch = chars.next();
            let next_word = ch.is_some_and(is_word_char);
            let context = usize::from(at_start)
                | usize::from(ch.is_none()) << 1
                | usize::from(prev_word != next_word) << 2;
            threads[0] |= 1; // a match may start here
            for i in 0..words {
                reached[i] = threads[i] & p.plain[i];
                pending[i] = threads[i] & !p.plain[i];
            }
            for i in 0..words {
                while pending[i] != 0 {
                    let pc = i * 64 + pending[i].trailing_zeros() as usize;
                    let (closure, visited) = self.closures[context * n + pc]
                        .get_or_insert_with(|| p.closure(context, pc));
                    for j in 0..words {
                        reached[j] |= closure[j];
                        pending[j] &= !visited[j]; // pc is visited: the loop moves on
                    }
                }
            }
            if reached.iter().zip(&p.matches).any(|(r, m)| r & m != 0) {
                return true;
            }
            let Some(c) = ch else {
                return false;
            };
            if self.accepting.len() >= ACCEPT_CACHE {
                self.accepting.clear();
            }
            let accept = self.accepting.entry(c).or_insert_with(|| p.accepting(c));
            let mut carry = 0; // threads = (reached & accept) << 1: a CHAR continues at pc + 1
            for i in 0..words {
                let x = reached[i] & accept[i];
                threads[i] = x << 1 | carry;
                carry = x >> 63;
            }
            prev_word = next_word;
            at_start = false;
        }
    }
}
