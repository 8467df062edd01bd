//! The module graph of `src/` has no circle: each file depends only on the
//! files below it, so a change to one concern never has to go around. No
//! file of `src/` is over 800 lines nor any function over 100, and the
//! guides stay short and link to what exists.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, at any depth.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src reads") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The files of `src/`, at any depth.
fn sources() -> Vec<PathBuf> {
    let mut files = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    files.sort();
    files
}

/// Each module of `src/` (a folder's files, at any depth, as the folder:
/// `src/gen/census/rows.rs` as `gen`) and the modules its code names
/// through `crate::`, comments left out.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = sources();
    let module = |path: &Path| -> String {
        let inside = path.strip_prefix(&src).expect("under src");
        let first = inside.components().next().expect("a file");
        Path::new(first.as_os_str())
            .file_stem()
            .unwrap()
            .to_string_lossy()
            .into_owned()
    };
    let modules: BTreeSet<String> = files.iter().map(|p| module(p)).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in &files {
        let from = module(path);
        if from == "lib" || from == "main" {
            continue;
        }
        let text = std::fs::read_to_string(path).expect("a source file reads");
        let deps = graph.entry(from.clone()).or_default();
        for line in text.lines().filter(|l| !l.trim_start().starts_with("//")) {
            for (at, _) in line.match_indices("crate::") {
                let name: String = line[at + "crate::".len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if name != from && modules.contains(&name) {
                    deps.insert(name);
                }
            }
        }
    }
    graph
}

/// A circle reachable from the last module of `path` (the way there), if
/// there is one.
fn circle(
    graph: &BTreeMap<String, BTreeSet<String>>,
    path: &mut Vec<String>,
) -> Option<Vec<String>> {
    let last = path.last().cloned()?;
    for next in graph.get(&last).into_iter().flatten() {
        if let Some(i) = path.iter().position(|m| m == next) {
            let mut found = path[i..].to_vec();
            found.push(next.clone());
            return Some(found);
        }
        path.push(next.clone());
        if let Some(found) = circle(graph, path) {
            return Some(found);
        }
        path.pop();
    }
    None
}

#[test]
fn no_module_of_src_imports_in_a_circle() {
    let graph = graph();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    assert!(
        sources()
            .iter()
            .any(|p| p.strip_prefix(&src).unwrap().components().count() > 2),
        "files in folders of folders are read"
    );
    assert!(
        graph.contains_key("diff") && graph.contains_key("gen"),
        "{graph:?}"
    );
    assert!(
        graph["diff"].contains("gen") && graph["report"].contains("standing"),
        "the graph is read: {graph:?}"
    );
    for start in graph.keys() {
        let found = circle(&graph, &mut vec![start.clone()]);
        assert!(
            found.is_none(),
            "an import circle: {}",
            found.unwrap().join(" -> ")
        );
    }
}

/// No room of `src/` is larger than a reader holds in mind at once.
const FILE_LINES_MAX: usize = 800;

/// No definition of a function is longer than a reader follows at once.
const FN_LINES_MAX: usize = 100;

/// The functions of a rustfmt-formatted source, each as its name, first
/// line (counted from 1) and length in lines: a function starts at a line
/// whose code begins with `fn` (after `pub`, `const`, `async`, `unsafe`,
/// `extern "C"`) and ends at the first line after it that closes a brace
/// at the same indent, or on its own line when it has no body there.
fn functions(text: &str) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut found = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        let indent = line.len() - code.len();
        let mut rest = code;
        if let Some(r) = rest.strip_prefix("pub") {
            rest = match r.strip_prefix('(') {
                Some(r) => r.split_once(") ").map_or("", |(_, r)| r),
                None => r.strip_prefix(' ').unwrap_or(""),
            };
        }
        for qualifier in ["const ", "async ", "unsafe ", "extern \"C\" "] {
            rest = rest.strip_prefix(qualifier).unwrap_or(rest);
        }
        let Some(signature) = rest.strip_prefix("fn ") else {
            continue;
        };
        let name: String = signature
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let end = if code.ends_with('}') || code.ends_with(';') {
            i
        } else {
            let closing = format!("{}}}", " ".repeat(indent));
            (i + 1..lines.len())
                .find(|&j| lines[j].starts_with(&closing))
                .unwrap_or(lines.len() - 1)
        };
        found.push((name, i + 1, end - i + 1));
    }
    found
}

