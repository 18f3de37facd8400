//! The native core of ctxsieve: plain Rust over slices and strings, no Python types.
//!
//! Each module mirrors a function of `python/ctxsieve/kernels/reference.py`, which is the
//! specification; the PyO3 bindings live in `py.rs` behind the `python` feature so that
//! `cargo test` runs without an interpreter.

pub mod bm25;
pub mod calibrated;
pub mod dedupe;
pub mod dedupe_blocks;
pub mod dedupe_groups;
pub mod dedupe_index;
pub mod dedupe_memo;
pub mod dedupe_memo_base;
pub mod dedupe_memo_index;
pub mod dedupe_memo_join;
pub mod dedupe_memo_slots;
#[cfg(test)]
mod dedupe_memo_tests;
pub mod dedupe_memo_visit;
pub mod dedupe_order;
pub mod dedupe_scatter;
pub mod fill;
pub mod grep;
pub mod limits;
pub mod order;
pub mod scores;
pub mod text;
pub mod unicode_tables;
pub mod wrap;

// No `#[global_allocator]`: glibc's malloc stays (2026-12-03, issue 15). mimalloc lost: a
// 100k-candidate build's minor page faults fell from 22-33k to 4-10k and its system time from
// 48-102 to 24-65 ms (glibc's per-thread arenas give the kernels' buffers back after each
// build, so the next one faults them in again), but its wall time only 3-4 % (medians of 7,
// interleaved), nothing at 10k, and it cost memory: peak RSS at 100k 306 -> 375 MiB, and a
// 1k agent loop's RSS 62-68 -> 89-106 MiB over 2,000 builds.
#[cfg(feature = "python")]
mod py;
#[cfg(feature = "python")]
mod py_args;
#[cfg(feature = "python")]
mod py_budget;
#[cfg(feature = "python")]
mod py_build;
#[cfg(feature = "python")]
mod py_calibrated;
#[cfg(feature = "python")]
mod py_dedupe_args;
#[cfg(feature = "python")]
mod py_dedupe_memo;
#[cfg(feature = "python")]
mod py_fill;
#[cfg(feature = "python")]
mod py_fill_args;
