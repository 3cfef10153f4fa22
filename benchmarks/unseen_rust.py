"""Unseen probe session 3: a Rust log-slicing CLI that panics on multi-byte characters."""
# ruff: noqa: E501  (scripted transcripts: tool output and code kept as the tools print them)

from __future__ import annotations

from benchmarks.unseen_log import Log, UnseenSession

_RENDER = """use crate::record::Record;

pub struct Renderer {
    width: usize,
    show_level: bool,
}

impl Renderer {
    pub fn new(width: usize, show_level: bool) -> Self {
        Self { width, show_level }
    }

    pub fn line(&self, rec: &Record) -> String {
        let mut out = String::new();
        if self.show_level {
            out.push_str(rec.level.as_str());
            out.push(' ');
        }
        out.push_str(truncate(&rec.message, self.width));
        out
    }
}

pub fn truncate(line: &str, width: usize) -> &str {
    if line.len() <= width {
        return line;
    }
    &line[..width]
}
"""

_FILTER = """use regex::Regex;

pub struct Filter {
    patterns: Vec<String>,
}

impl Filter {
    pub fn matches_filter(&self, line: &str) -> bool {
        self.patterns
            .iter()
            .any(|p| Regex::new(p).expect("valid pattern").is_match(line))
    }
}
"""

_CLI = """use clap::Parser;

#[derive(Parser, Debug)]
#[command(name = "logslice", version)]
pub struct Args {
    /// Maximum output width in columns.
    #[arg(long, default_value_t = 120)]
    pub width: usize,
    /// Only lines matching any of these patterns.
    #[arg(long = "grep")]
    pub patterns: Vec<String>,
    /// Input files (stdin when none).
    pub files: Vec<std::path::PathBuf>,
}
"""

_MAIN = """mod cli;
mod filter;
mod record;
mod render;

fn main() -> anyhow::Result<()> {
    let args = cli::Args::parse();
    let filter = filter::Filter { patterns: args.patterns.clone() };
    let renderer = render::Renderer::new(args.width, true);
    for rec in record::read_all(&args.files)? {
        if filter.matches_filter(&rec.message) {
            println!("{}", renderer.line(&rec));
        }
    }
    Ok(())
}
"""

_CI = """name: ci
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: dtolnay/rust-toolchain@stable
      - run: cargo test --all
      - run: cargo run -- --width 80 fixtures/nginx_small.log
"""