#[test]
fn functions_are_read_from_their_signature_to_their_closing_brace() {
    let text = "fn a() {}\n\npub(crate) fn b(\n    x: u8,\n) -> u8 {\n    x\n}\n\nimpl T {\n    pub const fn c() -> u8 {\n        if true {\n            1\n        } else {\n            2\n        }\n    }\n    fn d();\n}\n";
    let got: Vec<(String, usize, usize)> = functions(text);
    let want = [("a", 1, 1), ("b", 3, 5), ("c", 10, 7), ("d", 17, 1)];
    let want: Vec<(String, usize, usize)> = want
        .iter()
        .map(|&(n, at, len)| (n.to_string(), at, len))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn no_file_of_src_is_over_800_lines_and_no_function_over_100() {
    let mut over = Vec::new();
    let mut seen = 0;
    for path in sources() {
        let text = std::fs::read_to_string(&path).expect("a source file reads");
        let shown = path.display();
        let lines = text.lines().count();
        if lines > FILE_LINES_MAX {
            over.push(format!("{shown}: {lines} lines"));
        }
        for (name, at, len) in functions(&text) {
            seen += 1;
            if len > FN_LINES_MAX {
                over.push(format!("{shown}:{at}: fn {name}, {len} lines"));
            }
        }
    }
    assert!(seen > 500, "the functions are read: {seen}");
    assert!(
        over.is_empty(),
        "over {FILE_LINES_MAX} lines a file or {FN_LINES_MAX} a function:\n{}",
        over.join("\n")
    );
}

/// The repository's guides as a reader meets them: each Markdown file's
/// headings, its links with the line they are on, and the text of its code
/// blocks with the line each starts on.
struct Doc {
    headings: Vec<(usize, String)>,
    links: Vec<(usize, String)>,
    code: Vec<(usize, String)>,
    lines: usize,
}

fn doc(path: &str) -> Doc {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    let text = std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{path}: {e}"));
    let line_of = |at: usize| text[..at].matches('\n').count() + 1;
    let mut doc = Doc {
        headings: Vec::new(),
        links: Vec::new(),
        code: Vec::new(),
        lines: text.lines().count(),
    };
    let mut open: Option<(usize, String)> = None;
    for (event, range) in Parser::new_ext(&text, Options::ENABLE_TABLES).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { .. }) | Event::Start(Tag::CodeBlock(_)) => {
                open = Some((line_of(range.start), String::new()));
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((_, s)) = open.as_mut() {
                    s.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => doc.headings.extend(open.take()),
            Event::End(TagEnd::CodeBlock) => doc.code.extend(open.take()),
            Event::Start(Tag::Link { dest_url, .. }) => {
                doc.links
                    .push((line_of(range.start), dest_url.into_string()));
            }
            _ => {}
        }
    }
    doc
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces
/// as hyphens.
fn anchor(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// README.md is the user's guide, not the lab notebook: at most 400 lines,
/// and a newcomer finds in its first 150 the two commands, the protocol's
/// heading and a link to every adapter template in `tests/adapter/` and
/// `tests/adapters/` (found on disk, so a new template must be linked).
#[test]
fn the_readme_is_a_short_guide_with_what_a_newcomer_needs_first() {
    const MOST: usize = 400;
    const FIRST: usize = 150;
    let readme = doc("README.md");
    assert!(
        readme.lines <= MOST,
        "README.md has {} lines, over {MOST}: move what a user does not need beside what it describes",
        readme.lines
    );
    let commands = readme
        .code
        .iter()
        .filter(|(line, _)| *line <= FIRST)
        .flat_map(|(_, code)| code.lines().map(str::trim))
        .map(|l| l.split('#').next().unwrap_or("").trim().to_owned())
        .collect::<Vec<_>>();
    for command in ["cargo run --release -- diff", "cargo test"] {
        assert!(
            commands.iter().any(|c| c == command),
            "no `{command}` in a code block of README.md's first {FIRST} lines: {commands:?}"
        );
    }
    assert!(
        readme
            .headings
            .iter()
            .any(|(line, h)| *line <= FIRST && h == "The protocol"),
        "no heading `The protocol` in README.md's first {FIRST} lines: {:?}",
        readme.headings
    );
    // The names in a directory of the repository, none when it is not one.
    let names = |dir: &str| -> Vec<String> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .map(|entry| {
                entry
                    .expect("an entry")
                    .file_name()
                    .to_string_lossy()
                    .into_owned()
            })
            .collect()
    };
    let mut templates: Vec<String> = names("tests/adapter")
        .into_iter()
        .filter(|name| name.ends_with(".py"))
        .map(|name| format!("tests/adapter/{name}"))
        .collect();
    for stack in names("tests/adapters") {
        let dir = format!("tests/adapters/{stack}");
        for name in names(&dir)
            .into_iter()
            .filter(|n| n.starts_with("adapter."))
        {
            templates.push(format!("{dir}/{name}"));
        }
    }
    assert!(
        templates.len() >= 7,
        "the templates are found: {templates:?}"
    );
    for template in &templates {
        assert!(
            readme
                .links
                .iter()
                .any(|(line, to)| *line <= FIRST && to == template),
            "README.md's first {FIRST} lines do not link the adapter template {template}"
        );
    }
}

/// Every relative link of the guides and notebooks reaches a file that
/// exists, and every link to a heading of README.md reaches one: the lab
/// notebook moved out of the README is still found from it.
#[test]
fn the_guides_link_to_what_exists() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = doc("README.md");
    let anchors: BTreeSet<String> = readme.headings.iter().map(|(_, h)| anchor(h)).collect();
    let files = [
        "README.md",
        "ARCHITECTURE.md",
        "CAMPAIGNS.md",
        "tests/CATALOGUE.md",
        "tests/CENSUS.md",
        "tests/adapters/FINDINGS.md",
        "tests/bench/RECORD.md",
        "tests/fuzz/README.md",
        ".ci/MUTANTS.md",
    ];
    let mut checked = 0;
    for file in files {
        let dir = Path::new(file).parent().expect("a directory");
        for (line, to) in doc(file).links {
            if to.contains("://") || to.starts_with("mailto:") {
                continue;
            }
            let (path, fragment) = to.split_once('#').unwrap_or((&to, ""));
            let target = if path.is_empty() {
                Path::new(file).to_path_buf()
            } else {
                dir.join(path)
            };
            assert!(
                root.join(&target).exists(),
                "{file}:{line} links {to}, which is not there"
            );
            if !fragment.is_empty() && root.join(&target) == root.join("README.md") {
                assert!(
                    anchors.contains(fragment),
                    "{file}:{line} links {to}, a heading README.md does not have: {anchors:?}"
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 30, "the links are read: {checked}");
}

/// Every test file a guide or a doc comment of `src/` names (a path
/// `tests/….rs`) is there: the tests moved into four binaries once, and the
/// prose that pointed at their old places sent a newcomer nowhere. The
/// mutation record (`.ci/MUTANTS.md`) is history, and names the files of
/// each run as they were then.
#[test]
fn the_test_files_named_in_the_docs_are_there() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut named = sources();
    for guide in [
        "README.md",
        "ARCHITECTURE.md",
        "CAMPAIGNS.md",
        "tests/CATALOGUE.md",
        "tests/CENSUS.md",
        "tests/bench/RECORD.md",
        "tests/fuzz/README.md",
        ".ci/run",
        ".ci/mutants",
    ] {
        named.push(root.join(guide));
    }
    let mut checked = 0;
    for file in named {
        let text = std::fs::read_to_string(&file).expect("the file reads");
        for (n, line) in text.lines().enumerate() {
            let mut rest = line;
            while let Some(at) = rest.find("tests/") {
                let path: String = rest[at..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || "/_-.".contains(*c))
                    .collect();
                rest = &rest[at + path.len()..];
                // A path at the end of a sentence.
                let path = path.trim_end_matches('.');
                if !path.ends_with(".rs") {
                    continue;
                }
                assert!(
                    root.join(path).exists(),
                    "{}:{} names {path}, which is not there",
                    file.display(),
                    n + 1
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 40, "the paths are read: {checked}");
}
