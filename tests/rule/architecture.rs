//! The module graph of `src/` has no circle: each file depends only on the
//! files below it, so a change to one concern never has to go around.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each module of `src/` (the files of `src/gen/` as `gen`, of
/// `src/report/` as `report`) and the modules its code names through
/// `crate::`, comments left out.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    for dir in [src.clone(), src.join("gen"), src.join("report")] {
        for entry in std::fs::read_dir(&dir).expect("src reads") {
            let path = entry.expect("an entry").path();
            if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    let module = |path: &Path| -> String {
        match path.parent() {
            Some(dir) if dir != src => dir.file_name().unwrap().to_string_lossy().into_owned(),
            _ => path.file_stem().unwrap().to_string_lossy().into_owned(),
        }
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