def build() -> UnseenSession:
    """The Rust session: three segments, 26 probes."""
    s = Log("rust")
    s.user(
        "logslice panics on some of the edge nginx logs:\n"
        "thread 'main' panicked at src/render.rs:28:6:\n"
        "byte index 120 is not a char boundary; it is inside 'ü' (bytes 119..121)\n"
        "The repro file is fixtures/bad_utf8.log."
    )
    s.bash("cargo --version", "cargo 1.78.0 (54d8815d0 2024-03-26)")
    s.bash(
        "cargo run -q -- --width 120 fixtures/bad_utf8.log",
        "INFO GET /healthz 200\nINFO GET /api/v2/orders 200\n"
        "thread 'main' panicked at src/render.rs:28:6:\n"
        "byte index 120 is not a char boundary; it is inside 'ü' (bytes 119..121) of `GET /suche?q=Grüße…`\n"
        "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace",
        101,
    )
    s.read("src/render.rs", _RENDER)
    s.say(
        "`truncate` slices `&line[..width]` by byte index, so any line whose 120th byte falls "
        "inside a multi-byte character panics; the fixture's third line has 'ü' at bytes "
        "119..121."
    )
    s.probe("fact", "truncate", "byte index")
    s.say(
        "Two ways out: (1) cut at the last char boundary with `char_indices`, or (2) cut by "
        "display width with the unicode-width crate, so CJK characters count as two columns."
    )
    s.user("go with 2. the output goes to terminals and half our APAC logs are CJK")
    s.probe("decision", "unicode-width", "terminal")
    s.user(
        "Before you add it: we only ship MIT or Apache-2.0 licensed dependencies, check the "
        "license of anything new."
    )
    s.probe("preference", "Apache-2.0")
    s.bash(
        "cargo add unicode-width@0.1.12",
        "    Updating crates.io index\n      Adding unicode-width v0.1.12 to dependencies",
    )
    s.bash(
        "cargo deny check licenses",
        "licenses ok",
        0,
        text="unicode-width is MIT OR Apache-2.0; confirming with cargo-deny.",
    )
    s.edit(
        "src/render.rs",
        "pub fn truncate(line: &str, width: usize) -> &str {\n"
        "    if line.len() <= width {\n        return line;\n    }\n    &line[..width]\n}",
        "pub fn truncate(line: &str, width: usize) -> Cow<'_, str> {\n"
        "    if UnicodeWidthStr::width(line) <= width {\n        return Cow::Borrowed(line);\n    }\n"
        "    let mut used = 0;\n    let mut out = String::new();\n"
        "    for c in line.chars() {\n"
        "        let w = UnicodeWidthChar::width(c).unwrap_or(0);\n"
        "        if used + w > width.saturating_sub(1) {\n            break;\n        }\n"
        "        used += w;\n        out.push(c);\n    }\n"
        "    out.push('…');\n    Cow::Owned(out)\n}",
    )
    s.probe("file change", "src/render.rs", "UnicodeWidthChar")
    s.edit(
        "src/render.rs",
        "use crate::record::Record;",
        "use std::borrow::Cow;\n\nuse unicode_width::{UnicodeWidthChar, UnicodeWidthStr};\n\n"
        "use crate::record::Record;",
    )
    s.edit(
        "src/render.rs",
        "        out.push_str(truncate(&rec.message, self.width));",
        "        out.push_str(&truncate(&rec.message, self.width));",
    )
    s.bash(
        "cargo test",
        "running 14 tests\ntest render::tests::truncates_ascii ... FAILED\n"
        "---- render::tests::truncates_ascii stdout ----\n"
        "thread 'render::tests::truncates_ascii' panicked at src/render.rs:131:9:\n"
        'assertion `left == right` failed\n  left: "hello wor…"\n right: "hello worl"\n'
        "test result: FAILED. 13 passed; 1 failed; 0 ignored",
        101,
    )
    s.say(
        "The old test expects a bare cut; the new code spends the last column on '…'. Should "
        "the ellipsis stay?"
    )
    s.user("Keep the ellipsis, it's how people notice a line was cut.")
    s.probe("decision", "ellipsis", "notice")
    s.edit(
        "src/render.rs",
        '        assert_eq!(truncate("hello world", 10), "hello worl");',
        '        assert_eq!(truncate("hello world", 10), "hello wor…");\n'
        '        assert_eq!(truncate("日本語のログ", 5), "日本…");',
    )
    s.bash("cargo test", "running 14 tests\ntest result: ok. 14 passed; 0 failed; 0 ignored", 0)
    s.probe("fact", "cargo test", "exit 0", stale="exit 101")
    s.bash(
        "cargo run -q -- --width 120 fixtures/bad_utf8.log",
        "INFO GET /healthz 200\nINFO GET /api/v2/orders 200\nINFO GET /suche?q=Grüße…",
        0,
    )
    s.probe("fact", "--width 120 fixtures/bad_utf8.log", "exit 0", stale="exit 101")
    s.user(
        "While we're at it, it's slow. Our biggest edge logs are 14 GB a day and it takes "
        "ages. Can you look?"
    )
    s.probe("fact", "14 GB")
    s.bash(
        "hyperfine --warmup 1 'target/release/logslice --grep timeout --grep 5.. fixtures/edge_1g.log'",
        "Benchmark 1: target/release/logslice --grep timeout --grep 5.. fixtures/edge_1g.log\n"
        "  Time (mean ± σ):     9.412 s ±  0.087 s    [User: 9.301 s, System: 0.106 s]\n"
        "  Range (min … max):   9.318 s …  9.561 s    10 runs",
        0,
    )
    s.probe("fact", "9.412 s")
    s.read("src/filter.rs", _FILTER)
    s.bash(
        "perf report --stdio --sort symbol | head -5",
        "# Overhead  Symbol\n    71.38%  [.] regex::Regex::new\n    9.02%  [.] memchr::memchr\n"
        "    6.11%  [.] logslice::record::parse",
    )
    s.say(
        "71% of the time goes to `Regex::new`: `matches_filter` compiles every pattern again "
        "for every line."
    )
    s.probe("fact", "matches_filter", "71%")
    s.user("TODO: add the bad_utf8 fixture to the CI matrix so this can't come back.")
    s.read("src/main.rs", _MAIN)
    s.read("src/cli.rs", _CLI)
    s.bash("cargo fmt --check && cargo clippy -q -- -D warnings", "", 0)
    s.bash("git add -A && git commit -qm 'render: truncate by display width'", "", 0)
    s.cut()

    s.user(
        "For the filter: compile the patterns once into a RegexSet at startup, since the "
        "per-line compile is the whole 71%."
    )
    s.probe("decision", "RegexSet", "startup")
    s.edit(
        "src/filter.rs",
        "pub struct Filter {\n    patterns: Vec<String>,\n}",
        "pub struct Filter {\n    set: Option<RegexSet>,\n}",
    )
    s.edit(
        "src/filter.rs",
        "        self.patterns\n            .iter()\n"
        '            .any(|p| Regex::new(p).expect("valid pattern").is_match(line))',
        "        self.set.as_ref().map_or(true, |set| set.is_match(line))",
    )
    s.probe("file change", "src/filter.rs", "RegexSet")
    s.edit(
        "src/main.rs",
        "    let filter = filter::Filter { patterns: args.patterns.clone() };",
        "    let filter = filter::Filter::new(&args.patterns)?;",
    )
    s.bash(
        "cargo build --release",
        "error[E0599]: no function or associated item named `new` found for struct `Filter` in "
        "the current scope\n  --> src/main.rs:8:34",
        101,
    )
    s.edit(
        "src/filter.rs",
        "impl Filter {\n",
        "impl Filter {\n    pub fn new(patterns: &[String]) -> Result<Self, regex::Error> {\n"
        "        let set = if patterns.is_empty() { None } else { Some(RegexSet::new(patterns)?) };\n"
        "        Ok(Self { set })\n    }\n\n",
    )
    s.bash(
        "cargo build --release", "    Finished `release` profile [optimized] target(s) in 21.37s", 0
    )
    s.bash(
        "hyperfine --warmup 1 'target/release/logslice --grep timeout --grep 5.. fixtures/edge_1g.log'",
        "  Time (mean ± σ):     1.206 s ±  0.019 s    [User: 1.122 s, System: 0.081 s]",
        0,
    )
    s.say("1.206 s instead of 9.412 s on the 1 GB fixture, about 7.8 times faster.")
    s.probe("fact", "1.206 s")
    s.user("For invalid patterns, print errors as plain text on stderr for now.")
    s.edit(
        "src/cli.rs",
        "    /// Input files (stdin when none).",
        "    /// Colour the level column: auto, always or never.\n"
        '    #[arg(long, default_value = "always")]\n    pub color: String,\n'
        "    /// Input files (stdin when none).",
        text="Adding a --color flag so the level column can be coloured.",
    )
    s.user("no, leave --color out; clap's built-in handling of NO_COLOR is enough for us")
    s.edit(
        "src/cli.rs",
        "    /// Colour the level column: auto, always or never.\n"
        '    #[arg(long, default_value = "always")]\n    pub color: String,\n'
        "    /// Input files (stdin when none).",
        "    /// Input files (stdin when none).",
    )
    s.probe("file change", "src/cli.rs", "reverted", stale="edited")
    s.grep("compat::", [], text="Anything still using the old compat module?")
    s.bash("git rm -q src/compat.rs", "", 0)
    s.probe("file change", "src/compat.rs", "deleted")
    s.user(
        "Use assert_cmd for the CLI test rather than spawning std::process by hand, it finds "
        "the built binary for us."
    )
    s.probe("decision", "assert_cmd", "binary")
    s.write(
        "tests/cli_width.rs",
        "use assert_cmd::Command;\n\n#[test]\nfn cjk_lines_fit_the_width() {\n"
        '    let out = Command::cargo_bin("logslice").unwrap()\n'
        '        .args(["--width", "20", "fixtures/cjk.log"]).output().unwrap();\n'
        "    assert!(out.status.success());\n"
        "    for line in String::from_utf8(out.stdout).unwrap().lines() {\n"
        "        assert!(unicode_width::UnicodeWidthStr::width(line) <= 20);\n    }\n}\n",
    )
    s.probe("file change", "tests/cli_width.rs", "created")
    s.bash(
        "cargo test",
        "running 15 tests\ntest result: ok. 15 passed; 0 failed; 0 ignored\n     Running tests/cli_width.rs\ntest cjk_lines_fit_the_width ... ok",
        0,
    )
    s.user("Not now, but eventually it should read zstd-compressed input (.log.zst) directly.")
    s.probe("todo", "zstd")
    s.user("Bumping the MSRV to 1.74 goes in a separate PR.")
    s.probe("todo", "MSRV")
    s.user("TODO after the release: a --since flag to slice by time range.")
    s.probe("todo", "--since flag")
    s.user("Keep commit subjects under 50 characters, by the way.")
    s.probe("preference", "50 characters")
    s.user("FYI I go through PRs first thing Monday, so no rush today.")
    s.probe("preference", "first thing Monday")
    s.bash("git add -A && git commit -qm 'filter: compile patterns once into a RegexSet'", "", 0)
    s.cut()

    s.user(
        "Scratch the plain-text errors: the log shipper parses our stderr, so switch to JSON "
        "errors, one object per line."
    )
    s.probe("decision", "JSON errors", "shipper", stale="plain text on stderr")
    s.bash("cargo add serde_json@1", "      Adding serde_json v1.0.117 to dependencies")
    s.write(
        "src/errors.rs",
        "use serde_json::json;\n\npub fn report(kind: &str, detail: &str) {\n"
        '    eprintln!("{}", json!({ "level": "error", "kind": kind, "detail": detail }));\n}\n',
    )
    s.probe("file change", "src/errors.rs", "created")
    s.edit(
        "src/main.rs",
        "    let filter = filter::Filter::new(&args.patterns)?;",
        "    let filter = match filter::Filter::new(&args.patterns) {\n"
        "        Ok(f) => f,\n"
        '        Err(e) => {\n            errors::report("bad_pattern", &e.to_string());\n'
        "            std::process::exit(2);\n        }\n    };",
    )
    s.bash(
        "cargo clippy -q -- -D warnings",
        "error: this `match` can be collapsed into an `unwrap_or_else`\n  --> src/main.rs:8:18\n"
        "  = help: for further information visit https://rust-lang.github.io/rust-clippy/master/index.html#manual_unwrap_or\n"
        'error: could not compile `logslice` (bin "logslice") due to 1 previous error',
        101,
    )
    s.edit(
        "src/main.rs",
        "    let filter = match filter::Filter::new(&args.patterns) {\n"
        "        Ok(f) => f,\n"
        '        Err(e) => {\n            errors::report("bad_pattern", &e.to_string());\n'
        "            std::process::exit(2);\n        }\n    };",
        "    let filter = filter::Filter::new(&args.patterns).unwrap_or_else(|e| {\n"
        '        errors::report("bad_pattern", &e.to_string());\n        std::process::exit(2)\n    });',
    )
    s.bash("cargo clippy -q -- -D warnings", "", 0)
    s.probe("fact", "cargo clippy -q -- -D warnings", "exit 0", stale="exit 101")
    s.user("Always run clippy with -D warnings and cargo fmt --check before you commit, please.")
    s.probe("preference", "-D warnings")
    s.read(".github/workflows/ci.yml", _CI)
    s.edit(
        ".github/workflows/ci.yml",
        "      - run: cargo run -- --width 80 fixtures/nginx_small.log",
        "      - run: cargo run -- --width 80 fixtures/nginx_small.log\n"
        "      - run: cargo run -- --width 120 fixtures/bad_utf8.log",
    )
    s.probe("file change", ".github/workflows/ci.yml", "bad_utf8.log")
    s.say("CI now runs the bad_utf8 fixture as well, so that TODO is finished.")
    s.probe("todo", "bad_utf8 fixture to the CI", "done", stale="open")
    s.bash(
        "cargo run -q -- --grep '(' fixtures/nginx_small.log; echo status=$?",
        '{"detail":"regex parse error:\\n    (\\n    ^\\nerror: unclosed group","kind":"bad_pattern","level":"error"}\nstatus=2',
        0,
    )
    s.bash(
        "cargo fmt --check && cargo test -q",
        "running 15 tests\n...............\ntest result: ok. 15 passed; 0 failed",
        0,
    )
    s.bash("git add -A && git commit -qm 'errors: JSON on stderr'", "", 0)
    s.user("good. what's the binary size now?")
    s.bash("ls -lh target/release/logslice | awk '{print $5}'", "3.1M", 0)
    s.say("3.1M for the release binary.")
    s.user("fine. push")
    s.bash(
        "git push -u origin fix/utf8-width",
        " * [new branch]      fix/utf8-width -> fix/utf8-width",
        0,
    )
    return s.session
